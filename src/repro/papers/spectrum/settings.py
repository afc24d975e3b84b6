"""spectrum settings as typed objects: every job reads these, never raw YAML dictionaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from repro.core.config import load_settings, typed
from repro.papers.spectrum.formats import FAMILIES, FORMATS
from repro.papers.spectrum.sources import SOURCES
from repro.papers.spectrum.suite import DIST_TASKS, coverage_tasks
from repro.papers.spectrum.suite import FAMILIES as TASK_FAMILIES

CHECKPOINTS = ("base", "instruct", "released", "tuned")


@dataclass
class ModelRefs:
    family: str
    """turn tokens of the model family (formats.FAMILIES)"""
    instruct: str
    """the instruction-tuned checkpoint: `local` (SmolLM2-135M-Instruct, offline) or a hub id"""
    base: str | None = None
    """its pretrained base (a hub id), or null where no source is reachable"""
    released: str | None = None
    """the paper's own Spectrum-tuned checkpoint (a hub id), or null"""


@dataclass
class Evaluated:
    checkpoint: str
    """base, instruct, released, or tuned (instruct + our Spectrum Tuning adapter)"""
    format: str
    """how contexts are written for it: spectrum, chat or colon"""


@dataclass
class Suite:
    seed: int
    """the training pool and every seed's held-out sets are drawn from (seed, run seed)"""
    train_families: list[str]
    heldout_families: list[str]
    train_contexts: int
    """contexts per training family in the pool"""
    samples_per_context: int
    """samples drawn per training context (the train job cuts each at train.max_tokens)"""
    description_prob: float
    """a context keeps its description with this probability (the official 0.6)"""
    steer_contexts: int
    """held-out contexts per family and seed"""
    steer_k: int
    """each held-out context has k+1 outputs; outputs 1..k are scored (loss_geq_1)"""
    dist_tasks: list[str]
    dist_items: int
    """zero-shot distribution items per task and seed"""
    coverage_tasks: list[str]
    sources: list[str] = field(default_factory=list)
    """the paper's real sources (official task keys, sources.SOURCES), fetched at full: held-out
    ones join the steerability sets, the others the training pool"""


@dataclass
class Lora:
    r: int
    alpha: int
    dropout: float
    targets: list[str]


@dataclass
class Train:
    lora: Lora
    lr: float
    steps: int
    batch: int
    """contexts per optimiser step"""
    max_tokens: int
    """each context is cut here (the official code: 1024)"""
    warmup: int
    checkpoint_every: int


@dataclass
class Eval:
    max_tokens: int
    """a held-out context longer than this is cut (its later outputs unscored)"""
    coverage_samples: int
    """samples per coverage task (the paper: 100)"""
    components: list[str]
    """what the coverage prompt shows: description, examples or both"""
    temperature: float


@dataclass
class Settings:
    seeds: list[int]
    model: ModelRefs
    models: dict[str, Evaluated]
    suite: Suite
    train: Train
    eval: Eval

    def __post_init__(self) -> None:
        if self.model.family not in FAMILIES:
            raise ValueError(f"model.family {self.model.family!r}: one of {', '.join(FAMILIES)}")
        for name, m in self.models.items():
            if m.checkpoint not in CHECKPOINTS or m.format not in FORMATS:
                raise ValueError(f"models.{name}: checkpoint in {CHECKPOINTS}, format in "
                                 f"{FORMATS}")
            if m.checkpoint in ("base", "released") and not getattr(self.model, m.checkpoint):
                raise ValueError(f"models.{name} reads the {m.checkpoint} checkpoint, but "
                                 f"model.{m.checkpoint} is null")
        unknown = [f for f in self.suite.train_families + self.suite.heldout_families
                   if f not in TASK_FAMILIES]
        unknown += [t for t in self.suite.dist_tasks if t not in DIST_TASKS]
        unknown += [t for t in self.suite.coverage_tasks if t not in coverage_tasks()]
        unknown += [t for t in self.suite.sources if t not in SOURCES]
        if unknown:
            raise ValueError(f"suite: unknown task(s) {', '.join(unknown)}")
        if set(self.suite.train_families) & set(self.suite.heldout_families):
            raise ValueError("suite: a family is both a training and a held-out family")

    @property
    def heldout(self) -> list[str]:
        """Every held-out family the steerability sets hold: generated, then real."""
        return self.suite.heldout_families + [s for s in self.suite.sources
                                              if SOURCES[s].heldout]

    @property
    def tuned(self) -> bool:
        return any(m.checkpoint == "tuned" for m in self.models.values())


def load(path: Path, scale: str) -> Settings:
    return typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")
