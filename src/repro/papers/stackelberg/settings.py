"""Typed settings of the contextual-Stackelberg paper (src/repro/papers/stackelberg/config.yaml).

Every job turns its merged YAML settings into `Settings` at its entry point (`load`) and
passes the typed sections down. Fields are required where the config schema requires the key;
the few optional keys default to what the code did without them (an environment's own `seeds`:
the global ones; `type_adversary.mix`: 0; `harris_etc.log_factor`: on).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repro.core.config import load_settings, typed


@dataclass(frozen=True)
class TypeSequence:
    """An oblivious adversary's follower types in phases (`environments.phase_sequence`)."""

    phases: list[list[float]]  # type distributions the phases cycle through
    first_phase: int  # rounds of the first phase
    growth: float  # each phase is this many times longer than the previous one


@dataclass(frozen=True)
class TypeAdversary:
    """An oblivious type sequence built against a learner (`sequence_against_learner`)."""

    against: str  # the learner it simulates (oful)
    eval_contexts: int  # M: fixed shadow contexts the learner's rule is read at, each round
    mix: float = 0.0  # probability of a uniformly random type instead


@dataclass(frozen=True, kw_only=True)
class EnvConfig:
    """What every environment has (`kind` picks the class below)."""

    kind: str  # stackelberg or auction
    follower_types: int  # K: follower types (auction: competing-bid levels)
    context_dim: int  # d: contexts are uniform on [0, 1]^d
    type_distribution: str  # uniform or dirichlet (per seed)
    algorithms: list[str]  # the algorithms run on it
    seeds: list[int] | None = None  # its own seeds (None: the global `seeds`)
    horizons: list[int] | None = None  # its own horizons (None: the global `horizons`)
    slope_fit_from: int | None = None  # its own slope range (None: the global one)


@dataclass(frozen=True, kw_only=True)
class StackelbergEnvConfig(EnvConfig):
    """A random game of the paper's shape (`environments.StackelbergEnv`)."""

    leader_actions: int  # leader's actions
    follower_actions: int  # each follower's actions
    follower_context: bool  # followers' utilities depend on the context too
    delta: float  # margin of the approximate best-response regions
    type_sequence: TypeSequence | None = None  # adversarial types in phases
    type_adversary: TypeAdversary | None = None  # adversarial types built against a learner


@dataclass(frozen=True, kw_only=True)
class AuctionEnvConfig(EnvConfig):
    """Repeated second-price auctions with side information (`environments.AuctionEnv`)."""

    bid_range: list[float]  # the competing-bid levels are uniform on this range, per seed
    value_noise: float  # the value seen on a win is <w, z> + U[-value_noise, value_noise]


ENV_KINDS: dict[str, type[EnvConfig]] = {"stackelberg": StackelbergEnvConfig,
                                         "auction": AuctionEnvConfig}


@dataclass(frozen=True)
class OFULConfig:
    """OFUL (Abbasi-Yadkori et al. 2011)."""

    lam: float  # ridge lambda
    delta: float  # confidence 1 - delta
    beta_scale: float  # their Theorem 2 radius times this (1: the theory's)


@dataclass(frozen=True)
class LogDetFTRLConfig:
    """logdet-FTRL (Liu, Wei & Zimmert 2023)."""

    sample_size: int  # reservoir of past contexts standing in for the context distribution
    fw_iters: int  # Frank-Wolfe steps per round
    eta_scale: float  # eta_t = eta_scale sqrt(log(t+2)/(t+1)) / reward range
    ridge: float  # keeps H invertible


@dataclass(frozen=True)
class HarrisConfig:
    """Harris et al. (2024)'s explore-then-commit."""

    explore_scale: float  # each spanner arm explored explore_scale T^(2/3) (log T)^(1/3) times
    log_factor: bool = True  # with the (log T)^(1/3) factor


@dataclass(frozen=True)
class AblationConfig:
    """The exploration-constant ablation (run.py --ablation tune|eval)."""

    env: str  # the environment it runs on
    multipliers: list[float]  # c: every algorithm's exploration constant times c
    tuning_seeds: list[int]  # seeds the constants are chosen on (never the main seeds)


@dataclass(frozen=True)
class Settings:
    """The settings of one scale (`defaults` merged with `scales.<scale>`)."""

    seeds: list[int]  # main seeds (an environment may have its own)
    horizons: list[int]  # T: R(T) is reported at each
    n_checkpoints: int  # log-spaced points of the regret curves (plus every T)
    slope_fit_from: int  # slopes: log R(T) on log T over T >= this
    # name -> StackelbergEnvConfig | AuctionEnvConfig, typed by its kind in `settings_of`
    # (`Any` here: `typed` would read dict[str, EnvConfig] as one EnvConfig)
    environments: dict[str, Any]
    oful: OFULConfig  # OFUL's constants
    logdet_ftrl: LogDetFTRLConfig  # logdet-FTRL's constants
    harris_etc: HarrisConfig  # Harris et al.'s constants
    ablation: AblationConfig  # the ablation


def env_horizons(cfg: Settings, name: str) -> list[int]:
    """The horizons an environment is run at, ascending (its own or the global ones)."""
    return sorted(cfg.environments[name].horizons or cfg.horizons)


def env_fit_from(cfg: Settings, name: str) -> int:
    """The first horizon an environment's slopes are fitted from (its own or the global)."""
    own = cfg.environments[name].slope_fit_from
    return cfg.slope_fit_from if own is None else own


def env_config(name: str, spec: Mapping[str, Any]) -> EnvConfig:
    """One environment's settings, typed by its `kind`."""
    cls = ENV_KINDS.get(spec.get("kind"))
    if cls is None:
        raise ValueError(f"environments.{name}.kind: {spec.get('kind')!r} is not one of "
                         f"{', '.join(ENV_KINDS)}")
    return typed(cls, spec, f"environments.{name}")


def settings_of(merged: Mapping[str, Any]) -> Settings:
    """`Settings` from merged YAML settings; unknown or missing keys fail, named."""
    envs = {name: env_config(name, spec) for name, spec in merged["environments"].items()}
    return typed(Settings, {**merged, "environments": envs}, "stackelberg")


def load(config: str | Path, scale: str) -> Settings:
    """A job's settings: the paper config at one scale, typed."""
    return settings_of(load_settings(config, scale))
