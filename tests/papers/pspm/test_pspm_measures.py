"""PS and PM (issue 26 groundwork) on controlled point clouds: the diffusion map keeps the
eigenvalue mass it promises and is permutation-equivariant; PS is 1 at the own reference, 0 at
another source's and falls monotonically as the output moves across; PM is 1 at the reference,
falls with the output's distance and its Gamma tail is the Gamma law's survival function."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from repro.papers.pspm.measures import diffusion_map, gamma_tail, pm, ps


def frame(rng, out0, out1, n_dist=30, spread=0.3, dim=12):
    """Two sources: references at +-e1, distortions scattered around them, two outputs."""
    refs = np.zeros((2, dim))
    refs[0, 0], refs[1, 0] = 2.0, -2.0
    pts, source, role = [], [], []
    for s in (0, 1):
        pts.append(refs[s])
        source.append(s)
        role.append("ref")
        for _ in range(n_dist):
            pts.append(refs[s] + spread * rng.standard_normal(dim))
            source.append(s)
            role.append("dist")
    for s, w in ((0, out0), (1, out1)):  # w: how far toward the other reference (0..1)
        pts.append((1 - w) * refs[s] + w * refs[1 - s])
        source.append(s)
        role.append("out")
    return np.array(pts), np.array(source), np.array(role)


def test_the_diffusion_map_keeps_its_mass_and_is_permutation_equivariant():
    rng = np.random.default_rng(0)
    x, _, _ = frame(rng, 0.0, 0.0)
    dm = diffusion_map(x, cutoff=0.9)
    lam = dm.eigenvalues
    assert (np.diff(lam) <= 1e-12).all() and lam.max() <= 1 + 1e-9
    d = dm.coords.shape[1]
    assert lam[:d].sum() / lam.sum() >= 0.9 > lam[:d - 1].sum() / lam.sum()
    assert dm.coords.shape[1] + dm.rest.shape[1] == len(x) - 1
    perm = rng.permutation(len(x))
    dp = diffusion_map(x[perm], cutoff=0.9)

    def dists(c):
        return np.linalg.norm(c[:, None] - c[None], axis=-1)

    np.testing.assert_allclose(dists(dp.coords), dists(dm.coords)[np.ix_(perm, perm)],
                               atol=1e-8)
    with pytest.raises(ValueError):
        diffusion_map(np.zeros((5, 3)))


def _scores(w, measure, seed=0):
    rng = np.random.default_rng(seed)
    x, source, role = frame(rng, w, 0.0)
    return measure(diffusion_map(x).coords, source, role)[0]


def test_ps_is_one_in_the_own_cluster_zero_in_the_other_and_falls_in_between():
    vals = [_scores(w, ps) for w in (0.0, 0.25, 0.5, 0.75, 1.0)]
    assert vals[0] > 0.95 and vals[-1] < 0.05
    assert all(a >= b for a, b in zip(vals, vals[1:], strict=False))
    assert 0.2 < vals[2] < 0.8  # halfway between two alike clusters


def test_pm_is_one_at_the_reference_and_falls_with_the_outputs_distance():
    vals = [_scores(w, pm) for w in (0.0, 0.05, 0.1, 0.3)]
    assert vals[0] > 0.99 and vals[-1] < 0.05
    assert all(a >= b for a, b in zip(vals, vals[1:], strict=False))


def test_the_gamma_tail_is_the_moment_fitted_gamma_survival_function():
    rng = np.random.default_rng(1)
    sq = rng.gamma(3.0, 2.0, size=200)
    k = sq.mean() ** 2 / sq.var(ddof=1)
    theta = sq.var(ddof=1) / sq.mean()
    for a in (0.5, 5.0, 20.0):
        assert gamma_tail(a, sq) == pytest.approx(stats.gamma.sf(a, k, scale=theta), rel=1e-10)
    assert gamma_tail(0.0, np.full(5, 2.0)) == 1.0 and gamma_tail(1.0, np.full(5, 2.0)) == 0.0
