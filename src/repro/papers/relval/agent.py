"""Actor-critic networks (cleanrl-style) with either a value head or a relative critic.

"ppo": V(s). "ppo_rv": an exactly antisymmetric pairwise critic
    Delta(s_i, s_j) = g(e_i, e_j) - g(e_j, e_i),   e = critic features,
so Delta(s, s) = 0 and Delta(s_i, s_j) = -Delta(s_j, s_i) hold by construction, not by training.
head="pair" uses a small tanh MLP for g; head="diff" uses g(a, b) = w.a, i.e. Delta = w.(e_i - e_j)
(the third-party port's form: a value difference with the bias dropped).
With terminal_state=True the critic also holds the learned features e_z of the absorbing
terminal state z (the MDP's zero-reward terminal, as in theory.py): Delta(s, z) = V(s) - V(z) =
V(s) exactly, which grounds the absolute level that differences alone leave free.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

AGENTS = ("ppo", "ppo_rv")


def layer_init(layer: nn.Module, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Module:
    """Orthogonal weights, constant bias (cleanrl)."""
    nn.init.orthogonal_(layer.weight, std)
    if layer.bias is not None:
        nn.init.constant_(layer.bias, bias)
    return layer


def mlp_body(n_in: int, hidden: int = 64) -> nn.Sequential:
    return nn.Sequential(
        layer_init(nn.Linear(n_in, hidden)), nn.Tanh(),
        layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
    )


def nature_cnn(in_channels: int = 4) -> nn.Sequential:
    """Nature-DQN encoder on uint8 frames (scaled here), 512 features."""
    return nn.Sequential(
        layer_init(nn.Conv2d(in_channels, 32, 8, stride=4)), nn.ReLU(),
        layer_init(nn.Conv2d(32, 64, 4, stride=2)), nn.ReLU(),
        layer_init(nn.Conv2d(64, 64, 3, stride=1)), nn.ReLU(),
        nn.Flatten(),
        layer_init(nn.Linear(64 * 7 * 7, 512)), nn.ReLU(),
    )


class RelativeHead(nn.Module):
    """Delta(e_i, e_j) = g(e_i, e_j) - g(e_j, e_i): exactly antisymmetric."""

    def __init__(self, dim: int, hidden: int, kind: str = "pair"):
        super().__init__()
        self.kind = kind
        if kind == "pair":
            self.g = nn.Sequential(
                layer_init(nn.Linear(2 * dim, hidden)), nn.Tanh(),
                layer_init(nn.Linear(hidden, 1), std=1.0),
            )
        elif kind == "diff":
            self.w = layer_init(nn.Linear(dim, 1, bias=False), std=1.0)
        else:
            raise ValueError(f"rv.head: {kind!r} is not one of pair, diff")

    def forward(self, e_i: torch.Tensor, e_j: torch.Tensor) -> torch.Tensor:
        if self.kind == "diff":
            return self.w(e_i - e_j).squeeze(-1)
        g_ij = self.g(torch.cat([e_i, e_j], -1)).squeeze(-1)
        g_ji = self.g(torch.cat([e_j, e_i], -1)).squeeze(-1)
        return g_ij - g_ji


class ActorCritic(nn.Module):
    """MLP (separate actor/critic bodies, as cleanrl) or Nature CNN (shared) actor-critic."""

    def __init__(self, obs_shape: tuple[int, ...], n_actions: int, agent: str = "ppo",
                 rv_head: str = "pair", terminal_state: bool = False):
        super().__init__()
        if agent not in AGENTS:
            raise ValueError(f"agent: {agent!r} is not one of {', '.join(AGENTS)}")
        self.relative = agent == "ppo_rv"
        self.image = len(obs_shape) == 3
        if self.image:
            self.body = nature_cnn(obs_shape[0])
            dim, hidden = 512, 256
        else:
            n_in = int(np.prod(obs_shape))
            self.actor_body, self.critic_body = mlp_body(n_in), mlp_body(n_in)
            dim, hidden = 64, 64
        self.actor = layer_init(nn.Linear(dim, n_actions), std=0.01)
        if self.relative:
            self.critic = RelativeHead(dim, hidden, rv_head)
            if terminal_state:
                self.terminal = nn.Parameter(torch.zeros(dim))
        else:
            self.critic = layer_init(nn.Linear(dim, 1), std=1.0)

    def features(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(actor features, critic features) of a batch of observations."""
        if self.image:
            h = self.body(x.float() / 255.0)
            return h, h
        x = x.float().flatten(1)
        return self.actor_body(x), self.critic_body(x)

    def logits(self, h_actor: torch.Tensor) -> torch.Tensor:
        return self.actor(h_actor)

    def value(self, h_critic: torch.Tensor) -> torch.Tensor:
        """V(s) from critic features ("ppo" only)."""
        return self.critic(h_critic).squeeze(-1)

    def delta(self, e_i: torch.Tensor, e_j: torch.Tensor) -> torch.Tensor:
        """Delta(s_i, s_j) from critic features ("ppo_rv" only)."""
        return self.critic(e_i, e_j)

    def delta_to_terminal(self, e: torch.Tensor) -> torch.Tensor:
        """Delta(s, z) = V(s) for the learned terminal state z ("ppo_rv", terminal_state)."""
        return self.critic(e, self.terminal.expand_as(e))
