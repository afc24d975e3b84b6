"""The paper's teacher models, each a real model with its own forward pass.

Inputs are sequences of D tokens of dimension d, held column-wise as X in R^{d x D} (a batch is
(B, d, D)); a teacher outputs one C-vector per position (C = 1 for the synthetic settings).
Every teacher has the paper's *bilinear structure*: output i is

    f*_i(X) = sigma( V* X s*_i ),        S* = [s*_1 .. s*_D] column-stochastic,

with a value block V* in R^{C x d} and a selection block S* (column i: which positions output i
aggregates, with which weights), so V* X s*_i is bilinear in (V*, s*_i). `Teacher.forward` runs
the model as it is usually written (a convolution with average pooling, a GCN layer on a cycle
graph, ...); `bilinear_forward` runs the same function through (V*, S*); tests check that they
agree.

- conv (D = side^2 = 36, K = window^2 = 4): tokens on a side x side grid (d channels); an
  average pooling over each window x window neighbourhood (circular padding, stride 1, so D
  outputs), a 1x1 convolution V*, then sigma. Equivalently one convolution whose kernel
  factorises as V* (channels) times a uniform window (space).
- gcn (D nodes on a cycle graph, K = 3): one GCN layer sigma(A_hat X^T V*^T) with
  A_hat = D~^{-1/2} (A + I) D~^{-1/2} = (A + I) / 3 on a cycle.
- sparse_token (D = 20, K = 4; a variant of the q-sparse averaging of Sanford et al. 2023 /
  Wang et al. 2024): output i averages a subset S_i of K positions, fixed per position (drawn
  from the seed) rather than given in the input, then V* (linear): y_i = V* mean_{j in S_i} x_j.
- group_sparse (D = 20, K = 1; Zhang et al. 2025): D groups of d variables and y = V* x_{j*}
  (linear): only the group j* matters; every output position predicts that same label.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

KINDS = ("conv", "gcn", "sparse_token", "group_sparse")
ACTIVATIONS = ("relu", "leaky_relu", "linear")


def activation(z: torch.Tensor, kind: str, slope: float = 0.01) -> torch.Tensor:
    """sigma(z) for kind relu / leaky_relu (negative slope `slope`) / linear."""
    if kind == "relu":
        return torch.clamp(z, min=0.0)
    if kind == "leaky_relu":
        return torch.where(z >= 0, z, slope * z)
    if kind == "linear":
        return z
    raise ValueError(f"activation {kind!r}: allowed are {', '.join(ACTIVATIONS)}")


def activation_grad(z: torch.Tensor, kind: str, slope: float = 0.01) -> torch.Tensor:
    """sigma'(z), with sigma'(0) = 1 for (leaky) ReLU: from the zero initialisation every
    pre-activation is exactly 0, and the convention sigma'(0) = 0 would freeze GD there."""
    if kind == "relu":
        return (z >= 0).to(z.dtype)
    if kind == "leaky_relu":
        return torch.where(z >= 0, torch.ones_like(z), torch.full_like(z, slope))
    if kind == "linear":
        return torch.ones_like(z)
    raise ValueError(f"activation {kind!r}: allowed are {', '.join(ACTIVATIONS)}")


@dataclass
class Teacher:
    """A teacher model: its kind, sizes, the value block V* (C x d) and selection block S*."""

    kind: str
    D: int
    d: int
    K: int
    act: str
    V: torch.Tensor  # (C, d) value block
    S: torch.Tensor  # (D, D) selection block, column i sums to 1
    slope: float = 0.01
    meta: dict[str, Any] | None = None

    @property
    def C(self) -> int:
        return self.V.shape[0]

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """The model as usually written; X (B, d, D) -> (B, C, D), one output per position."""
        B = X.shape[0]
        if self.kind == "conv":
            side, win = self.meta["side"], self.meta["window"]
            img = X.reshape(B, self.d, side, side)
            img = F.pad(img, (0, win - 1, 0, win - 1), mode="circular")
            pooled = F.avg_pool2d(img, kernel_size=win, stride=1)  # (B, d, side, side)
            z = F.conv2d(pooled, self.V[:, :, None, None])  # 1x1 conv -> (B, C, side, side)
            return activation(z, self.act, self.slope).reshape(B, self.C, self.D)
        if self.kind == "gcn":
            A_hat = self.meta["A_hat"]
            H = torch.einsum("ij,bcj->bci", A_hat, X)  # node i aggregates its neighbours
            z = torch.einsum("kc,bci->bki", self.V, H)
            return activation(z, self.act, self.slope)
        if self.kind == "sparse_token":
            idx = torch.tensor(self.meta["subsets"])  # (D, K): the positions output i averages
            picked = X[:, :, idx].mean(dim=3)  # (B, d, D)
            return activation(torch.einsum("kc,bci->bki", self.V, picked), self.act, self.slope)
        if self.kind == "group_sparse":
            z = torch.einsum("kc,bc->bk", self.V, X[:, :, self.meta["group"]])
            return activation(z, self.act, self.slope)[:, :, None].expand(B, self.C, self.D)
        raise ValueError(f"teacher kind {self.kind!r}: allowed are {', '.join(KINDS)}")

    def bilinear_forward(self, X: torch.Tensor) -> torch.Tensor:
        """The same function through its blocks: output i = sigma(V* X s*_i)."""
        return bilinear_output(X, self.V, self.S, self.act, self.slope)


def bilinear_output(X: torch.Tensor, V: torch.Tensor, S: torch.Tensor, act: str,
                    slope: float = 0.01) -> torch.Tensor:
    """sigma(V X s_i) for every i, X (B, d, D), V (C, d), S (D, D): (B, C, D)."""
    return activation(torch.einsum("kc,bcj,ji->bki", V, X, S), act, slope)


def unit_value(C: int, d: int, rng: np.random.Generator) -> torch.Tensor:
    """Random value block, each row of unit norm."""
    V = rng.standard_normal((C, d))
    return torch.tensor(V / np.linalg.norm(V, axis=1, keepdims=True), dtype=torch.float64)


def conv_selection(side: int, window: int) -> torch.Tensor:
    """S* of average pooling: column (r, c) is uniform on the window x window block at (r, c)
    of the side x side grid, wrapping around (circular padding)."""
    D = side * side
    S = torch.zeros(D, D, dtype=torch.float64)
    for r in range(side):
        for c in range(side):
            for a in range(window):
                for b in range(window):
                    S[((r + a) % side) * side + (c + b) % side, r * side + c] += 1.0 / window**2
    return S


def cycle_gcn_adjacency(D: int) -> torch.Tensor:
    """A_hat = D~^{-1/2}(A + I)D~^{-1/2} of the cycle graph on D nodes (every degree is 3)."""
    A = torch.zeros(D, D, dtype=torch.float64)
    for i in range(D):
        A[i, (i + 1) % D] = A[(i + 1) % D, i] = 1.0
    A_tilde = A + torch.eye(D, dtype=torch.float64)
    deg = A_tilde.sum(1)
    return A_tilde / torch.sqrt(deg[:, None] * deg[None, :])


def make_teacher(kind: str, D: int, d: int, K: int, act: str, seed: int, C: int = 1,
                 slope: float = 0.01) -> Teacher:
    """Build a teacher of `kind` with its parameter blocks drawn from `seed`."""
    rng = np.random.default_rng(seed)
    V = unit_value(C, d, rng)
    if kind == "conv":
        side, window = math.isqrt(D), math.isqrt(K)
        if side * side != D or window * window != K:
            raise ValueError(f"conv teacher: D={D} and K={K} must be squares (grid, window)")
        S = conv_selection(side, window)
        meta: dict[str, Any] = {"side": side, "window": window}
    elif kind == "gcn":
        if K != 3:
            raise ValueError(f"gcn teacher on a cycle graph: K must be 3 (self + 2 neighbours), "
                             f"got {K}")
        A_hat = cycle_gcn_adjacency(D)
        S = A_hat.T.contiguous()  # column i = node i's aggregation weights
        meta = {"A_hat": A_hat}
    elif kind == "sparse_token":
        subsets = [sorted(rng.choice(D, size=K, replace=False).tolist()) for _ in range(D)]
        S = torch.zeros(D, D, dtype=torch.float64)
        for i, sub in enumerate(subsets):
            S[sub, i] = 1.0 / K
        meta = {"subsets": subsets}
    elif kind == "group_sparse":
        if K != 1:
            raise ValueError(f"group_sparse teacher: K must be 1 (one relevant group), got {K}")
        group = int(rng.integers(D))
        S = torch.zeros(D, D, dtype=torch.float64)
        S[group, :] = 1.0
        meta = {"group": group}
    else:
        raise ValueError(f"teacher kind {kind!r}: allowed are {', '.join(KINDS)}")
    return Teacher(kind=kind, D=D, d=d, K=K, act=act, V=V, S=S, slope=slope, meta=meta)
