"""CLI: the real-data case. Each class's Fréchet mean of the image covariance descriptors
(`data.py`) released privately (log-Euclidean metric, SPD(5), d = 15), as the paper's OCTMNIST
experiment: every budget, every mechanism, `real.reps` repetitions of the noise.

    python -m repro.papers.hadamard_dp.realdata --config src/repro/papers/hadamard_dp/config.yaml \\
        --scale small --data data/hadamard_dp/small/descriptors.npz --out results/.../realdata.json

Footpoint p0 = exp(c) I and radius r come from the intensity range (source.json), not from the
data; the sensitivity of a class mean is 2r/n_class.

Resumable (repro.core.checkpoint): the classes are the steps of the job's saved state (each
class's releases are saved once it is done), and within a class its MCMC chunks are the steps of
a nested block (`experiment.run_rl`; at full a class is 2,000 chains, four chunks of about a
minute). A stop (SIGTERM / SIGINT) ends the job after the chunk that is running (as in
`experiment`); a rerun skips the finished classes, goes on from the saved chunk and writes the same
bytes as an uninterrupted run.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import read_json
from repro.papers.hadamard_dp.experiment import records_of, release_grid, run_job
from repro.papers.hadamard_dp.geometry import get_metric
from repro.papers.hadamard_dp.mechanisms import frechet_sensitivity
from repro.papers.hadamard_dp.settings import Settings, load

M = 5  # descriptor size (data.FEATURES)


def release(cfg: Settings, data: Path, log: Callable[[str], object] = print,
            ck: Resumable | None = None) -> dict[str, Any]:
    """Each class's Fréchet mean released `reps` times at each budget by each mechanism.

    With `ck` (the job's open `Resumable` block) the classes are its steps, and each class's
    MCMC chunks those of a block nested in it (its state inside ck's directory, keyed by ck's
    key and the class): every class draws from its own generators (`rng_for(seed, 100 + class)`),
    so a finished class needs nothing saved but its result."""
    real = cfg.real
    g = get_metric(real.metric)
    with np.load(data) as z:
        X, y = z["X"], z["y"]
    src = read_json(data.with_name("source.json"))
    p0 = math.exp(src["footpoint_log_scale"]) * np.eye(M)
    r = float(src["radius"])
    mus = [float(v) for v in real.mus]

    def one_class(ci: int, c: int, rl: Resumable | None) -> tuple[dict[str, Any], list]:
        xc = X[y == c]
        n = len(xc)
        sens = frechet_sensitivity(r, n)
        eta = g.mean(xc)
        radius = float(g.dist(np.broadcast_to(p0, xc.shape), xc).max())
        if radius > r + 1e-9:
            raise SystemExit(f"class {c}: a descriptor lies {radius:.3f} > r = {r:.3f} from p0")
        eta_reps = np.broadcast_to(eta, (real.reps, M, M)).copy()
        res = release_grid(g.name, p0, eta_reps, mus, sens, list(real.mechanisms), cfg.mcmc,
                           cfg.seed, (100 + ci,), desc=f"rl class {c}", ck=rl)
        log(f"class {c}: n={n}, Delta={sens:.4f}, max d(p0, x)={radius:.3f} (r={r:.3f})")
        return {
            "n": n, "sensitivity": sens, "max_radius": radius,
            "footpoint_to_mean": float(g.dist(p0, eta)),
            "errors": {k: v.tolist() for k, v in res["errors"].items()},
            "rl_acceptance": res["rl_acceptance"].tolist(),
            "eps_laplace": res["eps_laplace"].tolist(),
        }, records_of(res["errors"], mus, f"real/class{c}")

    classes = list(enumerate(real.classes))
    if ck is None:
        done = [one_class(ci, c, None) for ci, c in classes]
    else:
        def resumable_class(item: tuple[int, int]) -> tuple[dict[str, Any], list]:
            ci, c = item
            with Resumable(ck.dir / f"class{c}", {"job": ck.key, "class": c}, every=1,
                           what=f"hadamard_dp realdata class {c}") as rl:
                return one_class(ci, c, rl)

        done = ck.map(resumable_class, classes)
    out: dict[str, Any] = {"metric": g.name, "mus": mus, "radius": r, "source": src,
                           "classes": {}, "records": []}
    for (_, c), (entry, records) in zip(classes, done, strict=True):
        out["classes"][str(c)] = entry
        out["records"] += records
    return out


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--data", required=True, type=Path, help="descriptors.npz (data.py)")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    # what the result depends on: the settings it reads and its input files
    key = {"job": "hadamard_dp.realdata",
           "settings": settings_key({"seed": cfg.seed, "real": dataclasses.asdict(cfg.real),
                                     "mcmc": dataclasses.asdict(cfg.mcmc)})}
    with Resumable(a.out, key, every=1, inputs=[a.data, a.data.with_name("source.json")],
                   what="hadamard_dp realdata") as ck:
        run_job(a, cfg, "realdata", lambda log: release(cfg, a.data, log=log, ck=ck))


if __name__ == "__main__":
    main()
