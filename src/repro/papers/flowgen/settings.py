"""flowgen settings as typed objects: every job reads these, never raw YAML dictionaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from repro.core.config import load_settings, typed
from repro.papers.flowgen.synth import Level


@dataclass
class Data:
    n_test: int
    """test charts per difficulty, each drawn by every renderer in every style"""
    n_train: int
    """training charts per difficulty (training renderers, every style)"""


@dataclass
class Parser:
    models: list[str]
    """`ocr`, `trained`, `mllm:<hub id>` or `mllm-sft:<hub id>` (fine-tuned here; full)"""
    threshold: float = 0.5
    max_iter: int = 200
    vocab_threshold: float = 0.7


@dataclass
class Mllm:
    max_new_tokens: int = 4096
    max_pixels: int = 1003520


@dataclass
class Finetune:
    """The official LoRA recipe (MLLMs_SFT/Qwen2-VL-Finetune, finetune_lora_vision.sh)."""

    rank: int = 64
    alpha: int = 64
    dropout: float = 0.05
    lr: float = 5e-4
    weight_decay: float = 0.1
    warmup_ratio: float = 0.03
    batch_size: int = 32
    """global batch (the official 4 per device x 8 accumulated)"""


@dataclass
class Settings:
    seeds: list[int]
    renderers: list[str]
    styles: list[str]
    train_renderers: list[str]
    levels: dict[str, Level]
    data: Data
    parser: Parser
    levels_used: list[str] = field(default_factory=list)
    """difficulties drawn (default: all of `levels`)"""
    mllm: Mllm = field(default_factory=Mllm)
    finetune: Finetune = field(default_factory=Finetune)

    def used(self) -> list[str]:
        return self.levels_used or list(self.levels)

    def sft_models(self) -> list[str]:
        """Base models fine-tuned on the training split (`mllm-sft:<hub id>`), in order."""
        return [m.removeprefix("mllm-sft:") for m in self.parser.models
                if m.startswith("mllm-sft:")]

    def level(self, name: str) -> Level:
        return self.levels[name]


def load(path: Path, scale: str) -> Settings:
    from repro.papers.flowgen.render import RENDERERS, STYLES

    s = typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")
    bad = ([r for r in s.renderers + s.train_renderers if r not in RENDERERS]
           + [x for x in s.styles if x not in STYLES]
           + [lv for lv in s.used() if lv not in s.levels]
           + [m for m in s.parser.models if m not in ("ocr", "trained")
              and not m.startswith(("mllm:", "mllm-sft:"))])
    if bad:
        raise ValueError(f"{path} (scale {scale}): unknown {bad}; renderers {RENDERERS}, "
                         f"styles {STYLES}, levels {sorted(s.levels)}, models ocr/trained/"
                         "mllm:<id>/mllm-sft:<id>")
    return s
