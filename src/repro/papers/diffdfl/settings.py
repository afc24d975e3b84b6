"""Typed settings of the diffusion-DFL paper (src/repro/papers/diffdfl/config.yaml): every job reads
these, never raw YAML dictionaries. Fields are required where the schema requires the key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from repro.core.config import load_settings, typed


@dataclass(frozen=True)
class SyntheticTask:
    """The paper's synthetic task (official `generate_data_multi_dim` + `cvxpy_toy_kkt`):
    y in R^n, each coordinate y_scale * (a_pos + sigma eps) with probability p_pos, else
    y_scale * (-b_neg + sigma eps); x ~ N(0, I) in R^x_dim. Decide z in [0, C]^n minimising
    E exp(-y^T z)."""

    data_seed: int  # the data set is drawn once, from this seed
    n: int  # data points (train + hold-out + test)
    x_dim: int  # features
    y_dim: int  # uncertain parameters (= decision dimension)
    box: float  # C: 0 <= z <= C
    p_pos: float  # probability of the positive mode, per coordinate
    a_pos: float  # mean of the positive mode
    b_neg: float  # the negative mode's mean is -b_neg
    sigma: float  # noise of each mode
    y_scale: float  # y = y_scale * raw draw
    test_frac: float  # last test_frac of the data is the test set
    hold_frac: float  # of the rest, this share (random per seed) is the hold-out set
    bayes_samples: int  # draws from the true law for the Bayes-optimal decision (a reference)
    pool_batch: bool  # one sample-average problem over a batch's draws (official; y is not x's)


@dataclass(frozen=True)
class PowerTask:
    """Day-ahead power scheduling on PJM load (Donti et al. 2017's task, the paper's cost):
    schedule z in R^24 under ramp limits |z_{h+1} - z_h| <= c_ramp, paying gamma_under per unit
    of unmet load, gamma_over per unit of excess, plus half the squared mismatch."""

    files: list[str]  # the two PJM load/temperature files
    url: str  # where the official repository keeps them (full-scale fetch)
    c_ramp: float  # ramp limit between consecutive hours
    gamma_under: float  # cost per unit of load not scheduled
    gamma_over: float  # cost per unit scheduled beyond the load
    test_frac: float  # last test_frac of the days (chronological) is the test set
    hold_frac: float  # of the rest, this share (random per seed) is the hold-out set
    max_days: int | None = None  # keep only the last max_days days (tiny); None: all


@dataclass(frozen=True)
class DiffusionConfig:
    """The conditional diffusion model of y given x (DDPM, epsilon prediction)."""

    hidden: int  # width of the epsilon network (official: 1024)
    layers: int  # hidden layers (official: 3)
    time_dim: int  # sinusoidal timestep embedding width (official: 16)
    timesteps: int  # T of the forward process (official: 1000)
    beta_start: float  # linear beta schedule
    beta_end: float
    sample_steps: int  # DDIM (eta = 0) steps when sampling (official: all T)


@dataclass(frozen=True)
class Models:
    hidden: int  # width of the MLP / Gaussian MLP (two hidden layers)
    diffusion: DiffusionConfig


@dataclass(frozen=True)
class Pretrain:
    """Two-stage fitting: MSE (MLP), Gaussian NLL, the denoising loss (diffusion)."""

    steps: int  # optimiser steps
    batch: int
    lr: float


@dataclass(frozen=True)
class DFL:
    """Decision-focused fine-tuning from the two-stage model (official nets.py)."""

    steps: int  # optimiser steps
    batch: int  # instances per step
    lr: float  # Adam learning rate
    mc_samples: int  # M: samples of y per instance in the stochastic program
    alpha: float  # loss = alpha task + (1 - alpha) fit loss rescaled to the task gradient's norm
    eval_every: int  # hold-out task loss every this many steps; the best state is kept
    hold_max: int  # hold-out instances evaluated (the first hold_max)
    sf_timesteps: int  # score function: forward-diffusion draws (t, eps) per sample of y
    sf_weighting: str  # simple (the epsilon MSE, as the official code) or elbo (lambda_t)


@dataclass(frozen=True)
class Evaluate:
    mc_samples: int  # samples of y per test instance for the stochastic decision


@dataclass(frozen=True)
class Memory:
    """Peak memory and time of one training step, reparameterisation vs score function."""

    task: str  # the task measured on
    sample_steps: list[int]  # diffusion sampling steps measured
    batch: int
    mc_samples: int
    repeats: int  # timed steps per configuration (after one warm-up)


@dataclass(frozen=True)
class Settings:
    seeds: list[int]
    tasks: list[str]
    methods: list[str]
    synthetic: SyntheticTask
    power: PowerTask
    models: Models
    pretrain: Pretrain
    dfl: DFL
    evaluate: Evaluate
    memory: Memory
    threads: int = 1  # torch threads per job


def load(path: str | Path, scale: str) -> Settings:
    return typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")
