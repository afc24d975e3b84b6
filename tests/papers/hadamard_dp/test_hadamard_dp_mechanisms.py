"""Calibrations, sensitivity and samplers of the exponential-wrapped mechanisms and of the
MCMC Riemannian Laplace baseline."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.stats import norm

from repro.papers.hadamard_dp.frechet import ball_center, neighbour, sample_ball
from repro.papers.hadamard_dp.geometry import METRIC_NAMES, dim, get_metric
from repro.papers.hadamard_dp.mechanisms import (
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    ew_coords,
    ew_gaussian,
    ew_laplace,
    ew_laplace_noise,
    frechet_sensitivity,
    gdp_delta,
    gdp_mu_from_eps,
    gdp_sigma,
    laplace_eps_for_gdp,
    rdp_sigma,
    release_error,
    riemannian_laplace_mh,
    rl_is_proper,
)

# ---- calibrations ---------------------------------------------------------------------------


def _gaussian_delta_by_quadrature(sigma: float, sens: float, eps: float) -> float:
    """delta(eps) of N(0, s^2) vs N(Delta, s^2), by integrating max(0, p - e^eps q) directly."""
    p, q = norm(0, sigma).pdf, norm(sens, sigma).pdf
    f = lambda x: max(0.0, p(x) - math.exp(eps) * q(x))  # noqa: E731
    cross = sens / 2 - sigma**2 * eps / sens  # p = e^eps q there; p > e^eps q to its left
    return integrate.quad(f, cross - 40 * sigma, cross, limit=500, epsabs=0, epsrel=1e-10)[0]


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-5), (1.0, 1e-5), (1.0, 1e-3), (4.0, 1e-6)])
def test_analytic_gaussian_sigma_gives_exactly_delta(eps, delta):
    sens = 0.3
    s = analytic_gaussian_sigma(eps, delta, sens)
    assert gdp_delta(sens / s, eps) == pytest.approx(delta, rel=1e-9)
    assert _gaussian_delta_by_quadrature(s, sens, eps) == pytest.approx(delta, rel=1e-4)
    # a slightly smaller sigma breaks (eps, delta): the calibration is tight
    assert _gaussian_delta_by_quadrature(0.97 * s, sens, eps) > delta
    if eps < 1:  # the classical bound is valid there and more conservative
        assert s < classical_gaussian_sigma(eps, delta, sens)


def test_gdp_sigma_and_rdp_sigma():
    assert gdp_sigma(0.5, 0.075) == pytest.approx(0.15)
    # (alpha, eps)-RDP: the Renyi divergence of order alpha of N(0,s^2) vs N(Delta,s^2) is eps
    sens, alpha, eps = 0.2, 4.0, 0.7
    s = rdp_sigma(alpha, eps, sens)
    lp, lq = norm(0, s).logpdf, norm(sens, s).logpdf
    mgf = integrate.quad(lambda x: math.exp(alpha * lp(x) + (1 - alpha) * lq(x)), -30 * s,
                         30 * s, epsabs=0, epsrel=1e-10, limit=200)[0]
    assert math.log(mgf) / (alpha - 1) == pytest.approx(eps, rel=1e-6)


def test_gdp_laplace_conversion_is_tight():
    for eps in (0.05, 0.4, 1.0, 1.7, 3.0):
        mu = gdp_mu_from_eps(eps)
        assert laplace_eps_for_gdp(mu) == pytest.approx(eps, rel=1e-10)
        alpha = np.linspace(0, 1, 200001)
        f_eps = np.maximum.reduce([np.zeros_like(alpha), 1 - math.exp(eps) * alpha,
                                   math.exp(-eps) * (1 - alpha)])
        g_mu = norm.cdf(norm.ppf(1 - alpha) - mu)
        assert np.all(g_mu <= f_eps + 1e-9)  # every eps-DP mechanism is mu-GDP ...
        g_less = norm.cdf(norm.ppf(1 - alpha) - 0.98 * mu)
        assert np.any(g_less > f_eps + 1e-6)  # ... and not (0.98 mu)-GDP in general
    # the budgets of the paper's grid
    assert laplace_eps_for_gdp(1.0) == pytest.approx(math.log(norm.cdf(0.5) / norm.cdf(-0.5)))
    assert 0.079 < laplace_eps_for_gdp(0.1) < 0.081


# ---- sensitivity -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_frechet_mean_sensitivity_and_log_contraction(name):
    g = get_metric(name)
    m, n, r = 2, 10, 1.5
    rng = np.random.default_rng(0)
    center = ball_center(g, m, 1.0, 3)
    sens = frechet_sensitivity(r, n)
    assert sens == pytest.approx(0.3)
    worst = 0.0
    p0 = np.eye(m)
    for _ in range(30):
        xs = sample_ball(g, center, r, n, rng)
        assert np.all(g.dist(np.broadcast_to(center, xs.shape), xs) <= r + 1e-9)
        ys = xs.copy()
        ys[3] = sample_ball(g, center, r, 1, rng)[0]  # replace one point anywhere in the ball
        for d2 in (ys, neighbour(g, xs, center, r, 3)):
            a, b = g.mean(xs), g.mean(d2)
            dab = float(g.dist(a, b))
            worst = max(worst, dab / sens)
            assert dab <= sens + 1e-9
            # Log at a footpoint is 1-Lipschitz on a Hadamard manifold
            assert np.linalg.norm(g.log_coords(p0, a) - g.log_coords(p0, b)) <= dab + 1e-9
    assert worst > 0.3  # the check is not vacuous


# ---- samplers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_ew_gaussian_tangent_covariance_is_sigma2_identity(name):
    g = get_metric(name)
    m, N, sigma = 3, 100000, 0.2
    rng = np.random.default_rng(1)
    p0 = ball_center(g, m, 1.2, 5)  # a footpoint away from I: the frame matters there
    eta = ball_center(g, m, 0.8, 6)
    y = ew_gaussian(g, p0, np.broadcast_to(eta, (N, m, m)), sigma, rng)
    c = g.log_coords(p0, y) - g.log_coords(p0, eta)  # through the released matrices
    cov = np.cov(c.T)
    tol = 5 * sigma**2 * math.sqrt(2 / N)
    assert np.abs(c.mean(0)).max() < 5 * sigma / math.sqrt(N)
    assert np.abs(cov - sigma**2 * np.eye(dim(m))).max() < tol


def test_ew_laplace_is_the_k_norm_laplace():
    rng = np.random.default_rng(2)
    d, sigma = 6, 0.3
    v = ew_laplace_noise(rng, np.full(50000, sigma), d)
    radius = np.linalg.norm(v, axis=1)
    assert stats.kstest(radius, stats.gamma(d, scale=sigma).cdf).pvalue > 1e-3
    assert np.abs((v / radius[:, None]).mean(0)).max() < 0.02  # uniform directions
    # the released matrix carries that noise: |Log_p0 y - Log_p0 eta| = radius (flat or not)
    g = get_metric("affine_invariant")
    p0, eta = np.eye(3), ball_center(g, 3, 1.0, 8)
    y = ew_laplace(g, p0, np.broadcast_to(eta, (2000, 3, 3)), sigma, rng)
    r2 = np.linalg.norm(g.log_coords(p0, y) - g.log_coords(p0, eta), axis=1)
    assert stats.kstest(r2, stats.gamma(d, scale=sigma).cdf).pvalue > 1e-3


@pytest.mark.parametrize("name", ["log_euclidean", "log_cholesky"])
def test_release_error_in_coordinates_equals_the_matrix_distance(name):
    g = get_metric(name)
    rng = np.random.default_rng(3)
    p0, eta = np.eye(4), ball_center(g, 4, 1.0, 2)
    noise = 0.5 * rng.standard_normal((500, dim(4)))
    c = ew_coords(g, p0, np.broadcast_to(eta, (500, 4, 4)), noise)
    direct = g.dist(g.exp_coords(p0, c), np.broadcast_to(eta, (500, 4, 4)))
    assert np.allclose(release_error(g, p0, c, np.broadcast_to(eta, (500, 4, 4))), direct,
                       rtol=1e-8)


def test_mcmc_riemannian_laplace_matches_the_flat_laplace():
    """Flat metric (log-Cholesky, d = 6): the Riemannian Laplace is the K-norm Laplace in a
    global chart, so d(x, eta) ~ Gamma(d, sigma): the chains' last states must follow it."""
    g = get_metric("log_cholesky")
    m, sigma, B = 3, 0.25, 2000
    eta = np.broadcast_to(ball_center(g, m, 1.0, 4), (B, m, m))
    x, acc = riemannian_laplace_mh(g, eta, np.full(B, sigma), np.random.default_rng(4), 800)
    dd = g.dist(x, eta)
    assert stats.kstest(dd, stats.gamma(dim(m), scale=sigma).cdf).pvalue > 1e-3
    assert 0.3 < acc.mean() < 0.8


def _ai2_radial_cdf(sigma: float, grid: np.ndarray) -> np.ndarray:
    """CDF of rho = d(x, eta) under exp(-rho/sigma) on SPD(2), affine-invariant: in polar
    coordinates (r1, r2) = rho (cos t, sin t) the volume is sinh(|r1 - r2|/2) rho drho dt."""
    t = np.linspace(0, 2 * np.pi, 2001)
    ang = np.abs(np.cos(t) - np.sin(t)) / 2
    dens = np.array([np.exp(-r / sigma) * r * np.trapezoid(np.sinh(r * ang), t) for r in grid])
    cdf = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
    return cdf / cdf[-1]


def test_mcmc_riemannian_laplace_radial_law_affine_invariant():
    g = get_metric("affine_invariant")
    sigma, B = 0.5, 2000  # sigma * gamma = 0.35 < 1: proper
    assert rl_is_proper("affine_invariant", 2, sigma)
    eta = np.broadcast_to(ball_center(g, 2, 1.0, 9), (B, 2, 2))
    x, _ = riemannian_laplace_mh(g, eta, np.full(B, sigma), np.random.default_rng(5), 800)
    dd = g.dist(x, eta)
    grid = np.linspace(0, 40 * sigma, 4001)
    cdf = _ai2_radial_cdf(sigma, grid)
    assert stats.kstest(dd, lambda v: np.interp(v, grid, cdf)).pvalue > 1e-3
    # and it is not the flat law (the volume growth matters at this sigma)
    assert stats.kstest(dd, stats.gamma(3, scale=sigma).cdf).pvalue < 1e-3


def test_riemannian_laplace_properness():
    gamma5 = math.sqrt(5 * 24 / 3) / 2
    assert rl_is_proper("affine_invariant", 5, 0.99 / gamma5)
    assert not rl_is_proper("affine_invariant", 5, 1.01 / gamma5)
    assert rl_is_proper("log_euclidean", 5, 1e6)
