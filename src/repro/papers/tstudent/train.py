"""CLI: one student learning one teacher setting from one seed, written as JSON.

    python -m repro.papers.tstudent.train --config src/repro/papers/tstudent/config.yaml \\
        --scale small \\
        --setting conv_relu --seed 0 --out results/small/tstudent/runs/conv_relu/seed0.json

The protocol (one run): draw the teacher's blocks from the seed, fix an orthogonal positional
matrix P, start the student at zero, and for t = 1..T draw a fresh batch of N(0, I) inputs,
label it with the teacher and take one GD step. At log-spaced checkpoints record
- the excess training loss: the exact population loss under N(0, I) (the teacher is realisable,
  so the optimum is 0; `student.population_loss`, no sampling noise),
- the excess OOD loss: the same loss on a fixed sample of inputs with i.i.d. Exp(rate) entries,
- cos(W_V, V*), |W_V - V*| / |V*| and the attention's distance to the teacher's pattern S*.
Then fit log-log slopes of the losses and of both parameter errors over the last part of
training (t >= fit_from * T).

Resumable (repro.core.checkpoint): the state after a GD step (W_V, W, the curves so far and the
batch generator) is saved every REPRO_CHECKPOINT_MINUTES minutes and on SIGTERM / SIGINT, beside
`--out` (a step takes milliseconds: saving by count would only cost time); a rerun goes on from
it and writes the same bytes as an uninterrupted run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger, progress
from repro.papers.tstudent.settings import StudentRun, load

# Offsets that give each random stream of a run its own seed (teacher, P, data, OOD sample).
POS_OFFSET, DATA_OFFSET, OOD_OFFSET = 1000, 2000, 3000


def fit_slope(t: np.ndarray, loss: np.ndarray, fit_from: float) -> float:
    """Least-squares slope of log(loss) on log(t) over t >= fit_from * max(t)."""
    t, loss = np.asarray(t, float), np.asarray(loss, float)
    m = (t >= fit_from * t.max()) & (loss > 0) & np.isfinite(loss)
    if m.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(t[m]), np.log(loss[m]), 1)[0])


def checkpoints(T: int, n: int) -> list[int]:
    """About n log-spaced iteration counts in [1, T], always ending at T."""
    pts = np.unique(np.round(np.geomspace(1, T, n)).astype(int))
    return sorted({int(p) for p in pts} | {T})


def support_recovery(A: Any, S: Any) -> float:
    """Fraction of queries whose k largest attention weights sit exactly on the k positions of
    the teacher's pattern (k = the support size of that query's column of S*)."""
    import torch

    hits = 0
    for i in range(S.shape[1]):
        supp = set(torch.nonzero(S[:, i] > 0).flatten().tolist())
        top = set(torch.topk(A[:, i], len(supp)).indices.tolist())
        hits += top == supp
    return hits / S.shape[1]


def ood_inputs(n: int, d: int, D: int, rate: float, seed: int) -> Any:
    """n inputs with i.i.d. Exp(rate) entries: non-negative, skewed, mean 1/rate (a shift in
    both mean and shape from the N(0, I) training inputs)."""
    import torch

    g = torch.Generator().manual_seed(seed)
    return torch.empty(n, d, D, dtype=torch.float64).exponential_(rate, generator=g)


def run_student(teacher: Any, run: StudentRun, seed: int,
                extra_eval: dict[str, Callable[[Any], float]] | None = None,
                sampler: Callable[[int, Any], Any] | None = None,
                log: Callable[[str], None] = print,
                ck: Resumable | None = None) -> dict[str, Any]:
    """Train a zero-initialised student on `teacher` with online GD (settings in `run`).

    Each step draws a fresh batch: N(0, I) inputs, or `sampler(B, generator)` when given;
    `extra_eval` adds named metrics of the student at every checkpoint. With `ck` (an open
    `Resumable` block of `run.iterations` steps) the GD steps are its steps: the student's
    blocks, the curves and the batch generator are its state (`sampler` must draw from the
    generator it is given)."""
    import torch

    from repro.papers.tstudent.student import (
        DTYPE,
        Student,
        attention_distance,
        empirical_loss,
        orthogonal_positions,
        population_loss,
        value_cosine,
    )

    D, d = teacher.D, teacher.d
    T, B = run.iterations, run.batch_size
    P = orthogonal_positions(D, seed + POS_OFFSET)
    st = Student(P=P, d=d, C=teacher.C, act=teacher.act, slope=teacher.slope)
    gen = torch.Generator().manual_seed(seed + DATA_OFFSET)
    X_ood = ood_inputs(run.ood.n_samples, d, D, run.ood.rate, seed + OOD_OFFSET)
    marks = set(checkpoints(T, run.n_checkpoints))
    curve: dict[str, list[float]] = {k: [] for k in
                                     ("t", "train_excess", "ood_excess", "cos", "attn_tv",
                                      "value_error", "batch_loss", *(extra_eval or {}))}
    first = 1
    if ck is not None:
        ck.rngs["data"] = gen
        saved = ck.load()
        if saved is not None:
            st.W_V, st.W, curve = saved["W_V"], saved["W"], saved["curve"]
        first = ck.start + 1
    for t in progress(range(first, T + 1), desc=f"{teacher.kind}/{teacher.act}",
                      total=T + 1 - first):
        if sampler is None:
            X = torch.randn(B, d, D, dtype=DTYPE, generator=gen)
        else:
            X = sampler(B, gen)
        with torch.no_grad():
            y = teacher.forward(X)
        batch_loss = st.step(X, y, run.lr_value, run.lr_attn)
        if not np.isfinite(batch_loss):
            raise FloatingPointError(f"loss diverged at t={t}: lower lr_value / lr_attn")
        if t in marks:
            A = st.attention()
            curve["t"].append(t)
            curve["train_excess"].append(population_loss(st.W_V, A, teacher.V, teacher.S,
                                                          teacher.act, teacher.slope))
            curve["ood_excess"].append(empirical_loss(st, teacher, X_ood))
            curve["cos"].append(value_cosine(st.W_V, teacher.V))
            curve["attn_tv"].append(attention_distance(A, teacher.S))
            curve["value_error"].append(float((st.W_V - teacher.V).norm() / teacher.V.norm()))
            curve["batch_loss"].append(batch_loss)
            for name, fn in (extra_eval or {}).items():
                curve[name].append(fn(st))
        if ck is not None:
            ck.step(t, lambda: {"W_V": st.W_V, "W": st.W, "curve": curve})
    A = st.attention()
    fit_from = run.fit_from
    final = {
        "train_excess": curve["train_excess"][-1],
        "ood_excess": curve["ood_excess"][-1],
        "train_slope": fit_slope(curve["t"], curve["train_excess"], fit_from),
        "ood_slope": fit_slope(curve["t"], curve["ood_excess"], fit_from),
        "cos": curve["cos"][-1],
        "attn_tv": curve["attn_tv"][-1],
        "support_recovery": support_recovery(A, teacher.S),
        "value_rel_error": curve["value_error"][-1],
        # parameter errors: the attention's off-pattern mass and |W_V - V*| / |V*|
        "attn_tv_slope": fit_slope(curve["t"], curve["attn_tv"], fit_from),
        "value_error_slope": fit_slope(curve["t"], curve["value_error"], fit_from),
    }
    for name in extra_eval or {}:
        final[name] = curve[name][-1]
        final[f"{name}_slope"] = fit_slope(curve["t"], curve[name], fit_from)
    log(" ".join(f"{k}={v:.4g}" for k, v in final.items()))
    return {"curve": curve, "final": final, "attention": A.tolist(), "S_star": teacher.S.tolist(),
            "W_V": st.W_V.tolist(), "V_star": teacher.V.tolist()}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--setting", required=True)
    ap.add_argument("--seed", required=True, type=int)
    args = ap.parse_args(argv)

    cfg = load(args.config, args.scale)
    if args.setting not in cfg.settings:
        raise SystemExit(f"unknown setting {args.setting!r}: allowed are "
                         f"{', '.join(cfg.settings)}")
    import torch  # noqa: F401  (so seed_everything / limit_cpu_threads see it)

    from repro.core.device import limit_cpu_threads
    from repro.core.seeding import seed_everything
    from repro.papers.tstudent.teachers import make_teacher

    limit_cpu_threads(1)
    seed_everything(args.seed)
    log = get_logger(f"tstudent.train.{args.setting}", args.log)
    spec = cfg.settings[args.setting]
    teacher = make_teacher(spec.teacher, spec.D, spec.d if spec.d is not None else cfg.d, spec.K,
                           spec.act, seed=args.seed, slope=cfg.leaky_slope)
    run = cfg.run_of(args.setting)
    # what the run depends on: its arguments and the settings it reads
    key = {"job": "tstudent.train", "setting": args.setting, "seed": args.seed,
           "settings": settings_key({"spec": dataclasses.asdict(spec),
                                     "run": dataclasses.asdict(run), "d": cfg.d,
                                     "leaky_slope": cfg.leaky_slope})}
    with Resumable(args.out, key, total=run.iterations,
                   what=f"tstudent {args.setting} seed {args.seed}") as ck:
        result = run_student(teacher, run, args.seed, log=log.info, ck=ck)
        result.update(setting=args.setting, seed=args.seed, scale=args.scale,
                      teacher=spec.teacher, act=spec.act, D=spec.D, K=spec.K, d=teacher.d)
        write_json(args.out, result)
    log.info(f"wrote {args.out}")


if __name__ == "__main__":
    main()
