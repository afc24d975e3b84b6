"""Helpers the Snakefile uses at parse time. Light on purpose: yaml and jsonschema only,
since every `snakemake -n` pays for what is imported here."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from repro.core.config import load_yaml, resolve_scale
from repro.core.validate import ConfigError, validate


def fail(err: Exception) -> NoReturn:
    """One line naming the key and the allowed values, then stop before any job runs."""
    print(err, file=sys.stderr)
    sys.exit(1)


def setup_job_env(basedir: str | Path) -> None:
    """Jobs run this checkout's code with the interpreter running snakemake.

    `python` resolves to that interpreter unless `--use-conda` puts its env first on PATH.
    """
    src = str(Path(basedir) / "src")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])


def check_config(config: dict[str, Any]) -> None:
    try:
        validate(config, "workflow/schemas/config.schema.yaml",
                 "config (config/config.yaml, --config)")
    except ConfigError as err:
        fail(err)


def paper_settings(pid: str, scale: str) -> tuple[str, dict[str, Any]]:
    """Load config/papers/<pid>.yaml, validate its structure and its settings at `scale`."""
    path = f"config/papers/{pid}.yaml"
    try:
        raw = load_yaml(path)
        validate(raw, "workflow/schemas/paper.schema.yaml", path)
        settings = resolve_scale(raw, scale)
        validate(settings, f"workflow/schemas/{pid}.schema.yaml", f"{path} (scale {scale})")
    except (ConfigError, FileNotFoundError) as err:
        fail(err)
    return path, settings


def src(pid: str, *modules: str) -> list[str]:
    """Source files of a paper's package that a rule runs (rule inputs, so edits rerun it)."""
    return [f"src/repro/papers/{pid}/{m}.py" for m in modules]


def core(*modules: str) -> list[str]:
    return [f"src/repro/core/{m}.py" for m in modules]


def slug(name: str) -> str:
    """File-name form of an id with slashes (ALE/Breakout-v5 -> ALE_Breakout-v5)."""
    return name.replace("/", "_")
