"""Train one method of the diffusion-DFL paper on one task and seed: a two-stage fit (MSE,
Gaussian NLL, the denoising loss) or decision-focused fine-tuning from the matching two-stage
model (`models.INIT_OF`), by the method's gradient estimator (`method.py`).

    python -m repro.papers.diffdfl.train --config src/repro/papers/diffdfl/config.yaml \
        --scale small \
        --task power --method dfl_diffusion_sf --seed 0 --data data/diffdfl/small/power.npz \
        --init results/small/diffdfl/runs/power/two_stage_diffusion/seed0.pt \
        --out results/small/diffdfl/runs/power/dfl_diffusion_sf/seed0.pt

Splits: the task's last `test_frac` rows are the test set (never seen here); of the rest, a
seeded random `hold_frac` is the hold-out set that picks the DFL state with the lowest
hold-out task loss (step 0, the two-stage model, included). Resumable (repro.core.checkpoint):
a stopped job picks up at its last saved step and ends with the same bytes.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import atomic_path
from repro.core.progress import get_logger, progress
from repro.papers.diffdfl.models import INIT_OF, MODEL_OF, build
from repro.papers.diffdfl.settings import Settings, load

METHODS = tuple(MODEL_OF)


def splits(n: int, test_frac: float, hold_frac: float, seed: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Indices of train, hold-out and test rows (test: the last rows; hold-out: seeded)."""
    n_test = int(round(n * test_frac))
    rest = np.arange(n - n_test)
    perm = np.random.default_rng(10_000 + seed).permutation(rest)
    n_hold = int(round(len(rest) * hold_frac))
    return np.sort(perm[n_hold:]), np.sort(perm[:n_hold]), np.arange(n - n_test, n)


def task_settings(cfg: Settings, task: str):
    return cfg.synthetic if task == "synthetic" else cfg.power


def load_task(cfg: Settings, task: str, data: Path, seed: int, device: str = "cpu"
              ) -> dict[str, Any]:
    import torch

    with np.load(data) as z:
        x, y = z["x"], z["y"]
    t = task_settings(cfg, task)
    tr, ho, te = splits(len(y), t.test_frac, t.hold_frac, seed)
    as_t = lambda a: torch.as_tensor(a, dtype=torch.float32, device=device)  # noqa: E731
    return {"x": as_t(x[tr]), "y": as_t(y[tr]), "x_hold": as_t(x[ho]), "y_hold": as_t(y[ho]),
            "x_test": as_t(x[te]), "y_test": as_t(y[te])}


def save_model(path: Path, model, meta: dict[str, Any]) -> None:
    import io

    import torch

    state = {k: v.cpu() for k, v in model.state_dict().items()}
    buf = io.BytesIO()  # saved to a buffer: the archive's inner name is not the file's
    torch.save({"state": state, "meta": meta}, buf)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def load_model(path: Path, method: str, x_dim: int, y_dim: int, cfg: Settings,
               device: str = "cpu"):
    import torch

    model = build(MODEL_OF[method], x_dim, y_dim, cfg.models)
    model.load_state_dict(torch.load(path, weights_only=False, map_location="cpu")["state"])
    return model.to(device)


def fit_hold(model, d: dict[str, Any], seed: int) -> float:
    """The fit loss on the hold-out set, with the same noise draws at every evaluation."""
    import torch

    torch.manual_seed(30_000 + seed)
    with torch.no_grad():
        return float(sum(model.fit_loss(d["x_hold"], d["y_hold"]) for _ in range(16)) / 16)


def pretrain(model, d: dict[str, Any], cfg: Settings, seed: int, gen, ck: Resumable, log
             ) -> dict:
    """Two-stage fit for a fixed number of steps (official: no early stopping). The hold-out
    fit loss is recorded every 5% of the steps; the state with the lowest is noted, not used:
    on the synthetic task, where x carries no information, the hold-out denoising loss rises
    after a few hundred steps as the model learns the training y from x, yet pooled draws of
    that model still follow y's marginal, which is what the decision needs."""
    import torch

    opt = torch.optim.Adam(model.parameters(), lr=cfg.pretrain.lr)
    every = max(1, cfg.pretrain.steps // 20)
    st = ck.load()
    if st:
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        curve, best = st["curve"], st["best"]
    else:
        curve, best = [], {"step": 0, "hold": float("inf")}
    n = len(d["y"])
    for step in progress(range(ck.start, cfg.pretrain.steps), desc="pretrain",
                         total=cfg.pretrain.steps):
        idx = torch.randint(0, n, (min(cfg.pretrain.batch, n),), generator=gen)
        opt.zero_grad()
        loss = model.fit_loss(d["x"][idx], d["y"][idx])
        loss.backward()
        opt.step()
        if (step + 1) % every == 0 or step + 1 == cfg.pretrain.steps:
            rng_state = torch.get_rng_state()
            h = fit_hold(model, d, seed)
            torch.set_rng_state(rng_state)
            curve.append([step + 1, float(loss), h])
            log.info("pretrain step %d: fit loss %.4f, hold-out %.4f", step + 1, float(loss), h)
            if h < best["hold"]:
                best = {"step": step + 1, "hold": h}
        ck.step(step + 1, lambda best=best: {"model": model.state_dict(),
                                             "opt": opt.state_dict(), "curve": curve,
                                             "best": best})
    return {"curve": curve, "lowest_hold_fit_step": best["step"], "lowest_hold_fit": best["hold"]}


def hold_loss(method: str, model, problem, d: dict[str, Any], cfg: Settings, seed: int) -> float:
    import torch

    from repro.papers.diffdfl.method import decisions

    k = min(cfg.dfl.hold_max, len(d["y_hold"]))
    gen = torch.Generator().manual_seed(20_000 + seed)  # the same draws at every evaluation
    z = decisions(method, model, problem, d["x_hold"][:k], cfg.dfl.mc_samples, gen)
    y = d["y_hold"][:k]
    return float(problem.cost(torch.as_tensor(z, dtype=torch.float32, device=y.device), y).mean())


def finetune(method: str, model, problem, d: dict[str, Any], cfg: Settings, seed: int, gen,
             ck: Resumable, log) -> dict[str, Any]:
    import torch

    from repro.papers.diffdfl.method import dfl_step

    c = cfg.dfl
    opt = torch.optim.Adam(model.parameters(), lr=c.lr)
    st = ck.load()
    if st:
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        hist, best = st["hist"], st["best"]
    else:
        h0 = hold_loss(method, model, problem, d, cfg, seed)
        hist = {"step": [0], "hold": [h0], "train_task": []}
        best = {"step": 0, "hold": h0, "state": {k: v.clone() for k, v in
                                                   model.state_dict().items()}}
        log.info("step 0 (two-stage init): hold-out task loss %.4f", h0)
    n = len(d["y"])
    for step in progress(range(ck.start, c.steps), desc=method, total=c.steps):
        idx = torch.randint(0, n, (min(c.batch, n),), generator=gen)
        model.train()
        out = dfl_step(method, model, opt, problem, d["x"][idx], d["y"][idx], c.mc_samples,
                       c.alpha, c.sf_timesteps, c.sf_weighting, gen)
        hist["train_task"].append(out.task_loss)
        if (step + 1) % c.eval_every == 0 or step + 1 == c.steps:
            model.eval()
            h = hold_loss(method, model, problem, d, cfg, seed)
            hist["step"].append(step + 1)
            hist["hold"].append(h)
            log.info("step %d: train task %.4f, hold-out task %.4f", step + 1, out.task_loss, h)
            if h < best["hold"]:
                best = {"step": step + 1, "hold": h,
                        "state": {k: v.clone() for k, v in model.state_dict().items()}}
        ck.step(step + 1, lambda best=best: {"model": model.state_dict(),
                                             "opt": opt.state_dict(), "hist": hist,
                                             "best": best})
    model.load_state_dict(best["state"])
    return {"hist": hist, "best_step": best["step"], "best_hold": best["hold"]}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--task", required=True, choices=["synthetic", "power"])
    ap.add_argument("--method", required=True, choices=METHODS)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--init", type=Path, default=None, help="the two-stage model (DFL methods)")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if (a.method in INIT_OF) != (a.init is not None):
        raise SystemExit(f"--init is required for the DFL methods ({', '.join(INIT_OF)}) and "
                         f"only for them (method {a.method})")

    import torch  # noqa: F401  (so seed_everything / limit_cpu_threads see it)

    from repro.core.device import limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything
    from repro.papers.diffdfl.problems import make_problem

    limit_cpu_threads(cfg.threads)
    seed_everything(a.seed)
    device = pick_device(require_gpu=a.scale == "full" and a.method in ("dfl_diffusion_rp",
                                                                        "dfl_diffusion_sf"))
    log = get_logger("diffdfl.train", a.log)
    d = load_task(cfg, a.task, a.data, a.seed, device)
    x_dim, y_dim = d["x"].shape[1], d["y"].shape[1]
    problem = make_problem(a.task, cfg)
    t0 = time.time()
    key = {"settings": settings_key(cfg), "task": a.task, "method": a.method, "seed": a.seed}
    inputs = [a.data] + ([a.init] if a.init else [])
    gen = torch.Generator().manual_seed(a.seed)  # batches, draws, diffusion noise
    if a.method in INIT_OF:
        model = load_model(a.init, INIT_OF[a.method], x_dim, y_dim, cfg, device)
        with Resumable(a.out, key, total=cfg.dfl.steps, inputs=inputs, rngs={"gen": gen}) as ck:
            info = finetune(a.method, model, problem, d, cfg, a.seed, gen, ck, log)
            meta = {"task": a.task, "method": a.method, "seed": a.seed, "init": str(a.init),
                    "device": device, **info}
            save_model(a.out, model, meta)
    else:
        model = build(MODEL_OF[a.method], x_dim, y_dim, cfg.models).to(device)
        model.set_scale(d["y"])
        with Resumable(a.out, key, total=cfg.pretrain.steps, inputs=inputs,
                       rngs={"gen": gen}) as ck:
            info = pretrain(model, d, cfg, a.seed, gen, ck, log)
            meta = {"task": a.task, "method": a.method, "seed": a.seed, **info}
            save_model(a.out, model, meta)
    log.info("%s / %s / seed %d done in %.1f s", a.task, a.method, a.seed, time.time() - t0)
    print(json.dumps({k: v for k, v in meta.items() if k != "hist"})[:300])


if __name__ == "__main__":
    main()
