"""Typed settings of the LFST paper (its config.yaml): every job reads these, never raw YAML
dictionaries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from repro.core.config import load_settings, typed

FRONTENDS = ("stft", "cwt", "superlet", "leaf", "lfst", "lfst_fixed_grid", "lfst_integer_orders",
             "lfst_no_laht")
KINDS = ("synth", "emodb", "iemocap")
CHANNELS = ("clean", "telephone")


@dataclass(frozen=True)
class Speakers:
    train: int
    val: int
    test: int


@dataclass(frozen=True)
class Sentences:
    train: int  # said by the training speakers
    heldout: int  # said by the validation and test speakers


@dataclass(frozen=True)
class Synth:
    seed: int
    language: str  # espeak-ng voice, e.g. en; speakers are its variants (en+m3, ...)
    exclude: list[str]  # variants with no usable pitch contour (whisper, robots)
    speakers: Speakers
    sentences: Sentences
    per_speaker: int  # utterances per speaker, balanced over the classes
    prosody: dict[str, dict[str, list[float]]]  # class -> knob -> [mean, sd]


@dataclass(frozen=True)
class Dataset:
    kind: str  # synth | emodb | iemocap
    channel: str = "clean"  # synth: clean | telephone
    snr_db: float | None = None  # synth: noise added before the channel
    noise: str = "pink"
    folds: int = 1  # real corpora: leave-one-group-out folds (the groups: speakers / sessions)
    classes: list[str] | None = None  # real corpora: their class names (synth: `classes`)
    url: str | None = None  # emodb: the archive (its checksum: src/repro/papers/lfst/manifest.json)
    root: str | None = None  # iemocap: the unpacked release (manual download)


@dataclass(frozen=True)
class Frontend:
    bands: int  # F
    orders: int  # O (superlets)
    f_min: float
    f_max: float
    kernel: int  # L taps (odd)
    hop: int  # frame hop in samples
    subframes: int  # superlets: responses every hop / subframes samples, averaged per frame
    c1: float  # base cycles (LFST's init, the fixed superlet's value)
    cwt_cycles: float  # the Morlet CWT's cycles
    stft_window_ms: float
    laht_slope: float
    laht_bound: float
    laht_init: float


@dataclass(frozen=True)
class Stee:
    channels: int
    k_t: int
    k_f: int
    heads: int
    window: int
    stride: int
    dropout: float


@dataclass(frozen=True)
class Train:
    epochs: int
    batch: int
    lr: float
    weight_decay: float
    clip: float
    gamma: float  # focal loss
    rebalance: bool  # class weights 1 / frequency


@dataclass(frozen=True)
class Settings:
    seeds: list[int]
    methods: list[str]
    conditions: list[str]
    threads: int
    sample_rate: int
    seconds: float  # utterances cropped / padded to this many seconds
    classes: list[str]
    synth: Synth
    datasets: dict[str, Dataset]
    frontend: Frontend
    stee: Stee
    train: Train


def load(path: Path, scale: str) -> Settings:
    return typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")


def classes_of(cfg: Settings, condition: str) -> list[str]:
    d = cfg.datasets[condition]
    return list(d.classes) if d.kind != "synth" and d.classes else list(cfg.classes)

