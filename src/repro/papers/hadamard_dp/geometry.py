"""SPD(m) with three Hadamard metrics: affine-invariant, log-Euclidean, log-Cholesky.

Closed-form Exp, Log, distance, inner product and Fréchet mean come from **pyriemann**
(`pyriemann.geometry`: `exp_map`, `log_map`, `distance`, `innerproduct`, `mean_*`), which
implements all three metrics, vectorised over leading axes (batches of base points too).
Caveat: pyriemann's affine-invariant `exp_map`/`log_map` default to the *whitened* maps;
the true Riemannian maps need `Cm12=True` / `C12=True`, which we always pass.

Hand-written here, because pyriemann has none: an **orthonormal frame** of each tangent
space (a basis orthonormal for the metric's inner product, d = m(m+1)/2 vectors), the
coordinates of tangent vectors in it, and the affine-invariant volume-growth rate that
decides when the Riemannian Laplace density is normalisable. Tests check the frames
against pyriemann's inner products and the maps' identities (Exp(Log) = id, d = |Log|,
symmetry, triangle inequality, Log at I for log-Euclidean = matrix log).

Coordinates: a vector c in R^d stands for the symmetric matrix C = sum_k c_k B_k in the
Frobenius-orthonormal basis B of Sym(m) (first the m diagonal units e_ii, then
(e_ij + e_ji)/sqrt(2) for i > j); each metric maps C isometrically onto T_x (`from_sym`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pyriemann.geometry.base import ddexpm, ddlogm, expm, invsqrtm, logm, sqrtm
from pyriemann.geometry.distance import distance as _pr_distance
from pyriemann.geometry.mean import mean_logchol, mean_logeuclid, mean_riemann
from pyriemann.geometry.tangentspace import exp_map, innerproduct, log_map

METRIC_NAMES = ("affine_invariant", "log_euclidean", "log_cholesky")


def dim(m: int) -> int:
    """Manifold dimension of SPD(m): d = m(m+1)/2."""
    return m * (m + 1) // 2


def _tril(m: int) -> tuple[np.ndarray, np.ndarray]:
    return np.tril_indices(m, -1)


def sym_from_coords(c: np.ndarray, m: int) -> np.ndarray:
    """R^d coordinates -> symmetric matrix in the Frobenius-orthonormal basis of Sym(m)."""
    c = np.asarray(c, dtype=float)
    out = np.zeros(c.shape[:-1] + (m, m))
    idx = np.arange(m)
    out[..., idx, idx] = c[..., :m]
    i, j = _tril(m)
    off = c[..., m:] / math.sqrt(2.0)
    out[..., i, j] = off
    out[..., j, i] = off
    return out


def coords_from_sym(s: np.ndarray) -> np.ndarray:
    """Inverse of `sym_from_coords` (a symmetric matrix -> its R^d coordinates)."""
    m = s.shape[-1]
    idx = np.arange(m)
    i, j = _tril(m)
    return np.concatenate([s[..., idx, idx], s[..., i, j] * math.sqrt(2.0)], axis=-1)


def sym_basis(m: int) -> np.ndarray:
    """The Frobenius-orthonormal basis B_k of Sym(m), shape (d, m, m)."""
    return sym_from_coords(np.eye(dim(m)), m)


@dataclass(frozen=True)
class SPDMetric:
    """One Riemannian metric on SPD(m); all methods broadcast over leading axes."""

    name: str
    pyriemann: str  # pyriemann's metric name

    # ---- closed-form maps (pyriemann) -------------------------------------------------------
    def exp(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Riemannian exponential Exp_x(u)."""
        kw = {"Cm12": True} if self.pyriemann == "riemann" else {}
        return exp_map(u, x, metric=self.pyriemann, **kw)

    def log(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Riemannian logarithm Log_x(y) (a symmetric matrix in T_x)."""
        kw = {"C12": True} if self.pyriemann == "riemann" else {}
        return log_map(y, x, metric=self.pyriemann, **kw)

    def dist(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Geodesic distance d(x, y), broadcast over leading axes."""
        x, y = np.broadcast_arrays(x, y)
        return _pr_distance(x, y, metric=self.pyriemann)

    def inner(self, x: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Riemannian inner product <u, v>_x."""
        return innerproduct(u, v, x, metric=self.pyriemann)

    def norm(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        return np.sqrt(np.maximum(self.inner(x, u, u), 0.0))

    def mean(self, xs: np.ndarray) -> np.ndarray:
        """Fréchet mean of xs (..., n, m, m): argmin_y sum_i d(y, x_i)^2 (unique on Hadamard)."""
        if self.pyriemann == "logeuclid":
            return mean_logeuclid(xs)
        if self.pyriemann == "logchol":
            return mean_logchol(xs)
        if xs.ndim > 3:  # one gradient descent per set
            flat = xs.reshape((-1,) + xs.shape[-3:])
            return np.stack([self.mean(s) for s in flat]).reshape(xs.shape[:-3] + xs.shape[-2:])
        return mean_riemann(xs, init=mean_logeuclid(xs), tol=1e-12, maxiter=200)

    # ---- orthonormal frames (hand-written: pyriemann has none) ------------------------------
    def from_sym(self, x: np.ndarray, s: np.ndarray) -> np.ndarray:
        """The linear isometry (Sym(m), Frobenius) -> (T_x, <.,.>_x) defining our frame."""
        if self.pyriemann == "riemann":
            # <u,v>_x = tr(x^-1 u x^-1 v): u = x^1/2 s x^1/2 has |u|_x = |s|_F
            h = sqrtm(x)
            return h @ s @ h
        if self.pyriemann == "logeuclid":
            # <u,v>_x = <dlog_x u, dlog_x v>_F: u = dexp_{log x}(s) has dlog_x u = s
            return ddexpm(s, logm(x))
        # log-Cholesky (Lin 2019): x = L L^T; |X|^2 = sum_{i>j} X_ij^2 + sum_j (X_jj / L_jj)^2 on
        # the Cholesky space, pushed forward by X -> L X^T + X L^T
        L = np.linalg.cholesky(x)
        m = x.shape[-1]
        i, j = _tril(m)
        X = np.zeros(np.broadcast_shapes(L.shape, s.shape))
        X[..., i, j] = s[..., i, j] * math.sqrt(2.0)
        idx = np.arange(m)
        X[..., idx, idx] = L[..., idx, idx] * s[..., idx, idx]
        return L @ np.swapaxes(X, -1, -2) + X @ np.swapaxes(L, -1, -2)

    def to_sym(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Inverse of `from_sym`: a tangent vector at x -> its symmetric coordinate matrix."""
        if self.pyriemann == "riemann":
            h = invsqrtm(x)
            return h @ u @ h
        if self.pyriemann == "logeuclid":
            return ddlogm(u, x)
        L = np.linalg.cholesky(x)
        Linv = np.linalg.inv(L)
        # Lin 2019, Prop. 4: dL = L (L^-1 u L^-T)_{1/2}, (.)_{1/2} = strict lower + half diag
        S = Linv @ u @ np.swapaxes(Linv, -1, -2)
        m = x.shape[-1]
        idx = np.arange(m)
        i, j = _tril(m)
        half = np.tril(S, -1)
        half[..., idx, idx] = S[..., idx, idx] / 2.0
        dL = L @ half
        out = np.zeros(np.broadcast_shapes(dL.shape, x.shape))
        off = dL[..., i, j] / math.sqrt(2.0)
        out[..., i, j] = off
        out[..., j, i] = off
        out[..., idx, idx] = half[..., idx, idx]
        return out

    def frame(self, x: np.ndarray) -> np.ndarray:
        """Orthonormal basis of T_x, shape (..., d, m, m)."""
        basis = sym_basis(x.shape[-1])
        return self.from_sym(x[..., None, :, :], basis)

    def to_coords(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Coordinates (..., d) of a tangent vector u at x in the orthonormal frame."""
        return coords_from_sym(self.to_sym(x, u))

    def from_coords(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        return self.from_sym(x, sym_from_coords(c, x.shape[-1]))

    def exp_coords(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Exp_x of the tangent vector with orthonormal coordinates c.

        Closed forms of exp(x, from_coords(x, c)) with fewer eigen-decompositions (the MCMC
        baseline calls this every step; tests check them against the composition):
        affine-invariant x^1/2 expm(C) x^1/2; log-Euclidean expm(log x + C); log-Cholesky
        L' = strict_lower(L) + sqrt2 strict_lower(C) + diag(L) exp(diag(C)), y = L' L'^T.
        """
        m = x.shape[-1]
        s = sym_from_coords(c, m)
        if self.pyriemann == "riemann":
            h = sqrtm(x)
            return h @ expm(s) @ h
        if self.pyriemann == "logeuclid":
            return expm(logm(x) + s)
        L = np.linalg.cholesky(x)
        idx = np.arange(m)
        new = np.tril(np.broadcast_to(L, np.broadcast_shapes(L.shape, s.shape)), -1) \
            + math.sqrt(2.0) * np.tril(s, -1)
        new[..., idx, idx] = L[..., idx, idx] * np.exp(s[..., idx, idx])
        return new @ np.swapaxes(new, -1, -2)

    def exp_coords_generic(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        """pyriemann's Exp applied to the frame combination (reference for `exp_coords`)."""
        return self.exp(x, self.from_coords(x, c))

    def log_coords(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Orthonormal coordinates of Log_x(y); their Euclidean norm is d(x, y)."""
        return self.to_coords(x, self.log(x, y))


METRICS: dict[str, SPDMetric] = {
    "affine_invariant": SPDMetric("affine_invariant", "riemann"),
    "log_euclidean": SPDMetric("log_euclidean", "logeuclid"),
    "log_cholesky": SPDMetric("log_cholesky", "logchol"),
}


def get_metric(name: str) -> SPDMetric:
    if name not in METRICS:
        raise ValueError(f"metric {name!r}: allowed are {', '.join(METRICS)}")
    return METRICS[name]


def volume_growth_rate(metric: str, m: int) -> float:
    """Exponential growth rate gamma of the Riemannian volume of geodesic spheres.

    Affine-invariant: in polar coordinates x = eta^1/2 U diag(e^r) U^T eta^1/2 the volume
    density is prod_{i<j} sinh(|r_i - r_j| / 2), which grows like exp(gamma |r|) with
    gamma = max_{|r|=1} sum_{i<j} |r_i - r_j| / 2 = sqrt(m(m^2 - 1)/3) / 2. A density
    exp(-d(x, eta)/sigma) is then normalisable iff sigma < 1/gamma. Flat metrics: 0.
    """
    if metric == "affine_invariant":
        return math.sqrt(m * (m * m - 1) / 3.0) / 2.0
    return 0.0
