"""White-box L_inf attacks, FGSM and PGD, exactly as torchattacks 3.5.1 defines them (a test
checks ours against it): the gradient of the cross-entropy of the model's logits with respect to
the [0, 1] image, taken by BPTT through every time step and the spike surrogate (rate encoding:
through the straight-through Bernoulli draw, one draw per forward pass). Ours take a generator
for PGD's random start, so an evaluation is reproducible."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

Model = Callable[[torch.Tensor], torch.Tensor]


def input_grad(model: Model, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x = x.detach().clone().requires_grad_(True)
    loss = F.cross_entropy(model(x), y)
    (g,) = torch.autograd.grad(loss, x)
    return g


def fgsm(model: Model, x: torch.Tensor, y: torch.Tensor, eps: float) -> torch.Tensor:
    return (x + eps * input_grad(model, x, y).sign()).clamp(0, 1).detach()


def pgd(model: Model, x: torch.Tensor, y: torch.Tensor, eps: float, alpha: float, steps: int,
        random_start: bool = True, gen: torch.Generator | None = None) -> torch.Tensor:
    adv = x.detach().clone()
    if random_start:
        noise = torch.rand(x.shape, generator=gen, device=x.device) * (2 * eps) - eps
        adv = (adv + noise).clamp(0, 1)
    for _ in range(steps):
        adv = adv + alpha * input_grad(model, adv, y).sign()
        adv = (x + (adv - x).clamp(-eps, eps)).clamp(0, 1).detach()
    return adv
