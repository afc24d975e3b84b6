"""NFT's objective (Negative-aware Fine-Tuning, arXiv 2505.18116) and its baselines, as objectives
of the shared RL loop (repro.core.rlvr).

Per prompt with correct rate r (the share of its G rollouts that are correct, clamped to
[0.02, 0.98]) and per response token t, with ratio_t = pi(a_t|s_t) / pi_old(a_t|s_t):

    positive response:  L_t = -log ratio_t                         (maximum likelihood)
    negative response:  L_t = -log[(1 - r ratio_t) / (1 - r)]      (likelihood of the *implicit
                                                                    negative policy*
                                                                    pi^- = (pi_old - r pi)/(1 - r),
                                                                    built from the same model)
The negative proxy (1 - r ratio)/(1 - r) goes to 0 as r ratio -> 1, so it is clamped from
below at `clamp_negative` with a straight-through gradient (the value is clamped, the gradient
is that of the unclamped proxy; official `clamp_preserve_grad`). Then

    L = sum_t [c_i L_t^+ + (1 - c_i) neg_weight L_t^-] * w(r)
    w(r) = 1 - r (normalize 1) | sqrt((1 - r)/r) (normalize 2) | 1 (normalize 0)

summed over each response's tokens and divided by a constant (the official code divides by
1000; we use responses x response cap, Dr.GRPO's constant, so the step size at equal lr matches
Dr.GRPO's). neg_weight 1 = NFT, 0 = RFT (positives only), -1 = the DAPO-like baseline (the PPO
clipped surrogate with clip-higher and GRPO advantages, token-mean), exactly as the official
`dp_actor.py` switches on it.

Prop. 4.2 (strict on-policy, ratio = 1): grad L^+ = -grad log pi, grad L^- = r/(1-r) grad log pi,
so with w = sqrt((1-r)/r) the per-response weights are -sqrt((1-r)/r) and +sqrt(r/(1-r)): the GRPO
advantages (c - r)/std with std = sqrt(r(1-r)); with w = 1 - r they are -(1-r) and +r, i.e.
Dr.GRPO's c - r. `equivalence.py` checks it on real gradients.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch

from repro.core.rlvr.objectives import (
    Objective,
    PPOObjective,
    group_stats,
    grpo_advantages,
    grpo_loss,
    masked_mean,
    pick,
    seq_sum_norm,
)
from repro.core.rlvr.tasks import TaskConfig

METHODS = ("rft", "nft", "grpo", "dr_grpo", "dapo_lite")
OBJECTIVES = ("nft", "ppo")


def clamp_preserve_grad(x: torch.Tensor, min_val: float | None = None) -> torch.Tensor:
    """Forward: max(x, min_val); backward: the gradient of x itself (straight-through)."""
    return x + (torch.clamp(x, min=min_val) - x).detach()


def correct_rates(correct: torch.Tensor, group_size: int) -> torch.Tensor:
    """Per rollout: the share of correct rollouts in its group."""
    mean, _ = group_stats(correct, group_size)
    return mean


def prompt_weight(rate: torch.Tensor, normalize: int) -> torch.Tensor:
    if normalize == 1:
        return 1.0 - rate
    if normalize == 2:
        return torch.sqrt((1.0 - rate) / rate)
    if normalize == 0:
        return torch.ones_like(rate)
    raise SystemExit(f"normalize must be 0, 1 or 2, got {normalize!r}")


def nft_token_losses(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    correct: torch.Tensor,
    rate: torch.Tensor,
    neg_weight: float = 1.0,
    normalize: int = 1,
    clamp_negative: float = 1.0,
    clamp_positive: float = 0.0,
    rate_min: float = 0.02,
    rate_max: float = 0.98,
) -> torch.Tensor:
    """Per-token NFT losses [N, T] (before masking and aggregation); `correct` and `rate` are
    per rollout [N]."""
    ratio = torch.exp((logp - old_logp).clamp(max=10.0))
    r = torch.clamp(rate, rate_min, rate_max)[:, None]
    c = correct[:, None]
    proxy = (1.0 - r * ratio) / (1.0 - r)
    negative = -torch.log(clamp_preserve_grad(proxy, abs(clamp_negative)))
    positive = -torch.log(clamp_preserve_grad(ratio, clamp_positive))
    per_token = c * positive + (1.0 - c) * neg_weight * negative
    return per_token * prompt_weight(r, normalize)


@dataclass
class NFTObjective:
    """NFT / RFT / DAPO-like by `neg_weight` (1 / 0 / -1), as the official code."""

    name: str = "nft"
    neg_weight: float = 1.0
    """1: NFT; 0: RFT (negatives masked out); < 0: the DAPO-like PPO branch"""
    normalize: int = 1
    """prompt weight: 0 none, 1 (1 - r) (Dr.GRPO-equivalent), 2 sqrt((1-r)/r) (GRPO-equivalent)"""
    clamp_negative: float = 1.0
    """lower clamp of the negative proxy (straight-through), official `clamp_negative`"""
    clamp_positive: float = 0.0
    """lower clamp of the positive ratio (straight-through), official `clamp_positive`"""
    rate_min: float = 0.02
    rate_max: float = 0.98
    agg_norm: float = 0.0
    """0: token-mean; > 0: per-response token sum / agg_norm, mean over responses"""
    clip_eps: float = 0.2
    """neg_weight < 0 only: PPO ratio clip, lower"""
    clip_eps_high: float = 0.28
    """neg_weight < 0 only: PPO ratio clip, upper (DAPO clip-higher)"""
    dynamic_sampling: bool = True
    """the official runs filter out groups that are all right or all wrong (DAPO)"""
    mean_vocab: bool = False
    needs_ref: bool = False

    def __post_init__(self) -> None:
        prompt_weight(torch.tensor([0.5]), self.normalize)  # validates `normalize`

    def batch_terms(self, rewards, correct, group_size, eps):
        return {
            "correct": correct,
            "rate": correct_rates(correct, group_size),
            "adv": grpo_advantages(rewards, group_size, eps),
        }

    def loss(self, cur, old, terms, mask, ref_logp):
        if self.neg_weight < 0:  # the official DAPO branch: PPO clipped surrogate, token-mean
            return grpo_loss(
                cur["logp"], old["logp"], terms["adv"], mask, self.clip_eps, self.clip_eps_high
            )
        per_token = nft_token_losses(
            cur["logp"],
            old["logp"],
            terms["correct"],
            terms["rate"],
            self.neg_weight,
            self.normalize,
            self.clamp_negative,
            self.clamp_positive,
            self.rate_min,
            self.rate_max,
        )
        if self.agg_norm > 0:
            loss = seq_sum_norm(per_token, mask, self.agg_norm)
        else:
            loss = masked_mean(per_token, mask)
        with torch.no_grad():
            ratio = torch.exp(cur["logp"] - old["logp"])
            neg = (1.0 - terms["correct"])[:, None] * mask
            high = (terms["rate"][:, None] * ratio >= 1.0 - 1e-6).float() * neg
        return loss, {"neg_proxy_clamped_frac": float(high.sum() / neg.sum().clamp(min=1.0))}


def method_settings(method: str, task: TaskConfig) -> dict[str, Any]:
    """The shared `rl:` settings overlaid with the method's own (`method_settings.<method>`);
    `agg_norm: response_cap` stands for the response length cap (`rl.max_new_tokens`). The
    objective dataclass then takes the keys it declares (`pick`)."""
    if method not in METHODS:
        raise SystemExit(f"unknown method {method!r}: allowed are {', '.join(METHODS)}")
    own = task.method_settings.get(method)
    if own is None:
        raise SystemExit(f"method {method!r} has no entry in method_settings")
    shared = {k: v for k, v in asdict(task.rl).items() if k != "extra"}
    out = {**shared, **task.rl.extra, **own}
    if out.get("agg_norm") == "response_cap":
        out["agg_norm"] = float(task.rl.max_new_tokens)
    return out


def make_objective(method: str, task: TaskConfig) -> Objective:
    """The objective of `method` from the task block (`rl:` + `method_settings.<method>`)."""
    s = method_settings(method, task)
    kind = s.get("objective")
    if kind == "nft":
        return pick(NFTObjective, s, name=method)
    if kind == "ppo":
        return pick(PPOObjective, s, name=method)
    raise SystemExit(f"method {method}: objective must be one of {', '.join(OBJECTIVES)}")
