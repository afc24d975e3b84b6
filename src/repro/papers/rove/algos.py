"""ROVER's objective and the paper's baselines, as objectives of the shared RL loop.

ROVER, per rollout i and response token t (notation of repro.core.rlvr.objectives;
mlp_t = mean_{a in V} log pi(a | s_t), the mean over the vocabulary):
    Q_t      = rho * (logp_t - old_t)                      (Q of the uniform policy, relative
                                                            to pi_old)
    target_t = r~_i + rho * sg[mlp_{t+1} - old_mlp_{t+1}]  (t not last; mean over the vocab =
                                                            uniform-policy value of s_{t+1})
    target_T = r~_i                                        (last token: no bootstrap)
    L = token-mean of (Q_t - target_t)^2,  r~_i = r_i - mean_g r  (/ std_g r if std_norm)
Since Q = rho (log pi - log pi_old), pi = softmax(log pi_old + Q / rho): sampling from pi itself is
ROVER's softmax-over-Q policy, with pi_old carrying the Q-values accumulated in earlier steps.
Response tokens are contiguous, so mask[:, t+1] says whether a_t has a successor inside the
response (the official code's `response_mask[:, 1:]` shift).

Baselines (repro.core.rlvr.objectives.PPOObjective): GRPO (no KL), GRPO (k3 KL), GRPO with
DAPO's clip-higher; all read clip_eps / clip_eps_high / kl_beta from the shared `rl:` block.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from repro.core.rlvr.objectives import Objective, PPOObjective, group_stats, masked_mean
from repro.core.rlvr.tasks import TaskConfig

METHODS = ("grpo", "grpo_kl", "grpo_clip_higher", "rover")


def rover_rewards(
    rewards: torch.Tensor, group_size: int, std_norm: bool = False, eps: float = 1e-6
) -> torch.Tensor:
    """r~_i = r_i - mean_g (paper Eq. 4), optionally / (std_g + eps) (the Math script)."""
    mean, std = group_stats(rewards, group_size)
    centred = rewards - mean
    return centred / (std + eps) if std_norm else centred


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


@dataclass
class RoverObjective:
    """ROVER's loss in the shared RL loop (needs the vocabulary mean of log pi)."""

    name: str = "rover"
    rho: float = 1.0
    """ROVER temperature rho (official `rover_t`)"""
    std_norm: bool = False
    """divide r~ by the group std (the Math script does; paper Eq. 4 does not)"""
    mean_vocab: bool = True
    """the loss reads mean_{a in V} log pi(a|s_t) (the uniform policy's value)"""
    needs_ref: bool = False
    dynamic_sampling: bool = False

    def batch_terms(self, rewards, correct, group_size, eps):
        return {"adv": rover_rewards(rewards, group_size, self.std_norm, eps)}

    def loss(self, cur, old, terms, mask, ref_logp):
        return rover_loss(
            cur["logp"], old["logp"], cur["mlp"], old["mlp"], terms["adv"], mask, self.rho
        )


def make_objective(method: str, task: TaskConfig) -> Objective:
    """The objective of `method`; its keys (rho, std_norm, clip_eps, clip_eps_high, kl_beta)
    are the objectives' own keys of the task's shared `rl:` block (`RLConfig.extra`)."""
    if method not in METHODS:
        raise SystemExit(f"unknown method {method!r}: allowed are {', '.join(METHODS)}")
    rl = task.rl.extra
    if method == "rover":
        return RoverObjective(rho=float(rl.get("rho", 1.0)), std_norm=bool(rl.get("std_norm")))
    eps = float(rl.get("clip_eps", 0.2))
    return PPOObjective(
        name=method,
        clip_eps=eps,
        clip_eps_high=float(rl.get("clip_eps_high", 0.28)) if method == "grpo_clip_higher" else eps,
        kl_beta=float(rl.get("kl_beta", 0.01)) if method == "grpo_kl" else 0.0,
    )
