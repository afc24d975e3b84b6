"""fsdfm settings as typed objects: every job reads these, never raw YAML dictionaries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from repro.core.config import load_settings, typed


@dataclass
class Data:
    source: str
    """markov2 (a random order-2 chain: exact likelihood) or text (FineWeb-Edu / WikiText-103)"""
    seed: int
    """the chain is drawn once, from this seed"""
    vocab: int = 64
    length: int = 128
    classes: int = 0
    """the token two back acts through its class (a mod classes); 0: every token its own"""
    successors: int = 4
    """how many next tokens each (a, b) context favours"""
    concentration: float = 0.5
    """Dirichlet concentration of the favoured successors' weights"""
    smoothing: float = 0.02
    """probability mass spread uniformly over all V tokens (no transition is impossible)"""
    train_dataset: str = "HuggingFaceFW/fineweb-edu"
    train_config: str = "sample-10BT"
    eval_dataset: str = "Salesforce/wikitext"
    eval_config: str = "wikitext-103-raw-v1"
    tokenizer: str = "gpt2"
    max_train_tokens: int = 0
    """text only: stop tokenising after this many tokens (0: the whole split)"""


@dataclass
class Model:
    hidden: int
    cond: int
    layers: int
    heads: int
    dropout: float = 0.0
    dt_fusion: str = "fuser"
    """the student's dt path: fuser (the paper's code) or additive (zero-initialised: the
    student starts as the DFM)"""


@dataclass
class Path_:
    source: str = "uniform"
    """x_0: uniform over the vocabulary (the released models) or all MASK"""
    exponent: float = 1.0
    """kappa(t) = t ** exponent (the paper: 1, linear)"""


@dataclass
class Optim:
    steps: int
    batch_size: int
    lr: float
    warmup: int = 0
    weight_decay: float = 0.03
    grad_clip: float = 1.0
    min_lr_ratio: float = 0.1
    """cosine decay to this fraction of lr"""
    log_every: int = 100
    checkpoint_every: int = 500


@dataclass
class FSDFM(Optim):
    ema_decay: float = 0.9995
    grid: int = 1024
    """step sizes 1, 1/2, ..., 1/grid; t on the 1/grid lattice"""
    teacher: str = "rk4"
    """rk4 (the paper) or heun"""


@dataclass
class Eval:
    nfe: list[int]
    n_samples: int
    batch_size: int
    ngram: int = 4
    """distinct n-grams up to this n"""
    time_epsilon: float = 0.0
    judge: str = "gpt2-large"
    """text only: the model whose NLL gives generative perplexity (the paper's)"""


@dataclass
class Settings:
    seeds: list[int]
    systems: list[str]
    """what is sampled and scored: a model and an update rule (evaluate.SYSTEMS)"""
    data: Data
    model: Model
    path: Path_
    dfm: Optim
    fsdfm: FSDFM
    eval: Eval


def load(path: Path, scale: str) -> Settings:
    return typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")
