"""PS (perceptual separation) and PM (perceptual match) on one frame's diffusion map (issue 26,
groundwork: the paper's rules, encoders, distortion banks and data come next; what each fact
rests on is in NOTES.md, sections 3-4).

One frame: for every active source, the encodings of its reference, its output and its
distortions, stacked. `diffusion_map` embeds all of them together (Gaussian kernel with the
median squared distance as bandwidth, alpha-normalisation, the symmetric normalised kernel's
eigenvectors scaled by their eigenvalues to the diffusion time, the trivial pair dropped, the
leading coordinates that hold `cutoff` of the eigenvalue mass kept). On that map:

- PS (leakage): A = the Mahalanobis distance of a source's output to its own cluster (its
  reference and distortions), B = the smallest such distance to another source's cluster;
  PS = 1 - A / (A + B), in [0, 1], 1 when the output sits in its own cluster only.
- PM (self-distortion): the squared Mahalanobis distances of the distortions to the reference
  (covariance: the distortions' second moment about the reference) fitted by a Gamma law by
  moments; PM = the Gamma tail beyond the output's own squared distance, in [0, 1], 1 when the
  output is at its reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaincc

RIDGE = 1e-6  # added to a rank-deficient covariance, and under the square root


@dataclass(frozen=True)
class DiffusionMap:
    coords: np.ndarray  # (N, d) kept coordinates
    rest: np.ndarray  # (N, N - 1 - d) the dropped ones (error radius)
    eigenvalues: np.ndarray  # (N - 1,) non-trivial, descending


def diffusion_map(x: np.ndarray, alpha: float = 1.0, t: int = 1, cutoff: float = 0.99
                  ) -> DiffusionMap:
    """x: (N, D) points -> their diffusion coordinates (see the module docstring)."""
    x = np.asarray(x, dtype=np.float64)
    if len(x) < 3:
        raise ValueError(f"a diffusion map needs at least 3 points, got {len(x)}")
    sq = np.maximum(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1), 0.0)
    eps = float(np.median(sq[np.triu_indices(len(x), 1)]))
    if eps <= 0:
        raise ValueError("all points coincide: no bandwidth")
    k = np.exp(-sq / (2 * eps))
    d = k.sum(1)
    if alpha:
        k = k / np.outer(d ** alpha, d ** alpha)
        d = k.sum(1)
    m = k / np.sqrt(np.outer(d, d))
    vals, vecs = np.linalg.eigh((m + m.T) / 2)
    vals, vecs = vals[::-1], vecs[:, ::-1]
    lam, psi = np.clip(vals[1:], 0.0, None), vecs[:, 1:]
    cum = np.cumsum(lam)
    keep = int((cum / cum[-1] < cutoff).sum()) + 1 if cum[-1] > 0 else 1
    scaled = psi * lam ** t
    return DiffusionMap(scaled[:, :keep], scaled[:, keep:], lam)


def safe_cov(x: np.ndarray) -> np.ndarray:
    """The unbiased sample covariance of the rows of x, with a small ridge when singular."""
    c = np.atleast_2d(np.cov(x, rowvar=False, ddof=1))
    if np.linalg.matrix_rank(c) < len(c):
        c = c + RIDGE * np.eye(len(c))
    return c


def mahalanobis(v: np.ndarray, mean: np.ndarray, inv: np.ndarray) -> float:
    d = v - mean
    return float(np.sqrt(d @ inv @ d + RIDGE))


def ps(coords: np.ndarray, source: np.ndarray, role: np.ndarray) -> dict[int, float]:
    """PS per source: coords (N, d); source (N,) the source index of each point; role (N,)
    'ref' | 'dist' | 'out' (one output per source)."""
    out = {}
    sources = sorted(set(source.tolist()))
    clusters = {}
    for s in sources:
        pts = coords[(source == s) & (role != "out")]
        clusters[s] = (pts.mean(0), np.linalg.inv(safe_cov(pts)))
    for s in sources:
        o = coords[(source == s) & (role == "out")]
        if len(o) != 1:
            raise ValueError(f"source {s} has {len(o)} outputs, expected 1")
        a = mahalanobis(o[0], *clusters[s])
        others = [mahalanobis(o[0], *clusters[j]) for j in sources if j != s]
        b = min(others) if others else 0.0
        out[s] = float(np.clip(1 - a / (a + b + RIDGE), 0.0, 1.0))
    return out


def gamma_tail(a: float, sq: np.ndarray) -> float:
    """P(G > a) for G ~ Gamma fitted to `sq` by moments (k = mean^2 / var, theta = var /
    mean): the regularised upper incomplete gamma Q(k, a / theta)."""
    mu, var = float(np.mean(sq)), float(np.var(sq, ddof=1))
    if var == 0.0:  # the official v1.1: a match only at the reference itself
        return 1.0 if a <= 1e-12 else 0.0
    k, theta = mu * mu / var, var / mu
    return float(np.clip(gammaincc(k, a / theta), 0.0, 1.0))


def pm(coords: np.ndarray, source: np.ndarray, role: np.ndarray) -> dict[int, float]:
    """PM per source (the same layout as `ps`)."""
    out = {}
    for s in sorted(set(source.tolist())):
        ref = coords[(source == s) & (role == "ref")][0]
        dist = coords[(source == s) & (role == "dist")]
        o = coords[(source == s) & (role == "out")][0]
        if len(dist) < 2:
            out[s] = 0.0
            continue
        delta = dist - ref
        cov = delta.T @ delta / (len(dist) - 1) + RIDGE * np.eye(delta.shape[1])
        inv = np.linalg.inv(cov)
        g = np.einsum("pi,ij,pj->p", delta, inv, delta)
        a = float((o - ref) @ inv @ (o - ref))
        out[s] = gamma_tail(a, g)
    return out
