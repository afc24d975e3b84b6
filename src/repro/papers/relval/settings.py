"""Typed settings of Relative Value Learning (src/repro/papers/relval/config.yaml).

Every job turns its merged YAML settings into `Settings` at its entry point (`load`, or
`settings_of` on settings it already merged) and passes typed objects down: a training run gets
one `PPOConfig`, `ppo` with the env's overrides (`envs.<env>`) and `rv` attached. The theory
block is typed by `theory.TheoryConfig` in its own job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from repro.core.config import deep_merge, load_settings, typed

RV_TERMINALS = ("state", "vhat", "case_split")


@dataclass
class RVConfig:
    """The relative critic of ppo_rv (the `rv:` block, per-env overrides merged in)."""

    loss_coef: float = 1.25  # weight of the pairwise critic loss
    clip: float = 0.15  # clip of the pairwise critic's change (as PPO's value clip)
    n_step: int | list[int] = 5  # n of the pairwise n-step targets, or [start, end] annealed
    same_episode_prob: float = 0.33  # P(a pair's partner comes from the same segment)
    offsets: bool = True  # trajectory-ranking offsets of the anchors (terminal vhat only)
    head: str = "pair"  # antisymmetric critic: pair g(e_i,e_j) - g(e_j,e_i) | diff w.(e_i-e_j)
    terminal: str = "case_split"  # Delta at a terminal: case_split (the paper's, as the port
    # implements it) | state (ours, the ppo_rv_state ablation) | vhat (ppo.py's doc)

    def __post_init__(self) -> None:
        if self.terminal not in RV_TERMINALS:
            raise ValueError(f"rv.terminal: {self.terminal!r} is not one of "
                             f"{', '.join(RV_TERMINALS)}")


@dataclass
class PPOConfig:
    """One run's learner settings: `ppo` with the env's overrides (`envs.<env>`), plus `rv`."""

    total_steps: int  # environment steps (agent steps x envs)
    n_envs: int  # parallel envs
    n_steps: int  # rollout length per env
    lr: float  # Adam learning rate
    anneal_lr: bool  # linear decay of lr to 0 over training
    gamma: float  # discount
    gae_lambda: float  # GAE / R-GAE lambda
    n_minibatches: int  # minibatches per epoch
    update_epochs: int  # epochs per rollout
    clip_coef: float  # PPO ratio (and value) clip
    ent_coef: float  # entropy bonus
    vf_coef: float  # value-loss weight (ppo)
    max_grad_norm: float  # global gradient-norm clip
    norm_adv: bool  # normalise advantages per minibatch
    clip_vloss: bool  # clipped value loss (ppo)
    rv: RVConfig = field(default_factory=RVConfig)  # the relative critic (ppo_rv)
    atari_threads: int | None = None  # ALE threads (unset: 1)
    repeat_action_probability: float | None = None  # ALE sticky actions (unset: 0)
    max_frames_per_episode: int | None = None  # ALE frame cap per episode (unset: 108,000)
    checkpoint_every: int = 0  # save a resumable state every this many updates (0: on signals
    # and every REPRO_CHECKPOINT_MINUTES only; repro.core.checkpoint)

    def given(self) -> dict[str, Any]:
        """The settings as configured (unset ALE settings left out), for the run's record; how
        often the state is saved is left out too (it changes no result)."""
        return {k: v for k, v in asdict(self).items()
                if v is not None and k != "checkpoint_every"}


@dataclass
class Settings:
    """The settings of one scale (`defaults` merged with `scales.<scale>`)."""

    seeds: list[int]  # seeds of the classic-control runs
    theory: dict[str, Any]  # the exact checks (typed by theory.TheoryConfig in its job)
    agents: list[str]  # the agents, in table order
    ppo: dict[str, Any]  # PPO's settings, before an env's overrides (see `run_config`)
    rv: dict[str, Any]  # the relative critic's settings, before an env's overrides
    classic: list[str]  # classic-control envs of this scale
    atari: list[str]  # Atari games of this scale
    atari_seeds: list[int]  # seeds of the Atari runs
    atari_scores: dict[str, dict[str, float]]  # game -> {random, human} reference scores
    envs: dict[str, dict[str, Any]] = field(default_factory=dict)  # per-env overrides of ppo
    # Ablation agents: ppo_rv with some `rv` settings changed, run on the envs listed only
    # (name -> {rv: {...}, envs: [...]}); tables and the ledger label them as ablations.
    ablations: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, ab in self.ablations.items():
            if name in self.agents or name == "ppo":
                raise ValueError(f"ablations.{name}: the name of an ablation must differ from "
                                 f"the agents ({', '.join(self.agents)})")
            unknown = set(ab) - {"rv", "envs"}
            if unknown:
                raise ValueError(f"ablations.{name}: unknown keys {sorted(unknown)} "
                                 "(allowed: rv, envs)")
            missing = set(ab.get("envs") or []) - {*self.classic, *self.atari}
            if missing:
                raise ValueError(f"ablations.{name}.envs: {sorted(missing)} are not envs of "
                                 "this scale (classic, atari)")

    def all_agents(self) -> list[str]:
        """The agents, then the ablations: every name a run may carry."""
        return [*self.agents, *self.ablations]

    def base_agent(self, agent: str) -> str:
        """The learner an agent name runs: an ablation is ppo_rv with other rv settings."""
        return "ppo_rv" if agent in self.ablations else agent

    def allowed_envs(self) -> list[str]:
        """The envs this scale runs (its classic and Atari groups, and any with overrides)."""
        return sorted({*self.classic, *self.atari, *self.envs})

    def run_config(self, env_id: str, agent: str | None = None) -> PPOConfig:
        """The learner's settings for one env (and agent): ppo + envs[env_id] overrides, with rv
        attached; an ablation's rv settings override last."""
        merged = deep_merge(self.ppo, self.envs.get(env_id) or {})
        merged["rv"] = deep_merge(self.rv or {}, merged.get("rv") or {})
        where = f"ppo + envs.{env_id}"
        if agent in self.ablations:
            merged["rv"] = deep_merge(merged["rv"], self.ablations[agent].get("rv") or {})
            where += f" + ablations.{agent}"
        return typed(PPOConfig, merged, where)


def settings_of(merged: Mapping[str, Any]) -> Settings:
    """`Settings` from merged YAML settings; unknown or missing keys fail, named."""
    return typed(Settings, merged, "relval")


def load(config: str | Path, scale: str) -> Settings:
    """A job's settings: the paper config at one scale, typed."""
    return settings_of(load_settings(config, scale))
