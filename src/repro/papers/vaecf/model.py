"""Mult-VAE (Liang et al. 2018) with input masking, beta-KL, and the anchor regularizer.

Encoder q(z|x): x -> l2-normalise -> mask (dropout p, inverted scaling) -> Linear(I, 600) ->
tanh -> Linear(600, 2K) = (mu, log sigma^2). Decoder: z -> Linear(K, 600) -> tanh ->
Linear(600, I) = logits of a multinomial over items. [I-600-200-600-I] for K = 200.

Per user u with interaction vector x_u (the loss is averaged over a batch of users):

    L(u) = -sum_i x_ui log softmax(f(z))_i                   # multinomial log-likelihood
           + beta * KL(q(z|x_u) || N(0, I))                  # beta-KL (annealed, Liang et al.)
           + lambda_A * L_A(u)                               # the anchor regularizer

    L_A(u) = 1/|I_u| sum_{i in I_u} E_q ||z - e_i||^2
           = 1/|I_u| sum_{i in I_u} ||mu_u - e_i||^2 + sum_k sigma_uk^2

with one learnable anchor e_i in the latent space per item: it pulls each user's posterior
toward the anchors of the items the user interacted with (all of them, not only the unmasked
ones), and the anchors toward the posteriors of their users. The expectation is taken in
closed form (an unbiased single-sample estimate has the same gradient in expectation).
Masking "clean" means p = 0; Liang et al.'s Mult-VAE is p = 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class VAEConfig:
    """Architecture and regularizers of one Mult-VAE variant."""

    n_items: int
    hidden: int = 600          # hidden layer width (Liang et al.: 600)
    latent: int = 200          # latent dimension K (Liang et al.: 200)
    dropout: float = 0.5       # input masking rate p on the normalised input (0 = clean)
    anchor_weight: float = 0.0  # lambda_A; 0 disables the anchors
    anchor_init_std: float = 0.01  # anchors start near the prior mean


def sparse_linear(x: torch.Tensor, layer: nn.Linear) -> torch.Tensor:
    """`layer(x)` for a sparse 0/1-pattern input, as a weighted embedding-bag over the nonzero
    entries: the same numbers as the dense product at a fraction of the cost (x is ~5% dense;
    the encoder's I x 600 product would otherwise cost as much as the decoder's)."""
    rows, cols = x.nonzero(as_tuple=True)
    offsets = torch.searchsorted(rows, torch.arange(x.shape[0], device=x.device))
    h = F.embedding_bag(cols, layer.weight.t(), offsets, mode="sum",
                        per_sample_weights=x[rows, cols])
    return h + layer.bias


def _init(layer: nn.Linear) -> nn.Linear:
    """Liang et al.'s init: Glorot-uniform weights, biases N(0, 0.001^2)."""
    nn.init.xavier_uniform_(layer.weight)
    nn.init.normal_(layer.bias, std=0.001)
    return layer


class MultVAE(nn.Module):
    """Mult-VAE with optional item anchors (present iff anchor_weight > 0)."""

    def __init__(self, cfg: VAEConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.enc1 = _init(nn.Linear(cfg.n_items, cfg.hidden))
        self.enc2 = _init(nn.Linear(cfg.hidden, 2 * cfg.latent))
        self.dec1 = _init(nn.Linear(cfg.latent, cfg.hidden))
        self.dec2 = _init(nn.Linear(cfg.hidden, cfg.n_items))
        self.anchors = (
            nn.Parameter(torch.randn(cfg.n_items, cfg.latent) * cfg.anchor_init_std)
            if cfg.anchor_weight > 0 else None
        )

    def encode(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(mu, logvar) of q(z|x); masking is active only in training mode."""
        h = F.normalize(x, p=2, dim=1)
        h = F.dropout(h, p=self.cfg.dropout, training=self.training)
        h = torch.tanh(sparse_linear(h, self.enc1))
        mu, logvar = self.enc2(h).chunk(2, dim=1)
        return mu, logvar

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        return self.dec2(torch.tanh(self.dec1(z)))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(logits, mu, logvar); z is sampled in training mode and is mu in eval mode."""
        mu, logvar = self.encode(x)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar) if self.training else mu
        return self.decode(z), mu, logvar


def multinomial_nll(logits: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Per-user -sum_i x_i log softmax(logits)_i."""
    return -(F.log_softmax(logits, dim=1) * x).sum(dim=1)


def gaussian_kl(mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    """Per-user KL(N(mu, diag exp(logvar)) || N(0, I))."""
    return 0.5 * (-logvar + logvar.exp() + mu.pow(2) - 1.0).sum(dim=1)


def anchor_loss(mu: torch.Tensor, logvar: torch.Tensor, x: torch.Tensor,
                anchors: torch.Tensor) -> torch.Tensor:
    """Per-user L_A = mean over the user's items i of E_q ||z - e_i||^2 (closed form).

    Computed without materialising user x item distances:
    sum_i x_i ||mu - e_i||^2 = n ||mu||^2 - 2 mu . (x E) + x . ||E||^2.
    """
    n = x.sum(dim=1).clamp_min(1.0)
    sq = (n * mu.pow(2).sum(1) - 2.0 * (mu * (x @ anchors)).sum(1)
          + x @ anchors.pow(2).sum(1))
    return sq / n + logvar.exp().sum(dim=1)


def beta_at(step: int, anneal_cap: float, total_anneal_steps: int) -> float:
    """Liang et al.'s KL annealing: beta = min(cap, step / total_anneal_steps); a
    non-positive total_anneal_steps means a constant beta = cap (beta-VAE)."""
    if total_anneal_steps <= 0:
        return float(anneal_cap)
    return float(min(anneal_cap, step / total_anneal_steps))


def loss_terms(model: MultVAE, x: torch.Tensor, beta: float) -> dict[str, torch.Tensor]:
    """Batch means of each term and the total objective (training mode: masked, sampled)."""
    logits, mu, logvar = model(x)
    nll = multinomial_nll(logits, x).mean()
    kl = gaussian_kl(mu, logvar).mean()
    total = nll + beta * kl
    out = {"nll": nll, "kl": kl}
    if model.anchors is not None:
        la = anchor_loss(mu, logvar, x, model.anchors).mean()
        total = total + model.cfg.anchor_weight * la
        out["anchor"] = la
    out["loss"] = total
    return out
