"""Evaluate every method of one task and seed on the test set: the realised task loss of its
decisions and the regret against the perfect-information (oracle) decision.

    python -m repro.papers.diffdfl.evaluate --config src/repro/papers/diffdfl/config.yaml \
        --scale small \
        --task power --seed 0 --data data/diffdfl/small/power.npz \
        --runs results/small/diffdfl/runs/power/*/seed0.pt --out .../eval/power_seed0.json

Stochastic methods decide on `evaluate.mc_samples` draws per test instance (pooled over the
test set where the task pools, as in training); point models on their one prediction. The
synthetic task also gets the Bayes-optimal decision (the sample-average solution over
`bayes_samples` draws of the true law): the best any method could do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.papers.diffdfl.settings import load
from repro.papers.diffdfl.train import load_model, load_task


def summary(cost: np.ndarray, oracle: np.ndarray) -> dict[str, Any]:
    return {"task_loss": float(cost.mean()), "regret": float((cost - oracle).mean()),
            "task_loss_median": float(np.median(cost)), "n_test": int(len(cost))}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0])
    ap.add_argument("--task", required=True, choices=["synthetic", "power"])
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--runs", required=True, nargs="+", type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)

    import torch

    from repro.core.device import limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything
    from repro.papers.diffdfl.data import synthetic_law
    from repro.papers.diffdfl.method import decisions
    from repro.papers.diffdfl.problems import make_problem

    limit_cpu_threads(cfg.threads)
    seed_everything(a.seed)
    device = pick_device()
    d = load_task(cfg, a.task, a.data, a.seed, device)
    x, y = d["x_test"], d["y_test"].cpu()
    problem = make_problem(a.task, cfg)
    oracle = problem.cost(torch.as_tensor(problem.oracle(y.double().numpy())), y.double())
    oracle = oracle.numpy()
    out: dict[str, Any] = {"task": a.task, "seed": a.seed, "methods": {},
                           "oracle": summary(oracle, oracle)}
    for run in a.runs:
        meta = torch.load(run, weights_only=False)["meta"]
        method = meta["method"]
        if (meta["task"], meta["seed"]) != (a.task, a.seed):
            raise SystemExit(f"{run} is {meta['task']} seed {meta['seed']}, not {a.task} seed "
                             f"{a.seed}")
        model = load_model(run, method, x.shape[1], y.shape[1], cfg, device).eval()
        gen = torch.Generator().manual_seed(40_000 + a.seed)
        z = decisions(method, model, problem, x, cfg.evaluate.mc_samples, gen, chunk=len(x))
        cost = problem.cost(torch.as_tensor(z), y.double()).numpy()
        out["methods"][method] = {**summary(cost, oracle),
                                  **{k: meta[k] for k in ("best_step",)
                                     if k in meta}}
    if a.task == "synthetic":
        draws = synthetic_law(cfg.synthetic, cfg.synthetic.bayes_samples, 50_000 + a.seed)
        z = problem.solve(draws[None].astype(np.float64))[0]
        cost = problem.cost(torch.as_tensor(np.repeat(z, len(y), 0)), y.double()).numpy()
        out["bayes"] = summary(cost, oracle)
    write_json(a.out, out)


if __name__ == "__main__":
    main()
