"""Train the `trained` parser on one seed's training split: an edge/direction classifier over
candidate node pairs, and the split's vocabulary. Detected nodes are matched to the true ones by
the renderer's layout boxes, so the labels come from the ground-truth graph."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, read_json, write_json
from repro.core.seeding import seed_everything
from repro.papers.flowgen.parse import candidates, pair_features
from repro.papers.flowgen.settings import load
from repro.papers.flowgen.synth import EDGE_VERBS, logical_edges


def align(page: dict[str, Any], layout: dict[str, Any]) -> list[str | None]:
    """The true node id of each detected node: the layout box holding its centre (the
    smallest, where boxes overlap), else None."""
    out = []
    for n in page["nodes"]:
        x, y = n["center"]
        hits = [(abs(b[2] - b[0]) * abs(b[3] - b[1]), nid) for nid, b in layout["nodes"].items()
                if b[0] <= x <= b[2] and b[1] <= y <= b[3]]
        out.append(min(hits)[1] if hits else None)
    return out


def examples(page: dict[str, Any], chart: dict[str, Any], layout: dict[str, Any]
             ) -> tuple[list[list[float]], list[int]]:
    ids = align(page, layout)
    true = {(u, v) for u, _, v in logical_edges(chart)}
    X, y = [], []
    for ci, s, t in candidates(page):
        X.append(pair_features(page, page["comps"][ci], s, t))
        y.append(int((ids[s["node"]], ids[t["node"]]) in true))
    return X, y


def vocabulary(charts: list[dict[str, Any]]) -> set[str]:
    words = {w for ch in charts for n in ch["nodes"] for w in n["label"].split()}
    words |= {w for ch in charts for g in ch["groups"] for w in g["label"].split()}
    return words | set(EDGE_VERBS) & {e["label"] for ch in charts for e in ch["edges"]}


def main(argv: list[str] | None = None) -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier

    ap = job_parser("train the flowgen parser on one seed's training split")
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--pages", required=True, type=Path)
    ap.add_argument("--summary", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    seed_everything(a.seed)
    index, pages = read_json(a.index), read_json(a.pages)["pages"]
    charts = {c["id"]: c for c in index["charts"]}
    X, y = [], []
    for rec, page in zip(index["images"], pages, strict=True):
        xi, yi = examples(page, charts[rec["chart"]], rec["layout"])
        X += xi
        y += yi
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if len(set(y.tolist())) < 2:
        raise ValueError(f"training split of seed {a.seed} gave {len(y)} candidate pairs with "
                         "one class only: raise data.n_train")
    # early stopping on a held-out fifth of the training pairs: without it the boosted trees fit
    # the training pairs perfectly (training accuracy 1.0 at small)
    model = HistGradientBoostingClassifier(max_iter=cfg.parser.max_iter, random_state=a.seed,
                                           early_stopping=True, validation_fraction=0.2,
                                           n_iter_no_change=10)
    model.fit(X, y)
    vocab = vocabulary(list(charts.values()))
    with atomic_path(a.out) as tmp, open(tmp, "wb") as f:
        pickle.dump({"model": model, "vocab": sorted(vocab)}, f)
    write_json(a.summary, {"seed": a.seed, "pairs": int(len(y)), "positives": int(y.sum()),
                           "train_accuracy": float(model.score(X, y)),
                           "iterations": int(model.n_iter_),
                           "vocabulary": len(vocab), "images": len(pages)})


if __name__ == "__main__":
    main()
