"""cotenc settings as typed objects: every job reads these, never raw YAML dictionaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from repro.core.config import load_settings, typed

TEMPLATED_FAMILIES = ("countdown", "arithmetic", "logic")
"""problem families the templated generator writes CoTs for (problems.py)"""
STEER_FAMILIES = ("addition", "ordering")
"""offline question families the reasoner answers; the paper's benchmarks are data.BENCHMARKS"""
PLANTABLE = ("direction", "verification", "exploration")
"""axes the templated generator can plant"""
JUDGES = ("llm", "embed")


@dataclass
class Backend:
    ref: str
    """`local` (SmolLM2-135M-Instruct, repro.core.llm) or `endpoint` (OpenAI-compatible)"""
    model: str | None = None
    """the endpoint's model name (default: REPRO_LLM_MODEL)"""
    base_url_env: str | None = None
    """the environment variable holding the endpoint's URL (default: REPRO_LLM_BASE_URL)"""
    temperature: float = 0.0
    """sampling temperature of the reasoner's CoTs (0: greedy)"""


@dataclass
class Data:
    seed: int
    families: list[str]
    n_templated: int
    """templated CoTs per family"""
    noise: float
    """chance the templated reasoner ignores its question-dependent preference on an axis"""
    steer_families: list[str]
    n_steer: int
    """questions per steer family (0: all of a benchmark)"""
    benchmarks: list[str] = field(default_factory=list)
    n_benchmark: int = 0
    countdown_url: str = ""
    """ROVER's Countdown test set (countdown/test.parquet), at a pinned commit"""


@dataclass
class Pattern:
    name: str
    text: str


@dataclass
class Axis:
    criterion: str
    a: Pattern
    b: Pattern


@dataclass
class Generate:
    max_tokens: int
    batch: int
    n_encyclopedia: int
    """reasoner CoTs per steering combination that join the encyclopedia"""


@dataclass
class Extract:
    max_tokens: int
    max_criteria: int
    max_cot_tokens: int


@dataclass
class Cluster:
    linkage: str
    k_min: int
    k_max: int
    subsample: float


@dataclass
class Rubric:
    max_tokens: int
    temperature: float
    max_words: int


@dataclass
class Judge:
    judges: list[str]


@dataclass
class Split:
    test_fraction: float


@dataclass
class Settings:
    seeds: list[int]
    reasoner: Backend
    analyst: Backend
    embedder: str
    data: Data
    planted: list[str]
    steer: list[str]
    axes: dict[str, Axis]
    predefined: dict[str, str]
    generate: Generate
    extract: Extract
    cluster: Cluster
    rubric: Rubric
    judge: Judge
    split: Split

    def check(self, where: str) -> None:
        from repro.papers.cotenc.data import BENCHMARKS

        bad = [f"data.families has {f!r} (one of {TEMPLATED_FAMILIES})"
               for f in self.data.families if f not in TEMPLATED_FAMILIES]
        bad += [f"data.steer_families has {f!r} (one of {STEER_FAMILIES + tuple(BENCHMARKS)})"
                for f in self.data.steer_families
                if f not in STEER_FAMILIES and f not in BENCHMARKS]
        bad += [f"planted axis {x!r}: the generator plants {PLANTABLE}" for x in self.planted
                if x not in PLANTABLE]
        bad += [f"axis {x!r} (planted/steer) has no entry under axes" for x in
                [*self.planted, *self.steer] if x not in self.axes]
        bad += [f"judge {j!r} (one of {JUDGES})" for j in self.judge.judges if j not in JUDGES]
        for role, b in (("reasoner", self.reasoner), ("analyst", self.analyst)):
            if b.ref not in ("local", "endpoint"):
                bad.append(f"{role}.ref {b.ref!r} (local or endpoint)")
        if not self.embedder == "minilm" and not self.embedder.startswith("openai:"):
            bad.append(f"embedder {self.embedder!r} (minilm or openai:<model>)")
        if not 2 <= self.cluster.k_min <= self.cluster.k_max:
            bad.append("cluster needs 2 <= k_min <= k_max")
        if not 0 < self.split.test_fraction < 1:
            bad.append("split.test_fraction must lie in (0, 1)")
        if not self.steer or not self.planted:
            bad.append("planted and steer need at least one axis each")
        if bad:
            raise ValueError(f"config error in {where}: " + "; ".join(bad))


def load(path: Path, scale: str) -> Settings:
    where = f"{path} (scale {scale})"
    s = typed(Settings, load_settings(path, scale), where)
    s.check(where)
    return s
