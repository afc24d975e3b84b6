"""Paper configs: one YAML per paper with shared `defaults`, per-scale overrides, the paper's
reported numbers and its claims. Jobs read their settings through `load_settings`."""

from __future__ import annotations

import argparse
import copy
from pathlib import Path
from typing import Any

import yaml

SCALES = ("tiny", "small", "full")


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Recursive dict merge; values in `over` win, lists are replaced, not concatenated."""
    out = copy.deepcopy(base)
    for k, v in (over or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def load_yaml(path: str | Path) -> dict[str, Any]:
    with open(path) as f:
        return yaml.safe_load(f) or {}


def resolve_scale(paper_cfg: dict[str, Any], scale: str) -> dict[str, Any]:
    """The settings of one scale: `defaults` deep-merged with `scales[scale]`."""
    if scale not in SCALES:
        raise ValueError(f"scale: {scale!r} is not one of {', '.join(SCALES)}")
    return deep_merge(paper_cfg.get("defaults", {}), paper_cfg.get("scales", {}).get(scale, {}))


def load_settings(path: str | Path, scale: str) -> dict[str, Any]:
    return resolve_scale(load_yaml(path), scale)


def job_parser(description: str, log: bool = False) -> argparse.ArgumentParser:
    """The arguments every job CLI takes (its paper config, the scale, the output path);
    each CLI adds its own. `log=True` adds an optional --log file."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--config", required=True, type=Path, help="config/papers/<id>.yaml")
    ap.add_argument("--scale", required=True, choices=SCALES)
    ap.add_argument("--out", required=True, type=Path)
    if log:
        ap.add_argument("--log", type=Path, default=None, help="optional log file")
    return ap
