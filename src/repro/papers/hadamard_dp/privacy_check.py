"""CLI: empirical privacy sanity check of the EW mechanisms on neighbouring data sets, plus
the calibration tables ((eps, delta) analytic vs classical Gaussian, mu <-> eps, RDP).

    python -m repro.papers.hadamard_dp.privacy_check --config ... --scale small --out privacy.json

Two data sets D, D' of the synthetic protocol differ in one point: the point farthest from
the ball's centre is replaced by its mirror image on the boundary (about the largest move of
the Fréchet mean). Each mechanism releases the mean of D and of D' `n_samples` times; the
released matrices are reduced to a 1-D statistic T(y) = <Log_{p0} y - Log_{p0} eta, e>, e the
unit vector from Log_{p0} eta to Log_{p0} eta' (a fixed function of the output: post-
processing, so T inherits the guarantee).
  - eps-DP (EW Laplace, sigma = Delta/eps): on equal-mass bins where both histograms hold at
    least `min_count` draws, |log P(T in bin) - log P'(T in bin)| <= eps. Reported:
    excess = max over bins of (|log-ratio| - z * se) - eps, se = sqrt(1/count + 1/count').
  - (eps, delta)-DP (EW Gaussian, analytic sigma): the hockey-stick divergence
    sum_bins max(0, P - e^eps P') (both directions) <= delta; excess = estimate - z * se - delta.
Controls: the same with `control_factor` x the noise scale must show a positive excess.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.papers.hadamard_dp.experiment import rng_for, run_job
from repro.papers.hadamard_dp.frechet import ball_center, neighbour, sample_ball
from repro.papers.hadamard_dp.geometry import METRIC_NAMES, dim, get_metric
from repro.papers.hadamard_dp.mechanisms import (
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    ew_gaussian,
    ew_laplace,
    frechet_sensitivity,
    gdp_delta,
    gdp_mu_from_eps,
    laplace_eps_for_gdp,
    laplace_sigma,
    rdp_sigma,
)
from repro.papers.hadamard_dp.settings import Settings, load


def eps_check(t1: np.ndarray, t2: np.ndarray, eps: float, bins: int, min_count: int,
              z: float) -> dict[str, Any]:
    """Largest |log-ratio| of the two histograms of T over equal-mass bins of the pooled
    sample, less z standard errors, compared with eps."""
    edges = np.quantile(np.concatenate([t1, t2]), np.linspace(0, 1, bins + 1))
    edges[0], edges[-1] = -np.inf, np.inf
    c1 = np.histogram(t1, edges)[0].astype(float)
    c2 = np.histogram(t2, edges)[0].astype(float)
    keep = (c1 >= min_count) & (c2 >= min_count)
    lr = np.log((c1[keep] / len(t1)) / (c2[keep] / len(t2)))
    se = np.sqrt(1.0 / c1[keep] + 1.0 / c2[keep])
    centres = np.quantile(np.concatenate([t1, t2]), (np.arange(bins) + 0.5) / bins)[keep]
    worst = float(np.max(np.abs(lr) - z * se)) if keep.any() else float("nan")
    return {"max_abs_log_ratio": float(np.max(np.abs(lr))) if keep.any() else float("nan"),
            "max_abs_log_ratio_minus_z_se": worst, "excess_over_eps": worst - eps,
            "bins_used": int(keep.sum()), "bin_centres": centres.tolist(),
            "log_ratio": lr.tolist(), "se": se.tolist()}


def delta_check(t1: np.ndarray, t2: np.ndarray, eps: float, delta: float, bins: int,
                z: float) -> dict[str, Any]:
    """Hockey-stick divergence at eps of the two histograms (both directions), less z se."""
    edges = np.quantile(np.concatenate([t1, t2]), np.linspace(0, 1, bins + 1))
    edges[0], edges[-1] = -np.inf, np.inf
    p = np.histogram(t1, edges)[0] / len(t1)
    q = np.histogram(t2, edges)[0] / len(t2)
    out = {}
    for name, (a, b, na, nb) in {"P||P'": (p, q, len(t1), len(t2)),
                                 "P'||P": (q, p, len(t2), len(t1))}.items():
        diff = a - np.exp(eps) * b
        pos = diff > 0
        h = float(diff[pos].sum())
        se = float(np.sqrt(np.sum(a[pos] / na + np.exp(2 * eps) * b[pos] / nb)))
        out[name] = {"hockey_stick": h, "se": se}
    top = max(out.values(), key=lambda v: v["hockey_stick"])
    return {"directions": out, "hockey_stick": top["hockey_stick"], "se": top["se"],
            "excess_over_delta": max(v["hockey_stick"] - z * v["se"] for v in out.values())
            - delta}


def calibration_tables() -> dict[str, Any]:
    """The calibrations the mechanisms use, tabulated (sigma in units of the sensitivity)."""
    rows = []
    for eps in (0.1, 0.5, 1.0, 2.0, 5.0):
        for delta in (1e-5, 1e-3):
            s = analytic_gaussian_sigma(eps, delta, 1.0)
            rows.append({"eps": eps, "delta": delta, "analytic_sigma": s,
                         "classical_sigma": classical_gaussian_sigma(eps, delta, 1.0),
                         "delta_at_analytic_sigma": gdp_delta(1.0 / s, eps),
                         "equivalent_gdp_mu": 1.0 / s})
    mus = [round(0.1 * k, 1) for k in range(1, 21)]
    conv = [{"mu": mu, "laplace_eps": laplace_eps_for_gdp(mu), "gauss_sigma": 1.0 / mu,
             "laplace_sigma": 1.0 / laplace_eps_for_gdp(mu),
             "mu_back": gdp_mu_from_eps(laplace_eps_for_gdp(mu))} for mu in mus]
    rdp = [{"alpha": a, "eps": e, "sigma": rdp_sigma(a, e, 1.0)}
           for a in (2.0, 8.0, 32.0) for e in (0.5, 1.0)]
    return {"gaussian": rows, "gdp_laplace": conv, "rdp": rdp}


def run_check(cfg: Settings, log: Callable[[str], object] = print) -> dict[str, Any]:
    """Each EW mechanism and its control on one neighbouring pair of the synthetic protocol."""
    P, syn = cfg.privacy, cfg.synthetic
    g = get_metric(P.metric)
    m = P.m
    keys = (METRIC_NAMES.index(g.name), m, 77)
    seed = cfg.seed
    n, r = syn.n, float(syn.r)
    sens = frechet_sensitivity(r, n)
    p0 = np.eye(m)
    center = ball_center(g, m, float(syn.center_distance), syn.center_seed + m)
    xs = sample_ball(g, center, r, n, rng_for(seed, *keys, 0))
    far = int(np.argmax(g.dist(np.broadcast_to(center, xs.shape), xs)))
    xs2 = neighbour(g, xs, center, r, far)
    eta, eta2 = g.mean(xs), g.mean(xs2)
    c1, c2 = g.log_coords(p0, eta), g.log_coords(p0, eta2)
    shift = float(np.linalg.norm(c2 - c1))
    e = (c2 - c1) / shift
    N = P.n_samples
    eps, delta, z = float(P.eps), float(P.delta), float(P.z)

    def stat(y: np.ndarray) -> np.ndarray:
        return (g.log_coords(p0, y) - c1) @ e

    def draws(mech, sigma: float, code: int) -> tuple[np.ndarray, np.ndarray]:
        rng = rng_for(seed, *keys, code)
        a = mech(g, p0, np.broadcast_to(eta, (N, m, m)), sigma, rng)
        b = mech(g, p0, np.broadcast_to(eta2, (N, m, m)), sigma, rng)
        return stat(a), stat(b)

    out: dict[str, Any] = {
        "metric": g.name, "m": m, "d": dim(m), "n": n, "r": r, "sensitivity": sens,
        "dist_means": float(g.dist(eta, eta2)), "tangent_shift": shift,
        "shift_over_sensitivity": shift / sens, "eps": eps, "delta": delta, "z": z,
        "n_samples": N, "checks": {}}
    sig_l = laplace_sigma(eps, sens)
    sig_g = analytic_gaussian_sigma(eps, delta, sens)
    f = float(P.control_factor)
    for name, mech, sigma, code in (("ewl", ew_laplace, sig_l, 1),
                                    ("ewl_control", ew_laplace, f * sig_l, 2),
                                    ("ewg", ew_gaussian, sig_g, 3),
                                    ("ewg_control", ew_gaussian, f * sig_g, 4)):
        t1, t2 = draws(mech, sigma, code)
        if mech is ew_laplace:
            res = eps_check(t1, t2, eps, P.bins, P.min_count, z)
            res["bound_for_this_pair"] = shift / sigma  # the privacy loss of this pair
        else:
            res = delta_check(t1, t2, eps, delta, P.bins * 4, z)
            res["exact_delta_for_this_pair"] = gdp_delta(shift / sigma, eps)
        res["sigma"] = sigma
        out["checks"][name] = res
        key = "excess_over_eps" if mech is ew_laplace else "excess_over_delta"
        log(f"{name}: sigma={sigma:.4f}, {key}={res[key]:+.4f}")
    out["records"] = [
        {"method": k, "metric": "privacy/" + ("excess_over_eps" if k.startswith("ewl")
                                                else "excess_over_delta"),
         "seed": 0, "value": v["excess_over_eps" if k.startswith("ewl") else "excess_over_delta"]}
        for k, v in out["checks"].items()]
    out["calibration"] = calibration_tables()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    run_job(a, cfg, "privacy", lambda log: run_check(cfg, log=log))


if __name__ == "__main__":
    main()
