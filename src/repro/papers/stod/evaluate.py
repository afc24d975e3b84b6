"""Evaluate one trained spiking network: clean test accuracy, FGSM and PGD accuracy at every
eps of `attack.<dataset>`, and GTC per layer and time step (gtc.py).

    python -m repro.papers.stod.evaluate --config src/repro/papers/stod/config.yaml --scale small \
        --dataset mnist5k --model results/small/stod/runs/mnist5k/stod/seed0.pt \
        --data data/stod/small/mnist5k.npz --out results/small/stod/eval/mnist5k/stod/seed0.json

Attacks are white-box (attacks.py): the gradient goes through BPTT and the surrogate, for rate
encoding through its straight-through draw. Rate encoding's draws (and PGD's random starts) come
from generators seeded by the run's seed, so the same model gives the same numbers.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.papers.stod.settings import DATASETS, Settings, attack_of, load


def accuracy(model, x, y, batch: int) -> float:
    import torch

    correct = 0
    with torch.no_grad():
        for i in range(0, len(y), batch):
            correct += int((model(x[i:i + batch]).argmax(1) == y[i:i + batch]).sum())
    return correct / len(y)


def robust_accuracy(model, x, y, kind: str, eps: float, cfg: Settings, dataset: str, gen
                    ) -> float:
    import torch

    from repro.papers.stod.attacks import fgsm, pgd

    a = attack_of(cfg, dataset)
    eot = a.eot if model.method == "rate" else 1  # the other encodings are deterministic
    correct = 0
    for i in range(0, len(y), a.batch):
        xb, yb = x[i:i + a.batch], y[i:i + a.batch]
        if kind == "fgsm":
            adv = fgsm(model, xb, yb, eps, eot)
        else:
            adv = pgd(model, xb, yb, eps, a.pgd_alpha * eps, a.pgd_steps, a.random_start, gen,
                      eot)
        with torch.no_grad():
            correct += int((model(adv).argmax(1) == yb).sum())
    return correct / len(y)


def evaluate(model, d: dict[str, Any], cfg: Settings, dataset: str, seed: int, ck: Resumable,
             log) -> dict[str, Any]:
    """Clean accuracy, each (attack, eps) and GTC, one resumable item each: a stopped job keeps
    what it finished. Item k draws from its own generator (seed, k), so the order of work and a
    resume change nothing."""
    import torch

    from repro.papers.stod import gtc

    device = d["x_test"].device
    a = attack_of(cfg, dataset)
    x, y = d["x_test"], d["y_test"]
    items = [("clean", 0.0)] + [(k, e) for k in ("fgsm", "pgd") for e in a.eps] + [("gtc", 0.0)]

    def one(item: tuple[str, float]) -> Any:
        kind, eps = item
        g = torch.Generator(device=device).manual_seed(7919 * seed + items.index(item))
        model.gen = g
        if kind == "clean":
            res: Any = accuracy(model, x, y, a.batch)
        elif kind == "gtc":
            m = min(cfg.gtc.samples, len(y))
            res = gtc.measure(model, x[:m], y[:m], cfg.gtc.batch)
        else:
            res = {"attack": kind, "eps": eps,
                   "acc": robust_accuracy(model, x, y, kind, eps, cfg, dataset, g)}
            log.info("%s eps %.4f: accuracy %.4f", kind, eps, res["acc"])
        model.gen = None
        log.info("evaluate: item %d of %d (%s) done", items.index(item) + 1, len(items), kind)
        return res

    done = ck.map(one, items)
    return {"clean_acc": done[0], "test_images": len(y), "attacks": done[1:-1],
            "gtc": done[-1], "headline_eps": a.headline_eps}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("stod: clean and adversarial accuracy and GTC of one network", log=True)
    ap.add_argument("--dataset", required=True, choices=DATASETS)
    ap.add_argument("--model", required=True, type=Path)
    ap.add_argument("--data", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)

    from repro.core.device import limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything
    from repro.papers.stod.data import load_arrays
    from repro.papers.stod.train import data_info, load_model

    limit_cpu_threads(cfg.threads)
    device = pick_device(require_gpu=a.scale == "full")
    log = get_logger("stod.evaluate", a.log)
    d = load_arrays(a.data, device, cfg.data.test_max)
    model, meta = load_model(a.model, cfg, a.dataset, data_info(d), device)
    seed_everything(meta["seed"])
    t0 = time.time()
    key = {"settings": settings_key(cfg), "dataset": a.dataset, "method": meta["method"],
           "seed": meta["seed"]}
    with Resumable(a.out, key, inputs=[a.model, a.data],
                   what=f"stod evaluate {a.dataset}/{meta['method']}/seed{meta['seed']}") as ck:
        res = evaluate(model, d, cfg, a.dataset, meta["seed"], ck, log)
    res.update({"dataset": a.dataset, "method": meta["method"], "seed": meta["seed"],
                "final_train_acc": meta["curve"][-1]["train_acc"] if meta["curve"] else None,
                "curve": meta["curve"]})
    write_json(a.out, res)
    log.info("%s / %s / seed %d evaluated in %.1f s", a.dataset, meta["method"], meta["seed"],
             time.time() - t0)
    print(json.dumps({k: res[k] for k in ("dataset", "method", "seed", "clean_acc")}))


if __name__ == "__main__":
    main()
