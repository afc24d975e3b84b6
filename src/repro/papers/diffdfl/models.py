"""Predictive models of y given x: a point MLP, a Gaussian MLP, and the conditional diffusion
model (DDPM with epsilon prediction, sampled by DDIM), as in the official code's
`model_classes.py` / `diffusion_opt.py`, written for this project."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from repro.papers.diffdfl.settings import DiffusionConfig


def _mlp(i: int, h: int, o: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(i, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, o))


class Scaled(nn.Module):
    """Networks work on y standardised by the training set's per-coordinate mean and spread
    (buffers, so checkpoints carry them); draws and predictions are in y's own units."""

    def __init__(self, y_dim: int):
        super().__init__()
        self.register_buffer("y_mean", torch.zeros(y_dim))
        self.register_buffer("y_sd", torch.ones(y_dim))

    def set_scale(self, y: torch.Tensor) -> None:
        self.y_mean.copy_(y.mean(0))
        self.y_sd.copy_(y.std(0).clamp(min=1e-3))


class PointMLP(Scaled):
    """Deterministic predictor: y_hat = f(x); fitted by MSE, decided on as one draw."""

    def __init__(self, x_dim: int, y_dim: int, hidden: int):
        super().__init__(y_dim)
        self.net = _mlp(x_dim, hidden, y_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.y_mean + self.y_sd * self.net(x)

    def fit_loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(self(x), y)

    def draws(self, x: torch.Tensor, m: int, gen: torch.Generator | None = None
              ) -> torch.Tensor:
        return self(x)[:, None, :]  # (B, 1, n): a point prediction is a single scenario


class GaussianMLP(Scaled):
    """y | x ~ N(mu(x), diag sigma(x)^2); fitted by NLL, sampled by reparameterisation."""

    def __init__(self, x_dim: int, y_dim: int, hidden: int):
        super().__init__(y_dim)
        self.net = _mlp(x_dim, hidden, 2 * y_dim)
        self.y_dim = y_dim

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mu, s = self.net(x).split(self.y_dim, -1)
        return self.y_mean + self.y_sd * mu, self.y_sd * (F.softplus(s) + 1e-3)

    def fit_loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        mu, sd = self(x)
        return -torch.distributions.Normal(mu, sd).log_prob(y).sum(-1).mean()

    def draws(self, x: torch.Tensor, m: int, gen: torch.Generator | None = None
              ) -> torch.Tensor:
        mu, sd = self(x)
        eps = torch.randn((len(x), m, self.y_dim), generator=gen).to(x.device)
        return mu[:, None] + sd[:, None] * eps


def timestep_embedding(t: torch.Tensor, dim: int, max_period: float = 10000.0) -> torch.Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32,
                                                           device=t.device) / half)
    args = t[:, None].float() * freqs[None]
    emb = torch.cat([torch.cos(args), torch.sin(args)], -1)
    return F.pad(emb, (0, dim % 2))


class EpsNet(nn.Module):
    """epsilon_theta(y_t, t, x): LayerNorm / Linear / SiLU blocks on [y_t, emb(t), x]."""

    def __init__(self, x_dim: int, y_dim: int, c: DiffusionConfig):
        super().__init__()
        self.time_dim = c.time_dim
        self.time = nn.Sequential(nn.Linear(c.time_dim, 16 * c.time_dim), nn.SiLU(),
                                  nn.Linear(16 * c.time_dim, c.time_dim))
        width = y_dim + c.time_dim + x_dim
        layers: list[nn.Module] = []
        for _ in range(c.layers):
            layers += [nn.LayerNorm(width), nn.Linear(width, c.hidden), nn.SiLU()]
            width = c.hidden
        layers += [nn.LayerNorm(width), nn.Linear(width, y_dim)]
        self.net = nn.Sequential(*layers)

    def forward(self, y_t: torch.Tensor, t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return self.net(torch.cat([y_t, self.time(timestep_embedding(t, self.time_dim)), x], -1))


class Diffusion(Scaled):
    """Conditional DDPM of y given x: linear betas over T steps, epsilon prediction; sampled by
    DDIM (eta = 0, a deterministic map of the initial noise) over `sample_steps` of the T."""

    def __init__(self, x_dim: int, y_dim: int, c: DiffusionConfig):
        super().__init__(y_dim)
        self.c, self.y_dim = c, y_dim
        self.eps = EpsNet(x_dim, y_dim, c)
        beta = torch.linspace(c.beta_start, c.beta_end, c.timesteps, dtype=torch.float64)
        alpha = 1.0 - beta
        abar = torch.cumprod(alpha, 0)
        abar_prev = F.pad(abar[:-1], (1, 0), value=1.0)
        post_var = beta * (1 - abar_prev) / (1 - abar)
        # the ELBO's weight of each step's epsilon MSE (lambda_t; t = 0 takes t = 1's)
        lam = beta**2 / (2 * post_var.clamp(min=1e-20) * alpha * (1 - abar))
        lam[0] = lam[1]
        self.register_buffer("abar", abar.float())
        self.register_buffer("lam", (lam / lam.mean()).float())

    def q_sample(self, y0: torch.Tensor, t: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        a = self.abar[t][:, None]
        return a.sqrt() * y0 + (1 - a).sqrt() * noise

    def denoise_losses(self, y0: torch.Tensor, x: torch.Tensor, k: int,
                       weighting: str = "simple", gen: torch.Generator | None = None
                       ) -> torch.Tensor:
        """Per-row denoising loss, averaged over k draws of (t, noise): (N,). Its negative is
        the log-likelihood surrogate the score-function estimator differentiates."""
        N = len(y0)
        y0 = (y0 - self.y_mean) / self.y_sd
        t = torch.randint(0, self.c.timesteps, (N * k,), generator=gen).to(x.device)
        noise = torch.randn((N * k, self.y_dim), generator=gen).to(x.device)
        y0r, xr = y0.repeat_interleave(k, 0), x.repeat_interleave(k, 0)
        err = (self.eps(self.q_sample(y0r, t, noise), t, xr) - noise).square().sum(-1)
        if weighting == "elbo":
            err = self.lam[t] * err
        return err.view(N, k).mean(1)

    def fit_loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.denoise_losses(y, x, 1).mean() / self.y_dim

    def schedule(self, steps: int) -> list[int]:
        return sorted({int(round(s)) for s in np.linspace(0, self.c.timesteps - 1, steps)})

    def sample(self, x: torch.Tensor, steps: int | None = None,
               gen: torch.Generator | None = None) -> torch.Tensor:
        """DDIM (eta = 0) from y_T ~ N(0, I): (N, n) draws, differentiable in the parameters
        unless called under no_grad."""
        seq = self.schedule(steps or self.c.sample_steps)
        y = torch.randn((len(x), self.y_dim), generator=gen).to(x.device)
        for i in reversed(range(len(seq))):
            t = seq[i]
            a = self.abar[t]
            a_prev = self.abar[seq[i - 1]] if i > 0 else torch.ones((), device=x.device)
            e = self.eps(y, torch.full((len(x),), t, dtype=torch.long, device=x.device), x)
            y0 = (y - (1 - a).sqrt() * e) / a.sqrt()
            y = a_prev.sqrt() * y0 + (1 - a_prev).sqrt() * e
        return self.y_mean + self.y_sd * y

    def draws(self, x: torch.Tensor, m: int, gen: torch.Generator | None = None,
              steps: int | None = None) -> torch.Tensor:
        """m draws per row of x: (B, m, n)."""
        return self.sample(x.repeat_interleave(m, 0), steps, gen).view(len(x), m, self.y_dim)


MODEL_OF = {"two_stage_mlp": "mlp", "dfl_deterministic": "mlp",
            "two_stage_gaussian": "gaussian", "dfl_gaussian": "gaussian",
            "two_stage_diffusion": "diffusion", "dfl_diffusion_rp": "diffusion",
            "dfl_diffusion_sf": "diffusion"}
INIT_OF = {"dfl_deterministic": "two_stage_mlp", "dfl_gaussian": "two_stage_gaussian",
           "dfl_diffusion_rp": "two_stage_diffusion", "dfl_diffusion_sf": "two_stage_diffusion"}


def build(kind: str, x_dim: int, y_dim: int, models) -> nn.Module:
    """The model a method trains (`MODEL_OF`), from `Settings.models`."""
    if kind == "mlp":
        return PointMLP(x_dim, y_dim, models.hidden)
    if kind == "gaussian":
        return GaussianMLP(x_dim, y_dim, models.hidden)
    if kind == "diffusion":
        return Diffusion(x_dim, y_dim, models.diffusion)
    raise ValueError(f"unknown model {kind!r}")
