"""Typed settings of the exponential-wrapped mechanisms paper (its config.yaml).

Every job turns its merged YAML settings into `Settings` at its entry point (`load`) and
passes the typed sections down. Every field is required, as the config schema requires every
key: this module holds names and types, no values, so what a job computes depends only on the
YAML and the job's own (rule-tracked) code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repro.core.config import load_settings, typed


@dataclass(frozen=True)
class SyntheticConfig:
    """The synthetic protocol (experiment.py): one job per metric x matrix size m."""

    ms: list[int]  # matrix sizes m; d = m(m+1)/2
    n: int  # points per data set
    r: float  # radius of the geodesic ball holding the data
    center_distance: float  # geodesic distance of the ball's centre from the footpoint I
    center_seed: int  # seed (+ m) of the centre's fixed random direction
    mus: list[float]  # mu-GDP budgets
    reps: int  # repetitions (a new data set each)
    mechanisms: list[str]  # of ewg, ewl, rl
    timing_mu: float  # budget of the single releases that are timed
    timing_reps: int  # timed single releases per mechanism


@dataclass(frozen=True)
class McmcConfig:
    """Random-walk Metropolis-Hastings for the Riemannian Laplace baseline."""

    n_steps: int  # steps per chain (burn-in); its last state is the release
    proposal_scale: float  # proposal step = proposal_scale * sigma * sqrt((d+1)/d)
    chunk: int  # chains run side by side (vectorised); does not change results


@dataclass(frozen=True)
class MedmnistConfig:
    """Which MedMNIST file the real-data case reads at full scale."""

    flag: str  # MedMNIST data set (octmnist)
    split: str  # train, val or test
    size: int  # image side: 28, 64, 128 or 224


@dataclass(frozen=True)
class RealConfig:
    """The real-data case: image covariance descriptors on SPD(5), one private mean per class."""

    source: str  # digits (sklearn, shipped) or octmnist (MedMNIST)
    metric: str  # metric of the private means
    classes: list[int]  # labels kept, one private mean each
    reg: float  # descriptor + reg * I: eigenvalues in [reg, 5/4 + reg]
    max_per_class: int  # images kept per class (0: all)
    mus: list[float]  # mu-GDP budgets
    reps: int  # noise repetitions per class and budget
    mechanisms: list[str]  # of ewg, ewl, rl
    medmnist: MedmnistConfig  # the OCTMNIST file (source: octmnist)


@dataclass(frozen=True)
class PrivacyConfig:
    """The empirical privacy check on neighbouring data sets (privacy_check.py)."""

    metric: str  # metric of the check
    m: int  # matrix size
    eps: float  # eps of the EW Laplace and of the (eps, delta) EW Gaussian
    delta: float  # delta of the EW Gaussian
    n_samples: int  # releases per data set and mechanism
    bins: int  # equal-mass bins of the eps check (x4 for the delta check)
    min_count: int  # eps check: bins where both histograms hold this many draws
    z: float  # tolerance: z standard errors of the estimate
    control_factor: float  # controls: noise scale x this (must violate the bound)


@dataclass(frozen=True)
class FootpointConfig:
    """The footpoint ablation: the data ball's centre moved away from I (footpoint.py)."""

    metric: str  # metric of the ablation
    m: int  # matrix size
    center_distances: list[float]  # distances of the ball's centre from I
    mus: list[float]  # mu-GDP budgets
    reps: int  # repetitions (a new data set each)
    mechanisms: list[str]  # of ewg, ewl, rl


@dataclass(frozen=True)
class Settings:
    """The settings of one scale (`defaults` merged with `scales.<scale>`)."""

    seed: int  # root of every random stream (experiment.rng_for)
    metrics: list[str]  # SPD metrics of the synthetic grid
    synthetic: SyntheticConfig  # the synthetic protocol
    mcmc: McmcConfig  # the MCMC Riemannian Laplace
    real: RealConfig  # the real-data case
    privacy: PrivacyConfig  # the empirical privacy check
    footpoint: FootpointConfig  # the footpoint ablation


def settings_of(merged: Mapping[str, Any]) -> Settings:
    """`Settings` from merged YAML settings; unknown or missing keys fail, named."""
    return typed(Settings, merged, "hadamard_dp")


def load(config: str | Path, scale: str) -> Settings:
    """A job's settings: the paper config at one scale, typed."""
    return settings_of(load_settings(config, scale))
