"""Train one cross-domain detector of the OWLEYE paper on the labelled training domains: OWLEYE,
its ablations -N (features not normalised), -S (no structure branch), -T (no truncation), or
ARC; one seed.

    python -m repro.papers.owleye.train --config src/repro/papers/owleye/config.yaml --scale small \
        --method owleye --seed 0 --aligned data/owleye/small/aligned.npz \
        --out results/small/owleye/runs/owleye/seed0.pt

Full-batch Adam, one step per training domain per epoch (both papers' official loops). Each
epoch draws from (seed, epoch) and the loop saves its state (model, optimiser, OWLEYE's
dictionary, the curve) through repro.core.checkpoint, so a stopped job resumes and ends with the
same bytes. The saved model carries OWLEYE's final dictionary (the training domains' normal
patterns); the unseen domains are never read here.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import atomic_path
from repro.core.progress import get_logger
from repro.papers.owleye.settings import TRAINED, Settings, load

VIEW = {"owleye": "owleye", "owleye_n": "plain", "owleye_s": "owleye", "owleye_t": "owleye",
        "arc": "arc"}
ARC_NO_SELF_LOOPS = {"YelpChi", "Facebook"}  # ARC's official exception


def owleye_config(cfg: Settings, method: str):
    from repro.papers.owleye.model import OwleyeConfig

    o = cfg.owleye
    return OwleyeConfig(d=cfg.align.dim, hidden=o.hidden, hops=o.hops, st_dim=o.st_dim,
                        support=o.support, target_patterns=cfg.eval.context,
                        truncate=o.truncate, temperature=o.temperature, beta=o.beta,
                        margin_attr=o.margin_attr, margin_struct=o.margin_struct,
                        structure=method != "owleye_s", truncation=method != "owleye_t")


def arc_config(cfg: Settings):
    from repro.papers.owleye.arc import ArcConfig

    a = cfg.arc
    return ArcConfig(hidden=a.hidden, hops=a.hops, shots=a.shots, lr=a.lr,
                     weight_decay=a.weight_decay, epochs=a.epochs)


def build_model(cfg: Settings, method: str):
    if method == "arc":
        from repro.papers.owleye.arc import ARC

        return ARC(cfg.align.dim, arc_config(cfg))
    from repro.papers.owleye.model import Owleye

    return Owleye(owleye_config(cfg, method))


def domain_of(z: Any, name: str, method: str, cfg: Settings, device: str = "cpu"):
    """One domain as the method sees it: its aligned view propagated over the method's hops
    (OWLEYE: D^-1/2 A D^-1/2; ARC: with self-loops), the adjacency, the labels."""
    import torch

    from repro.papers.owleye.align import normalised_adjacency, propagate
    from repro.papers.owleye.model import Domain

    x, edges, y = z[f"{name}/{VIEW[method]}"], z[f"{name}/edges"], z[f"{name}/y"]
    arc = method == "arc"
    adj = normalised_adjacency(len(x), edges, self_loops=arc and name not in ARC_NO_SELF_LOOPS)
    hops = cfg.arc.hops if arc else cfg.owleye.hops
    return Domain([torch.as_tensor(h).to(device) for h in propagate(x, adj, hops)],
                  adj.to(device), y)


def save_model(path: Path, model, meta: dict[str, Any]) -> None:
    import torch

    blob = {"state": {k: v.detach().cpu() for k, v in model.state_dict().items()},
            "dictionary": [(h.cpu(), None if r is None else r.cpu())
                           for h, r in getattr(model, "dictionary", [])],
            "meta": meta}
    buf = io.BytesIO()  # saved to a buffer: the archive's inner name is not the file's
    torch.save(blob, buf)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def load_model(path: Path, cfg: Settings, device: str = "cpu"):
    import torch

    blob = torch.load(path, weights_only=False, map_location="cpu")
    model = build_model(cfg, blob["meta"]["method"])
    model.load_state_dict(blob["state"])
    if blob["dictionary"]:
        model.dictionary = [(h.to(device), None if r is None else r.to(device))
                            for h, r in blob["dictionary"]]
    return model.to(device).eval(), blob["meta"]


def train(model, method: str, domains: list, cfg: Settings, seed: int, ck: Resumable, log
          ) -> list[float]:
    import torch

    from repro.papers.owleye.arc import train_arc
    from repro.papers.owleye.model import train_owleye

    if method == "arc":
        epochs, lr, wd = cfg.arc.epochs, cfg.arc.lr, cfg.arc.weight_decay
    else:
        epochs, lr, wd = cfg.owleye.epochs, cfg.owleye.lr, cfg.owleye.weight_decay
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=wd)
    st = ck.load()
    curve: list[float] = []
    if st:
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        curve = st["curve"]
        if method != "arc":
            model.dictionary = list(st["dictionary"])
    model.train()

    def on_epoch(epoch: int, curve: list[float]) -> None:
        if (epoch + 1) % max(1, epochs // 10) == 0 or epoch + 1 == epochs:
            log.info("epoch %d of %d: loss %.5f", epoch + 1, epochs, curve[-1])
        ck.step(epoch + 1, lambda: {"model": model.state_dict(), "opt": opt.state_dict(),
                                    "curve": curve,
                                    "dictionary": list(getattr(model, "dictionary", []))})

    if method == "arc":
        return train_arc(model, [(d.hops, d.y) for d in domains], seed, opt=opt,
                         start=ck.start, curve=curve, on_epoch=on_epoch)
    return train_owleye(model, domains, epochs, lr, wd, seed, opt=opt, start=ck.start,
                        curve=curve, on_epoch=on_epoch)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("owleye: train one cross-domain detector (method x seed)", log=True)
    ap.add_argument("--method", required=True, choices=TRAINED)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--aligned", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)

    import torch  # noqa: F401  (imported first: limit_cpu_threads sets its threads)

    from repro.core.device import limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything

    limit_cpu_threads(cfg.threads)
    seed_everything(a.seed)
    device = pick_device(require_gpu=a.scale == "full")
    log = get_logger("owleye.train", a.log)
    z = np.load(a.aligned)
    domains = [domain_of(z, d, a.method, cfg, device) for d in cfg.domains.train]
    model = build_model(cfg, a.method).to(device)
    epochs = cfg.arc.epochs if a.method == "arc" else cfg.owleye.epochs
    t0 = time.time()
    key = {"settings": settings_key(cfg), "method": a.method, "seed": a.seed}
    with Resumable(a.out, key, total=epochs, inputs=[a.aligned],
                   what=f"owleye train {a.method}/seed{a.seed}") as ck:
        curve = train(model, a.method, domains, cfg, a.seed, ck, log)
    meta = {"method": a.method, "seed": a.seed, "device": device, "epochs": epochs,
            "train_domains": list(cfg.domains.train), "curve": curve}
    save_model(a.out, model, meta)
    log.info("%s / seed %d trained in %.1f s (loss %.5f -> %.5f)", a.method, a.seed,
             time.time() - t0, curve[0], curve[-1])
    print(json.dumps({k: v for k, v in meta.items() if k != "curve"}))


if __name__ == "__main__":
    main()
