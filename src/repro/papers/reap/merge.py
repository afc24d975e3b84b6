"""The merging baselines, each with its own grouping and weight averaging (official
src/reap/cluster.py, merge.py, permute.py; experiments/m_smoe.sh and hc_smoe.sh).

M-SMoE: dominant experts are the most frequently routed ones, chosen *globally* across layers
  (at least one per layer, L * k dominants in all), so layers keep different numbers of
  groups; every other expert joins the dominant whose router logits are closest (cosine
  distance of the logit columns over calibration tokens). Each member is aligned to its
  dominant by weight matching (a permutation of its intermediate neurons minimising the
  squared weight distance, solved as a linear assignment), then the group is averaged with
  weights = routing frequency.
HC-SMoE: average-linkage agglomerative clustering of the experts' mean outputs over all
  calibration tokens (euclidean), cut at k clusters per layer; frequency-weighted average,
  no alignment.

As in the official code, a merged group's experts all take the merged weights and the router is
left as it is: a token routed to several members of a group now gets (sum of their gate
values) x (the merged expert), which is the loss of independent routing control the paper
analyses. Storage needs one copy per group (`unique_experts`); the evaluated function is the
same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import nn

from repro.papers.reap.model import ExpertBank, moe_layers
from repro.papers.reap.prune import n_removed

if TYPE_CHECKING:
    from repro.papers.reap.settings import MergeSettings

FP32_EPS = torch.finfo(torch.float32).eps


# ----------------------------------------------------------------------------- grouping
def _relabel(labels: list[int]) -> list[int]:
    """Contiguous labels 0..k-1, numbered by each group's first (lowest-index) member."""
    first: dict[int, int] = {}
    for lab in labels:
        first.setdefault(lab, len(first))
    return [first[lab] for lab in labels]


def average_linkage(dist: np.ndarray, n_clusters: int) -> list[int]:
    """Agglomerative clustering with average linkage (UPGMA), stopped at n_clusters: always
    merge the two clusters with the smallest mean pairwise distance (ties: lowest indices),
    as scipy's linkage(method="average") followed by the official linkage_to_labels."""
    n = dist.shape[0]
    if not 1 <= n_clusters <= n:
        raise ValueError(f"n_clusters must be in [1, {n}], got {n_clusters}")
    d = np.array(dist, dtype=np.float64)
    np.fill_diagonal(d, np.inf)
    members = {i: [i] for i in range(n)}
    active = list(range(n))
    while len(active) > n_clusters:
        sub = d[np.ix_(active, active)]
        a, b = divmod(int(np.argmin(sub)), len(active))
        i, j = sorted((active[a], active[b]))
        ni, nj = len(members[i]), len(members[j])
        d[i, :] = (ni * d[i, :] + nj * d[j, :]) / (ni + nj)  # Lance-Williams, average linkage
        d[:, i] = d[i, :]
        d[i, i] = np.inf
        members[i] += members.pop(j)
        active.remove(j)
    labels = [0] * n
    for c, (_, ms) in enumerate(sorted(members.items())):
        for m in ms:
            labels[m] = c
    return _relabel(labels)


def hc_smoe_labels(obs: dict[int, dict[str, Any]], ratio_percent: int, linkage: str = "average"
                   ) -> dict[int, list[int]]:
    """HC-SMoE groups per layer: euclidean distances of the characteristic activations."""
    if linkage != "average":
        raise ValueError("only average linkage is implemented (the official hc_smoe.sh setting)")
    out = {}
    for layer, st in obs.items():
        ca = st["characteristic_activation"].double()
        n = ca.shape[0]
        dist = torch.cdist(ca, ca).numpy()
        out[int(layer)] = average_linkage(dist, n - n_removed(n, ratio_percent))
    return out


def m_smoe_labels(obs: dict[int, dict[str, Any]], ratio_percent: int) -> dict[int, list[int]]:
    """M-SMoE groups (official mc_smoe_clustering): global dominant selection by frequency,
    L * k dominants with at least one per layer; others join the nearest dominant."""
    layers = sorted(int(k) for k in obs)
    n = len(obs[layers[0]]["expert_proba"])
    total = len(layers) * (n - n_removed(n, ratio_percent))
    proba = {L: obs[L]["expert_proba"].double() for L in layers}
    dominant = {(L, int(torch.argmax(proba[L]))) for L in layers}
    cands = sorted(
        ((float(proba[L][e]), L, e) for L in layers for e in range(n) if (L, e) not in dominant),
        key=lambda c: -c[0],  # stable: ties keep (layer, expert) order
    )
    for _, L, e in cands[: max(0, total - len(dominant))]:
        dominant.add((L, e))
    out = {}
    for L in layers:
        doms = sorted(e for (ll, e) in dominant if ll == L)
        dist = obs[L]["router_logit_distance"].double()
        labels = []
        for e in range(n):
            if e in doms:
                labels.append(e)
            else:
                labels.append(doms[int(torch.argmin(dist[e, doms]))])
        out[L] = _relabel(labels)
    return out


# ----------------------------------------------------------------------------- alignment
def linear_sum_assignment(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Minimum-cost perfect matching of a square cost matrix: (rows, cols). scipy's when
    installed (fast at full scale), else the Hungarian algorithm below."""
    try:
        from scipy.optimize import linear_sum_assignment as lsa
    except ImportError:
        cols = hungarian(cost)
        return np.arange(len(cols)), cols
    return lsa(cost)


def hungarian(cost: np.ndarray) -> np.ndarray:
    """Hungarian algorithm (shortest augmenting paths with potentials, O(n^3)): the column
    assigned to each row of a square cost matrix."""
    c = np.asarray(cost, dtype=np.float64)
    n = c.shape[0]
    u, v = np.zeros(n + 1), np.zeros(n + 1)
    p = np.zeros(n + 1, dtype=np.int64)  # p[j]: row matched to column j (1-based, 0 = none)
    way = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        p[0], j0 = i, 0
        minv = np.full(n + 1, np.inf)
        used = np.zeros(n + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            free = ~used[1:]
            cur = c[i0 - 1] - u[i0] - v[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            masked = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(masked)) + 1
            delta = masked[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[~used] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    cols = np.zeros(n, dtype=np.int64)
    for j in range(1, n + 1):
        cols[p[j] - 1] = j - 1
    return cols


def weight_matching(dom: tuple[torch.Tensor, ...], other: tuple[torch.Tensor, ...]
                    ) -> torch.Tensor:
    """The permutation of `other`'s intermediate neurons that best aligns it with `dom`:
    cost[a, b] = |gate_o[a] - gate_d[b]|^2 + |up_o[a] - up_d[b]|^2 + |down_o[:, a] - down_d[:, b]|^2
    (official WeightMatchingPermuter). Returns perm with aligned = W[perm]."""
    gd, ud, dd = (t.double() for t in dom)
    go, uo, do = (t.double() for t in other)
    cost = (torch.cdist(go, gd) ** 2 + torch.cdist(uo, ud) ** 2
            + torch.cdist(do.T.contiguous(), dd.T.contiguous()) ** 2)
    _, cols = linear_sum_assignment(cost.cpu().numpy())
    return torch.as_tensor(np.argsort(cols), dtype=torch.long)


# ----------------------------------------------------------------------------- merging
@torch.no_grad()
def merge_layer(bank: ExpertBank, labels: list[int], proba: torch.Tensor, permute: bool) -> None:
    """Merge each group of `labels` in place: weights = routing frequency; dominant first."""
    for c in sorted(set(labels)):
        idx = [e for e, lab in enumerate(labels) if lab == c]
        if len(idx) == 1:
            continue
        dom = max(idx, key=lambda e: (float(proba[e]), -e))  # argmax: first of the largest
        others = [e for e in idx if e != dom]
        dom_w = tuple(t.detach().clone() for t in bank.get(dom))
        tensors = [dom_w]
        for e in others:
            w = tuple(t.detach().clone() for t in bank.get(e))
            if permute:
                perm = weight_matching(dom_w, w).to(w[0].device)
                w = (w[0][perm], w[1][perm], w[2][:, perm])
            tensors.append(w)
        weights = torch.stack([proba[dom].double()] + [proba[e].double() for e in others])
        merged = []
        for k in range(3):
            stacked = torch.stack([t[k].double() for t in tensors])
            avg = (stacked * weights.view(-1, 1, 1).to(stacked.device)).sum(0)
            merged.append((avg / (weights.sum() + FP32_EPS)).to(dom_w[k].dtype))
        for e in idx:
            bank.set(e, *merged)


def merge(model: nn.Module, obs: dict[int, dict[str, Any]], method: str, ratio_percent: int,
          settings: MergeSettings | None = None) -> dict[int, list[int]]:
    """Merge `model`'s experts in place with M-SMoE or HC-SMoE; returns the groups per layer.
    Without `settings`, each method's official defaults (M-SMoE permutes, HC-SMoE does not;
    average linkage)."""
    if method == "m_smoe":
        labels = m_smoe_labels(obs, ratio_percent)
        permute = True if settings is None else settings.permute
    elif method == "hc_smoe":
        linkage = "average" if settings is None else settings.linkage
        labels = hc_smoe_labels(obs, ratio_percent, linkage)
        permute = False if settings is None else settings.permute
    else:
        raise ValueError(f"unknown merging method {method!r}: m_smoe, hc_smoe")
    for layer, bank in moe_layers(model):
        merge_layer(bank, labels[layer], obs[layer]["expert_proba"], permute)
    return labels
