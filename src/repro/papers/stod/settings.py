"""Typed settings of the STOD paper (its config.yaml): every job reads these, never raw YAML
dictionaries. Fields are required where the schema requires the key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repro.core.config import load_settings, typed

METHODS = ("direct", "rate", "stod", "stod_noreg")
DATASETS = ("digits", "mnist5k", "cifar10", "cifar100")


@dataclass(frozen=True)
class Data:
    split_seed: int  # the train/test split of digits and mnist5k is drawn once, from this seed
    test_frac: float  # digits, mnist5k: stratified test share (CIFAR: the official test set)
    test_max: int | None = None  # attack / GTC on the first test_max test images; None: all
    train_max: int | None = None  # train on the first train_max images (tiny); None: all


@dataclass(frozen=True)
class SNN:
    """LIF neurons (spikingjelly), the surrogate gradient and the readout."""

    T: int  # time steps (the paper: 4)
    tau: float  # membrane time constant
    v_threshold: float
    surrogate: str  # atan or sigmoid (spikingjelly.activation_based.surrogate)
    surrogate_alpha: float  # the surrogate's sharpness
    detach_reset: bool  # no gradient through the reset


@dataclass(frozen=True)
class Arch:
    """A VGG-style spiking network: conv-BN-LIF blocks (`M`: 2x2 average pooling), then LIF
    fully connected layers and a linear readout averaged over time."""

    channels: list[int | str]  # e.g. [64, M, 128, M, 256, 256, M, ...] (VGG-11)
    hidden: list[int]  # widths of the fully connected LIF layers before the readout


@dataclass(frozen=True)
class Stod:
    """The input layer of direct encoding with one orthogonal kernel per time step."""

    reg_weight: float  # weight of the global (cross-time) orthogonality regulariser
    orthogonal_map: str  # torch.nn.utils.parametrizations.orthogonal: householder/cayley/matrix_exp


@dataclass(frozen=True)
class AdvTrain:
    """Adversarial training (the robust-SNN baselines' and the paper's CIFAR regime)."""

    attack: str  # fgsm or pgd
    eps: float  # L_inf radius on [0, 1] pixels
    steps: int = 1  # PGD steps (pgd only)


@dataclass(frozen=True)
class Train:
    epochs: int | dict[str, int]  # one count, or one per data set
    batch: int
    optimizer: str  # adam or sgd (momentum 0.9)
    lr: float
    weight_decay: float
    adv: AdvTrain | None = None  # None: standard training


@dataclass(frozen=True)
class Attack:
    """White-box L_inf attacks through BPTT and the surrogate gradient (rate encoding: the
    straight-through gradient of the Bernoulli draw)."""

    eps: list[float]  # radii on [0, 1] pixels (the figure's x axis)
    headline_eps: float  # the table's and the claims' radius (one of eps)
    pgd_steps: int
    pgd_alpha: float  # PGD step, as a fraction of eps
    random_start: bool  # PGD starts uniformly in the eps ball (Madry et al.; torchattacks)
    batch: int
    eot: int = 1  # rate encoding: gradients averaged over this many draws (EOT)


@dataclass(frozen=True)
class GTC:
    samples: int  # test images whose per-time-step gradients GTC is measured on
    batch: int


@dataclass(frozen=True)
class Settings:
    seeds: list[int]
    datasets: list[str]
    methods: list[str]
    data: Data
    snn: SNN
    arch: dict[str, Any]  # per data set (arch_of types it)
    stod: Stod
    train: Train
    attack: dict[str, Any]  # per data set (attack_of types it)
    gtc: GTC
    urls: dict[str, str]  # CIFAR archives (full; their md5 is in the paper's manifest.json)
    threads: int = 1  # torch threads per job


def load(path: str | Path, scale: str) -> Settings:
    return typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")


def arch_of(cfg: Settings, dataset: str) -> Arch:
    if dataset not in cfg.arch:
        raise ValueError(f"no arch.{dataset} in the config (data sets with one: "
                         f"{', '.join(cfg.arch)})")
    return typed(Arch, cfg.arch[dataset], f"arch.{dataset}")


def attack_of(cfg: Settings, dataset: str) -> Attack:
    if dataset not in cfg.attack:
        raise ValueError(f"no attack.{dataset} in the config (data sets with one: "
                         f"{', '.join(cfg.attack)})")
    a = typed(Attack, cfg.attack[dataset], f"attack.{dataset}")
    if a.headline_eps not in a.eps:
        raise ValueError(f"attack.{dataset}.headline_eps {a.headline_eps} is not one of its eps")
    return a


def epochs_of(cfg: Settings, dataset: str) -> int:
    e = cfg.train.epochs
    if isinstance(e, dict):
        if dataset not in e:
            raise ValueError(f"train.epochs has no entry for {dataset} ({', '.join(e)})")
        return int(e[dataset])
    return int(e)
