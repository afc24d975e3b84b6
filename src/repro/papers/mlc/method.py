"""The Multi-Lingual Consistency loss as the official code computes it, the pairwise baseline, and
the collinearity both are measured by.

One prompt in K languages gives K vectors: the model's hidden state at one layer and token
(official: the final, normed layer at the prompt's last token, where the response begins). A
trainable linear head (hidden -> 512, trained with the model; the official `extractor`) projects
each, and each projection is scaled to unit length: the rows of Z (K x 512). Z's singular values
say how many directions the K rows span; with unit rows sum_i sigma_i^2 = K is fixed, so the only
way to raise sigma_1 is to make the rows collinear (Eckart-Young: the rank-1 residual is
sum_{i>=2} sigma_i^2). The MLC loss is a softmax cross-entropy over the singular values with
sigma_1 as the target class, logits sigma_i / (stopgrad(sigma_1) tau) (the official
`_compute_aux_loss`; the paper writes sigma_i / tau), averaged over the prompts of a batch. It
has no anchor language, treats every language alike, and ignores sign (v and -v are collinear).

The pairwise baseline pulls each non-English row towards the English one, 1 - cos(z_lang, z_en),
on the same projected rows. The evaluation's collinearity is sigma_1 / sum sigma of the raw
(unprojected) unit states: from 1/K (orthogonal) to 1 (rank one), a property of the model alone.
"""

from __future__ import annotations

import torch


def unit_rows(h: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    return h / h.norm(dim=-1, keepdim=True).clamp_min(eps)


def collinearity(h: torch.Tensor) -> torch.Tensor:
    """sigma_1 / sum sigma of the unit-row matrix; h is (..., K, d), the result (...)."""
    s = torch.linalg.svdvals(unit_rows(h.float()))
    return s[..., 0] / s.sum(-1)


def _check(z: torch.Tensor, what: str) -> None:
    if z.dim() != 3 or z.shape[1] < 2:
        raise ValueError(f"{what} needs (prompts, languages >= 2, dim), got {tuple(z.shape)}")


def mlc_loss(z: torch.Tensor, tau: float = 0.2) -> torch.Tensor:
    """The MLC loss of a batch of prompts: z is (B, K, d), one (projected) row per language."""
    _check(z, "MLC")
    s = torch.linalg.svdvals(unit_rows(z.float()))
    logits = s / (s[:, :1].detach() * tau)
    return torch.nn.functional.cross_entropy(
        logits, torch.zeros(len(s), dtype=torch.long, device=s.device))


def pairwise_loss(z: torch.Tensor, tau: float = 0.2, anchor: int = 0) -> torch.Tensor:
    """The pairwise-cosine baseline: every language towards the anchor language (English);
    z (B, K, d). `tau` is unused (one signature for both terms)."""
    _check(z, "pairwise alignment")
    u = unit_rows(z.float())
    cos = (u * u[:, anchor:anchor + 1]).sum(-1)
    others = [k for k in range(z.shape[1]) if k != anchor]
    return (1.0 - cos[:, others]).mean()


def head(hidden: int, dim: int) -> torch.nn.Linear:
    """The trainable projection the consistency terms read (the official `extractor`)."""
    return torch.nn.Linear(hidden, dim)


CONSISTENCY = {"mlc": mlc_loss, "pairwise": pairwise_loss}
"""the representation-level term each alignment method adds to the objective (plain: none)"""
