"""Stackelberg games with side information: utilities, best responses, best-response regions and
their (approximate) extreme points, the utility-space map and its inversion.

A game has m leader actions, n follower actions, K follower types and contexts z in R^d.
Utilities are linear in the context (Harris, Wu & Balcan 2024; Balcan et al. 2025):

    u(z, a_l, a_f)       = <z, leader[a_l, a_f]>                 (leader)
    u_k(z, a_l, a_f)     = <z, followers[k, a_l, a_f]>           (type k; or followers[k, a_l, a_f]
                                                                  when followers ignore the context)

The leader commits to x in the simplex Delta_m; type k best-responds
b_k(z, x) = argmax_j sum_a x_a u_k(z, a, j). For a best-response profile sigma in [n]^K the region
X_z(sigma) = {x : b_k(z, x) = sigma_k for all k} is a polytope, and on it the *utility vector*

    u(z, x) = ( sum_a x_a u(z, a, sigma_k) )_{k=1..K}  in R^K

is linear in x. The leader's expected utility against a type distribution p is <p, u(z, x)>:
linear in p, which is what the reduction to linear contextual bandits uses (the unknown
parameter is p, the arms are utility vectors). A linear (or convex) function of u over X_z(sigma)
is maximised at an extreme point, so the finite arm set is the extreme points of all regions.
Regions are not closed (ties), so, as in Harris et al. 2024, we use the delta-approximate regions

    X_z^delta(sigma) = {x in Delta_m :
                        sum_a x_a (u_k(z,a,sigma_k) - u_k(z,a,j)) >= delta for all k, j != sigma_k}

on which every type's best response is strict (margin >= delta), and their vertices.

`extreme_points` enumerates those vertices in one vectorised pass: a vertex is where m-1
linearly independent constraints are tight (plus sum x = 1); candidate constraint subsets are
precomputed once per (K, n, m); tests check the result against scipy's qhull
(HalfspaceIntersection per region) and against dense sampling of the simplex.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

TOL = 1e-9


@dataclass(frozen=True)
class Game:
    """Utility tensors of a Stackelberg game with side information (see module docstring)."""

    leader: np.ndarray  # (m, n, d)
    followers: np.ndarray  # (K, m, n, d) if follower_context else (K, m, n)
    follower_context: bool

    @property
    def m(self) -> int:
        return int(self.leader.shape[0])

    @property
    def n(self) -> int:
        return int(self.leader.shape[1])

    @property
    def d(self) -> int:
        return int(self.leader.shape[2])

    @property
    def K(self) -> int:
        return int(self.followers.shape[0])

    def leader_matrix(self, z: np.ndarray) -> np.ndarray:
        """(m, n): the leader's payoff matrix at context z."""
        return self.leader @ z

    def follower_matrices(self, z: np.ndarray | None = None) -> np.ndarray:
        """(K, m, n): every type's payoff matrix at context z (z unused if followers ignore it)."""
        if not self.follower_context:
            return self.followers
        if z is None:
            raise ValueError("followers depend on the context: pass z")
        return self.followers @ z


def random_game(rng: np.random.Generator, m: int, n: int, K: int, d: int,
                follower_context: bool) -> Game:
    """Entries i.i.d. uniform on [0, 1]; the leader's divided by d, so that with contexts in
    [0, 1]^d her utility lies in [0, 1] (the noise scale OFUL's radius assumes)."""
    leader = rng.random((m, n, d)) / d
    shape = (K, m, n, d) if follower_context else (K, m, n)
    return Game(leader=leader, followers=rng.random(shape), follower_context=follower_context)


def best_responses(F: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each type's best response to mixed strategies x (..., m) and its margin over the second
    best: (..., K) ints, (..., K) floats. Ties go to the lowest index (np.argmax); at the
    delta-approximate extreme points there are none (margin >= delta)."""
    K, m, n = F.shape
    util = (x @ F.transpose(1, 0, 2).reshape(m, K * n)).reshape(*x.shape[:-1], K, n)
    br = np.argmax(util, axis=-1)
    if n == 1:
        return br, np.full(br.shape, np.inf)
    top2 = np.partition(util, n - 2, axis=-1)[..., -2:]
    return br, top2[..., 1] - top2[..., 0]


def utility_vectors(L: np.ndarray, x: np.ndarray, profile: np.ndarray) -> np.ndarray:
    """u(z, x)_k = sum_a x_a L[a, profile_k] for x (N, m), profiles (N, K): (N, K)."""
    # L[:, profile] is (m, N, K); contract over the leader's actions
    return np.einsum("na,ank->nk", x, L[:, profile])


@lru_cache(maxsize=32)
def _constraint_subsets(K: int, n: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                         np.ndarray]:
    """All (m-1)-subsets of the candidate constraints that can be tight together at a vertex.

    Constraints: K*n*(n-1) best-response rows (type k prefers j over j' by delta), then m
    facets x_a >= 0. Two rows of the same type must assume the same best response j, so
    subsets mixing them are dropped. Returns (subsets (C, m-1), row_type, row_br, row_alt),
    with -1 in the last three for facets."""
    rows_k, rows_j, rows_alt = [], [], []
    for k in range(K):
        for j in range(n):
            for alt in range(n):
                if alt != j:
                    rows_k.append(k)
                    rows_j.append(j)
                    rows_alt.append(alt)
    rows_k += [-1] * m
    rows_j += [-1] * m
    rows_alt += [-1] * m
    rk, rj = np.array(rows_k), np.array(rows_j)
    n_rows = len(rows_k)
    subsets = np.array(list(itertools.combinations(range(n_rows), m - 1)), dtype=np.int64)
    subsets = subsets.reshape(-1, m - 1)
    ok = np.ones(len(subsets), dtype=bool)
    for a, b in itertools.combinations(range(m - 1), 2):
        ka, kb = rk[subsets[:, a]], rk[subsets[:, b]]
        same_type = (ka >= 0) & (ka == kb)
        ok &= ~(same_type & (rj[subsets[:, a]] != rj[subsets[:, b]]))
    return subsets[ok], rk, rj, np.array(rows_alt)


@dataclass(frozen=True)
class ExtremePoints:
    """Vertices of the nonempty delta-approximate best-response regions at one context."""

    x: np.ndarray  # (N, m) mixed strategies
    profile: np.ndarray  # (N, K) each type's (strict) best response at x

    def __len__(self) -> int:
        return len(self.x)


def extreme_points(F: np.ndarray, delta: float) -> ExtremePoints:
    """Vertices of every nonempty X^delta(sigma) for follower payoff matrices F (K, m, n).

    A point is kept when it solves m-1 tight constraints + sum x = 1, lies in the simplex,
    every type's best response there is strict by >= delta, and every tight best-response row
    belongs to that profile (so it is a vertex of that region, not a crossing of rows of
    different regions). Duplicates (degenerate vertices) are merged."""
    K, m, n = F.shape
    subsets, rk, rj, ralt = _constraint_subsets(K, n, m)
    n_br = K * n * (n - 1)
    coef = np.zeros((n_br + m, m))
    rhs = np.zeros(n_br + m)
    br_rows = np.arange(n_br)
    coef[br_rows] = F[rk[br_rows], :, rj[br_rows]] - F[rk[br_rows], :, ralt[br_rows]]
    rhs[br_rows] = delta
    coef[n_br:] = np.eye(m)
    A = np.empty((len(subsets), m, m))
    A[:, : m - 1] = coef[subsets]
    A[:, m - 1] = 1.0
    b = np.zeros((len(subsets), m))
    b[:, : m - 1] = rhs[subsets]
    b[:, m - 1] = 1.0
    try:
        x = np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError:  # some subset is singular (a degenerate game): drop those
        keep = np.abs(np.linalg.det(A)) > 1e-12
        A, b, subsets = A[keep], b[keep], subsets[keep]
        x = np.linalg.solve(A, b[..., None])[..., 0]
    inside = (x >= -TOL).all(axis=1)
    x, subsets = x[inside], subsets[inside]
    br, margin = best_responses(F, x)
    strict = (margin >= delta - 1e-9).all(axis=1)
    x, subsets, br = x[strict], subsets[strict], br[strict]
    # every tight best-response row must assume the best response actually played there
    row_k, row_j = rk[subsets], rj[subsets]
    assumed = np.where(row_k >= 0, row_j, 0)
    actual = np.take_along_axis(br, np.where(row_k >= 0, row_k, 0), axis=1)
    consistent = ((row_k < 0) | (assumed == actual)).all(axis=1)
    x, br = np.clip(x[consistent], 0.0, None), br[consistent]
    x /= x.sum(axis=1, keepdims=True)
    if len(x) == 0:
        return ExtremePoints(np.zeros((0, m)), np.zeros((0, K), dtype=np.int64))
    key = np.concatenate([np.round(x, 9), br], axis=1)
    _, first = np.unique(key, axis=0, return_index=True)
    first = np.sort(first)
    return ExtremePoints(x[first], br[first].astype(np.int64))


def region_halfspaces(F: np.ndarray, profile: np.ndarray, delta: float
                      ) -> tuple[np.ndarray, np.ndarray]:
    """X^delta(profile) as G x >= h (best-response rows only; the simplex is separate)."""
    K, m, n = F.shape
    G, h = [], []
    for k in range(K):
        for j in range(n):
            if j != profile[k]:
                G.append(F[k, :, profile[k]] - F[k, :, j])
                h.append(delta)
    return np.array(G).reshape(-1, m), np.array(h)


def invert_utility(L: np.ndarray, F: np.ndarray, u: np.ndarray, delta: float,
                   profiles: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """A mixed strategy x with u(z, x) = u: the inversion step of the reduction.

    For each candidate profile sigma (default: those of the nonempty regions), solve the
    feasibility LP {x in X^delta(sigma), sum_a x_a L[a, sigma_k] = u_k for all k}. Returns
    (x, sigma) or None when u is not attained by any x. Any u in the convex hull of one
    region's image (in particular every arm the bandit recommends) is attained."""
    from scipy.optimize import linprog

    K, m, n = F.shape
    if profiles is None:
        profiles = np.unique(extreme_points(F, delta).profile, axis=0)
    for sigma in profiles:
        G, h = region_halfspaces(F, sigma, delta)
        A_eq = np.vstack([L[:, sigma].T, np.ones((1, m))])
        b_eq = np.concatenate([u, [1.0]])
        res = linprog(np.zeros(m), A_ub=-G if len(G) else None, b_ub=-h if len(G) else None,
                      A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * m, method="highs")
        if res.status == 0:
            x = np.clip(res.x, 0.0, None)
            return x / x.sum(), np.asarray(sigma)
    return None
