"""The four RL objectives of the Countdown experiment, read top to bottom (cleanrl style).

Notation, per rollout i of a prompt group and per response token t (action a_t in state s_t):
    logp_t   = log pi(a_t | s_t)                (current policy, with gradient)
    old_t    = log pi_old(a_t | s_t)            (policy that produced the rollouts, no gradient)
    mlp_t    = mean_{a in V} log pi(a | s_t)    (mean over the vocabulary)
    r_i      = outcome reward of rollout i

GRPO          A_i = (r_i - mean_g r) / (std_g r + eps)               (group-normalised advantage)
              L = token-mean of max(-A ratio_t, -A clip(ratio_t, 1-eps_low, 1+eps_high)),
              ratio_t = exp(logp_t - old_t)                          (PPO clipped surrogate)
GRPO (KL)     L += beta * token-mean of k3(pi, pi_ref),
              k3 = exp(ref_t - logp_t) - (ref_t - logp_t) - 1 >= 0 (low-variance KL estimator)
clip-higher   GRPO with eps_high > eps_low (DAPO)
ROVER         Q_t      = rho * (logp_t - old_t)                      (Q of the uniform policy,
                                                                       relative to pi_old)
              target_t = r~_i + rho * sg[mlp_{t+1} - old_mlp_{t+1}]  (t not last; mean over the
                                                                       vocab = uniform-policy
                                                                       value of s_{t+1})
              target_T = r~_i                                         (last token: no bootstrap)
              L = token-mean of (Q_t - target_t)^2,  r~_i = r_i - mean_g r  (/ std_g r if std_norm)
Since Q = rho (log pi - log pi_old), pi = softmax(log pi_old + Q / rho): sampling from pi itself is
ROVER's softmax-over-Q policy, with pi_old carrying the Q-values accumulated in earlier steps.

All per-token tensors are aligned to *action positions*: column t of a packed sequence holds the
statistics of the distribution at position t, which predicts token t+1; `mask[:, t]` is 1 where
token t+1 is a response token. Response tokens are contiguous, so mask[:, t+1] says whether a_t
has a successor inside the response (the official code's `response_mask[:, 1:]` shift).
`policy.pack` and `policy.token_stats` build these tensors.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import torch

from repro.papers.rove.policy import token_stats

METHODS = ("grpo", "grpo_kl", "grpo_clip_higher", "rover")


@dataclass
class RLConfig:
    """Every RL hyper-parameter; all methods share everything except their own loss terms."""

    method: str = "rover"
    """one of METHODS"""
    steps: int = 100
    """RL steps; each samples one rollout batch"""
    prompts_per_step: int = 16
    """distinct problems per rollout batch"""
    group_size: int = 8
    """rollouts per problem (the GRPO group; ROVER's r~ is centred within it)"""
    minibatches: int = 4
    """gradient steps per rollout batch: after the first, pi_old lags pi (verl mini-batches)"""
    micro_batch_size: int = 0
    """rollouts per forward/backward within a minibatch (0: the whole minibatch)"""
    gen_batch_size: int = 0
    """rollouts sampled at once (0: the whole rollout batch)"""
    lr: float = 3e-4
    """AdamW learning rate (constant)"""
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
    """reward of an extracted but wrong equation (official Countdown scorer)"""
    clip_eps: float = 0.2
    """PPO ratio clip eps (lower bound for clip-higher)"""
    clip_eps_high: float = 0.28
    """DAPO clip-higher upper eps (grpo_clip_higher only)"""
    kl_beta: float = 0.01
    """k3 KL-to-reference coefficient (grpo_kl only)"""
    adv_eps: float = 1e-6
    """epsilon in the group-std normaliser"""
    rho: float = 1.0
    """ROVER temperature rho (official `rover_t`)"""
    std_norm: bool = False
    """ROVER: divide r~ by the group std (the Math script does; paper Eq. 4 does not)"""
    checkpoint_every: int = 0
    """save a resumable checkpoint every this many steps (0: never)"""
    extra: dict[str, Any] = field(default_factory=dict)
    """unknown config keys, kept for the log"""

    @classmethod
    def from_settings(cls, method: str, rl: dict[str, Any]) -> RLConfig:
        if method not in METHODS:
            raise SystemExit(f"unknown method {method!r}: allowed are {', '.join(METHODS)}")
        names = {f.name for f in fields(cls)} - {"method", "extra"}
        known = {k: v for k, v in rl.items() if k in names}
        extra = {k: v for k, v in rl.items() if k not in names}
        return cls(method=method, extra=extra, **known)

    @property
    def eps_low(self) -> float:
        return self.clip_eps

    @property
    def eps_high(self) -> float:
        return self.clip_eps_high if self.method == "grpo_clip_higher" else self.clip_eps

    @property
    def beta(self) -> float:
        return self.kl_beta if self.method == "grpo_kl" else 0.0


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


def rover_rewards(
    rewards: torch.Tensor, group_size: int, std_norm: bool = False, eps: float = 1e-6
) -> torch.Tensor:
    """r~_i = r_i - mean_g (paper Eq. 4), optionally / (std_g + eps) (the Math script)."""
    mean, std = group_stats(rewards, group_size)
    centred = rewards - mean
    return centred / (std + eps) if std_norm else centred


# ----------------------------------------------------------------------------- losses


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (x * mask).sum() / mask.sum().clamp(min=1.0)


def grpo_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    adv: torch.Tensor,
    mask: torch.Tensor,
    eps_low: float,
    eps_high: float,
    ref_logp: torch.Tensor | None = None,
    beta: float = 0.0,
) -> tuple[torch.Tensor, dict[str, float]]:
    """PPO clipped surrogate with per-rollout advantages `adv` [N], token-mean over the batch;
    plus beta * k3 KL to the reference when beta > 0."""
    a = adv[:, None]
    ratio = torch.exp(logp - old_logp)
    surr = -a * ratio
    surr_clipped = -a * torch.clamp(ratio, 1.0 - eps_low, 1.0 + eps_high)
    loss = masked_mean(torch.maximum(surr, surr_clipped), mask)
    info = {"clip_frac": float(masked_mean((surr_clipped > surr).float(), mask))}
    if beta > 0.0:
        assert ref_logp is not None, "grpo_kl needs the reference log-probs"
        kl = masked_mean(kl_k3(logp, ref_logp), mask)
        loss = loss + beta * kl
        info["kl"] = float(kl.detach())
    return loss, info


def kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """k3 estimator of KL(pi || pi_ref) per token: e^d - d - 1 with d = ref - logp (>= 0)."""
    d = torch.clamp(ref_logp - logp, -20.0, 20.0)
    return torch.exp(d) - d - 1.0


def rover_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    mlp: torch.Tensor,
    old_mlp: torch.Tensor,
    r_tilde: torch.Tensor,
    mask: torch.Tensor,
    rho: float = 1.0,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Token-level squared error between Q_t = rho (logp_t - old_t) and the stop-gradient target
    r~ + rho * [mean-vocab (log pi - log pi_old) at s_{t+1}] (0 after the last token)."""
    q = rho * (logp - old_logp)
    # rho * mean_vocab(log pi - log pi_old) at s_{t+1}: the uniform policy's value of the next
    # state; stop-gradient, and 0 after the last response token (mask[:, t+1] == 0)
    v_next = (rho * (mlp[:, 1:] - old_mlp[:, 1:]) * mask[:, 1:]).detach()
    v_next = torch.cat([v_next, torch.zeros_like(v_next[:, :1])], dim=1)
    target = r_tilde[:, None].detach() + v_next
    loss = masked_mean((q - target) ** 2, mask)
    return loss, {
        "q_mean": float(masked_mean(q.detach(), mask)),
        "v_next_mean": float(masked_mean(v_next, mask)),
    }


def method_loss(
    cfg: RLConfig,
    model: torch.nn.Module,
    ids: torch.Tensor,
    attn: torch.Tensor,
    mask: torch.Tensor,
    old: dict[str, torch.Tensor],
    signal: torch.Tensor,
    ref_logp: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The loss of `cfg.method` on one (micro)batch: `signal` is A (GRPO family) or r~ (ROVER)."""
    cur = token_stats(model, ids, attn, cfg.temperature, mean_vocab=cfg.method == "rover")
    if cfg.method == "rover":
        return rover_loss(cur["logp"], old["logp"], cur["mlp"], old["mlp"], signal, mask, cfg.rho)
    return grpo_loss(
        cur["logp"], old["logp"], signal, mask, cfg.eps_low, cfg.eps_high, ref_logp, cfg.beta
    )
