"""Config validation with one-line errors that name the key and what is allowed.

Runs at Snakefile parse time, before any job, so it imports only yaml and jsonschema.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jsonschema

from repro.core.config import load_yaml


class ConfigError(ValueError):
    """A config key or value is wrong; the message is one line meant for the user."""


def _where(path: Any) -> str:
    parts = [str(p) for p in path]
    return ".".join(parts) if parts else "<top level>"


Locate = Callable[[list[Any]], str]
"""Where a key (its path in the validated instance) is written, as a dotted key: a paper's
settings are a merge, so `toy.lr` may be written as `defaults.toy.lr` or `scales.full.toy.lr`."""


def _allowed(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return "allowed: " + ", ".join(repr(v) for v in schema["enum"])
    if "const" in schema:
        return f"allowed: {schema['const']!r}"
    if "type" in schema:
        return f"expected type: {schema['type']}"
    return ""


def _unknown(err: jsonschema.ValidationError) -> tuple[str, str]:
    """The first key an `additionalProperties: false` object does not allow, and the keys
    (and key patterns) it does."""
    props = err.schema.get("properties", {})
    patterns = list(err.schema.get("patternProperties", {}))
    extra = sorted(k for k in err.instance
                   if k not in props and not any(re.search(p, str(k)) for p in patterns))
    allowed = ", ".join([*sorted(props), *(f"keys matching {p}" for p in patterns)])
    return str(extra[0]) if extra else "?", allowed


def one_line(err: jsonschema.ValidationError, source: str, locate: Locate | None = None) -> str:
    """One line naming the key by its full dotted path (as `locate` writes it) and what is
    allowed there."""
    path = list(err.absolute_path)
    name = locate or _where
    if err.validator == "additionalProperties" and err.schema.get("additionalProperties") is False:
        key, allowed = _unknown(err)
        return (f"config error in {source}: unknown key {name([*path, key])!r} "
                f"(allowed keys: {allowed})")
    if err.validator == "required":
        missing = next((k for k in err.validator_value if k not in err.instance), "?")
        return (f"config error in {source}: missing key {_where([*path, missing])!r} "
                f"(required: {', '.join(err.validator_value)})")
    hint = _allowed(err.schema)
    return (
        f"config error in {source}: key {name(path)!r} = {err.instance!r} is invalid"
        + (f" ({hint})" if hint else f" ({err.message})")
    )


# an unknown key before the missing key it was probably meant to be (`lrr` for a required `lr`)
_RELEVANCE = jsonschema.exceptions.by_relevance(strong=frozenset({"additionalProperties"}))


@functools.cache
def _validator(path: str) -> jsonschema.protocols.Validator:
    """A schema file's validator, built once per process (a dry run validates each paper's
    settings at every scale, and some papers twice)."""
    return jsonschema.Draft202012Validator(load_yaml(path))


def validate(instance: Any, schema: Mapping[str, Any] | str | Path, source: str,
             locate: Locate | None = None) -> None:
    """Raise ConfigError with one line for the first (most relevant) schema violation;
    `locate` writes a key's path as the user wrote it (default: the path in `instance`)."""
    if isinstance(schema, Mapping):
        validator = jsonschema.Draft202012Validator(schema)
    else:
        validator = _validator(str(Path(schema).resolve()))
    errors = sorted(validator.iter_errors(instance), key=lambda e: (len(e.absolute_path), e.path))
    if errors:
        best = jsonschema.exceptions.best_match(errors, key=_RELEVANCE)
        raise ConfigError(one_line(best, source, locate))
