"""CLI: the real-data case. Each class's Fréchet mean of the image covariance descriptors
(`data.py`) released privately (log-Euclidean metric, SPD(5), d = 15), as the paper's OCTMNIST
experiment: every budget, every mechanism, `real.reps` repetitions of the noise.

    python -m repro.papers.hadamard_dp.realdata --config config/papers/hadamard_dp.yaml \\
        --scale small --data data/hadamard_dp/small/descriptors.npz --out results/.../realdata.json

Footpoint p0 = exp(c) I and radius r come from the intensity range (source.json), not from the
data; the sensitivity of a class mean is 2r/n_class.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import read_json
from repro.papers.hadamard_dp.experiment import records_of, release_grid, run_job
from repro.papers.hadamard_dp.geometry import get_metric
from repro.papers.hadamard_dp.mechanisms import frechet_sensitivity
from repro.papers.hadamard_dp.settings import Settings, load

M = 5  # descriptor size (data.FEATURES)


def release(cfg: Settings, data: Path, log: Callable[[str], object] = print) -> dict[str, Any]:
    """Each class's Fréchet mean released `reps` times at each budget by each mechanism."""
    real = cfg.real
    g = get_metric(real.metric)
    with np.load(data) as z:
        X, y = z["X"], z["y"]
    src = read_json(data.with_name("source.json"))
    p0 = math.exp(src["footpoint_log_scale"]) * np.eye(M)
    r = float(src["radius"])
    mus = [float(v) for v in real.mus]
    out: dict[str, Any] = {"metric": g.name, "mus": mus, "radius": r, "source": src,
                           "classes": {}, "records": []}
    for ci, c in enumerate(real.classes):
        xc = X[y == c]
        n = len(xc)
        sens = frechet_sensitivity(r, n)
        eta = g.mean(xc)
        radius = float(g.dist(np.broadcast_to(p0, xc.shape), xc).max())
        if radius > r + 1e-9:
            raise SystemExit(f"class {c}: a descriptor lies {radius:.3f} > r = {r:.3f} from p0")
        eta_reps = np.broadcast_to(eta, (real.reps, M, M)).copy()
        res = release_grid(g.name, p0, eta_reps, mus, sens, list(real.mechanisms), cfg.mcmc,
                           cfg.seed, (100 + ci,), desc=f"rl class {c}")
        log(f"class {c}: n={n}, Delta={sens:.4f}, max d(p0, x)={radius:.3f} (r={r:.3f})")
        out["classes"][str(c)] = {
            "n": n, "sensitivity": sens, "max_radius": radius,
            "footpoint_to_mean": float(g.dist(p0, eta)),
            "errors": {k: v.tolist() for k, v in res["errors"].items()},
            "rl_acceptance": res["rl_acceptance"].tolist(),
            "eps_laplace": res["eps_laplace"].tolist(),
        }
        out["records"] += records_of(res["errors"], mus, f"real/class{c}")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--data", required=True, type=Path, help="descriptors.npz (data.py)")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    run_job(a, cfg, "realdata", lambda log: release(cfg, a.data, log=log))


if __name__ == "__main__":
    main()
