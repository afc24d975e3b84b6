"""Typed settings of the transformers-as-students paper (src/repro/papers/tstudent/config.yaml).

Every job turns its merged YAML settings into `Settings` at its entry point (`load`) and
passes the typed sections down. Fields are required where the config schema requires the key;
the optional ones are a teacher setting's overrides of the shared optimisation settings
(None: the shared value, `Settings.run_of`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repro.core.config import load_settings, typed


@dataclass(frozen=True)
class OODConfig:
    """The out-of-distribution evaluation sample."""

    distribution: str  # exponential: i.i.d. Exp(rate) entries
    rate: float  # rate of the exponential entries
    n_samples: int  # inputs in the fixed sample


@dataclass(frozen=True, kw_only=True)
class StudentRun:
    """How one student is trained and evaluated (`train.run_student`)."""

    iterations: int  # online GD steps, one fresh batch each
    batch_size: int  # inputs per batch
    lr_value: float  # step size of W_V
    lr_attn: float  # step size of the attention parameter W
    n_checkpoints: int  # log-spaced evaluation points
    fit_from: float  # slopes fitted on t >= fit_from * T
    ood: OODConfig  # the OOD sample


@dataclass(frozen=True)
class TeacherSetting:
    """One of the paper's teacher settings, with optional optimisation overrides."""

    teacher: str  # conv, gcn, sparse_token or group_sparse
    D: int  # sequence length
    K: int  # support size of the teacher's attention pattern
    act: str  # relu, leaky_relu or linear
    d: int | None = None  # token dimension (None: the shared `d`)
    # overrides of the shared optimisation settings (None: the shared value)
    iterations: int | None = None  # online GD steps
    batch_size: int | None = None  # inputs per batch
    lr_value: float | None = None  # step size of W_V
    lr_attn: float | None = None  # step size of W
    n_checkpoints: int | None = None  # log-spaced evaluation points
    fit_from: float | None = None  # slopes fitted on t >= fit_from * T
    ood: OODConfig | None = None  # the OOD sample


@dataclass(frozen=True)
class CNNConfig:
    """The CNN whose first layer is the real-data teacher (`digits.train_cnn`)."""

    epochs: int  # passes over the training images
    batch_size: int  # images per Adam step
    lr: float  # Adam learning rate
    weight_decay: float  # Adam weight decay
    seed: int  # initialisation and shuffling seed


@dataclass(frozen=True, kw_only=True)
class DigitsStudent(StudentRun):
    """The student of the real-data case."""

    train_inputs: str  # gaussian (the theory's protocol) or images (real training images)


@dataclass(frozen=True)
class MnistConfig:
    """Where MNIST's idx files come from (full scale)."""

    mirror_dir: str  # <data_mirror>/<mirror_dir>/<file> when present
    base_urls: list[str]  # else downloaded from the first reachable of these
    files: dict[str, str]  # train_images, train_labels, test_images, test_labels -> file name


@dataclass(frozen=True)
class DigitsConfig:
    """The real-data case: images -> tokens -> a CNN's first layer -> the student."""

    source: str  # digits (sklearn's 8x8, upsampled) or mnist (full only)
    upsample: int  # digits: 8x8 -> (8 upsample)^2, bilinear
    crop: int  # mnist: centre crop to crop x crop
    patch: int  # patch x patch patches are the tokens (d = patch^2)
    window: int  # window x window average pooling over the token grid (K = window^2)
    channels: int  # output channels of the first layer (rows of V*)
    test_fraction: float  # digits: held-out share of the images
    split_seed: int  # digits: seed of the train/test split
    cnn: CNNConfig  # the CNN
    student: DigitsStudent  # the student
    mnist: MnistConfig  # MNIST's files


@dataclass(frozen=True)
class Settings:
    """The settings of one scale (`defaults` merged with `scales.<scale>`)."""

    seeds: list[int]  # seeds of every teacher setting and of the digits student
    d: int  # token dimension of the synthetic settings
    leaky_slope: float  # LeakyReLU negative slope
    # the shared optimisation settings (`StudentRun`; a teacher setting may override them)
    iterations: int  # online GD steps
    batch_size: int  # inputs per batch
    lr_value: float  # step size of W_V
    lr_attn: float  # step size of W
    n_checkpoints: int  # log-spaced evaluation points
    fit_from: float  # slopes fitted on t >= fit_from * T
    ood: OODConfig  # the OOD sample
    # name -> TeacherSetting, typed in `settings_of` (`Any` here: `typed` would read
    # dict[str, TeacherSetting] as one TeacherSetting)
    settings: dict[str, Any]
    digits: DigitsConfig  # the real-data case

    def run_of(self, setting: str) -> StudentRun:
        """The optimisation settings of one teacher setting: its overrides, else the shared."""
        spec = self.settings[setting]
        kw = {}
        for f in dataclasses.fields(StudentRun):
            own = getattr(spec, f.name)
            kw[f.name] = own if own is not None else getattr(self, f.name)
        return StudentRun(**kw)


def settings_of(merged: Mapping[str, Any]) -> Settings:
    """`Settings` from merged YAML settings; unknown or missing keys fail, named."""
    teachers = {name: typed(TeacherSetting, spec, f"settings.{name}")
                for name, spec in merged["settings"].items()}
    return typed(Settings, {**merged, "settings": teachers}, "tstudent")


def load(config: str | Path, scale: str) -> Settings:
    """A job's settings: the paper config at one scale, typed."""
    return settings_of(load_settings(config, scale))
