"""mcpmark settings as typed objects: every job reads these, never raw YAML dictionaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repro.core.config import load_settings, typed

AGENT_KINDS = ("null", "oracle", "local", "api")
SUITES = ("ours", "official")


@dataclass
class Limits:
    max_turns: int = 100
    """MCPMark's MAX_TURNS: model responses per run"""
    tool_timeout: float = 60.0
    """seconds per MCP tool call"""
    task_timeout: float = 3600.0
    """seconds per run (pipeline.py's --timeout)"""


@dataclass
class Agent:
    name: str
    kind: str
    """null | oracle | local (SmolLM2 behind a loopback endpoint) | api (REPRO_LLM_* env)"""
    model: str | None = None
    """the API model name (api) or the endpoint's model name"""
    max_tokens: int = 4096
    temperature: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    """more request fields for the API (e.g. reasoning_effort)"""
    max_turns: int | None = None
    """an agent-specific turn cap (below the benchmark's 100 only where the CPU forces it)"""
    runs: int | None = None
    """an agent-specific k (default: the config's runs)"""


@dataclass
class Database:
    file: str
    """the plain-SQL dump's name under the fetched folder"""
    url: str | None = None
    """where it is downloaded from (its manifest key, and path in a data mirror, is
    `<name>/<file>`)"""
    sha256: str | None = None


@dataclass
class Templates:
    seed: int = 0
    """the filesystem templates are rebuilt from this seed"""


@dataclass
class Suite:
    """Where the tasks come from. ours: the package's rebuilt tasks (offline; each with an oracle).
    official: MCPMark's own task folders (its description.md, verify.py and data) from the
    repository at a pinned commit, with its filesystem zips and database archives (full scale:
    the paper's exact 30 + 21 tasks, judged by the benchmark's own verifiers)."""

    source: str = "ours"
    repo: str = "eval-sys/mcpmark"
    commit: str | None = None
    """the paper-era commit (its layout: tasks/<service>/<category>/<task>)"""
    url: str = "https://codeload.github.com/{repo}/tar.gz/{commit}"
    categories: list[str] = field(default_factory=list)
    """the filesystem templates to download (official; ours derives them from the tasks)"""
    template_url: str = "https://storage.mcpmark.ai/filesystem/{category}.zip"


@dataclass
class Local:
    threads: int = 1
    """torch threads of the local model in one run job"""


@dataclass
class Settings:
    runs: int
    """k: MCPMark runs every task k = 4 times"""
    tasks: list[str]
    """<service>/<category>/<task>, or <service>/* for all of a service's"""
    agents: list[Agent]
    databases: dict[str, Database]
    limits: Limits = field(default_factory=Limits)
    templates: Templates = field(default_factory=Templates)
    local: Local = field(default_factory=Local)
    suite: Suite = field(default_factory=Suite)
    services: list[str] = field(default_factory=lambda: ["filesystem", "postgres"])
    published: str = "constructed"
    """the metric check's reference: constructed | github | a local results checkout"""

    def agent(self, name: str) -> Agent:
        for a in self.agents:
            if a.name == name:
                return a
        raise ValueError(f"no agent {name!r}; configured: {[a.name for a in self.agents]}")


def load(path: Path, scale: str) -> Settings:
    cfg = typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")
    for a in cfg.agents:
        if a.kind not in AGENT_KINDS:
            raise ValueError(f"{path}: agent {a.name}: kind {a.kind!r} not one of {AGENT_KINDS}")
    if cfg.suite.source not in SUITES:
        raise ValueError(f"{path}: suite.source {cfg.suite.source!r} not one of {SUITES}")
    if cfg.suite.source == "official" and not cfg.suite.commit:
        raise ValueError(f"{path}: the official suite needs suite.commit (a pinned commit)")
    if cfg.runs < 1:
        raise ValueError(f"{path}: runs must be >= 1")
    return cfg
