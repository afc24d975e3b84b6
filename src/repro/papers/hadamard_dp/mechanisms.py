"""Privacy mechanisms on SPD(m): exponential-wrapped Laplace and Gaussian, their calibrations,
and the baseline Riemannian Laplace mechanism of Reimherr et al. (2021) sampled by MCMC.

Exponential-wrapped (EW) mechanisms (the paper): pick a footpoint p0 that does not depend on
the data, map the statistic eta = f(D) to T_{p0} M with Log_{p0}, add noise there in an
orthonormal frame of T_{p0} M (dimension d = m(m+1)/2), map back with Exp_{p0}.
  - EW Laplace (eps-DP): tangent density h(u) ∝ exp(-|u - Log_{p0} eta| / sigma), sigma =
    Delta/eps (the K-norm / "Euclidean" Laplace with the l2 norm, not a product of 1-D
    Laplaces): u = Log_{p0} eta + R * w, w uniform on the unit sphere, R ~ Gamma(d, sigma).
  - EW Gaussian: u = Log_{p0} eta + sigma * z, z ~ N(0, I_d), with sigma from
      (eps, delta)-DP: the analytic Gaussian mechanism (Balle & Wang 2018, Thm. 8),
      mu-GDP: sigma = Delta/mu (Dong, Roth & Su 2022),
      (alpha, eps)-RDP: sigma = Delta / sqrt(2 eps / alpha) (Mironov 2017).
  Privacy: on a Hadamard manifold Log_{p0} is 1-Lipschitz, so |Log_{p0} f(D) - Log_{p0} f(D')|
  <= d(f(D), f(D')) <= Delta, and Exp_{p0} is post-processing.

Riemannian Laplace (RL, Reimherr et al. 2021): density ∝ exp(-d(x, eta)/sigma) w.r.t. the
Riemannian volume, sigma = Delta/eps (their rate on homogeneous spaces, which all three SPD
metrics are). Sampled by random-walk Metropolis-Hastings on the manifold: proposal
y = Exp_x(s xi), xi ~ N(0, I_d) in an orthonormal frame at x, s = proposal_scale * sigma *
sqrt((d+1)/d) (2.38/sqrt(d) times the per-coordinate sd sqrt(d+1) sigma of the flat
Laplace); the proposal is symmetric on these symmetric spaces, so the acceptance ratio is
exp(-(d(y, eta) - d(x, eta))/sigma). Each release runs one chain from eta for `n_steps`
(burn-in) and outputs its last state. Where the volume grows exponentially (affine-invariant)
the RL density exists only for sigma < 1/gamma (`geometry.volume_growth_rate`).

Budgets: the paper compares mechanisms at a common mu-GDP budget. An eps-DP mechanism is
mu-GDP with mu = -2 Phi^-1(1/(1+e^eps)) (the tight conversion of Liu, Sun, Jiang & Kong 2022,
used by Jiang et al. 2023 for the Riemannian Laplace under GDP), so a Laplace mechanism gets
eps(mu) = log(Phi(mu/2) / Phi(-mu/2)) at budget mu.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, log_ndtr, ndtri

from repro.papers.hadamard_dp.geometry import SPDMetric, dim, volume_growth_rate

# ---------------------------------------------------------------------------------------------
# Sensitivity and calibrations
# ---------------------------------------------------------------------------------------------


def frechet_sensitivity(r: float, n: int) -> float:
    """Sensitivity of the Fréchet mean of n points in a geodesic ball of radius r on a
    Hadamard manifold: d(mean(D), mean(D')) <= 2r/n for neighbours D ~ D' (one replaced)."""
    return 2.0 * r / n


def laplace_sigma(eps: float, sens: float) -> float:
    """EW Laplace / Riemannian Laplace rate for eps-DP: sigma = Delta / eps."""
    return sens / eps


def gdp_sigma(mu: float, sens: float) -> float:
    """EW Gaussian noise scale for mu-GDP: sigma = Delta / mu."""
    return sens / mu


def rdp_sigma(alpha: float, eps: float, sens: float) -> float:
    """EW Gaussian noise scale for (alpha, eps)-RDP: alpha Delta^2 / (2 sigma^2) = eps."""
    return sens / math.sqrt(2.0 * eps / alpha)


def gdp_delta(mu: float, eps: float) -> float:
    """The exact delta(eps) of a mu-GDP mechanism (Dong, Roth & Su 2022, Cor. 2.13), which is
    also the exact delta of the Gaussian mechanism with Delta/sigma = mu (Balle & Wang 2018)."""
    a = log_ndtr(-eps / mu + mu / 2.0)
    b = eps + log_ndtr(-eps / mu - mu / 2.0)
    return float(np.exp(a) * -np.expm1(b - a)) if a > -np.inf else 0.0


def analytic_gaussian_sigma(eps: float, delta: float, sens: float) -> float:
    """Smallest sigma with which the Gaussian mechanism is (eps, delta)-DP (Balle & Wang 2018,
    analytic calibration): solves Phi(D/2s - eps s/D) - e^eps Phi(-D/2s - eps s/D) = delta."""
    if not (eps > 0 and 0 < delta < 1):
        raise ValueError(f"need eps > 0 and 0 < delta < 1, got eps={eps}, delta={delta}")
    # delta is increasing in mu = sens/sigma: find mu on a log scale
    f = lambda log_mu: gdp_delta(math.exp(log_mu), eps) - delta  # noqa: E731
    lo, hi = -20.0, 5.0
    while f(hi) < 0:
        hi += 5.0
    log_mu = brentq(f, lo, hi, xtol=1e-14, rtol=1e-15, maxiter=500)
    return sens / math.exp(log_mu)


def classical_gaussian_sigma(eps: float, delta: float, sens: float) -> float:
    """Dwork & Roth's sigma = sqrt(2 ln(1.25/delta)) Delta / eps (valid for eps < 1), for
    comparison with the analytic calibration."""
    return math.sqrt(2.0 * math.log(1.25 / delta)) * sens / eps


def gdp_mu_from_eps(eps: float) -> float:
    """An eps-DP mechanism is mu-GDP with mu = -2 Phi^-1(1/(1+e^eps)) (tight for the class)."""
    return float(-2.0 * ndtri(expit(-eps)))


def laplace_eps_for_gdp(mu: float) -> float:
    """The eps at which an eps-DP (Laplace) mechanism meets a mu-GDP budget: the inverse of
    `gdp_mu_from_eps`, eps = log(Phi(mu/2) / Phi(-mu/2))."""
    return float(log_ndtr(mu / 2.0) - log_ndtr(-mu / 2.0))


# ---------------------------------------------------------------------------------------------
# Exponential-wrapped mechanisms (the paper)
# ---------------------------------------------------------------------------------------------


def _uniform_directions(rng: np.random.Generator, shape: tuple[int, ...], d: int) -> np.ndarray:
    z = rng.standard_normal(shape + (d,))
    return z / np.linalg.norm(z, axis=-1, keepdims=True)


def ew_laplace_noise(rng: np.random.Generator, sigma: np.ndarray, d: int) -> np.ndarray:
    """K-norm (l2) Laplace noise in R^d with density ∝ exp(-|v|/sigma): Gamma(d, sigma)
    radius times a uniform direction. sigma: array of scales, output (*sigma.shape, d)."""
    sigma = np.asarray(sigma, dtype=float)
    radius = rng.gamma(shape=d, scale=1.0, size=sigma.shape) * sigma
    return radius[..., None] * _uniform_directions(rng, sigma.shape, d)


def ew_gaussian_noise(rng: np.random.Generator, sigma: np.ndarray, d: int) -> np.ndarray:
    """Isotropic Gaussian noise sigma * N(0, I_d) in orthonormal coordinates."""
    sigma = np.asarray(sigma, dtype=float)
    return sigma[..., None] * rng.standard_normal(sigma.shape + (d,))


def ew_coords(metric: SPDMetric, p0: np.ndarray, eta: np.ndarray, noise: np.ndarray
              ) -> np.ndarray:
    """Orthonormal coordinates in T_{p0} of an EW release: Log_{p0}(eta) + noise."""
    return metric.log_coords(p0, eta) + noise


def ew_release(metric: SPDMetric, p0: np.ndarray, eta: np.ndarray, noise: np.ndarray
               ) -> np.ndarray:
    """Exp_{p0}(Log_{p0}(eta) + noise), noise in orthonormal coordinates of T_{p0}.
    eta (..., m, m) and noise (..., d) broadcast; p0 is one (m, m) footpoint."""
    return metric.exp_coords(p0, ew_coords(metric, p0, eta, noise))


def release_error(metric: SPDMetric, p0: np.ndarray, coords: np.ndarray, eta: np.ndarray
                  ) -> np.ndarray:
    """d(Exp_{p0}(coords), eta), the utility loss of an EW release given by its coordinates.

    Flat metrics (log-Euclidean, log-Cholesky): Log_{p0} is an isometry onto R^d, so this is
    |coords - Log_{p0}(eta)| exactly; computing it there avoids forming matrices whose
    condition number exceeds 1e16 at the largest noise (log-Cholesky, d = 15, mu = 0.1),
    which float64 cannot represent (tests check both routes agree). Affine-invariant: the
    distance of the released matrix, as is."""
    if metric.name in ("log_euclidean", "log_cholesky"):
        return np.linalg.norm(coords - metric.log_coords(p0, eta), axis=-1)
    return metric.dist(metric.exp_coords(p0, coords), eta)


def ew_laplace(metric: SPDMetric, p0: np.ndarray, eta: np.ndarray, sigma: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
    """EW Laplace release(s) of eta: eps-DP with sigma = Delta/eps."""
    sigma = np.broadcast_to(np.asarray(sigma, float), eta.shape[:-2])
    return ew_release(metric, p0, eta, ew_laplace_noise(rng, sigma, dim(eta.shape[-1])))


def ew_gaussian(metric: SPDMetric, p0: np.ndarray, eta: np.ndarray, sigma: np.ndarray,
                rng: np.random.Generator) -> np.ndarray:
    """EW Gaussian release(s) of eta (sigma from `gdp_sigma`, `analytic_gaussian_sigma`, ...)."""
    sigma = np.broadcast_to(np.asarray(sigma, float), eta.shape[:-2])
    return ew_release(metric, p0, eta, ew_gaussian_noise(rng, sigma, dim(eta.shape[-1])))


# ---------------------------------------------------------------------------------------------
# Baseline: Riemannian Laplace by Metropolis-Hastings (Reimherr et al. 2021)
# ---------------------------------------------------------------------------------------------


def rl_is_proper(metric: str, m: int, sigma: float) -> bool:
    """Is exp(-d(x, eta)/sigma) integrable against the Riemannian volume? (sigma * gamma < 1)."""
    return sigma * volume_growth_rate(metric, m) < 1.0


def _safe_dist(metric: SPDMetric, y: np.ndarray, eta: np.ndarray) -> np.ndarray:
    """Distances, +inf where y is not numerically SPD (its Cholesky / eigenvalues fail)."""
    try:
        out = metric.dist(y, eta)
    except np.linalg.LinAlgError:
        out = np.full(len(y), np.inf)
        for i in range(len(y)):
            try:
                out[i] = metric.dist(y[i], eta[i])
            except np.linalg.LinAlgError:
                pass
    return np.where(np.isfinite(out), out, np.inf)


def riemannian_laplace_mh(metric: SPDMetric, eta: np.ndarray, sigma: np.ndarray,
                          rng: np.random.Generator, n_steps: int,
                          proposal_scale: float = 1.0, stats: dict | None = None
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Run one random-walk Metropolis-Hastings chain per row of eta (B, m, m), started at eta,
    targeting ∝ exp(-d(x, eta_b)/sigma_b); return the last states (B, m, m) and each chain's
    acceptance rate (B,). Proposals that are not numerically SPD (overflow, condition number
    beyond float64) are rejected and counted in stats["failed"] when `stats` is given."""
    eta = np.asarray(eta, dtype=float)
    B, m = eta.shape[0], eta.shape[-1]
    d = dim(m)
    sigma = np.broadcast_to(np.asarray(sigma, dtype=float), (B,)).copy()
    step = proposal_scale * sigma * math.sqrt((d + 1) / d)
    x = eta.copy()
    cur = np.zeros(B)  # d(x, eta) / sigma, zero at the start
    accepted = np.zeros(B)
    failed = 0
    with np.errstate(all="ignore"):
        for _ in range(n_steps):
            xi = step[:, None] * rng.standard_normal((B, d))
            y = metric.exp_coords(x, xi)
            ok = np.isfinite(y).all(axis=(-1, -2))
            prop = np.full(B, np.inf)
            if ok.any():
                prop[ok] = _safe_dist(metric, y[ok], eta[ok]) / sigma[ok]
            failed += int(np.sum(~np.isfinite(prop)))
            take = np.log(rng.random(B)) < cur - prop
            x[take] = y[take]
            cur[take] = prop[take]
            accepted += take
    if stats is not None:
        stats["failed"] = stats.get("failed", 0) + failed
        stats["proposals"] = stats.get("proposals", 0) + B * n_steps
    return x, accepted / max(n_steps, 1)


# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------


def time_per_call(fn: Callable[[], object], reps: int) -> list[float]:
    """Wall seconds of `reps` separate calls (one release each, nothing batched)."""
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out
