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


# libyaml's parser where PyYAML has it (the same safe constructor, ~10x faster: every dry run
# reads each paper's config and schema)
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(path: str | Path) -> dict[str, Any]:
    with open(path) as f:
        return yaml.load(f, Loader=SafeLoader) or {}


def resolve_scale(paper_cfg: dict[str, Any], scale: str) -> dict[str, Any]:
    """The settings of one scale: `defaults` deep-merged with `scales[scale]`."""
    if scale not in SCALES:
        raise ValueError(f"scale: {scale!r} is not one of {', '.join(SCALES)}")
    return deep_merge(paper_cfg.get("defaults", {}), paper_cfg.get("scales", {}).get(scale, {}))


def load_settings(path: str | Path, scale: str) -> dict[str, Any]:
    return resolve_scale(load_yaml(path), scale)


def job_parser(description: str, log: bool = False) -> argparse.ArgumentParser:
    """The arguments every job CLI takes (its paper config, the scale, the output path);
    each CLI adds its own. `log=True` adds an optional --log file. Building it installs the
    footer that ends the job's log with its wall time and peak memory."""
    from repro.core.progress import job_footer

    job_footer()
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--config", required=True, type=Path, help="src/repro/papers/<id>/config.yaml")
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
        kwargs[name] = _typed_value(hints.get(name), settings[name], f"{where}.{name}")
    return cls(**kwargs)


def _typed_value(hint: Any, value: Any, where: str) -> Any:
    """A field's value: a dataclass (or `X | None`) from a mapping, `dict[str, X]` and
    `list[X]` of dataclasses entry by entry; anything else as the YAML gave it."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if dataclasses.is_dataclass(hint) and isinstance(value, Mapping):
        return typed(hint, value, where)
    if origin is dict and len(args) == 2 and dataclasses.is_dataclass(args[1]) \
            and isinstance(value, Mapping):
        return {k: typed(args[1], v, f"{where}.{k}") for k, v in value.items()}
    if origin is list and args and dataclasses.is_dataclass(args[0]) and isinstance(value, list):
        return [typed(args[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
    if value is not None and args and origin not in (dict, list, tuple):  # X | None
        subs = [a for a in args if dataclasses.is_dataclass(a)]
        if subs and isinstance(value, Mapping):
            return typed(subs[0], value, where)
    return value
