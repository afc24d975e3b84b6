"""White-box L_inf attacks, FGSM and PGD, exactly as torchattacks 3.5.1 defines them (a test
checks ours against it): the gradient of the cross-entropy of the model's logits with respect to
the [0, 1] image, taken by BPTT through every time step and the spike surrogate (rate encoding:
through the straight-through Bernoulli draw, one draw per forward pass). Ours take a generator
for PGD's random start, so an evaluation is reproducible, and an `eot` count: the gradient
averaged over that many forward passes (expectation over transformation, Athalye et al. 2018),
which a stochastic encoding needs for a full-strength attack; torchattacks' FGSM/PGD are eot=1."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

Model = Callable[[torch.Tensor], torch.Tensor]


def input_grad(model: Model, x: torch.Tensor, y: torch.Tensor, eot: int = 1) -> torch.Tensor:
    total = torch.zeros_like(x)
    for _ in range(eot):
        xg = x.detach().clone().requires_grad_(True)
        (g,) = torch.autograd.grad(F.cross_entropy(model(xg), y), xg)
        total += g
    return total / eot


def fgsm(model: Model, x: torch.Tensor, y: torch.Tensor, eps: float, eot: int = 1
         ) -> torch.Tensor:
    return (x + eps * input_grad(model, x, y, eot).sign()).clamp(0, 1).detach()


def pgd(model: Model, x: torch.Tensor, y: torch.Tensor, eps: float, alpha: float, steps: int,
        random_start: bool = True, gen: torch.Generator | None = None, eot: int = 1
        ) -> torch.Tensor:
    adv = x.detach().clone()
    if random_start:
        noise = torch.rand(x.shape, generator=gen, device=x.device) * (2 * eps) - eps
        adv = (adv + noise).clamp(0, 1)
    for _ in range(steps):
        adv = adv + alpha * input_grad(model, adv, y, eot).sign()
        adv = (x + (adv - x).clamp(-eps, eps)).clamp(0, 1).detach()
    return adv
