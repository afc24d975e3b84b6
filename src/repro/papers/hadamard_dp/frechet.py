"""The synthetic protocol's data: n points in a geodesic ball B_r(c) on SPD(m), and their
Fréchet mean (the statistic the mechanisms release).

Points: x_i = Exp_c(v_i), v_i uniform in the tangent ball {|v| <= r} of T_c (orthonormal
coordinates). On a Hadamard manifold Exp_c is a radial isometry, so d(c, x_i) = |v_i| <= r:
every point lies in the geodesic ball, as the sensitivity 2r/n needs. (Uniform in the tangent
ball, not in Riemannian volume: the paper does not say which; the bound only needs the ball.)

Centre: c = Exp_I(t u) with u a unit tangent direction at the identity drawn once from a
fixed seed (the same coordinates for every metric), t = `center_distance`. The footpoint of
the EW mechanisms is I, chosen without looking at the data; t sets how far it is from the
data (the paper's utility bounds grow with d(p0, mean)).
"""

from __future__ import annotations

import numpy as np

from repro.papers.hadamard_dp.geometry import SPDMetric, dim


def ball_center(metric: SPDMetric, m: int, distance: float, seed: int) -> np.ndarray:
    """A data-independent centre at geodesic distance `distance` from the identity."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(dim(m))
    u /= np.linalg.norm(u)
    return metric.exp_coords(np.eye(m), distance * u)


def sample_ball(metric: SPDMetric, center: np.ndarray, r: float, n: int,
                rng: np.random.Generator, batch: tuple[int, ...] = ()) -> np.ndarray:
    """n points (batch..., n, m, m) in the geodesic ball B_r(center), uniform in its tangent
    ball at the centre."""
    m = center.shape[-1]
    d = dim(m)
    z = rng.standard_normal(batch + (n, d))
    z /= np.linalg.norm(z, axis=-1, keepdims=True)
    radius = r * rng.random(batch + (n, 1)) ** (1.0 / d)
    return metric.exp_coords(center, radius * z)


def neighbour(metric: SPDMetric, xs: np.ndarray, center: np.ndarray, r: float,
              index: int = 0) -> np.ndarray:
    """A neighbouring data set: point `index` replaced by its reflection through the centre,
    pushed to the ball's boundary (Exp_c(-r v/|v|)): about the largest change of the mean."""
    out = xs.copy()
    v = metric.log_coords(center, xs[..., index, :, :])
    v = -r * v / np.linalg.norm(v, axis=-1, keepdims=True)
    out[..., index, :, :] = metric.exp_coords(center, v)
    return out
