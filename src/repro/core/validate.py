"""Config validation with one-line errors that name the key and what is allowed.

Runs at Snakefile parse time, before any job, so it imports only yaml and jsonschema.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema

from repro.core.config import load_yaml


class ConfigError(ValueError):
    """A config key or value is wrong; the message is one line meant for the user."""


def _where(path: Any) -> str:
    parts = [str(p) for p in path]
    return ".".join(parts) if parts else "<top level>"


def _allowed(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return "allowed: " + ", ".join(repr(v) for v in schema["enum"])
    if "type" in schema:
        return f"expected type: {schema['type']}"
    return ""


def one_line(err: jsonschema.ValidationError, source: str) -> str:
    where = _where(err.absolute_path)
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        allowed = ", ".join(sorted(err.schema.get("properties", {})))
        return f"config error in {source}: unknown key {where + '.' if err.absolute_path else ''}" \
               f"{extra[0]!r} (allowed keys: {allowed})"
    if err.validator == "required":
        return f"config error in {source}: {where}: {err.message}"
    hint = _allowed(err.schema)
    return (
        f"config error in {source}: key {where!r} = {err.instance!r} is invalid"
        + (f" ({hint})" if hint else f" ({err.message})")
    )


@functools.cache
def _schema(path: str) -> dict[str, Any]:
    """A schema file, read once per process (a dry run validates each paper twice)."""
    return load_yaml(path)


def validate(instance: Any, schema: Mapping[str, Any] | str | Path, source: str) -> None:
    """Raise ConfigError with one line for the first (most relevant) schema violation."""
    if not isinstance(schema, Mapping):
        schema = _schema(str(schema))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: (len(e.absolute_path), e.path))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        raise ConfigError(one_line(best, source))
