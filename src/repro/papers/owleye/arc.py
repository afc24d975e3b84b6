"""ARC (Liu et al., NeurIPS 2024), the in-context generalist OWLEYE compares with, as its
official code defines it (NOTES.md section 1; issue 24 groundwork).

Features: `align.arc_align` (projection to 64, smoothest columns first), propagated with the
self-looped normalised adjacency over `hops` hops. Encoder: one MLP shared over hops (3 linear
layers, ELU between), the residuals Z_l - Z_0 (l = 1..hops) concatenated. Scoring: a query's
embedding reconstructed by cross-attention over a few normal "support" nodes of its own graph
(queries and keys projected, the values the raw support embeddings); the score is the Euclidean
reconstruction error. Training on labelled source graphs: cosine embedding loss pulling normal
nodes' reconstructions to them and pushing anomalies' away (margin 0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class ArcConfig:
    hidden: int = 1024  # official h_feats
    hops: int = 2  # official num_hops
    shots: int = 10  # support nodes (train: num_prompt; test: shot)
    lr: float = 1e-5
    weight_decay: float = 5e-5
    epochs: int = 40


class ARC(nn.Module):
    def __init__(self, d: int, cfg: ArcConfig) -> None:
        super().__init__()
        h = cfg.hidden
        self.cfg = cfg
        self.mlp = nn.Sequential(nn.Linear(d, h), nn.ELU(), nn.Linear(h, h), nn.ELU(),
                                 nn.Linear(h, h))
        dim = h * cfg.hops
        self.wq, self.wk = nn.Linear(dim, dim), nn.Linear(dim, dim)

    def embed(self, hops: list[torch.Tensor], rows: np.ndarray | None = None) -> torch.Tensor:
        """Residual embeddings of every node, or of `rows` only (the MLP acts per node on its
        precomputed hops, so encoding only the rows needed gives the same numbers)."""
        i = None if rows is None else torch.as_tensor(rows, device=hops[0].device)
        z = [self.mlp(x if i is None else x[i]) for x in hops[: self.cfg.hops + 1]]
        return torch.cat([zl - z[0] for zl in z[1:]], dim=1)

    def reconstruct(self, query: torch.Tensor, support: torch.Tensor) -> torch.Tensor:
        att = self.wq(query) @ self.wk(support).T / query.shape[1] ** 0.5
        return att.softmax(dim=1) @ support

    def score(self, hops: list[torch.Tensor], support_idx: np.ndarray, chunk: int = 4096
              ) -> torch.Tensor:
        h = self.embed(hops)
        sup = h[torch.as_tensor(support_idx)]
        return torch.cat([(h[a:a + chunk] - self.reconstruct(h[a:a + chunk], sup)).norm(dim=1)
                          for a in range(0, h.shape[0], chunk)])

    def loss(self, hops: list[torch.Tensor], y: np.ndarray, rng: np.random.Generator
             ) -> torch.Tensor:
        """One training graph's loss: all its anomalies, as many random normal nodes, and a
        support of `shots` other normal nodes."""
        anom = np.flatnonzero(y == 1)
        normal = rng.permutation(np.flatnonzero(y == 0))
        support = normal[: self.cfg.shots]
        rest = normal[self.cfg.shots:]
        norm_q = rest[: len(anom)]
        h = self.embed(hops, np.concatenate([support, norm_q, anom]))
        k, c = len(support), len(norm_q)
        sup, hn, ha = h[:k], h[k:k + c], h[k + c:]
        rn, ra = self.reconstruct(hn, sup), self.reconstruct(ha, sup)
        pull = (1 - F.cosine_similarity(hn, rn)).mean()
        push = F.cosine_similarity(ha, ra).clamp_min(0).mean()
        return pull + push


def train_arc(model: ARC, graphs: list[tuple[list[torch.Tensor], np.ndarray]], seed: int,
              opt: torch.optim.Optimizer | None = None, start: int = 0,
              curve: list[float] | None = None,
              on_epoch: Callable[[int, list[float]], None] | None = None) -> list[float]:
    """Full-batch Adam, one step per training graph per epoch, in order (the official loop);
    epoch e draws from (seed, e), so a resumed run ends as an unbroken one."""
    opt = opt or torch.optim.Adam(model.parameters(), lr=model.cfg.lr,
                                  weight_decay=model.cfg.weight_decay)
    curve = list(curve or [])
    for epoch in range(start, model.cfg.epochs):
        rng = np.random.default_rng([seed, epoch])
        total = 0.0
        for hops, y in graphs:
            opt.zero_grad()
            loss = model.loss(hops, y, rng)
            loss.backward()
            opt.step()
            total += float(loss.detach())
        curve.append(total / len(graphs))
        if on_epoch is not None:
            on_epoch(epoch, curve)
    return curve


def target_support(y: np.ndarray, shots: int, rng: np.random.Generator) -> np.ndarray:
    """`shots` random normal nodes of the target graph (ARC's few-shot context; they are left
    out of the evaluation)."""
    return rng.permutation(np.flatnonzero(y == 0))[:shots]
