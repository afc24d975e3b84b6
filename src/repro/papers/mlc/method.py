"""The Multi-Lingual Consistency loss, the pairwise baseline, and the collinearity they are
measured by.

One prompt in K languages gives K representation vectors (the model's hidden state at one
layer, pooled over the prompt). Stack them, each scaled to unit length, as the rows of
M (K x d). M's singular values say how many directions the K vectors span: one prompt whose
translations the model represents the same way has rank-1 M (sigma_1 = sqrt(K), the rest 0);
K unrelated directions give K equal singular values. The collinearity
c(M) = sigma_1 / sum_i sigma_i runs from 1/K (orthogonal) to 1 (collinear), and the MLC loss
is 1 - c(M), averaged over the prompts of a batch: its gradient turns every language's vector
towards the shared principal direction at once, with no language as the anchor and no
response in any language but English.

The pairwise baseline is the usual alternative: pull each non-English vector towards the
English one, 1 - cos(h_lang, h_en), averaged over languages and prompts.
"""

from __future__ import annotations

import torch


def unit_rows(h: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    return h / h.norm(dim=-1, keepdim=True).clamp_min(eps)


def collinearity(h: torch.Tensor) -> torch.Tensor:
    """sigma_1 / sum sigma of the unit-row matrix; h is (..., K, d), the result (...)."""
    s = torch.linalg.svdvals(unit_rows(h.float()))
    return s[..., 0] / s.sum(-1)


def mlc_loss(h: torch.Tensor) -> torch.Tensor:
    """The MLC loss of a batch of prompts: h is (B, K, d), one row per language."""
    if h.dim() != 3 or h.shape[1] < 2:
        raise ValueError(f"MLC needs (prompts, languages >= 2, dim), got {tuple(h.shape)}")
    return (1.0 - collinearity(h)).mean()


def pairwise_loss(h: torch.Tensor, anchor: int = 0) -> torch.Tensor:
    """The pairwise-cosine baseline: every language towards the anchor language (English),
    h (B, K, d)."""
    if h.dim() != 3 or h.shape[1] < 2:
        raise ValueError(f"pairwise alignment needs (prompts, languages >= 2, dim), got "
                         f"{tuple(h.shape)}")
    u = unit_rows(h.float())
    cos = (u * u[:, anchor:anchor + 1]).sum(-1)
    others = [k for k in range(h.shape[1]) if k != anchor]
    return (1.0 - cos[:, others]).mean()


CONSISTENCY = {"mlc": mlc_loss, "pairwise": pairwise_loss}
"""the representation-level term each alignment method adds to the objective (plain: none)"""
