"""Paper configs: one YAML per paper with shared `defaults`, per-scale overrides, the paper's
reported numbers and its claims. Jobs read their settings through `load_settings`."""

from __future__ import annotations

import argparse
import copy
import dataclasses
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml

SCALES = ("tiny", "small", "full")
T = TypeVar("T")


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


def typed(cls: type[T], settings: Mapping[str, Any], where: str = "settings") -> T:
    """A settings dataclass (nested dataclasses too) from a YAML mapping, at a job's entry point.

    Unknown keys and missing required fields fail with one line naming the dotted key, so a
    job's method code reads typed fields (`cfg.rl.lr`) instead of passing dictionaries around.
    Fields typed `dict[...]` / `list[...]` / `Any` keep the YAML value as it is.
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    names = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(settings) - set(names))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)} "
                         f"(allowed: {', '.join(sorted(names))})")
    kwargs: dict[str, Any] = {}
    for name, f in names.items():
        if name not in settings:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{where}: missing key {name}")
            continue
        value, hint = settings[name], hints.get(name)
        sub = _dataclass_of(hint)
        if sub is not None and isinstance(value, Mapping):
            value = typed(sub, value, f"{where}.{name}")
        kwargs[name] = value
    return cls(**kwargs)


def _dataclass_of(hint: Any) -> type | None:
    """The dataclass in a hint (`Sub` or `Sub | None`), if there is one."""
    if dataclasses.is_dataclass(hint):
        return hint
    for arg in typing.get_args(hint):
        if dataclasses.is_dataclass(arg):
            return arg
    return None
