"""Score one trained front-end + STEE on its held-out test speakers (or test group).

    python -m repro.papers.lfst.evaluate --config src/repro/papers/lfst/config.yaml --scale small \
        --model results/small/lfst/runs/clean/lfst/fold0_seed0.pt \
        --data data/lfst/small/clean.npz --out results/small/lfst/eval/clean/lfst/fold0_seed0.json

Metrics: accuracy (weighted accuracy, WA), unweighted accuracy (UA: the mean per-class recall)
and macro-F1, the confusion matrix; for the superlet front-ends also what they learned (the
grid, base cycles, effective orders and LAHT thresholds per band).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.papers.lfst.settings import load


def metrics(y: np.ndarray, pred: np.ndarray, n_classes: int) -> dict[str, Any]:
    from sklearn.metrics import confusion_matrix, f1_score

    from repro.papers.lfst.train import unweighted_accuracy

    return {"acc": float(np.mean(pred == y)), "ua": unweighted_accuracy(y, pred, n_classes),
            "f1": float(f1_score(y, pred, average="macro", labels=list(range(n_classes)),
                                 zero_division=0)),
            "confusion": confusion_matrix(y, pred, labels=list(range(n_classes))).tolist()}


def learned(model) -> dict[str, list[float]] | None:
    """The superlet front-end's per-band parameters after training (None for the others)."""
    from repro.papers.lfst.frontends import Superlets

    fe = model.frontend
    if not isinstance(fe, Superlets) or not fe.learn:
        return None
    t_pos, _ = fe.thresholds()
    return {"freq_hz": fe.freqs().tolist(), "c1": fe.c1().tolist(),
            "order": fe.effective_order().tolist(), "laht_threshold": t_pos.tolist()}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("lfst: score one trained model on its test split")
    ap.add_argument("--model", required=True, type=Path)
    ap.add_argument("--data", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)

    import torch

    from repro.core.device import limit_cpu_threads, pick_device
    from repro.papers.lfst.train import load_data, load_model, predict

    limit_cpu_threads(cfg.threads)
    device = pick_device(require_gpu=a.scale == "full")
    model, meta = load_model(a.model, cfg, device)
    data = load_data(a.data, meta["fold"], device)
    te = torch.as_tensor(data["test"])
    with torch.no_grad():
        prob = predict(model, data["x"][te], data["lengths"][te])
        params = learned(model)
    y = data["y"][te].cpu().numpy()
    out = {**{k: meta[k] for k in ("method", "condition", "fold", "seed", "classes",
                                   "best_epoch", "val_ua")},
           "test": len(te), **metrics(y, prob.argmax(1), len(meta["classes"])),
           "learned": params, "val_curve": meta["val_curve"], "loss": meta["loss"]}
    write_json(a.out, out)
    print(json.dumps({k: out[k] for k in ("method", "condition", "seed", "acc", "ua", "f1")}))


if __name__ == "__main__":
    main()
