"""Train one front-end + STEE on one condition, fold and seed.

    python -m repro.papers.lfst.train --config src/repro/papers/lfst/config.yaml --scale small \
        --method lfst --condition clean --fold 0 --seed 0 --data data/lfst/small/clean.npz \
        --out results/small/lfst/runs/clean/lfst/fold0_seed0.pt

The paper's recipe (NOTES.md 2.7): AdamW with cosine decay over all steps, weight decay,
gradient clipping at 1, focal loss (gamma 2) with class weights 1 / frequency, the model of the
epoch with the best validation unweighted accuracy kept (early stopping by selection). A fixed
front-end (STFT, CWT, the fixed superlet) is computed once for every clip; a learnable one on
every batch. Each epoch's order comes from (seed, epoch) and the loop saves its state through
repro.core.checkpoint, so a stopped job resumes and ends with the same bytes.
"""

from __future__ import annotations

import copy
import io
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import atomic_path
from repro.core.progress import get_logger
from repro.papers.lfst.settings import FRONTENDS, Settings, classes_of, load


def fixed_maps(model, x, lengths, batch: int = 64):
    """The fixed front-end's maps for every clip, once."""
    import torch

    with torch.no_grad():
        parts = [model.features(x[i:i + batch]) for i in range(0, len(x), batch)]
    return torch.cat([p[0] for p in parts]), parts[0][1]


def predict(model, x, lengths, maps=None, batch: int = 64) -> np.ndarray:
    """Class probabilities (n, C) in eval mode."""
    import torch

    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            m = None if maps is None else (maps[0][i:i + batch], maps[1])
            out.append(torch.softmax(model(x[i:i + batch], lengths[i:i + batch], m), -1))
    return torch.cat(out).cpu().numpy()


def unweighted_accuracy(y: np.ndarray, pred: np.ndarray, n_classes: int) -> float:
    recalls = [float(np.mean(pred[y == c] == c)) for c in range(n_classes) if np.any(y == c)]
    return float(np.mean(recalls))


def train(model, data: dict[str, Any], cfg: Settings, seed: int, ck: Resumable, log
          ) -> dict[str, Any]:
    import torch

    from repro.papers.lfst.stee import class_weights, focal_loss

    t = cfg.train
    x, lengths, y = data["x"], data["lengths"], data["y"]
    tr, va = data["train"], data["val"]
    n_classes = data["classes"]
    maps = fixed_maps(model, x, lengths) if model.fixed_frontend else None
    alpha = class_weights(y[tr].cpu(), n_classes).to(x.device) if t.rebalance else None
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=t.lr, weight_decay=t.weight_decay)
    steps_per_epoch = math.ceil(len(tr) / t.batch)
    total = t.epochs * steps_per_epoch
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    st = ck.load()
    hist: dict[str, Any] = {"loss": [], "val_ua": [], "best_epoch": -1, "best_ua": -1.0,
                            "best": None}
    if st:
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        sched.load_state_dict(st["sched"])
        hist = st["hist"]
    for epoch in range(ck.start, t.epochs):
        model.train()
        order = tr[np.random.default_rng([seed, epoch]).permutation(len(tr))]
        losses = []
        for k in range(0, len(order), t.batch):
            b = torch.as_tensor(order[k:k + t.batch])
            m = None if maps is None else (maps[0][b], maps[1])
            loss = focal_loss(model(x[b], lengths[b], m), y[b], t.gamma, alpha)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, t.clip)
            opt.step()
            sched.step()
            losses.append(float(loss.detach()))
        vmaps = None if maps is None else (maps[0][va], maps[1])
        pv = predict(model, x[va], lengths[va], vmaps).argmax(1)
        ua = unweighted_accuracy(y[va].cpu().numpy(), pv, n_classes)
        hist["loss"].append(float(np.mean(losses)))
        hist["val_ua"].append(ua)
        if ua > hist["best_ua"]:
            hist.update(best_ua=ua, best_epoch=epoch,
                        best=copy.deepcopy({k: v.detach().cpu().clone()
                                            for k, v in model.state_dict().items()}))
        log.info("epoch %d of %d: loss %.4f, validation UA %.3f (best %.3f at epoch %d)",
                 epoch + 1, t.epochs, hist["loss"][-1], ua, hist["best_ua"],
                 hist["best_epoch"] + 1)
        ck.step(epoch + 1, lambda: {"model": model.state_dict(), "opt": opt.state_dict(),
                                    "sched": sched.state_dict(), "hist": hist})
    return hist


def load_data(path: Path, fold: int, device: str = "cpu") -> dict[str, Any]:
    import torch

    from repro.papers.lfst.model import fold_split, waveforms

    z = np.load(path)
    tr, va, te = fold_split(z["split"], z["group"], fold)
    return {"x": waveforms(z["audio"], z["length"]).to(device),
            "lengths": torch.as_tensor(z["length"]).to(device),
            "y": torch.as_tensor(z["label"]).to(device),
            "train": tr, "val": va, "test": te}


def save_model(path: Path, state: dict[str, Any], meta: dict[str, Any]) -> None:
    import torch

    buf = io.BytesIO()  # to a buffer: the archive's inner name is not the file's
    torch.save({"state": state, "meta": meta}, buf)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def load_model(path: Path, cfg: Settings, device: str = "cpu"):
    import torch

    from repro.papers.lfst.model import Classifier

    blob = torch.load(path, weights_only=False, map_location="cpu")
    meta = blob["meta"]
    model = Classifier(meta["method"], cfg, len(meta["classes"]))
    model.load_state_dict(blob["state"])
    return model.to(device).eval(), meta


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("lfst: train one front-end + STEE (condition x fold x seed)", log=True)
    ap.add_argument("--method", required=True, choices=FRONTENDS)
    ap.add_argument("--condition", required=True)
    ap.add_argument("--fold", type=int, default=0)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--data", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)

    import torch

    from repro.core.device import limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything
    from repro.papers.lfst.model import Classifier

    limit_cpu_threads(cfg.threads)
    seed_everything(a.seed)
    device = pick_device(require_gpu=a.scale == "full")
    log = get_logger("lfst.train", a.log)
    classes = classes_of(cfg, a.condition)
    data = {**load_data(a.data, a.fold, device), "classes": len(classes)}
    torch.manual_seed(a.seed)
    model = Classifier(a.method, cfg, len(classes)).to(device)
    log.info("%s on %s fold %d, seed %d: %d train / %d val clips, %d parameters", a.method,
             a.condition, a.fold, a.seed, len(data["train"]), len(data["val"]),
             sum(p.numel() for p in model.parameters() if p.requires_grad))
    t0 = time.time()
    key = {"settings": settings_key(cfg), "method": a.method, "condition": a.condition,
           "fold": a.fold, "seed": a.seed}
    with Resumable(a.out, key, total=cfg.train.epochs, inputs=[a.data],
                   what=f"lfst train {a.condition}/{a.method}/fold{a.fold}_seed{a.seed}") as ck:
        hist = train(model, data, cfg, a.seed, ck, log)
    meta = {"method": a.method, "condition": a.condition, "fold": a.fold, "seed": a.seed,
            "classes": classes, "epochs": cfg.train.epochs, "best_epoch": hist["best_epoch"],
            "val_ua": hist["best_ua"], "loss": hist["loss"], "val_curve": hist["val_ua"]}
    save_model(a.out, hist["best"], meta)
    log.info("%s trained in %.1f s; best validation UA %.3f at epoch %d", a.method,
             time.time() - t0, hist["best_ua"], hist["best_epoch"] + 1)
    print(json.dumps({k: v for k, v in meta.items() if k not in ("loss", "val_curve")}))


if __name__ == "__main__":
    main()
