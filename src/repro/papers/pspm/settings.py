"""Typed settings of the PS/PM paper (its config.yaml): every job reads these, never raw YAML
dictionaries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from repro.core.config import load_settings, typed

SYNTHESISED = ("speech_en", "speech_es", "music")
SASSEC = {"sassec_en": "speech_en", "sassec_es": "speech_es", "sassec_music": "music"}
ENCODERS = ("logmel", "raw", "wav2vec2", "wavlm", "hubert")


@dataclass(frozen=True)
class Synth:
    seconds: float
    mixtures: int  # per data set and seed
    leakage_itr_db: list[float | None]  # interference-to-target ratio per level; None: none
    distortion_p: list[float]  # share of STFT bins dropped per level
    voices: list[str]  # espeak-ng variants
    texts: dict[str, list[str]]  # language -> sentences


@dataclass(frozen=True)
class Part:
    mixtures: list[str]  # SASSEC mixture names (file stem without the source index)
    sources: list[int]  # which of its sources form this sub-mixture


@dataclass(frozen=True)
class Sassec:
    url: str
    root: str
    mos: str
    speech_en: Part
    speech_es: Part
    music: Part


@dataclass(frozen=True)
class Settings:
    seeds: list[int]
    encoders: list[str]
    layer: int
    mel_bands: int
    alpha: float
    cutoff: float
    delta: float
    bank_seed: int
    datasets: list[str]
    synth: Synth
    sassec: Sassec


def load(path: Path, scale: str) -> Settings:
    return typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")
