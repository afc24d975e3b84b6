"""OWLEYE's model (issue 24, groundwork; NOTES.md sections 2.4-2.10): a two-branch encoder, the
multi-domain pattern dictionary and truncated-attention reconstruction.

- Attribute branch: one MLP shared over the propagated hops [X, AX, ..., A^K X] of the aligned
  features (A = D^-1/2 A D^-1/2, no self-loops), the residuals Z_k - Z_0 concatenated: H.
- Structure branch: all-ones inputs S_0 (n x st_dim) propagated through K + 1 learned linear maps
  and A, S_{t+1} = A L_t(S_t), the residuals of the outputs concatenated: R (pure topology).
- Dictionary: per training domain, the (H, R) of up to `support` normal nodes, detached. A new
  domain is added by one forward pass (continual growth, no retraining).
- Domain similarity from structure only: sim_j(q) = max over dictionary rows of the softmax over
  rows of (L_s R_j) R_q^T.
- Truncated attention: scores of q against a dictionary's keys, the `truncate` share of lowest
  scores per query set to -inf, softmax at temperature T; the reconstruction is the weighted raw
  patterns, fused over dictionaries weighted by sim_j(q).
- Score: ||H - H_hat|| + beta ||R - R_hat||. Ablations: `-N` (features not normalised: in
  align), `-S` (no structure branch: sim = 1, no beta terms), `-T` (no truncation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class OwleyeConfig:
    d: int = 64
    hidden: int = 512  # h_feats
    hops: int = 4
    st_dim: int = 10
    support: int = 2000  # dictionary patterns per domain
    target_patterns: int = 10  # random target nodes added as an in-context dictionary
    truncate: float = 0.1  # share of lowest attention scores cut per query
    temperature: float = 1e-3
    beta: float = 0.01
    margin_attr: float = 0.2
    margin_struct: float = 0.1
    structure: bool = True  # False: the -S ablation
    truncation: bool = True  # False: the -T ablation


@dataclass
class Domain:
    hops: list[torch.Tensor]  # propagated aligned features, hops + 1 of (n, d)
    adj: torch.Tensor  # sparse normalised adjacency (n, n)
    y: np.ndarray | None = None  # labels (training domains)


class Owleye(nn.Module):
    def __init__(self, cfg: OwleyeConfig) -> None:
        super().__init__()
        self.cfg = cfg
        h = cfg.hidden
        self.mlp = nn.Sequential(nn.Linear(cfg.d, h), nn.ELU(), nn.Linear(h, h))
        self.struct = nn.ModuleList(nn.Linear(cfg.st_dim, cfg.st_dim)
                                    for _ in range(cfg.hops + 1))
        dh, ds = h * cfg.hops, cfg.st_dim * cfg.hops
        self.wq, self.wk = nn.Linear(dh, dh // 2), nn.Linear(dh, dh // 2)
        self.wq_s, self.wk_s = nn.Linear(ds, ds), nn.Linear(ds, ds)
        self.sim_map = nn.Linear(ds, ds)
        self.scale = dh ** 0.5  # the released code scales both paths by sqrt(h * hops)
        self.dictionary: list[tuple[torch.Tensor, torch.Tensor]] = []

    def embed(self, dom: Domain, rows: np.ndarray | None = None
              ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(H, R) of the graph's nodes, or of `rows` only: the attribute MLP acts on each node's
        precomputed hops alone, so only the rows asked for are encoded (the same numbers as
        encoding all and indexing); the structure branch propagates over the whole graph."""
        i = None if rows is None else torch.as_tensor(rows, device=dom.hops[0].device)
        hops = dom.hops[: self.cfg.hops + 1]
        z = [self.mlp(x if i is None else x[i]) for x in hops]
        hvec = torch.cat([zk - z[0] for zk in z[1:]], dim=1)
        if not self.cfg.structure:
            return hvec, None
        s = hops[0].new_ones(hops[0].shape[0], self.cfg.st_dim)
        outs = []
        for t, lin in enumerate(self.struct):
            s = torch.sparse.mm(dom.adj, lin(s))
            if t < len(self.struct) - 1:
                s = F.elu(s)
            outs.append(s)
        r = torch.cat([o - outs[0] for o in outs[1:]], dim=1)
        return hvec, (r if i is None else r[i])

    def patterns(self, dom: Domain, idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor | None]:
        h, r = self.embed(dom, idx)
        return h.detach(), (r.detach() if r is not None else None)

    def add_domain(self, dom: Domain, rng: np.random.Generator) -> None:
        """Continual growth: the domain's normal patterns join the dictionary (no training)."""
        normal = np.flatnonzero(dom.y == 0) if dom.y is not None else np.arange(
            dom.hops[0].shape[0])
        idx = rng.permutation(normal)[: self.cfg.support]
        with torch.no_grad():
            self.dictionary.append(self.patterns(dom, idx))

    def keys(self, dicts) -> list[tuple[torch.Tensor, ...]]:
        """Each dictionary's attention keys (attribute and structure paths) and similarity
        map, computed once for every query set reconstructed against it."""
        out = []
        for dh, dr in dicts:
            k = F.leaky_relu(self.wk(dh))
            if dr is None:
                out.append((k, None, None))
            else:
                out.append((k, F.leaky_relu(self.wk_s(dr)), self.sim_map(dr)))
        return out

    def attend(self, q: torch.Tensor, p: torch.Tensor, k: torch.Tensor, wq: nn.Module
               ) -> torch.Tensor:
        """Truncated attention of queries q over patterns p with keys k: the `truncate` share
        of each query's lowest scores set to -inf, softmax at temperature T, the raw patterns
        as values."""
        a = F.leaky_relu(wq(q)) @ k.T / self.scale
        if self.cfg.truncation:
            r = max(1, int(self.cfg.truncate * p.shape[0]))
            if r < p.shape[0]:
                low = a.topk(r, dim=1, largest=False).indices
                a = a.scatter(1, low, float("-inf"))
        return (a / self.cfg.temperature).softmax(dim=1) @ p

    def similarity(self, r_q: torch.Tensor | None, keys, h_q: torch.Tensor) -> torch.Tensor:
        if r_q is None:
            return h_q.new_ones(len(keys), 1)
        sims = [(ks @ r_q.T).softmax(dim=0).max(dim=0).values for _, _, ks in keys]
        return torch.stack(sims)  # (dictionaries, queries)

    def reconstruct(self, h_q, r_q, dicts, keys=None
                    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        keys = keys if keys is not None else self.keys(dicts)
        sim = self.similarity(r_q, keys, h_q)
        h_hat = torch.stack([self.attend(h_q, dh, k[0], self.wq)
                             for (dh, _), k in zip(dicts, keys, strict=True)])
        h_hat = (sim.unsqueeze(-1) * h_hat).mean(0)
        if r_q is None:
            return h_hat, None
        r_hat = torch.stack([self.attend(r_q, dr, k[1], self.wq_s)
                             for (_, dr), k in zip(dicts, keys, strict=True)])
        return h_hat, (sim.unsqueeze(-1) * r_hat).mean(0)

    def score(self, dom: Domain, context: np.ndarray, chunk: int = 4096) -> torch.Tensor:
        """Zero-shot anomaly scores of every node of an unseen domain: the dictionary plus the
        `context` nodes of the target (random unlabelled ones, or labelled normal ones in the
        10-shot protocol) as one more; queries are reconstructed `chunk` rows at a time."""
        h, r = self.embed(dom)
        i = torch.as_tensor(context)
        own = (h[i].detach(), r[i].detach() if r is not None else None)
        dicts = [*self.dictionary, own]
        keys = self.keys(dicts)
        out = []
        for a in range(0, h.shape[0], chunk):
            hq = h[a:a + chunk]
            rq = r[a:a + chunk] if r is not None else None
            h_hat, r_hat = self.reconstruct(hq, rq, dicts, keys)
            s = (hq - h_hat).norm(dim=1)
            if rq is not None:
                s = s + self.cfg.beta * (rq - r_hat).norm(dim=1)
            out.append(s)
        return torch.cat(out)

    def loss(self, dom: Domain, rng: np.random.Generator) -> torch.Tensor:
        """One training domain's loss against the dictionary (the released code's five terms:
        three cosine-embedding terms, an attribute and a structure triplet term)."""
        y = dom.y
        anom, normal = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
        c = min(self.cfg.support, len(anom), len(normal))
        qa = rng.permutation(anom)[:c]
        qn = rng.permutation(normal)[:c]
        h, r = self.embed(dom, np.concatenate([qn, qa]))
        hn, ha = h[:c], h[c:]
        rn = r[:c] if r is not None else None
        ra = r[c:] if r is not None else None
        keys = self.keys(self.dictionary)
        hn_hat, rn_hat = self.reconstruct(hn, rn, self.dictionary, keys)
        ha_hat, _ = self.reconstruct(ha, ra, self.dictionary, keys)
        one = h.new_ones(c)
        loss = (F.cosine_embedding_loss(hn, hn_hat, one)
                + F.cosine_embedding_loss(ha, ha_hat, -one)
                + F.cosine_embedding_loss(hn, ha_hat, -one)
                + F.triplet_margin_loss(hn_hat, hn, ha, margin=self.cfg.margin_attr, swap=True))
        if r is not None:
            loss = loss + self.cfg.beta * F.triplet_margin_loss(
                rn_hat, rn, ra, margin=self.cfg.margin_struct, swap=True)
        return loss


def refresh(model: Owleye, domains: list[Domain], j: int, rng: np.random.Generator) -> None:
    """Domain j's dictionary entry from a fresh draw of its normal nodes."""
    normal = np.flatnonzero(domains[j].y == 0)
    idx = rng.permutation(normal)[: model.cfg.support]
    with torch.no_grad():
        entry = model.patterns(domains[j], idx)
    if j < len(model.dictionary):
        model.dictionary[j] = entry
    else:
        model.dictionary.append(entry)


def train_owleye(model: Owleye, domains: list[Domain], epochs: int, lr: float,
                 weight_decay: float, seed: int, opt: torch.optim.Optimizer | None = None,
                 start: int = 0, curve: list[float] | None = None,
                 on_epoch: Callable[[int, list[float]], None] | None = None) -> list[float]:
    """The released loop: per epoch, per training domain in order, refresh its dictionary
    entry, one Adam step on its loss, refresh again; finally rebuild every entry. Epoch e draws
    from its own generator (seed, e), so a run resumed at `start` (with the model, optimiser
    and dictionary saved after epoch start - 1) ends exactly as an unbroken one."""
    opt = opt or torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    if start == 0:
        model.dictionary = []
    curve = list(curve or [])
    for epoch in range(start, epochs):
        rng = np.random.default_rng([seed, epoch])
        total = 0.0
        for j, dom in enumerate(domains):
            refresh(model, domains, j, rng)
            opt.zero_grad()
            loss = model.loss(dom, rng)
            loss.backward()
            opt.step()
            refresh(model, domains, j, rng)
            total += float(loss.detach())
        curve.append(total / len(domains))
        if on_epoch is not None:
            on_epoch(epoch, curve)
    rng = np.random.default_rng([seed, epochs])
    with torch.no_grad():
        for j in range(len(domains)):
            refresh(model, domains, j, rng)
    return curve
