"""CLI: one cell of the synthetic grid (one metric x one matrix size m), as JSON.

    python -m repro.papers.hadamard_dp.experiment \\
        --config src/repro/papers/hadamard_dp/config.yaml --scale small \\
        --metric affine_invariant --m 2 --out results/.../affine_invariant_m2.json

The paper's protocol (Sec. 5): n points in a geodesic ball of radius r, their Fréchet mean
released at each mu-GDP budget mu by the EW Gaussian (sigma = Delta/mu), and by the
Laplace-type mechanisms at eps(mu) (`mechanisms.laplace_eps_for_gdp`): the EW Laplace and
the MCMC Riemannian Laplace (RL). Utility: the geodesic distance of the release to the
sample Fréchet mean. Each repetition draws a new data set; all mechanisms and budgets of a
repetition release the same mean (paired comparisons). Runtime: `timing_reps` single
releases of each mechanism at `timing_mu`, one at a time (no batching), in this same job.

Resumable (repro.core.checkpoint): the MCMC chains are the bulk of a cell (at full, 2,000 chains
of 10,000 steps in chunks of `mcmc.chunk`, about a minute each), so the chunks are the steps of
the job's saved state: after each, the chains released so far and the RL generator's state are
saved beside `--out`. A stop (SIGTERM / SIGINT) ends the job after the chunk that is running
(or, if that takes longer than REPRO_STOP_GRACE_S, at once: that chunk is lost, not the others)
and a rerun goes on from the next chunk. The data, the EW releases and the timing are recomputed
(seconds), and the cell is the same, byte for byte, as an uninterrupted run's but for the
measured times.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger, progress
from repro.core.seeding import seed_everything
from repro.papers.hadamard_dp.frechet import ball_center, sample_ball
from repro.papers.hadamard_dp.geometry import METRIC_NAMES, dim, get_metric, volume_growth_rate
from repro.papers.hadamard_dp.mechanisms import (
    ew_coords,
    ew_gaussian,
    ew_gaussian_noise,
    ew_laplace,
    ew_laplace_noise,
    frechet_sensitivity,
    gdp_sigma,
    laplace_eps_for_gdp,
    laplace_sigma,
    release_error,
    riemannian_laplace_mh,
    rl_is_proper,
    time_per_call,
)
from repro.papers.hadamard_dp.settings import McmcConfig, Settings, load

MECH_CODES = {"ewg": 1, "ewl": 2, "rl": 3, "data": 0, "timing": 9}


def rng_for(seed: int, *keys: int) -> np.random.Generator:
    """Independent, reproducible stream per (seed, keys...)."""
    return np.random.default_rng(np.random.SeedSequence([seed, *keys]))


def mu_label(mu: float) -> str:
    return f"{mu:g}"


def run_rl(metric_name: str, eta: np.ndarray, sigma: np.ndarray, rng: np.random.Generator,
           mcmc: McmcConfig, desc: str, stats: dict | None = None,
           ck: Resumable | None = None) -> tuple[np.ndarray, np.ndarray]:
    """RL releases for rows of eta (B, m, m), in chunks of chains run side by side.

    With `ck` (the job's open `Resumable` block) the chunks are its steps: each chunk's chains
    and counts are its saved result and `rng` is restored with them, so a rerun draws the next
    chunk's numbers exactly as an uninterrupted run would."""
    g = get_metric(metric_name)
    starts = list(range(0, len(eta), mcmc.chunk))
    bar: Iterator[int] | None = None

    def chunk(s: int) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
        nonlocal bar
        if bar is None:  # the chunks this run computes (a resumed run skips the saved ones)
            bar = progress(range(s, len(eta), mcmc.chunk), desc=desc)
        next(bar)
        counts: dict[str, int] = {}
        sl = slice(s, s + mcmc.chunk)
        y, a = riemannian_laplace_mh(g, eta[sl], sigma[sl], rng, mcmc.n_steps,
                                     float(mcmc.proposal_scale), stats=counts)
        return y, a, counts

    if ck is None:
        parts = [chunk(s) for s in starts]
    else:
        ck.rngs["rl"] = rng
        parts = ck.map(chunk, starts)
    if bar is not None:
        next(bar, None)  # ends the iteration: the progress line's last report
    out = np.empty_like(eta)
    acc = np.empty(len(eta))
    for s, (y, a, counts) in zip(starts, parts, strict=True):
        out[s:s + mcmc.chunk], acc[s:s + mcmc.chunk] = y, a
        if stats is not None:
            for k, v in counts.items():
                stats[k] = stats.get(k, 0) + v
    return out, acc


def release_grid(metric_name: str, p0: np.ndarray, eta: np.ndarray, mus: list[float],
                 sens: float, mechanisms: list[str], mcmc: McmcConfig, seed: int,
                 keys: tuple[int, ...], desc: str = "rl", ck: Resumable | None = None
                 ) -> dict[str, Any]:
    """Release each mean of eta (R, m, m) at each budget with each mechanism (`ck`: the RL
    chunks are the steps of this resumable block, `run_rl`).

    Returns errors[mech] as an (R, len(mus)) array (NaN where RL is improper), the RL
    acceptance rates, and the per-budget calibration (eps, sigmas, properness)."""
    g = get_metric(metric_name)
    m = eta.shape[-1]
    R, K = len(eta), len(mus)
    eps = np.array([laplace_eps_for_gdp(mu) for mu in mus])
    sig_g = np.array([gdp_sigma(mu, sens) for mu in mus])
    sig_l = np.array([laplace_sigma(e, sens) for e in eps])
    proper = np.array([rl_is_proper(metric_name, m, s) for s in sig_l])
    grid_eta = np.broadcast_to(eta[:, None], (R, K, m, m))
    errors: dict[str, np.ndarray] = {}
    acceptance = np.full((R, K), np.nan)
    stats: dict[str, int] = {}
    d = dim(m)
    for mech in mechanisms:
        rng = rng_for(seed, *keys, MECH_CODES[mech])
        if mech in ("ewg", "ewl"):
            sig = np.broadcast_to(sig_g if mech == "ewg" else sig_l, (R, K))
            noise = (ew_gaussian_noise if mech == "ewg" else ew_laplace_noise)(rng, sig, d)
            errors[mech] = release_error(g, p0, ew_coords(g, p0, grid_eta, noise), grid_eta)
        elif mech == "rl":
            err = np.full((R, K), np.nan)
            cols = np.flatnonzero(proper)
            if len(cols):
                e = grid_eta[:, cols].reshape(-1, m, m)
                s = np.broadcast_to(sig_l[cols], (R, len(cols))).reshape(-1)
                y, acc = run_rl(metric_name, e, s, rng, mcmc, desc, stats, ck)
                err[:, cols] = g.dist(y, e).reshape(R, len(cols))
                acceptance[:, cols] = acc.reshape(R, len(cols))
            errors[mech] = err
        else:
            raise ValueError(f"unknown mechanism {mech!r}: allowed are ewg, ewl, rl")
    return {
        "errors": errors,
        "rl_acceptance": acceptance,
        "eps_laplace": eps,
        "sigma_gauss": sig_g,
        "sigma_laplace": sig_l,
        "rl_proper": proper,
        "rl_sigma_times_growth": sig_l * volume_growth_rate(metric_name, m),
        "rl_failed_proposals": stats.get("failed", 0),
        "rl_proposals": stats.get("proposals", 0),
    }


def timing(metric_name: str, p0: np.ndarray, eta: np.ndarray, mu: float, sens: float,
           mechanisms: list[str], mcmc: McmcConfig, reps: int, seed: int,
           keys: tuple[int, ...]) -> dict[str, list[float]]:
    """Seconds per single release of each mechanism (one at a time, as a user would)."""
    g = get_metric(metric_name)
    rng = rng_for(seed, *keys, MECH_CODES["timing"])
    sig_g = gdp_sigma(mu, sens)
    sig_l = laplace_sigma(laplace_eps_for_gdp(mu), sens)
    fns = {
        "ewg": lambda: ew_gaussian(g, p0, eta, sig_g, rng),
        "ewl": lambda: ew_laplace(g, p0, eta, sig_l, rng),
        "rl": lambda: riemannian_laplace_mh(g, eta[None], np.array([sig_l]), rng,
                                            mcmc.n_steps, float(mcmc.proposal_scale)),
    }
    # warm-up (lazy imports, caches): the EW releases once, a 10-step chain for RL
    ew_gaussian(g, p0, eta, sig_g, rng)
    riemannian_laplace_mh(g, eta[None], np.array([sig_l]), rng, 10)
    return {mech: time_per_call(fns[mech], reps) for mech in mechanisms}


def records_of(errors: dict[str, np.ndarray], mus: list[float], prefix: str
               ) -> list[dict[str, Any]]:
    """Long records {method, metric, seed=rep, value} of each release's error."""
    recs = []
    for mech, err in errors.items():
        for k, mu in enumerate(mus):
            for rep in range(err.shape[0]):
                v = float(err[rep, k])
                if math.isfinite(v):
                    recs.append({"method": mech, "metric": f"{prefix}/mu{mu_label(mu)}/err",
                                 "seed": rep, "value": v})
    return recs


def run_cell(cfg: Settings, metric_name: str, m: int, log: Callable[[str], object] = print,
             ck: Resumable | None = None) -> dict[str, Any]:
    """The whole cell: data per repetition, Fréchet means, releases, timing (`ck`: the RL
    chunks are the steps of this resumable block)."""
    syn = cfg.synthetic
    g = get_metric(metric_name)
    keys = (METRIC_NAMES.index(metric_name), m)
    n, r, reps = syn.n, float(syn.r), syn.reps
    sens = frechet_sensitivity(r, n)
    p0 = np.eye(m)  # footpoint: the identity, fixed before seeing data
    center = ball_center(g, m, float(syn.center_distance), syn.center_seed + m)
    xs = sample_ball(g, center, r, n, rng_for(cfg.seed, *keys, MECH_CODES["data"]),
                     batch=(reps,))
    eta = g.mean(xs)
    log(f"{metric_name} m={m}: {reps} data sets of n={n} in B_{r}(c), d(I, c)="
        f"{float(g.dist(p0, center)):.3f}, Delta={sens:.4f}")
    mus = [float(x) for x in syn.mus]
    res = release_grid(metric_name, p0, eta, mus, sens, list(syn.mechanisms), cfg.mcmc,
                       cfg.seed, keys, desc=f"rl {metric_name} m={m}", ck=ck)
    times = timing(metric_name, p0, eta[0], float(syn.timing_mu), sens,
                   list(syn.mechanisms), cfg.mcmc, syn.timing_reps, cfg.seed, keys)
    prefix = f"{metric_name}/d{dim(m)}"
    return {
        "metric": metric_name, "m": m, "d": dim(m), "n": n, "r": r, "reps": reps,
        "sensitivity": sens, "mus": mus,
        "center_distance_from_footpoint": float(g.dist(p0, center)),
        "footpoint_to_mean": g.dist(np.broadcast_to(p0, eta.shape), eta).tolist(),
        "max_radius": float(g.dist(np.broadcast_to(center, xs.shape), xs).max()),
        "errors": {k: v.tolist() for k, v in res["errors"].items()},
        "rl_acceptance": res["rl_acceptance"].tolist(),
        "eps_laplace": res["eps_laplace"].tolist(),
        "sigma_gauss": res["sigma_gauss"].tolist(),
        "sigma_laplace": res["sigma_laplace"].tolist(),
        "rl_proper": res["rl_proper"].tolist(),
        "rl_sigma_times_growth": res["rl_sigma_times_growth"].tolist(),
        "rl_failed_proposals": res["rl_failed_proposals"],
        "rl_proposals": res["rl_proposals"],
        "timing_mu": float(syn.timing_mu),
        "timing_s": times,
        "mcmc": dataclasses.asdict(cfg.mcmc),
        "records": records_of(res["errors"], mus, prefix),
    }


def run_job(a: Any, cfg: Settings, name: str,
            compute: Callable[[Callable[[str], None]], dict[str, Any]],
            summary: Callable[[dict[str, Any]], str] | None = None) -> None:
    """The jobs' shared frame: seed, logger, one BLAS thread (jobs run side by side), compute,
    stamp the scale, write a.out atomically."""
    from threadpoolctl import threadpool_limits

    seed_everything(cfg.seed)
    log = get_logger(f"hadamard_dp.{name}", a.log)
    with threadpool_limits(1):
        result = compute(log.info)
    result["scale"] = a.scale
    write_json(a.out, result)
    log.info(f"wrote {a.out}" + (f"; {summary(result)}" if summary else ""))


def _median_times(result: dict[str, Any]) -> str:
    t = {k: float(np.median(v)) for k, v in result["timing_s"].items()}
    return "median s/release: " + ", ".join(f"{k} {v:.2e}" for k, v in t.items())


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--metric", required=True, choices=METRIC_NAMES)
    ap.add_argument("--m", required=True, type=int)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if a.m not in cfg.synthetic.ms:
        raise SystemExit(f"--m {a.m} is not in synthetic.ms {cfg.synthetic.ms} at scale "
                         f"{a.scale}")
    # what the cell depends on: its arguments and the settings it reads
    key = {"job": "hadamard_dp.grid", "metric": a.metric, "m": a.m,
           "settings": settings_key({"seed": cfg.seed,
                                     "synthetic": dataclasses.asdict(cfg.synthetic),
                                     "mcmc": dataclasses.asdict(cfg.mcmc)})}
    with Resumable(a.out, key, every=1, what=f"hadamard_dp grid {a.metric} m={a.m}") as ck:
        run_job(a, cfg, f"{a.metric}.m{a.m}",
                lambda log: run_cell(cfg, a.metric, a.m, log=log, ck=ck), _median_times)


if __name__ == "__main__":
    main()
