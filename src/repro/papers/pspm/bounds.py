"""PS's and PM's frame-level error terms (NOTES.md section 5): a deterministic radius for having
kept only the leading diffusion coordinates, and a high-probability (1 - delta) half-width for
having estimated the clusters from finitely many distortions. Both follow the official code's
construction; the paper's own derivation was not reachable.

Radius: a Mahalanobis distance over all coordinates exceeds the one over the kept coordinates
by the residual of the dropped coordinates given the kept ones, measured in the Schur
complement of the joint covariance (exact for Gaussian clusters). PS: the radius of
1 - A / (A + B) from the own (A) and nearest foreign (B) clusters' increments; PM: the largest
change of the Gamma tail over the corners of (shape, scale, output distance) moved by their
increments.

Half-width: sub-Gaussian / Bernstein concentration of the cluster mean, covariance and the
distortions' squared distances, propagated to PS and PM the same way.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import gammaincc

from repro.papers.pspm.measures import mahalanobis, safe_cov

SCHUR_RIDGE = 1e-9
EIG_FLOOR = 0.05  # smallest eigenvalue used: at least this share of the largest


def _schur(kept: np.ndarray, rest: np.ndarray, centre_k: np.ndarray, centre_r: np.ndarray,
           cov_k: np.ndarray, cov_r: np.ndarray):
    """(inverse of the kept covariance, cross-covariance about the centres, inverse of the
    Schur complement of the kept block) of one cluster."""
    cross = (kept - centre_k).T @ (rest - centre_r) / (len(kept) - 1)
    inv_k = np.linalg.inv(cov_k)
    schur = cov_r - cross.T @ inv_k @ cross + SCHUR_RIDGE * np.eye(rest.shape[1])
    return inv_k, cross, np.linalg.inv(schur)


def _increment(q_k, q_r, centre_k, centre_r, inv_k, cross, schur_inv) -> float:
    """The squared Mahalanobis increment of the dropped coordinates of a point."""
    r = (q_r - centre_r) - cross.T @ inv_k @ (q_k - centre_k)
    return float(r @ schur_inv @ r)


def _cluster(kept, rest, source, role, s):
    sel = (source == s) & (role != "out")
    return kept[sel], rest[sel]


def ps_bounds(kept: np.ndarray, rest: np.ndarray, source: np.ndarray, role: np.ndarray,
              delta: float = 0.05) -> dict[int, tuple[float, float]]:
    """Per source (radius, half-width) of PS."""
    sources = sorted(set(source.tolist()))
    out = {}
    for s in sources:
        o = np.flatnonzero((source == s) & (role == "out"))[0]
        if rest.shape[1] == 0:
            out[s] = (0.0, 0.0)
            continue
        terms = []
        for c in sources:  # (distance, increment, covariance) per cluster
            ck, cr = _cluster(kept, rest, source, role, c)
            mk, mr = ck.mean(0), cr.mean(0)
            cov_k = safe_cov(ck)
            inv_k, cross, schur_inv = _schur(ck, cr, mk, mr, cov_k, safe_cov(cr))
            dist = mahalanobis(kept[o], mk, inv_k)
            inc = math.sqrt(_increment(kept[o], rest[o], mk, mr, inv_k, cross, schur_inv))
            terms.append((c, dist, inc, cov_k, len(ck)))
        own = next(t for t in terms if t[0] == s)
        foreign = [t for t in terms if t[0] != s]
        if not foreign:
            out[s] = (0.0, 0.0)
            continue
        near = min(foreign, key=lambda t: t[1])
        a, b = own[1], near[1]
        radius = (b * own[2] + a * near[2]) / (a + b) ** 2
        eps = [_distance_half_width(t[1], t[3], max(int(0.7 * own[4]), 3), delta / 2)
               for t in (own, near)]
        half = min(1.0, math.hypot(a, b) / (a + b) ** 2 * math.hypot(*eps))
        out[s] = (radius, half)
    return out


def _distance_half_width(dist: float, cov: np.ndarray, n: int, delta: float) -> float:
    """How far an estimated Mahalanobis distance can be off, with probability 1 - delta, from
    the deviations of the cluster mean (sub-Gaussian) and covariance (effective rank)."""
    ev = np.linalg.eigvalsh(cov)
    lam_max = float(ev.max())
    lam_min = max(float(ev.min()), 1e-9, EIG_FLOOR * lam_max)
    log = math.log(2 / delta)
    mean_dev = math.sqrt(2 * lam_max * log / n)
    r = float(np.trace(cov)) / lam_max
    cov_dev = math.sqrt(r / n) + (r + log) / n
    return 2 * math.sqrt(dist) * mean_dev * math.sqrt(lam_max / lam_min) + dist * cov_dev


def _tail(k: float, theta: float, a: float) -> float:
    return float(gammaincc(k, a / max(theta, 1e-12)))


def _corners(k, theta, a, dk, dtheta, da, floors=(None, None, 1e-8)) -> float:
    centre = _tail(k, theta, a)
    worst = 0.0
    for sk, st, sa in itertools.product((-1, 1), repeat=3):
        kk, tt, aa = k + sk * dk, theta + st * dtheta, a + sa * da
        if floors[0] is not None:
            kk = max(kk, floors[0])
        if floors[1] is not None:
            tt = max(tt, floors[1])
        worst = max(worst, abs(_tail(kk, tt, max(aa, floors[2])) - centre))
    return worst


def pm_bounds(kept: np.ndarray, rest: np.ndarray, source: np.ndarray, role: np.ndarray,
              delta: float = 0.05) -> dict[int, tuple[float, float]]:
    """Per source (radius, half-width) of PM."""
    out = {}
    for s in sorted(set(source.tolist())):
        ref = np.flatnonzero((source == s) & (role == "ref"))[0]
        o = np.flatnonzero((source == s) & (role == "out"))[0]
        dist = np.flatnonzero((source == s) & (role == "dist"))
        n = len(dist)
        if rest.shape[1] == 0 or n < 2:
            out[s] = (0.0, 0.0)
            continue
        dk, dr = kept[dist] - kept[ref], rest[dist] - rest[ref]
        # the official radius takes the distortions' centred covariances here (PM itself: the
        # second moment about the reference), and the cross-moment about the reference
        zero_k, zero_r = np.zeros(kept.shape[1]), np.zeros(rest.shape[1])
        inv_k, cross, schur_inv = _schur(dk, dr, zero_k, zero_r, safe_cov(dk), safe_cov(dr))
        inc = np.array([_increment(p, q, zero_k, zero_r, inv_k, cross, schur_inv)
                        for p, q in zip(dk, dr, strict=True)])
        inc_out = _increment(kept[o] - kept[ref], rest[o] - rest[ref], zero_k, zero_r, inv_k,
                             cross, schur_inv)
        g = np.einsum("pi,ij,pj->p", dk, inv_k, dk)
        a = float((kept[o] - kept[ref]) @ inv_k @ (kept[o] - kept[ref]))
        mu, var = float(g.mean()), float(g.var(ddof=1)) + 1e-12
        k, theta = mu * mu / var, var / mu
        full = g + inc
        f = float(inc.max()) * n / (n - 1)
        dk_, dt_ = (f * (full.mean() + mu) / var,
                    f * (full.var(ddof=1) + 1e-12 + var) / (mu * mu + 1e-9))
        radius = _corners(k, theta, a, dk_, dt_, inc_out, floors=(1e-6, 1e-6, 1e-8))
        r2 = float(g.max()) + 1e-12
        log = math.log(6 / delta)
        eps_mu = math.sqrt(2 * var * log / n) + 3 * r2 * log / n
        eps_sd = math.sqrt(2 * r2 * r2 * log / n) + 3 * r2 * r2 * log / n
        sd = math.sqrt(var)
        hk = min(abs(2 * mu / var) * eps_mu + abs(2 * mu * mu / sd ** 3) * eps_sd, 0.5 * k)
        ht = min(abs(var / mu ** 2) * eps_mu + abs(2 * sd / mu) * eps_sd, 0.5 * theta)
        ha = min(r2 * math.sqrt(2 * log / n), 0.5 * a + 1e-12)
        out[s] = (radius, _corners(k, theta, a, hk, ht, ha))
    return out

