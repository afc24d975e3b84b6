"""The RL schedule every method shares (RLConfig) and the objectives papers plug into the loop.

Notation, per rollout i of a prompt group and per response token t (action a_t in state s_t):
    logp_t   = log pi(a_t | s_t)                (current policy, with gradient)
    old_t    = log pi_old(a_t | s_t)            (policy that produced the rollouts, no gradient)
    r_i      = outcome reward of rollout i,  c_i = 1 if rollout i is correct else 0

GRPO          A_i = (r_i - mean_g r) / (std_g r + eps)               (group-normalised advantage)
              L = token-mean of max(-A ratio_t, -A clip(ratio_t, 1-eps_low, 1+eps_high)),
              ratio_t = exp(logp_t - old_t)                          (PPO clipped surrogate)
  + KL        L += beta * token-mean of k3(pi, pi_ref),
              k3 = exp(ref_t - logp_t) - (ref_t - logp_t) - 1 >= 0 (low-variance KL estimator)
  clip-higher eps_high > eps_low (DAPO)
Dr.GRPO       A_i = r_i - mean_g r (no std), and the surrogate is summed over each response's
              tokens and divided by a constant (the response cap) instead of the token count:
              L = (1 / (N * L_max)) sum_i sum_t max(...)
              (Liu et al. 2025; verl's "seq-mean-token-sum-norm")

All per-token tensors are aligned to *action positions*: column t of a packed sequence holds the
statistics of the distribution at position t, which predicts token t+1; `mask[:, t]` is 1 where
token t+1 is a response token (`policy.pack` and `policy.token_stats` build these tensors).

An objective (the `Objective` protocol) says which per-token statistics it needs, turns a
rollout batch's rewards into per-rollout terms (`batch_terms`), and gives the loss of a
(micro)batch from current and old statistics (`loss`). The loop in `trainer.py` does the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Protocol

import torch


@dataclass
class RLConfig:
    """The schedule, sampling and optimiser settings; every method of a paper shares them."""

    steps: int = 100
    """RL steps; each trains on one rollout batch"""
    prompts_per_step: int = 16
    """distinct problems per rollout batch"""
    group_size: int = 8
    """rollouts per problem (the GRPO group)"""
    minibatches: int = 4
    """gradient steps per rollout batch: after the first, pi_old lags pi (verl mini-batches)"""
    micro_batch_size: int = 0
    """rollouts per forward/backward within a minibatch (0: the whole minibatch)"""
    gen_batch_size: int = 0
    """rollouts sampled at once (0: the whole rollout batch)"""
    gen_prompts_per_step: int = 0
    """dynamic sampling: problems per generation round (0: prompts_per_step; DAPO uses 3x)"""
    max_gen_batches: int = 10
    """dynamic sampling: generation rounds per step at most (then train on what was kept)"""
    lr: float = 3e-4
    """AdamW learning rate"""
    warmup_steps: int = 0
    """linear learning-rate warm-up over this many RL steps (0: constant)"""
    weight_decay: float = 0.01
    """AdamW weight decay (verl's default)"""
    grad_clip: float = 1.0
    """global gradient-norm clip"""
    temperature: float = 1.0
    """rollout temperature; log-probs in every loss use the same (as verl does)"""
    top_p: float = 1.0
    """rollout nucleus sampling (1: off)"""
    max_new_tokens: int = 16
    """response length cap"""
    format_score: float = 0.1
    """reward of an extracted but wrong Countdown equation (official scorer; 0: binary reward)"""
    adv_eps: float = 1e-6
    """epsilon in the group-std normaliser"""
    checkpoint_every: int = 0
    """save a resumable checkpoint every this many steps (0: never)"""
    extra: dict[str, Any] = field(default_factory=dict)
    """the objective's own keys (clip eps, KL beta, rho, neg_weight, ...), kept for the log"""

    @classmethod
    def from_settings(cls, rl: dict[str, Any]) -> RLConfig:
        names = {f.name for f in fields(cls)} - {"extra"}
        known = {k: v for k, v in rl.items() if k in names}
        extra = {k: v for k, v in rl.items() if k not in names}
        return cls(extra=extra, **known)


class Objective(Protocol):
    """What the RL loop needs from a method (see the module docstring)."""

    name: str
    mean_vocab: bool
    """needs mean_{a in V} log pi(a|s_t) per token (a uniform-policy value)"""
    needs_ref: bool
    """needs the frozen reference (base) model's log-probs (KL penalty)"""
    dynamic_sampling: bool
    """keep only groups whose correctness varies, regenerating until the batch is full (DAPO)"""

    def batch_terms(
        self, rewards: torch.Tensor, correct: torch.Tensor, group_size: int, eps: float
    ) -> dict[str, torch.Tensor]:
        """Per-rollout tensors [N] the loss needs (advantages, correct rates, ...)."""
        ...

    def loss(
        self,
        cur: dict[str, torch.Tensor],
        old: dict[str, torch.Tensor],
        terms: dict[str, torch.Tensor],
        mask: torch.Tensor,
        ref_logp: torch.Tensor | None,
    ) -> tuple[torch.Tensor, dict[str, float]]: ...


def pick(cls: type, settings: dict[str, Any], **fixed: Any) -> Any:
    """An objective dataclass from the keys of `settings` it declares, plus `fixed` ones."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in settings.items() if k in names}, **fixed)


# ----------------------------------------------------------------------------- rewards


def group_stats(rewards: torch.Tensor, group_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-rollout group mean and (unbiased) group std; rollouts of a group are contiguous."""
    g = rewards.view(-1, group_size)
    mean = g.mean(1, keepdim=True).expand_as(g).reshape(-1)
    std = g.std(1, keepdim=True).expand_as(g).reshape(-1)
    return mean, std


def grpo_advantages(rewards: torch.Tensor, group_size: int, eps: float = 1e-6) -> torch.Tensor:
    """A_i = (r_i - mean_g) / (std_g + eps)."""
    mean, std = group_stats(rewards, group_size)
    return (rewards - mean) / (std + eps)


def centred_advantages(rewards: torch.Tensor, group_size: int) -> torch.Tensor:
    """A_i = r_i - mean_g (Dr.GRPO)."""
    mean, _ = group_stats(rewards, group_size)
    return rewards - mean


# ----------------------------------------------------------------------------- losses


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (x * mask).sum() / mask.sum().clamp(min=1.0)


def seq_sum_norm(x: torch.Tensor, mask: torch.Tensor, norm: float) -> torch.Tensor:
    """Sum over each response's tokens / `norm`, mean over responses (Dr.GRPO's aggregation)."""
    return ((x * mask).sum(1) / norm).mean()


def grpo_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    adv: torch.Tensor,
    mask: torch.Tensor,
    eps_low: float,
    eps_high: float,
    ref_logp: torch.Tensor | None = None,
    beta: float = 0.0,
    agg_norm: float = 0.0,
) -> tuple[torch.Tensor, dict[str, float]]:
    """PPO clipped surrogate with per-rollout advantages `adv` [N], token-mean over the batch
    (or, with `agg_norm` > 0, Dr.GRPO's per-response token sum / agg_norm); plus beta * k3 KL to
    the reference when beta > 0."""
    a = adv[:, None]
    ratio = torch.exp(logp - old_logp)
    surr = -a * ratio
    surr_clipped = -a * torch.clamp(ratio, 1.0 - eps_low, 1.0 + eps_high)
    per_token = torch.maximum(surr, surr_clipped)
    if agg_norm > 0:
        loss = seq_sum_norm(per_token, mask, agg_norm)
    else:
        loss = masked_mean(per_token, mask)
    info = {"clip_frac": float(masked_mean((surr_clipped > surr).float(), mask))}
    if beta > 0.0:
        assert ref_logp is not None, "a KL penalty needs the reference log-probs"
        kl = masked_mean(kl_k3(logp, ref_logp), mask)
        loss = loss + beta * kl
        info["kl"] = float(kl.detach())
    return loss, info


def kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """k3 estimator of KL(pi || pi_ref) per token: e^d - d - 1 with d = ref - logp (>= 0)."""
    d = torch.clamp(ref_logp - logp, -20.0, 20.0)
    return torch.exp(d) - d - 1.0


@dataclass
class PPOObjective:
    """The GRPO family: GRPO, GRPO+KL, clip-higher, Dr.GRPO, DAPO-lite, by settings."""

    name: str = "grpo"
    clip_eps: float = 0.2
    """lower (and, without clip-higher, upper) PPO ratio clip"""
    clip_eps_high: float = 0.2
    """upper ratio clip (DAPO's clip-higher: 0.28)"""
    kl_beta: float = 0.0
    """k3 KL-to-reference coefficient (0: none)"""
    advantage: str = "grpo"
    """grpo: (r - mean) / std | centred: r - mean (Dr.GRPO)"""
    agg_norm: float = 0.0
    """0: token-mean | > 0: per-response token sum / agg_norm, mean over responses (Dr.GRPO)"""
    dynamic_sampling: bool = False
    mean_vocab: bool = False

    def __post_init__(self) -> None:
        if self.advantage not in ("grpo", "centred"):
            raise SystemExit(f"advantage must be grpo or centred, got {self.advantage!r}")

    @property
    def needs_ref(self) -> bool:
        return self.kl_beta > 0

    def batch_terms(self, rewards, correct, group_size, eps):
        if self.advantage == "grpo":
            return {"adv": grpo_advantages(rewards, group_size, eps)}
        return {"adv": centred_advantages(rewards, group_size)}

    def loss(self, cur, old, terms, mask, ref_logp):
        return grpo_loss(
            cur["logp"],
            old["logp"],
            terms["adv"],
            mask,
            self.clip_eps,
            self.clip_eps_high,
            ref_logp,
            self.kl_beta,
            self.agg_norm,
        )
