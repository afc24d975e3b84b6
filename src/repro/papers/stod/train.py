"""Train one spiking network of the STOD paper: one data set, encoding (method) and seed.

    python -m repro.papers.stod.train --config src/repro/papers/stod/config.yaml --scale small \
        --dataset mnist5k --method stod --seed 0 --data data/stod/small/mnist5k.npz \
        --out results/small/stod/runs/mnist5k/stod/seed0.pt

Cross-entropy of the time-averaged logits, BPTT through the surrogate gradient; STOD adds
`stod.reg_weight` times the kernels' temporal overlap (model.py). Optional adversarial training
(`train.adv`) trains on attacks of the current model (eval mode while attacking). The learning
rate follows a cosine over all steps; each epoch's order comes from (seed, epoch), so a job
stopped mid-epoch resumes (repro.core.checkpoint) and ends with the same bytes.
"""

from __future__ import annotations

import io
import json
import math
import time
from pathlib import Path
from typing import Any

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import atomic_path
from repro.core.progress import get_logger, progress
from repro.papers.stod.settings import DATASETS, METHODS, Settings, arch_of, epochs_of, load


def data_info(d: dict[str, Any]) -> dict[str, Any]:
    return {"shape": list(d["x_train"].shape[1:]), "classes": d["classes"]}


def save_model(path: Path, model, meta: dict[str, Any]) -> None:
    import torch

    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    buf = io.BytesIO()  # saved to a buffer: the archive's inner name is not the file's
    torch.save({"state": state, "meta": meta}, buf)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def load_model(path: Path, cfg: Settings, dataset: str, info: dict[str, Any], device: str = "cpu"):
    import torch

    from repro.papers.stod.model import build

    blob = torch.load(path, weights_only=False, map_location="cpu")
    model = build(blob["meta"]["method"], info, arch_of(cfg, dataset), cfg.snn,
                  cfg.stod.orthogonal_map)
    model.load_state_dict(blob["state"])
    return model.to(device).eval(), blob["meta"]


def adversarial(model, x, y, cfg: Settings, gen):
    from repro.papers.stod.attacks import fgsm, pgd

    adv = cfg.train.adv
    model.eval()
    if adv.attack == "fgsm":
        out = fgsm(model, x, y, adv.eps)
    elif adv.attack == "pgd":
        out = pgd(model, x, y, adv.eps, 2.5 * adv.eps / adv.steps, adv.steps, gen=gen)
    else:
        raise ValueError(f"unknown train.adv.attack {adv.attack!r} (fgsm or pgd)")
    model.train()
    return out


def train(model, d: dict[str, Any], cfg: Settings, epochs: int, seed: int, gen, ck: Resumable,
          log) -> dict[str, Any]:
    import torch
    import torch.nn.functional as F

    t = cfg.train
    params = [p for p in model.parameters() if p.requires_grad]
    if t.optimizer == "adam":
        opt = torch.optim.Adam(params, lr=t.lr, weight_decay=t.weight_decay)
    elif t.optimizer == "sgd":
        opt = torch.optim.SGD(params, lr=t.lr, momentum=0.9, weight_decay=t.weight_decay)
    else:
        raise ValueError(f"unknown train.optimizer {t.optimizer!r} (adam or sgd)")
    n = len(d["y_train"])
    per_epoch = math.ceil(n / t.batch)
    total = epochs * per_epoch
    st = ck.load()
    if st:
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        curve, acc = st["curve"], st["acc"]
    else:
        curve, acc = [], {"loss": 0.0, "correct": 0, "seen": 0, "reg": 0.0}
    model.train()
    model.gen = gen
    order = None
    for step in progress(range(ck.start, total), desc="train", total=total):
        epoch, b = divmod(step, per_epoch)
        if order is None or b == 0:
            order = torch.randperm(n, generator=torch.Generator().manual_seed(
                1_000_003 * seed + epoch))
        idx = order[b * t.batch:(b + 1) * t.batch]
        x, y = d["x_train"][idx], d["y_train"][idx]
        if t.adv is not None:
            x = adversarial(model, x, y, cfg, gen)
        for g in opt.param_groups:
            g["lr"] = t.lr * 0.5 * (1 + math.cos(math.pi * step / total))
        opt.zero_grad()
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        reg = model.regulariser()
        total_loss = loss + cfg.stod.reg_weight * reg if reg is not None else loss
        total_loss.backward()
        opt.step()
        acc["loss"] += float(loss) * len(y)
        acc["correct"] += int((logits.argmax(1) == y).sum())
        acc["seen"] += len(y)
        acc["reg"] += float(reg) * len(y) if reg is not None else 0.0
        if b + 1 == per_epoch:
            row = {"epoch": epoch + 1, "loss": acc["loss"] / acc["seen"],
                   "train_acc": acc["correct"] / acc["seen"],
                   "temporal_overlap": acc["reg"] / acc["seen"] if reg is not None else None}
            curve.append(row)
            log.info("epoch %d: loss %.4f, train acc %.4f%s", epoch + 1, row["loss"],
                     row["train_acc"], f", overlap {row['temporal_overlap']:.4f}"
                     if reg is not None else "")
            acc = {"loss": 0.0, "correct": 0, "seen": 0, "reg": 0.0}
        ck.step(step + 1, lambda curve=curve, acc=acc: {
            "model": model.state_dict(), "opt": opt.state_dict(), "curve": curve, "acc": acc})
    model.gen = None
    return {"curve": curve, "steps": total}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("stod: train one spiking network (data set x encoding x seed)", log=True)
    ap.add_argument("--dataset", required=True, choices=DATASETS)
    ap.add_argument("--method", required=True, choices=METHODS)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--data", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)

    import torch

    from repro.core.device import limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything
    from repro.papers.stod.data import load_arrays
    from repro.papers.stod.model import build

    limit_cpu_threads(cfg.threads)
    seed_everything(a.seed)
    device = pick_device(require_gpu=a.scale == "full")
    log = get_logger("stod.train", a.log)
    d = load_arrays(a.data, device)
    info = data_info(d)
    model = build(a.method, info, arch_of(cfg, a.dataset), cfg.snn,
                  cfg.stod.orthogonal_map).to(device)
    t0 = time.time()
    key = {"settings": settings_key(cfg), "dataset": a.dataset, "method": a.method,
           "seed": a.seed}
    gen = torch.Generator(device=device).manual_seed(a.seed)  # rate draws, PGD starts
    epochs = epochs_of(cfg, a.dataset)
    total = epochs * math.ceil(len(d["y_train"]) / cfg.train.batch)
    with Resumable(a.out, key, total=total, inputs=[a.data], rngs={"gen": gen},
                   what=f"stod train {a.dataset}/{a.method}/seed{a.seed}") as ck:
        out = train(model, d, cfg, epochs, a.seed, gen, ck, log)
    meta = {"dataset": a.dataset, "method": a.method, "seed": a.seed, "device": device,
            "data": info, **out}
    save_model(a.out, model, meta)
    log.info("%s / %s / seed %d done in %.1f s", a.dataset, a.method, a.seed, time.time() - t0)
    print(json.dumps({k: v for k, v in meta.items() if k != "curve"}))


if __name__ == "__main__":
    main()
