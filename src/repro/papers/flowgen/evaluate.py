"""Score every parser on one seed's test images: triple F1 (strict, relaxed; all triples and
the flow triples without partOf) and QA accuracy, image by image."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable
from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger
from repro.papers.flowgen.parse import OcrReader, Reader, TrainedReader, Vocabulary
from repro.papers.flowgen.score import qa_correct, relaxed_f1, strict_f1
from repro.papers.flowgen.settings import Settings, load
from repro.papers.flowgen.synth import PART_OF

log = get_logger("flowgen.evaluate")


def score_image(pred: list[list[str]], chart: dict[str, Any], answers: list[str]
                ) -> dict[str, float]:
    gold = chart["triples"]
    flow = [t for t in gold if t[1] != PART_OF]
    p, r, f = strict_f1(pred, gold)
    return {"precision": p, "recall": r, "f1_strict": f,
            "f1_relaxed": relaxed_f1(pred, gold)[2],
            "f1_flow": strict_f1(pred, flow)[2],
            "qa_accuracy": float(np.mean([qa_correct(ans, q["answer"])
                                          for ans, q in zip(answers, chart["qa"],
                                                            strict=True)]))}


def make_reader(name: str, cfg: Settings, trained: dict[str, Any], adapters: list[Path]
                ) -> Reader:
    if name == "ocr":
        return OcrReader()
    if name == "trained":
        return TrainedReader(trained["model"],
                             Vocabulary(set(trained["vocab"]), cfg.parser.vocab_threshold),
                             cfg.parser.threshold)
    from repro.papers.flowgen.mllm import Mllm

    base = name.split(":", 1)[1]
    adapter = adapters[cfg.sft_models().index(base)] if name.startswith("mllm-sft:") else None
    return Mllm(base, cfg.mllm, adapter)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("score the flowgen parsers on one seed's test split")
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--pages", required=True, type=Path)
    ap.add_argument("--model", required=True, type=Path)
    ap.add_argument("--images", required=True, type=Path)
    ap.add_argument("--adapters", nargs="*", default=[], type=Path,
                    help="finetune.py's adapters, one per mllm-sft model in config order")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    index, pages = read_json(a.index), read_json(a.pages)["pages"]
    charts = {c["id"]: c for c in index["charts"]}
    with open(a.model, "rb") as f:
        trained = pickle.load(f)
    readers: dict[str, Reader] = {}
    n = len(index["images"])

    def one(item: tuple[str, int]) -> dict[str, Any]:
        name, i = item
        if name not in readers:  # an MLLM loads once, and only when its first image comes
            readers[name] = make_reader(name, cfg, trained, a.adapters)
        rec, chart = index["images"][i], charts[index["images"][i]["chart"]]
        pred, answers = readers[name].read(a.images / rec["image"], pages[i], chart["qa"])
        if i + 1 == n or (i + 1) % 100 == 0:
            log.info("seed %d, %s: %d/%d images scored", a.seed, name, i + 1, n)
        return {"parser": name, "chart": rec["chart"], "level": rec["level"],
                "renderer": rec["renderer"], "style": rec["style"],
                "predicted": len(pred), "gold": len(chart["triples"]),
                **score_image(pred, chart, answers)}

    items = [(name, i) for name in cfg.parser.models for i in range(n)]
    with Resumable(a.out, {"seed": a.seed, "models": cfg.parser.models}, every=50,
                   inputs=[a.index, a.pages, a.model], what=f"evaluate seed {a.seed}") as run:
        rows = run.map(one, items)
    for name in cfg.parser.models:
        mean = np.mean([r["f1_strict"] for r in rows if r["parser"] == name])
        log.info("seed %d, %s: strict F1 %.3f over %d images", a.seed, name, mean, n)
    write_json(a.out, {"seed": a.seed, "rows": rows})


if __name__ == "__main__":
    main()
