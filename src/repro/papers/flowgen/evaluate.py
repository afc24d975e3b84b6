"""Score every parser on one seed's test images: triple F1 (strict, relaxed; all triples and
the flow triples without partOf) and QA accuracy, image by image."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger
from repro.papers.flowgen.parse import Vocabulary, answer_from_triples, ocr_parse, trained_parse
from repro.papers.flowgen.score import qa_correct, relaxed_f1, strict_f1
from repro.papers.flowgen.settings import load
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
    vocab = Vocabulary(set(trained["vocab"]), cfg.parser.vocab_threshold)
    rows = []
    for name in cfg.parser.models:
        if name.startswith(("mllm:", "mllm-sft:")):
            from repro.papers.flowgen.mllm import Mllm

            base = name.split(":", 1)[1]
            adapter = (a.adapters[cfg.sft_models().index(base)]
                       if name.startswith("mllm-sft:") else None)
            reader = Mllm(base, cfg.mllm, adapter)
        for rec, page in zip(index["images"], pages, strict=True):
            chart = charts[rec["chart"]]
            if name == "ocr":
                pred = ocr_parse(page)
                answers = [answer_from_triples(pred, q) for q in chart["qa"]]
            elif name == "trained":
                pred = trained_parse(page, trained["model"], vocab, cfg.parser.threshold)
                answers = [answer_from_triples(pred, q) for q in chart["qa"]]
            else:
                pred, answers = reader.read(a.images / rec["image"], chart["qa"])
            rows.append({"parser": name, "chart": rec["chart"], "level": rec["level"],
                         "renderer": rec["renderer"], "style": rec["style"],
                         "predicted": len(pred), "gold": len(chart["triples"]),
                         **score_image(pred, chart, answers)})
        mean = np.mean([r["f1_strict"] for r in rows if r["parser"] == name])
        log.info("seed %d, %s: strict F1 %.3f over %d images", a.seed, name, mean,
                 len(index["images"]))
    write_json(a.out, {"seed": a.seed, "rows": rows})


if __name__ == "__main__":
    main()
