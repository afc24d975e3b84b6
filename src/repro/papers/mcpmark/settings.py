"""mcpmark settings as typed objects: every job reads these, never raw YAML dictionaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from repro.core.config import load_settings, typed


@dataclass
class Data:
    seed: int
    """the data set is drawn once, from this seed"""
    n: int
    """samples in the pool"""
    loc: float
    """the centre to estimate"""


@dataclass
class Train:
    sample_size: int
    """samples each seed's estimator sees"""


@dataclass
class Settings:
    seeds: list[int]
    methods: list[str]
    data: Data
    train: Train = field(default_factory=lambda: Train(50))


def load(path: Path, scale: str) -> Settings:
    return typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")
