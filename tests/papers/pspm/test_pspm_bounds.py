"""PS/PM error terms (issue 26 groundwork): the Schur-complement identity behind the radius
(the full Mahalanobis distance is the kept one plus the dropped coordinates' residual term),
the PS radius bounding the change from dropping coordinates, zero terms without dropped
coordinates, and half-widths that shrink with more distortions."""

from __future__ import annotations

import numpy as np

from repro.papers.pspm.bounds import _increment, _schur, pm_bounds, ps_bounds
from repro.papers.pspm.measures import diffusion_map, ps, safe_cov


def test_the_full_distance_is_the_kept_one_plus_the_schur_increment():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((80, 7)) @ rng.standard_normal((7, 7))
    q = rng.standard_normal(7)
    kept, rest = x[:, :4], x[:, 4:]
    m = x.mean(0)
    inv_k, cross, schur_inv = _schur(kept, rest, m[:4], m[4:], np.cov(kept.T), np.cov(rest.T))
    full = (q - m) @ np.linalg.inv(np.cov(x.T)) @ (q - m)
    part = (q[:4] - m[:4]) @ inv_k @ (q[:4] - m[:4])
    inc = _increment(q[:4], q[4:], m[:4], m[4:], inv_k, cross, schur_inv)
    assert inc > 0
    np.testing.assert_allclose(part + inc, full, rtol=1e-6)


def frame(rng, w, n_dist=40, dim=10, out_noise=0.1):
    refs = np.zeros((2, dim))
    refs[0, 0], refs[1, 0] = 2.0, -2.0
    pts, source, role = [], [], []
    for s in (0, 1):
        pts += [refs[s], *(refs[s] + 0.4 * rng.standard_normal((n_dist, dim)))]
        source += [s] * (n_dist + 1)
        role += ["ref"] + ["dist"] * n_dist
    for s in (0, 1):
        pts.append((1 - w) * refs[s] + w * refs[1 - s] + out_noise * rng.standard_normal(dim))
        source.append(s)
        role.append("out")
    return np.array(pts), np.array(source), np.array(role)


def test_the_ps_radius_bounds_what_dropping_coordinates_changes():
    """To first order: in few dimensions (clusters far larger than the dimension, so the full
    distances are well defined) PS over all coordinates differs from PS over the kept ones by
    at most the radius (with room for the second-order term)."""
    rng = np.random.default_rng(1)
    for w in (0.1, 0.3, 0.5):
        x, source, role = frame(rng, w, n_dist=60, dim=4)
        kept, rest = x[:, :3], x[:, 3:]
        before, after = ps(kept, source, role), ps(x, source, role)
        for s, (radius, half) in ps_bounds(kept, rest, source, role).items():
            assert 0 < radius < 0.25 and 0 <= half <= 1
            assert abs(after[s] - before[s]) <= 1.2 * radius + 1e-4, (w, s, radius)


def test_no_dropped_coordinates_no_radius_and_half_widths_shrink_with_more_distortions():
    rng = np.random.default_rng(2)
    x, source, role = frame(rng, 0.2)
    dm = diffusion_map(x, cutoff=0.9)
    empty = np.zeros((len(x), 0))
    assert set(ps_bounds(dm.coords, empty, source, role).values()) == {(0.0, 0.0)}
    assert set(pm_bounds(dm.coords, empty, source, role).values()) == {(0.0, 0.0)}

    def halves(n):
        xs, src, rl = frame(np.random.default_rng(3), 0.3, n_dist=n, dim=4, out_noise=0.0)
        kept, rest = xs[:, :3], xs[:, 3:]  # the same geometry, only the sample size grows
        return pm_bounds(kept, rest, src, rl)[0][1], ps_bounds(kept, rest, src, rl)[0][1]

    small, large = halves(20), halves(400)
    assert large[0] < small[0] and large[1] < small[1]
    assert safe_cov(xs := np.ones((5, 2))).shape == (2, 2) and np.isfinite(xs).all()
