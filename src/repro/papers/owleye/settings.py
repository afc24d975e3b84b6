"""Typed settings of the OWLEYE paper (its config.yaml): every job reads these, never raw YAML
dictionaries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repro.core.config import load_settings, typed

TRAINED = ("owleye", "owleye_n", "owleye_s", "owleye_t", "arc")  # trained across domains
BASELINES = ("dominant", "iforest", "lof")  # fitted on each target graph alone
KINDS = ("sklearn", "mnist", "stdlib", "sbm", "mat")
PROTOCOLS = ("zero_shot", "ten_shot")


@dataclass(frozen=True)
class Source:
    """How one domain's graph is built (graphs.py)."""

    kind: str  # sklearn | mnist | stdlib | sbm | mat
    k: int | None = None  # kNN graphs: neighbours
    n: int | None = None  # mnist: the first n images
    kinds: int | None = None  # stdlib: syntax-node kinds counted per module
    sizes: list[int] | None = None  # sbm: block sizes
    p_in: float | None = None
    p_out: float | None = None
    dim: int | None = None  # sbm: feature dimension
    scale: float = 1.0  # sbm: feature scale
    seed: int | None = None  # sbm: generator seed
    file: str | None = None  # mat: ARC's file name (without .mat)


@dataclass(frozen=True)
class Domains:
    train: list[str]  # labelled source graphs the models are trained on
    aux: list[str]  # labelled graphs added to the dictionary later (continual growth)
    test: list[str]  # unseen target graphs (no labels used, no training)


@dataclass(frozen=True)
class Inject:
    """pygod-style injection (graphs.inject) for the domains without their own labels."""

    clique_size: int  # structural: nodes per clique (DOMINANT/ARC: 15)
    rate: float  # anomalies per node in all, half structural and half contextual
    candidates: int  # contextual: candidates the farthest is picked from (DOMINANT: 50)
    seed: int  # one injection per domain, from (seed, domain index)


@dataclass(frozen=True)
class Align:
    dim: int  # the shared feature space (both papers: 64)
    lift: int  # Gaussian random projection first when a graph has fewer features (256)
    normalise: str  # paper (the paper's formula) | released (the official code's effect)
    tau: float  # the lower bound of the rescaling factor (1)
    pairs: int  # node pairs sampled for the mean pairwise distance on big graphs


@dataclass(frozen=True)
class Owleye:
    hidden: int
    hops: int
    st_dim: int
    support: int  # dictionary patterns per domain
    truncate: float  # share of the lowest attention scores cut per query
    temperature: float
    beta: float  # structure terms' weight in the loss and the score
    margin_attr: float
    margin_struct: float
    epochs: int
    lr: float
    weight_decay: float


@dataclass(frozen=True)
class Arc:
    hidden: int
    hops: int
    shots: int  # training support (num_prompt)
    epochs: int
    lr: float
    weight_decay: float


@dataclass(frozen=True)
class Dominant:
    hidden: int
    lr: float
    epochs: int
    alpha: float


@dataclass(frozen=True)
class Eval:
    context: int  # target nodes the in-context methods see (OWLEYE's test patterns, ARC's shots)
    protocols: list[str]  # zero_shot: random unlabelled nodes; ten_shot: labelled normal ones
    chunk: int  # query rows scored at once


@dataclass(frozen=True)
class Settings:
    seeds: list[int]
    methods: list[str]  # of TRAINED
    baselines: list[str]  # of BASELINES
    domains: Domains
    sources: dict[str, Any]  # per domain (source_of types it)
    inject: Inject
    align: Align
    owleye: Owleye
    arc: Arc
    dominant: Dominant
    eval: Eval
    iforest_trees: int
    lof_neighbours: int
    urls: dict[str, str]  # mat: ARC's .mat files ({file} is replaced)
    threads: int = 1


def load(path: str | Path, scale: str) -> Settings:
    return typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")


def source_of(cfg: Settings, domain: str) -> Source:
    if domain not in cfg.sources:
        raise ValueError(f"no sources.{domain} in the config (domains with one: "
                         f"{', '.join(cfg.sources)})")
    s = typed(Source, cfg.sources[domain], f"sources.{domain}")
    if s.kind not in KINDS:
        raise ValueError(f"sources.{domain}.kind {s.kind!r} is not one of {', '.join(KINDS)}")
    return s


def all_domains(cfg: Settings) -> list[str]:
    d = cfg.domains
    return [*d.train, *d.aux, *d.test]
