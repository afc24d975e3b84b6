"""Discrete flow matching on the mixture path, and the samplers FS-DFM compares (after the
paper's code, apple/ml-fs-dfm, which builds on facebookresearch/flow_matching).

The path: every token of x_t is the source token x_0 with probability 1 - kappa(t), else the data
token x_1; kappa(t) = t^n (n = 1 in the paper). The source is uniform over the vocabulary (the
released models) or all MASK (an extra token, id V). The denoiser predicts p(x_1 | x_t).

The DFM loss is the mixture path's generalized KL, per token

    -kappa'(t) / (1 - kappa(t)) * [ p(x_t) - [x_t = x_1] + [x_t != x_1] log p(x_1) ],

with t ~ U[0, 1 - 1e-3) (a log-likelihood on the tokens not yet at x_1, and p(x_t) pushed to 0
where x_t is noise).

Samplers: N steps of size h = 1/N (the last grid point 1 - time_epsilon), N model calls; the last
step draws x_1 ~ p directly at every position. Before it, a step is one of
- `euler`: the DFM baseline (flow_matching's MixtureDiscreteEulerSolver): draw x1 ~ p, jump to it
  (where it differs) with probability 1 - exp(-h kappa'(t) / (1 - kappa(t))): the standard scalar;
- a rate step with scalar s: the token leaves x_t with probability 1 - exp(-s (1 - p(x_t))) and
  lands on a draw from p without x_t, where s is
  - `cumulative` (FS-DFM's rule): log((1 - kappa(t)) / (1 - kappa(t + h))), the integral of the
    rate kappa'/(1 - kappa) over the step, exact for a posterior held fixed over it, and never
    overshooting however large h is;
  - `standard`: h kappa'(t) / (1 - kappa(t)), the rate at the step's start times h, which
    under-jumps for large h.

FS-DFM's training target for a step of size dt from (x_t, t) is the EMA student's RK-4-style
shortcut: four evaluations at step dt/2, chained through three half-step jumps with the same
update rule, their logits combined (l1 + 2 l2 + 2 l3 + l4) / 6.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

EPS = 1e-8
SCALARS = ("cumulative", "standard")


class MixturePath:
    def __init__(self, vocab: int, source: str = "uniform", exponent: float = 1.0) -> None:
        if source not in ("uniform", "mask"):
            raise ValueError(f"path source {source!r}: allowed are uniform, mask")
        self.vocab, self.source, self.n = vocab, source, float(exponent)
        self.mask_id = vocab if source == "mask" else None

    def kappa(self, t: torch.Tensor) -> torch.Tensor:
        return t ** self.n

    def dkappa(self, t: torch.Tensor) -> torch.Tensor:
        return self.n * t ** (self.n - 1) if self.n != 1 else torch.ones_like(t)

    def source_sample(self, shape: tuple[int, ...], gen: torch.Generator,
                      device: torch.device | str = "cpu") -> torch.Tensor:
        if self.mask_id is not None:
            return torch.full(shape, self.mask_id, dtype=torch.long, device=device)
        return torch.randint(self.vocab, shape, generator=gen).to(device)

    def sample_xt(self, x1: torch.Tensor, t: torch.Tensor, gen: torch.Generator
                  ) -> torch.Tensor:
        """x_t given x_1 and one t per sequence."""
        x0 = self.source_sample(tuple(x1.shape), gen, x1.device)
        keep_source = uniform(x1.shape, gen, x1.device) < (1 - self.kappa(t))[:, None]
        return torch.where(keep_source, x0, x1)


def generalized_kl(logits: torch.Tensor, x1: torch.Tensor, xt: torch.Tensor, t: torch.Tensor,
                   path: MixturePath) -> torch.Tensor:
    """The mixture path's generalized KL per sequence (mean over tokens), (B,)."""
    logp = F.log_softmax(logits.float(), dim=-1)
    log_p1 = logp.gather(-1, x1[..., None])[..., 0]
    p_xt = logp.gather(-1, xt[..., None])[..., 0].exp()
    same = (xt == x1).float()
    weight = (path.dkappa(t) / (1 - path.kappa(t)))[:, None]
    per_token = -weight * (p_xt - same + (1 - same) * log_p1)
    return per_token.mean(dim=-1)


def probs(logits: torch.Tensor, path: MixturePath) -> torch.Tensor:
    """p(x_1 | x_t) over the real tokens (a MASK column is dropped and the rest renormalised)."""
    p = torch.softmax(logits.float(), dim=-1)
    if path.mask_id is not None:
        p = p[..., : path.vocab]
        p = p / p.sum(-1, keepdim=True).clamp_min(EPS)
    return p


def uniform(shape: tuple[int, ...] | torch.Size, gen: torch.Generator,
            device: torch.device | str, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """U[0, 1) draws from a CPU generator, on `device`: the same numbers on any device."""
    return torch.rand(tuple(shape), generator=gen, dtype=dtype).to(device)


def categorical(p: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """One draw per row of p (..., V), by inverse CDF (deterministic under `gen`)."""
    u = uniform(p.shape[:-1] + (1,), gen, p.device, p.dtype)
    idx = (p.cumsum(-1) < u * p.sum(-1, keepdim=True)).sum(-1)
    return idx.clamp_max(p.shape[-1] - 1)


def scalar(path: MixturePath, t: torch.Tensor, h: torch.Tensor, rule: str) -> torch.Tensor:
    """The integrated jump rate of a step from t of size h (per sequence), by `rule`."""
    if rule == "cumulative":
        one_minus = (1 - path.kappa(t)).clamp(EPS, 1.0)
        one_minus_next = (1 - path.kappa((t + h).clamp_max(1.0))).clamp(EPS, 1.0)
        return torch.log(one_minus) - torch.log(one_minus_next)
    if rule == "standard":
        return h * path.dkappa(t) / (1 - path.kappa(t)).clamp(EPS, 1.0)
    raise ValueError(f"update rule {rule!r}: allowed are {', '.join(SCALARS)}")


def rate_step(x: torch.Tensor, p: torch.Tensor, t: torch.Tensor, h: torch.Tensor,
              path: MixturePath, rule: str, gen: torch.Generator) -> torch.Tensor:
    """One jump of size h with the rate u = s/h (p - delta_{x_t}): leave x_t with probability
    1 - exp(-s (1 - p(x_t))), landing on a draw from p without x_t."""
    s = scalar(path, t, h, rule)[:, None]
    x_real = x.clamp_max(path.vocab - 1)  # a MASK token has p(x_t) = 0
    p_xt = torch.where(x < path.vocab, p.gather(-1, x_real[..., None])[..., 0],
                       torch.zeros_like(s.expand_as(x)))
    leave = uniform(x.shape, gen, x.device) < 1 - torch.exp(-s * (1 - p_xt))
    others = p.scatter(-1, x_real[..., None], 0.0) if path.mask_id is None else torch.where(
        (x < path.vocab)[..., None], p.scatter(-1, x_real[..., None], 0.0), p)
    return torch.where(leave, categorical(others, gen), x)


def euler_step(x: torch.Tensor, p: torch.Tensor, t: torch.Tensor, h: torch.Tensor,
               path: MixturePath, gen: torch.Generator) -> torch.Tensor:
    """The DFM baseline's step: x1 ~ p, jump to it w.p. 1 - exp(-h kappa'/(1 - kappa))."""
    x1 = categorical(p, gen)
    s = scalar(path, t, h, "standard")[:, None]
    jump = uniform(x.shape, gen, x.device) < 1 - torch.exp(-s)
    return torch.where(jump & (x1 != x), x1, x)


Denoise = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


@torch.no_grad()
def sample(denoise: Denoise, path: MixturePath, n: int, length: int, nfe: int, rule: str,
           gen: torch.Generator, time_epsilon: float = 0.0,
           device: torch.device | str = "cpu") -> torch.Tensor:
    """n sequences in `nfe` model calls. `denoise(x, t, h)` returns logits (a DFM ignores h);
    `rule`: euler (the DFM baseline), cumulative or standard (rate steps)."""
    if nfe < 1:
        raise ValueError(f"nfe {nfe}: at least 1")
    if rule not in ("euler", *SCALARS):
        raise ValueError(f"rule {rule!r}: allowed are euler, {', '.join(SCALARS)}")
    x = path.source_sample((n, length), gen, device)
    grid = torch.linspace(0.0, 1.0 - time_epsilon, nfe + 1, dtype=torch.float64)
    for i in range(nfe):
        t = torch.full((n,), float(grid[i]), device=device)
        h = torch.full((n,), float(grid[i + 1] - grid[i]), device=device)
        p = probs(denoise(x, t, h), path)
        if i == nfe - 1:
            x = categorical(p, gen)
        elif rule == "euler":
            x = euler_step(x, p, t, h, path, gen)
        else:
            x = rate_step(x, p, t, h, path, rule, gen)
    return x


def step_sizes(grid: int) -> torch.Tensor:
    """1, 1/2, ..., 1/grid."""
    k = int(round(math.log2(grid)))
    if 2 ** k != grid:
        raise ValueError(f"grid {grid}: a power of two")
    return torch.tensor([2.0 ** -i for i in range(k + 1)], dtype=torch.float64)


def sample_dt_t(batch: int, grid: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """FS-DFM's training draws: dt = 2^-k with probability proportional to 2^k (half the batch at
    the smallest step), t uniform on the 1/grid lattice with t + dt <= 1 (dt = 1 forces t = 0)."""
    sizes = step_sizes(grid)
    w = 1.0 / sizes
    dt = sizes[torch.multinomial(w / w.sum(), batch, replacement=True, generator=gen)]
    slots = torch.floor((1.0 - dt) * grid).long() + 1  # j in {0, ..., floor((1 - dt) grid)}
    j = torch.floor(torch.rand(batch, generator=gen, dtype=torch.float64) * slots).long()
    return dt.float(), (j.double() / grid).float()


@torch.no_grad()
def shortcut_target(teacher: Denoise, path: MixturePath, x: torch.Tensor, t: torch.Tensor,
                    dt: torch.Tensor, rule: str, gen: torch.Generator, kind: str = "rk4"
                    ) -> torch.Tensor:
    """The teacher's logits for one step of size dt from (x, t): evaluations at step dt/2
    chained through half-step jumps (`rule`), combined RK-4 style (or Heun's two)."""
    h = dt / 2
    l1 = teacher(x, t, h)
    x1 = rate_step(x, probs(l1, path), t, h, path, rule, gen)
    l2 = teacher(x1, t + h, h)
    if kind == "heun":
        return (l1 + l2) / 2
    if kind != "rk4":
        raise ValueError(f"teacher {kind!r}: allowed are rk4, heun")
    x2 = rate_step(x1, probs(l2, path), t + h, h, path, rule, gen)
    l3 = teacher(x2, t + h, h)
    x3 = rate_step(x2, probs(l3, path), t + h, h, path, rule, gen)
    l4 = teacher(x3, t + dt, h)
    return (l1 + 2 * l2 + 2 * l3 + l4) / 6


def distillation_kl(student_logits: torch.Tensor, target_logits: torch.Tensor) -> torch.Tensor:
    """Forward KL(softmax(target) || softmax(student)) per sequence (mean over tokens), (B,)."""
    logq = F.log_softmax(target_logits.float(), dim=-1)
    logp = F.log_softmax(student_logits.float(), dim=-1)
    return (logq.exp() * (logq - logp)).sum(-1).mean(-1)
