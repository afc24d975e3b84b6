"""flowgen's fetch step. FlowGen's data is synthesized (synthesize.py), so offline this step
checks the Debian tools the renderers and the OCR parser need and records their versions; at
full scale it also downloads the MLLMs the config names from the hub (HF_TOKEN where gated)."""

from __future__ import annotations

import subprocess
from typing import Any

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.papers.flowgen.parse import need_tesseract
from repro.papers.flowgen.render import HAND_FONT, _mpl_font, need_tools
from repro.papers.flowgen.settings import load


def _version(cmd: list[str]) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return (r.stdout or r.stderr).strip().splitlines()[0]


def fetch_models(models: list[str]) -> dict[str, Any]:
    from huggingface_hub import snapshot_download

    ids = dict.fromkeys(m.split(":", 1)[1] for m in models
                        if m.startswith(("mllm:", "mllm-sft:")))
    return {m: snapshot_download(m) for m in ids}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("check flowgen's tools (and fetch its MLLMs at full)")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    need_tools()
    need_tesseract()
    _mpl_font(HAND_FONT)
    write_json(a.out, {"scale": a.scale, "data": "synthesized (no download)",
                       "graphviz": _version(["dot", "-V"]),
                       "tesseract": _version(["tesseract", "--version"]),
                       "handwritten_font": HAND_FONT,
                       "models": fetch_models(cfg.parser.models)})


if __name__ == "__main__":
    main()
