"""OWLEYE groundwork (issue 24): feature alignment to a shared space, and propagation."""

from __future__ import annotations

import numpy as np
import pytest

from repro.papers.owleye.align import (
    arc_align,
    normalised_adjacency,
    owleye_normalise,
    project,
    propagate,
    smoothness,
)
from repro.papers.owleye.graphs import sbm_domain, sklearn_domain


@pytest.fixture(scope="module")
def graphs():
    return [sklearn_domain("wine", 5), sklearn_domain("breast_cancer", 5),
            sklearn_domain("digits", 5), sbm_domain("sbm", [50, 50], 0.2, 0.02, 7, seed=2)]


def test_every_domain_lands_in_the_same_64_dimensional_space(graphs):
    for g in graphs:
        z = project(g.x)
        assert z.shape == (g.n, 64) and np.isfinite(z).all()
        # PCA columns: centred, variance non-increasing
        assert np.allclose(z.mean(0), 0, atol=1e-3)
        v = z.var(0)
        assert (np.diff(v) <= 1e-5).all()


def test_arc_sorts_columns_smoothest_first(graphs):
    g = graphs[3]
    z = arc_align(g)
    s = smoothness(z, g.edges)
    assert (np.diff(s) >= -1e-12).all()
    # a column that is constant within blocks is smoother on an SBM than noise
    x = np.stack([np.repeat([0.0, 1.0], 50), np.random.default_rng(0).normal(size=100)], 1)
    assert smoothness(x, g.edges)[0] < smoothness(x, g.edges)[1]


def test_owleye_normalisation_paper_formula_and_released_code(graphs):
    z = [project(g.x) for g in graphs]
    norms = [np.linalg.norm(x, axis=1).mean() for x in z]
    # the released code: divide by the mean row norm only
    train, test, f = owleye_normalise(z[:3], z[3:], mode="released")
    assert f == [1.0] * 4
    for x in [*train, *test]:
        assert np.linalg.norm(x, axis=1).mean() == pytest.approx(1.0, rel=1e-5)
    # the paper's formula: dist^N_i = dist_i / N_i, so f_i = sqrt(med / (med_N N_i))
    _, _, f = owleye_normalise(z[:3], z[3:], tau=0.0)
    rng = np.random.default_rng(0)
    from repro.papers.owleye.align import mean_pair_distance

    dist = [mean_pair_distance(x, rng) for x in z[:3]]
    med, med_n = np.median(dist), np.median([d / n for d, n in zip(dist, norms, strict=False)])
    want = [np.sqrt(med / (med_n * n)) for n in norms]
    assert f[:3] == pytest.approx(want[:3], rel=0.05)  # sampled pairs on the larger graphs
    assert f[3] == pytest.approx(want[3], rel=0.05)
    # tau floors the factor
    _, _, f1 = owleye_normalise(z[:3], z[3:], tau=1.0)
    assert all(v >= 1.0 for v in f1)
    with pytest.raises(ValueError, match="unknown mode"):
        owleye_normalise(z[:3], z[3:], mode="mean")


def test_propagation_with_the_normalised_adjacency(graphs):
    g = graphs[3]
    a = normalised_adjacency(g.n, g.edges).to_dense().double().numpy()
    assert abs(a - a.T).max() < 1e-6
    # D^-1/2 A D^-1/2 entry by entry, from the edge list itself
    deg = np.bincount(g.edges.ravel(), minlength=g.n).astype(float)
    i, j = g.edges[:, 0], g.edges[:, 1]
    assert np.allclose(a[i, j], 1 / np.sqrt(deg[i] * deg[j]), rtol=1e-5)
    assert (a != 0).sum() == 2 * len(g.edges)
    ev = np.linalg.eigvalsh(a)
    assert ev.max() <= 1 + 1e-5 and ev.min() >= -1 - 1e-5  # spectrum of D^-1/2 A D^-1/2
    hops = propagate(project(g.x), normalised_adjacency(g.n, g.edges), 4)
    assert len(hops) == 5 and all(h.shape == (g.n, 64) for h in hops)
    assert np.allclose(hops[2], a @ (a @ hops[0]), atol=1e-4)
    looped = normalised_adjacency(g.n, g.edges, self_loops=True).to_dense().numpy()
    assert (np.diagonal(looped) > 0).all() and (np.diagonal(a) == 0).all()
