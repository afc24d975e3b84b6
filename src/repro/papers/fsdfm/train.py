"""CLI: train the DFM (stage `dfm`) or finetune it into FS-DFM (stage `fsdfm`), one seed.

    python -m repro.papers.fsdfm.train --config src/repro/papers/fsdfm/config.yaml --scale small \\
        --stage dfm --seed 0 --data data/small/fsdfm/data.npz \\
        --out results/small/fsdfm/models/dfm/seed0
    python -m repro.papers.fsdfm.train ... --stage fsdfm --rule cumulative --init <dfm dir> \\
        --out results/small/fsdfm/models/fsdfm_cumulative/seed0

`dfm`: the denoiser conditioned on t only, trained with the mixture path's generalized KL
(t ~ U[0, 1 - 1e-3)), AdamW with linear warm-up and cosine decay to `min_lr_ratio` of the peak
(the paper's optimiser, at our sizes and step counts).

`fsdfm` (the paper's stage 2, `just_student` as in its code): the student is the DFM's weights
plus dt modules at random; its EMA (decay `ema_decay`, updated after every step) is the teacher.
Per sequence dt = 2^-k (P proportional to 2^k) and t on the 1/grid lattice with t + dt <= 1; at
the smallest step the loss is the generalized KL against the data (the student stays a DFM
there), at every other step the forward KL from the EMA's RK-4 shortcut target over two half
steps (`flow.shortcut_target`, jumps by `--rule`) to the student's one step.

Data: a batch is drawn fresh from the order-2 chain each step (markov2: no data set to overfit)
or sampled from the tokenised blocks (text, full). `--out` is a directory: `model.pt` (settings
and weights; the EMA for fsdfm is saved too) and `run.json` (loss curve, wall time).

Resumable (repro.core.checkpoint): model, optimiser, EMA, loss curve and every generator are saved
every `checkpoint_every` steps, every REPRO_CHECKPOINT_MINUTES minutes and on SIGTERM / SIGINT;
a rerun continues and writes the same bytes as an uninterrupted run on CPU (but wall times).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.device import pick_device
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger, progress
from repro.core.seeding import seed_everything
from repro.papers.fsdfm.data import load_data
from repro.papers.fsdfm.flow import (
    SCALARS,
    MixturePath,
    distillation_kl,
    generalized_kl,
    sample_dt_t,
    shortcut_target,
    uniform,
)
from repro.papers.fsdfm.model import Denoiser, build, student_from
from repro.papers.fsdfm.settings import Optim, Settings, load

T_MAX = 1 - 1e-3  # the DFM's t ~ U[0, 1 - 1e-3): the loss weight 1/(1 - t) stays finite


class Batches:
    """Training sequences: fresh draws from the chain, or random blocks of the token array."""

    def __init__(self, data: dict[str, Any], length: int, rng: np.random.Generator) -> None:
        self.chain, self.tokens, self.length, self.rng = data.get("chain"), data.get("train"), \
            length, rng
        if self.chain is None and self.tokens is None:
            raise ValueError("the data file has neither a chain nor training tokens")

    def __call__(self, n: int) -> torch.Tensor:
        if self.chain is not None:
            return torch.from_numpy(self.chain.sample(n, self.length, self.rng))
        idx = self.rng.integers(len(self.tokens), size=n)
        return torch.from_numpy(self.tokens[idx].astype(np.int64))


def lr_at(step: int, o: Optim) -> float:
    """Linear warm-up to lr, then cosine to min_lr_ratio * lr at `steps`."""
    if o.warmup and step < o.warmup:
        return o.lr * (step + 1) / o.warmup
    frac = (step - o.warmup) / max(1, o.steps - o.warmup)
    return o.lr * (o.min_lr_ratio + (1 - o.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * frac)))


def optimiser(model: torch.nn.Module, o: Optim) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=o.lr, betas=(0.9, 0.95), eps=1e-8,
                             weight_decay=o.weight_decay)


def path_of(cfg: Settings, vocab: int) -> MixturePath:
    return MixturePath(vocab, cfg.path.source, cfg.path.exponent)


def dfm_loss(model: Denoiser, path: MixturePath, x1: torch.Tensor, gen: torch.Generator
             ) -> torch.Tensor:
    t = uniform((x1.shape[0],), gen, x1.device) * T_MAX
    xt = path.sample_xt(x1, t, gen)
    return generalized_kl(model(xt, t), x1, xt, t, path).mean()


def fsdfm_loss(student: Denoiser, ema: Denoiser, path: MixturePath, x1: torch.Tensor,
               grid: int, rule: str, teacher: str, gen: torch.Generator) -> torch.Tensor:
    """The paper's `just_student` loss for one batch (see the module docstring)."""
    dt, t = (v.to(x1.device) for v in sample_dt_t(x1.shape[0], grid, gen))
    xt = path.sample_xt(x1, t, gen)
    logits = student(xt, t, dt)
    smallest = dt <= 1.0 / grid
    loss = torch.zeros(x1.shape[0], device=x1.device)
    if smallest.any():
        i = smallest.nonzero()[:, 0]
        loss[i] = generalized_kl(logits[i], x1[i], xt[i], t[i], path)
    if (~smallest).any():
        i = (~smallest).nonzero()[:, 0]
        target = shortcut_target(lambda x, s, h: ema(x, s, h), path, xt[i], t[i], dt[i], rule,
                                 gen, teacher)
        loss[i] = distillation_kl(logits[i], target)
    return loss.mean()


def save_model(out: Path, name: str, model: Denoiser, meta: dict[str, Any]) -> None:
    with atomic_path(out / name) as tmp:
        torch.save({"meta": meta, "state_dict": model.state_dict()}, tmp)


def load_model(path: Path, cfg: Settings, device: str = "cpu") -> tuple[Denoiser, dict]:
    saved = torch.load(path, map_location=device, weights_only=False)
    meta = saved["meta"]
    model = build(cfg.model, meta["vocab"], meta["mask_token"], meta["dt_conditioned"])
    model.load_state_dict(saved["state_dict"])
    return model.to(device).eval(), meta


def train(cfg: Settings, stage: str, seed: int, data: dict[str, Any], out: Path,
          rule: str = "cumulative", init: Path | None = None, log: Any = print,
          device: str = "cpu", resume_inputs: tuple[Path, ...] = ()) -> dict[str, Any]:
    vocab = int(data["vocab"])
    path = path_of(cfg, vocab)
    mask = path.mask_id is not None
    o: Optim = cfg.dfm if stage == "dfm" else cfg.fsdfm
    if stage == "dfm":
        model = build(cfg.model, vocab, mask, dt_conditioned=False)
        ema = None
    else:
        if init is None:
            raise SystemExit("--stage fsdfm needs --init (the trained DFM)")
        if rule not in SCALARS:
            raise SystemExit(f"--rule {rule!r}: allowed are {', '.join(SCALARS)}")
        dfm, _ = load_model(init / "model.pt", cfg)
        model = student_from(dfm, cfg.model, mask)
        ema = copy.deepcopy(model)
        ema.requires_grad_(False)
    model.to(device).train()
    if ema is not None:
        ema.to(device).eval()
    opt = optimiser(model, o)
    rng = np.random.default_rng([seed, 0 if stage == "dfm" else 1])
    gen = torch.Generator().manual_seed(seed * 1000 + (0 if stage == "dfm" else 1))
    batches = Batches(data, int(data["length"]), rng)
    curve: list[list[float]] = []
    window: list[float] = []
    prior_wall = 0.0
    key = {"settings": settings_key(dataclasses.asdict(cfg)), "stage": stage, "seed": seed,
           "rule": rule if stage == "fsdfm" else None}
    c0 = time.perf_counter()
    with Resumable(out, key, every=o.checkpoint_every, total=o.steps,
                   rngs={"rng": rng, "gen": gen}, inputs=resume_inputs,
                   what=f"{stage} seed {seed}") as ck:
        st = ck.load()
        if st is not None:
            model.load_state_dict(st["model"])
            opt.load_state_dict(st["opt"])
            if ema is not None:
                ema.load_state_dict(st["ema"])
            curve, window, prior_wall = st["curve"], st["window"], st["wall_s"]
        for step in progress(range(ck.start, o.steps), desc=f"{stage} seed {seed}",
                             total=o.steps - ck.start):
            for g in opt.param_groups:
                g["lr"] = lr_at(step, o)
            x1 = batches(o.batch_size).to(device)
            if stage == "dfm":
                loss = dfm_loss(model, path, x1, gen)
            else:
                loss = fsdfm_loss(model, ema, path, x1, cfg.fsdfm.grid, rule,
                                  cfg.fsdfm.teacher, gen)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), o.grad_clip)
            opt.step()
            if ema is not None:
                with torch.no_grad():
                    for pe, pm in zip(ema.parameters(), model.parameters(), strict=True):
                        pe.lerp_(pm, 1 - cfg.fsdfm.ema_decay)
            window.append(float(loss))
            if (step + 1) % o.log_every == 0 or step + 1 == o.steps:
                curve.append([step + 1, float(np.mean(window))])
                log(f"{stage} seed {seed}: step {step + 1}/{o.steps} loss {curve[-1][1]:.4f}")
                window.clear()
            ck.step(step + 1, lambda: {  # noqa: B023 - called at once, inside the loop
                "model": model.state_dict(), "opt": opt.state_dict(),
                "ema": None if ema is None else ema.state_dict(), "curve": curve,
                "window": window, "wall_s": prior_wall + time.perf_counter() - c0})
        meta = {"stage": stage, "seed": seed, "rule": rule if stage == "fsdfm" else None,
                "vocab": vocab, "mask_token": mask, "dt_conditioned": stage == "fsdfm"}
        out.mkdir(parents=True, exist_ok=True)
        save_model(out, "model.pt", model.cpu(), meta)
        if ema is not None:
            save_model(out, "ema.pt", ema.cpu(), meta)
        run = {**meta, "steps": o.steps, "curve": curve, "final_loss": curve[-1][1],
               "wall_s": prior_wall + time.perf_counter() - c0}
        write_json(out / "run.json", run)
    return run


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--stage", required=True, choices=("dfm", "fsdfm"))
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--rule", default="cumulative", help="fsdfm: the teacher's update rule")
    ap.add_argument("--init", type=Path, help="fsdfm: the trained DFM's directory")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    seed_everything(a.seed)
    log = get_logger(f"fsdfm.train.{a.stage}", a.log)
    device = pick_device()
    inputs = (a.data,) + ((a.init / "model.pt",) if a.init else ())
    run = train(cfg, a.stage, a.seed, load_data(a.data), Path(a.out), a.rule, a.init,
                log=log.info, device=device, resume_inputs=inputs)
    log.info(f"wrote {a.out}: final loss {run['final_loss']:.4f} in {run['wall_s']:.0f}s")


if __name__ == "__main__":
    main()
