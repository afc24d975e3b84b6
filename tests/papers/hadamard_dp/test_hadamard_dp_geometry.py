"""The three SPD metrics (pyriemann's closed forms + our orthonormal frames): identities."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pyriemann.geometry.base import logm

from repro.papers.hadamard_dp.geometry import (
    METRIC_NAMES,
    coords_from_sym,
    dim,
    get_metric,
    sym_basis,
    sym_from_coords,
    volume_growth_rate,
)

MS = (2, 3, 5)


def spd(rng: np.random.Generator, k: int, m: int, spread: float = 1.0) -> np.ndarray:
    """Random SPD matrices exp(S), S symmetric with entries of size `spread`."""
    s = rng.normal(scale=spread, size=(k, m, m))
    s = (s + np.swapaxes(s, -1, -2)) / 2
    w, v = np.linalg.eigh(s)
    return (v * np.exp(w)[..., None, :]) @ np.swapaxes(v, -1, -2)


@pytest.mark.parametrize("name,m", list(itertools.product(METRIC_NAMES, MS)))
def test_exp_log_identities(name, m):
    g = get_metric(name)
    rng = np.random.default_rng(m)
    x, y = spd(rng, 20, m), spd(rng, 20, m)
    u = g.log(x, y)
    assert np.allclose(g.exp(x, u), y, atol=1e-9 * np.abs(y).max())  # Exp_x(Log_x y) = y
    assert np.allclose(g.dist(x, y), g.norm(x, u), rtol=1e-9)  # d(x, y) = |Log_x y|_x
    assert np.allclose(g.dist(x, y), g.dist(y, x), rtol=1e-10)  # symmetry
    assert np.allclose(g.dist(x, x), 0.0, atol=1e-7)
    v = g.log(x, g.exp(x, 0.3 * u))  # Log_x(Exp_x v) = v for a short v
    assert np.allclose(v, 0.3 * u, atol=1e-9 * np.abs(u).max())


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_triangle_inequality_on_samples(name):
    g = get_metric(name)
    rng = np.random.default_rng(1)
    a, b, c = (spd(rng, 300, 3, spread=0.8) for _ in range(3))
    assert np.all(g.dist(a, c) <= g.dist(a, b) + g.dist(b, c) + 1e-10)


def test_log_euclidean_log_at_identity_is_the_matrix_log():
    g = get_metric("log_euclidean")
    rng = np.random.default_rng(2)
    x = spd(rng, 10, 4)
    ident = np.eye(4)
    assert np.allclose(g.log(ident, x), logm(x), atol=1e-12)
    w, v = np.linalg.eigh(x)  # independent matrix log
    assert np.allclose(g.log(ident, x), (v * np.log(w)[..., None, :]) @ np.swapaxes(v, -1, -2),
                       atol=1e-10)
    # and the log-Euclidean distance is the Frobenius distance of the logs
    y = spd(rng, 10, 4)
    assert np.allclose(g.dist(x, y), np.linalg.norm(logm(x) - logm(y), axis=(-1, -2)))


def test_affine_invariant_distance_is_invariant():
    g = get_metric("affine_invariant")
    rng = np.random.default_rng(3)
    x, y = spd(rng, 10, 3), spd(rng, 10, 3)
    a = rng.normal(size=(3, 3)) + 3 * np.eye(3)  # any invertible A: d(AxA', AyA') = d(x, y)
    assert np.allclose(g.dist(a @ x @ a.T, a @ y @ a.T), g.dist(x, y), rtol=1e-9)


@pytest.mark.parametrize("name,m", list(itertools.product(METRIC_NAMES, MS)))
def test_frames_are_orthonormal_for_pyriemanns_inner_product(name, m):
    g = get_metric(name)
    x = spd(np.random.default_rng(4), 6, m)
    frame = g.frame(x)  # (6, d, m, m)
    gram = g.inner(x[:, None, None], frame[:, :, None], frame[:, None, :])
    assert gram.shape == (6, dim(m), dim(m))
    assert np.allclose(gram, np.eye(dim(m)), atol=1e-10)


@pytest.mark.parametrize("name,m", list(itertools.product(METRIC_NAMES, MS)))
def test_coordinates_round_trip_and_fast_exp(name, m):
    g = get_metric(name)
    rng = np.random.default_rng(5)
    x, y = spd(rng, 8, m), spd(rng, 8, m)
    c = g.log_coords(x, y)
    assert np.allclose(np.linalg.norm(c, axis=-1), g.dist(x, y), rtol=1e-9)
    assert np.allclose(g.exp_coords(x, c), y, atol=1e-9 * np.abs(y).max())
    # the closed-form exp in coordinates equals pyriemann's exp of the frame combination
    c2 = rng.normal(size=(8, dim(m)))
    assert np.allclose(g.exp_coords(x, c2), g.exp_coords_generic(x, c2), rtol=1e-9, atol=1e-12)


def test_sym_coordinates_are_frobenius_isometric():
    rng = np.random.default_rng(6)
    c = rng.normal(size=(5, dim(4)))
    s = sym_from_coords(c, 4)
    assert np.allclose(np.linalg.norm(s, axis=(-1, -2)), np.linalg.norm(c, axis=-1))
    assert np.allclose(coords_from_sym(s), c)
    b = sym_basis(3)
    assert np.allclose(np.einsum("kij,lij->kl", b, b), np.eye(dim(3)))


def test_volume_growth_rate_is_the_max_over_unit_log_eigenvalues():
    rng = np.random.default_rng(7)
    for m in (2, 3, 5):
        r = rng.normal(size=(50000, m))
        r /= np.linalg.norm(r, axis=1, keepdims=True)
        i, j = np.triu_indices(m, 1)
        brute = (np.abs(r[:, i] - r[:, j]).sum(axis=1) / 2).max()
        gamma = volume_growth_rate("affine_invariant", m)
        assert brute <= gamma + 1e-12 and brute > 0.95 * gamma
    assert volume_growth_rate("affine_invariant", 2) == pytest.approx(1 / np.sqrt(2))
    assert volume_growth_rate("log_euclidean", 5) == 0.0
