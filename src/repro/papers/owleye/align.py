"""Cross-domain feature alignment: every graph's features to one shared d-dimensional space
(issue 24, groundwork; NOTES.md sections 1.2 and 2.3).

Both OWLEYE and ARC first project: a Gaussian random projection to `lift` dimensions when the
raw dimension is below d (PCA cannot add dimensions), then PCA to d. Then
- ARC sorts the d columns by smoothness over the graph (mean squared difference across edges of
  the min-max normalised column, smoothest first);
- OWLEYE divides each graph by its mean row norm N_i and rescales by max(f_i, tau) with
  f_i = sqrt(dist_med * dist_i^N / (dist_i * dist_N_med)) from mean pairwise distances before
  (dist_i) and after (dist_i^N) dividing by N_i, medians over the training graphs (the paper's
  formula, `mode="paper"`). Since dist_i^N = dist_i / N_i, f_i = sqrt(dist_med / (dist_N_med N_i)):
  graphs with a large mean row norm are scaled down further. The released code computes both
  distances from the same (stale) features, so its f_i is 1 and it only divides by N_i
  (`mode="released"`, NOTES.md 2.3).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from repro.papers.owleye.graphs import Graph


def project(x: np.ndarray, d: int = 64, lift: int = 256, seed: int = 0) -> np.ndarray:
    import warnings

    from sklearn.decomposition import PCA
    from sklearn.exceptions import DataDimensionalityWarning
    from sklearn.random_projection import GaussianRandomProjection

    z = x.astype(np.float64)
    if z.shape[1] < d:  # lifting on purpose: PCA cannot add dimensions (ARC, OWLEYE do this)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataDimensionalityWarning)
            z = GaussianRandomProjection(n_components=lift, random_state=seed).fit_transform(z)
    k = min(d, z.shape[0], z.shape[1])
    out = PCA(n_components=k, random_state=seed).fit_transform(z)
    if k < d:  # fewer nodes than d: pad with zero columns so every graph has d features
        out = np.pad(out, ((0, 0), (0, d - k)))
    return out.astype(np.float32)


def smoothness(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Per column: mean over edges of the squared difference of its min-max normalised values."""
    lo, hi = x.min(0), x.max(0)
    xs = (x - lo) / np.where(hi > lo, hi - lo, 1.0)
    if len(edges) == 0:
        return np.zeros(x.shape[1])
    return ((xs[edges[:, 0]] - xs[edges[:, 1]]) ** 2).mean(0)


def arc_align(g: Graph, d: int = 64) -> np.ndarray:
    z = project(g.x, d)
    return z[:, np.argsort(smoothness(z, g.edges), kind="stable")]


def mean_pair_distance(x: np.ndarray, rng: np.random.Generator, pairs: int = 20000) -> float:
    """Mean Euclidean distance over node pairs (all of them when few, else `pairs` sampled)."""
    n = len(x)
    if n * (n - 1) // 2 <= pairs:
        i, j = np.triu_indices(n, 1)
    else:
        i, j = rng.integers(0, n, pairs), rng.integers(0, n, pairs)
        keep = i != j
        i, j = i[keep], j[keep]
    return float(np.linalg.norm(x[i] - x[j], axis=1).mean())


def owleye_normalise(train: Sequence[np.ndarray], test: Sequence[np.ndarray], tau: float = 1.0,
                     mode: str = "paper", seed: int = 0
                     ) -> tuple[list[np.ndarray], list[np.ndarray], list[float]]:
    """OWLEYE's normalisation of projected features: the normalised training and test feature
    matrices and every graph's factor max(f_i, tau) (training graphs first)."""
    if mode not in ("paper", "released"):
        raise ValueError(f"unknown mode {mode!r} (paper or released)")
    rng = np.random.default_rng(seed)
    norms = [float(np.linalg.norm(x, axis=1).mean()) for x in [*train, *test]]
    scaled = [x / max(n, 1e-12) for x, n in zip([*train, *test], norms, strict=True)]
    dist = [mean_pair_distance(x, rng) for x in [*train, *test]]
    dist_n = [mean_pair_distance(x, rng) for x in scaled]
    k = len(train)
    med, med_n = float(np.median(dist[:k])), float(np.median(dist_n[:k]))
    factors = [1.0 if mode == "released" else max(float(np.sqrt(med * dn / (di * med_n))), tau)
               for di, dn in zip(dist, dist_n, strict=True)]
    out = [(x * f).astype(np.float32) for x, f in zip(scaled, factors, strict=True)]
    return out[:k], out[k:], factors


def normalised_adjacency(n: int, edges: np.ndarray, self_loops: bool = False):
    """D^-1/2 (A [+ I]) D^-1/2 as a torch sparse tensor, by torch_geometric's `gcn_norm` over
    the undirected edges (OWLEYE: no self-loops; ARC: with); isolated nodes get a zero row."""
    import torch
    from torch_geometric.nn.conv.gcn_conv import gcn_norm
    from torch_geometric.utils import to_undirected

    ei = to_undirected(torch.as_tensor(np.ascontiguousarray(edges.T), dtype=torch.long),
                       num_nodes=n)
    ei, w = gcn_norm(ei, None, n, add_self_loops=self_loops)
    return torch.sparse_coo_tensor(ei, w, (n, n), check_invariants=True).coalesce()


def propagate(x: np.ndarray, adj, hops: int) -> list[np.ndarray]:
    """[X, AX, A^2 X, ..., A^hops X]: parameter-free, computed once per graph."""
    import torch

    out = [torch.as_tensor(x, dtype=torch.float32)]
    for _ in range(hops):
        out.append(torch.sparse.mm(adj, out[-1]))
    return [h.numpy() for h in out]
