"""Every key of every paper config, at every depth and in every scale, is checked when the
workflow is read (`repro.core.workflow.check_paper`, called by each paper's module).

- no object in any schema allows unknown keys by accident: each has `additionalProperties:
  false` with its keys listed, or is a map whose values are typed (`additionalProperties` /
  `patternProperties` schemas); the only open objects are the partial settings of
  paper.schema.yaml, which are checked on their merge;
- every paper's config validates at every scale;
- per paper, the deepest key of `defaults` and of a scale block, renamed with a typo or given
  a value of the wrong type, fails with one line naming the file, the scale and the dotted key
  as the file writes it; a typo in a scale that is not run fails a dry run of another scale.

The per-paper checks validate in-process (what the workflow calls, on a temporary copy of the
config); two real `snakemake -n` runs prove the wiring.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import shutil
import typing
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import PAPERS, REPO, copy_repo, snakemake

from repro.core.config import SCALES, load_yaml, resolve_scale
from repro.core.validate import ConfigError
from repro.core.workflow import check_paper

SCHEMAS = sorted([*(REPO / "workflow/schemas").glob("*.schema.yaml"),
                  *(REPO / "src/repro/papers").glob("*/schema.yaml")])
# The partial settings: any keys of the paper's settings, checked on their merge (every scale)
# against src/repro/papers/<id>/schema.yaml; the test below proves they are.
DELEGATED = {("paper.schema.yaml", p) for p in (
    "properties.defaults", "properties.scales.properties.tiny",
    "properties.scales.properties.small", "properties.scales.properties.full")}
# keywords whose value is one schema, a list of schemas, or a map of name -> schema
ONE = ("items", "additionalProperties", "unevaluatedProperties", "propertyNames", "contains",
       "not", "then", "else", "additionalItems", "unevaluatedItems")
MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
OBJECT_WORDS = ("properties", "patternProperties", "additionalProperties", "propertyNames",
                "minProperties", "maxProperties")


def _is_object(schema: dict[str, Any]) -> bool:
    t = schema.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or any(
        k in schema for k in OBJECT_WORDS)


def _closed(schema: dict[str, Any]) -> bool:
    """Unknown keys are rejected, or every extra key's value is typed (a genuine map)."""
    extra = schema.get("additionalProperties", schema.get("unevaluatedProperties"))
    return extra is False or (isinstance(extra, dict) and bool(extra))


def open_objects(schema: Any, where: str = "") -> list[str]:
    """Where (dotted schema path) an object schema lets unknown keys through. `if` schemas are
    conditions, not constraints, so they are not objects to close."""
    if not isinstance(schema, dict):
        return []
    found = [where or "<root>"] if _is_object(schema) and not _closed(schema) else []
    at = f"{where}." if where else ""
    for key, sub in schema.items():
        if key in ONE:
            found += open_objects(sub, f"{at}{key}")
        elif key in MANY:
            for i, s in enumerate(sub):
                found += open_objects(s, f"{at}{key}.{i}")
        elif key in NAMED:
            for name, s in sub.items():
                found += open_objects(s, f"{at}{key}.{name}")
    return found


def test_the_walker_finds_objects_that_allow_unknown_keys():
    assert open_objects({"type": "object", "additionalProperties": False, "properties": {
        "a": {"type": "object", "properties": {"x": {"type": "integer"}}},
        "b": {"type": "object", "additionalProperties": True},
        "c": {"type": "object", "additionalProperties": {}},
        "d": {"type": "object", "additionalProperties": {"type": "object"}},
        "e": {"type": "object", "patternProperties": {"^x$": {"type": "integer"}}},
        "f": {"type": "array", "items": {"type": "object"}},
        "g": {"type": "object", "propertyNames": {"pattern": "^x"},
              "additionalProperties": {"type": "integer"}},
        "h": {"if": {"properties": {"k": {"const": 1}}},
              "then": {"properties": {"y": True}, "additionalProperties": False}},
    }}) == ["properties.a", "properties.b", "properties.c", "properties.d.additionalProperties",
            "properties.e", "properties.f.items"]


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: str(p.relative_to(REPO)))
def test_no_schema_object_allows_unknown_keys_by_accident(path):
    found = [w for w in open_objects(load_yaml(path)) if (path.name, w) not in DELEGATED]
    assert not found, f"{path.name}: objects that allow any key: {found}"


def test_a_new_papers_skeleton_is_strict_and_valid_at_every_scale(tmp_path):
    """`python -m repro new-paper` writes a strict schema and a config valid at every scale."""
    from repro.scaffold import files

    written = files("demo_paper", "A demo")
    schema = yaml.safe_load(written["src/repro/papers/demo_paper/schema.yaml"])
    assert not open_objects(schema)
    shutil.copytree(REPO / "workflow/schemas", tmp_path / "workflow/schemas")
    for rel in ("src/repro/papers/demo_paper/schema.yaml",
                "src/repro/papers/demo_paper/config.yaml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(written[rel])
    check_paper("demo_paper", tmp_path)


def test_the_rlvr_blocks_are_typed_alike_in_rove_and_nft():
    """rove and nft share the RLVR code (repro.core.rlvr), so the blocks it types are the same
    in both schemas; `rl` differs only by rove's objective keys."""
    rove, nft = (load_yaml(REPO / f"src/repro/papers/{p}/schema.yaml")["$defs"]
                 for p in ("rove", "nft"))
    for name in ("model", "sft", "eval", "countdown_data", "math_data"):
        assert rove[name] == nft[name], name
    rl_rove, rl_nft = rove["rl"]["properties"], nft["rl"]["properties"]
    assert {k: rl_rove[k] for k in rl_nft} == rl_nft
    assert set(rl_rove) - set(rl_nft) == {"clip_eps", "clip_eps_high", "kl_beta", "rho",
                                          "std_norm"}


@pytest.mark.parametrize("pid", PAPERS)
def test_every_paper_config_validates_at_every_scale(pid):
    raw = check_paper(pid, REPO)  # raises ConfigError (one line) on the first violation
    assert {s: resolve_scale(raw, s) for s in SCALES}


def _schema_keys_not_in(cls: type, schema: Any, root: dict[str, Any], where: str) -> list[str]:
    """Keys an object schema allows that the dataclass it is typed into has no field for, down
    the dataclass fields (a job would reject them: the schema must not let them through)."""
    schema = _deref(schema, root)
    if not isinstance(schema, dict):
        return []
    hints = typing.get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls)]
    bad = [f"{where}.{k}" for k in schema.get("properties", {}) if k not in fields]
    for name in fields:
        hint = hints[name]
        sub = hint if dataclasses.is_dataclass(hint) else next(
            (a for a in typing.get_args(hint) if dataclasses.is_dataclass(a)), None)
        if sub is not None and name in schema.get("properties", {}):
            bad += _schema_keys_not_in(sub, schema["properties"][name], root, f"{where}.{name}")
    return bad


@pytest.mark.parametrize("pid", [p for p in PAPERS
                                 if (REPO / f"src/repro/papers/{p}/settings.py").exists()])
def test_the_schema_allows_no_key_the_typed_settings_lack(pid):
    """Down the typed settings (settings.Settings and its dataclass fields), every key the
    schema allows is a field: a config that passes the parse is one its jobs can read."""
    settings = importlib.import_module(f"repro.papers.{pid}.settings")
    schema = load_yaml(REPO / f"src/repro/papers/{pid}/schema.yaml")
    assert not _schema_keys_not_in(settings.Settings, schema, schema, pid)


# --------------------------------------------------------------- typos at the deepest level


def _deref(schema: Any, root: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and str(schema.get("$ref", "")).startswith("#/"):
        node: Any = root
        for part in schema["$ref"][2:].split("/"):
            node = node[part]
        schema = node
    return schema


def _value_schema(obj: Any, key: str, root: dict[str, Any]) -> tuple[Any, bool]:
    """The schema of `key`'s value in the object schema `obj`, and whether `key` is one of the
    object's fixed keys (renaming it is an error) rather than a key of a map."""
    obj = _deref(obj, root)
    if not isinstance(obj, dict):
        return None, False
    fixed = obj.get("additionalProperties") is False
    if key in obj.get("properties", {}):
        return obj["properties"][key], fixed
    for pattern, sub in obj.get("patternProperties", {}).items():
        if re.search(pattern, key):
            return sub, fixed
    extra = obj.get("additionalProperties")
    return (extra, False) if isinstance(extra, dict) else (None, False)


def _fixed_keys(node: Any, schema: Any, root: dict[str, Any], path: tuple = ()):
    """The path of every fixed key under `node` (a block of settings), in the file's order."""
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        sub, fixed = _value_schema(schema, key, root)
        if fixed:
            yield (*path, key)
        yield from _fixed_keys(value, sub, root, (*path, key))


def deepest_key(block: dict[str, Any], schema: dict[str, Any]) -> tuple:
    """The deepest fixed key of a block of settings (the first such in the file)."""
    keys = list(_fixed_keys(block, schema, schema))
    return max(keys, key=len)


def _get(node: Any, path: tuple) -> Any:
    for part in path:
        node = node[part]
    return node


def _has(node: Any, path: tuple) -> bool:
    for part in path:
        if not (isinstance(node, dict) and part in node):
            return False
        node = node[part]
    return True


def _block(raw: dict[str, Any], which: str) -> tuple[str, str, dict[str, Any]]:
    """(its dotted name, the scale its block is, the block): `defaults`, or the first scale
    other than tiny (the scale the checks run) whose block has settings (tiny where none)."""
    if which == "defaults":
        return "defaults", "", raw["defaults"]
    scale = next(s for s in ("small", "full", "tiny") if raw["scales"].get(s))
    return f"scales.{scale}", scale, raw["scales"][scale]


def _reported_at(raw: dict[str, Any], scale: str, path: tuple) -> str:
    """The scale whose settings a bad key of `scales.<scale>` (or of `defaults`: scale '')
    shows in first: check_paper checks tiny (the scale run), then small, then full; a value of
    `defaults` is in the settings of the scales whose block does not set it."""
    if scale:
        return scale
    return next(s for s in SCALES if not _has(raw["scales"].get(s) or {}, path))


def _config_and_schema(pid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return (load_yaml(REPO / f"src/repro/papers/{pid}/config.yaml"),
            load_yaml(REPO / f"src/repro/papers/{pid}/schema.yaml"))


def _check(tmp: Path, pid: str, raw: dict[str, Any]) -> str:
    """check_paper's one line on a copy of what it reads (the schemas, this config)."""
    shutil.copytree(REPO / "workflow/schemas", tmp / "workflow/schemas")
    (tmp / f"src/repro/papers/{pid}").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / f"src/repro/papers/{pid}/schema.yaml", tmp / f"src/repro/papers/{pid}")
    (tmp / f"src/repro/papers/{pid}/config.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    with pytest.raises(ConfigError) as err:
        check_paper(pid, tmp, first="tiny")
    assert "\n" not in str(err.value)
    return str(err.value)


def _typo(raw: dict[str, Any], schema: dict[str, Any], which: str) -> tuple[str, str]:
    """Rename the deepest key of a block with a typo (lr -> lrr); its scale and dotted key."""
    where, scale, block = _block(raw, which)
    path = deepest_key(block, schema)
    typo = path[-1] + path[-1][-1]
    parent = _get(block, path[:-1])
    items = list(parent.items())
    parent.clear()
    parent.update((typo if k == path[-1] else k, v) for k, v in items)
    return _reported_at(raw, scale, (*path[:-1], typo)), ".".join([where, *path[:-1], typo])


def _wrong_type(raw: dict[str, Any], schema: dict[str, Any], which: str
                ) -> tuple[str, str, Any]:
    """Give the deepest key of a block a value of another type; its scale, dotted key, value."""
    where, scale, block = _block(raw, which)
    path = deepest_key(block, schema)
    wrong = 12345 if isinstance(_get(block, path), str) else "oops"
    _get(block, path[:-1])[path[-1]] = wrong
    return _reported_at(raw, scale, path), ".".join([where, *path]), wrong


@pytest.mark.parametrize("which", ["defaults", "scale"])
@pytest.mark.parametrize("pid", PAPERS)
def test_a_typo_at_the_deepest_key_fails_in_one_line_naming_file_scale_and_key(
        pid, which, tmp_path):
    raw, schema = _config_and_schema(pid)
    scale, key = _typo(raw, schema, which)
    assert _check(tmp_path, pid, raw).startswith(
        f"config error in src/repro/papers/{pid}/config.yaml (scale {scale}): unknown key {key!r} "
        "(allowed keys: ")


@pytest.mark.parametrize("which", ["defaults", "scale"])
@pytest.mark.parametrize("pid", PAPERS)
def test_a_wrong_type_at_the_deepest_key_fails_in_one_line_naming_file_scale_and_key(
        pid, which, tmp_path):
    raw, schema = _config_and_schema(pid)
    scale, key, wrong = _wrong_type(raw, schema, which)
    assert _check(tmp_path, pid, raw).startswith(
        f"config error in src/repro/papers/{pid}/config.yaml (scale {scale}): key {key!r} = "
        f"{wrong!r} is invalid (")


# ----------------------------------------------------------------------- the real dry run


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("schemas") / "repo")


def _dry_run_error(repo: Path, pid: str, raw: dict[str, Any]) -> str:
    """The one line a tiny `snakemake -n paper_<pid>` prints with this config; no job ran."""
    path = repo / f"src/repro/papers/{pid}/config.yaml"
    original = path.read_text()
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    try:
        proc = snakemake(repo, "-n", f"paper_{pid}", check=False, warm=False, papers=pid)
    finally:
        path.write_text(original)
    assert proc.returncode != 0
    lines = [ln for ln in proc.stderr.splitlines() if "config error" in ln]
    assert len(lines) == 1, proc.stderr
    assert not (repo / "results").exists()
    return lines[0]


def test_a_tiny_dry_run_fails_on_a_typo_deep_in_a_scale_not_run(repo):
    raw, schema = _config_and_schema("rove")
    scale, key = _typo(raw, schema, "scale")
    assert scale != "tiny"
    assert _dry_run_error(repo, "rove", raw).startswith(
        f"config error in src/repro/papers/rove/config.yaml (scale {scale}): unknown key {key!r} ")


def test_a_tiny_dry_run_fails_on_a_wrong_type_deep_in_defaults(repo):
    raw, schema = _config_and_schema("relval")
    scale, key, wrong = _wrong_type(raw, schema, "defaults")
    assert _dry_run_error(repo, "relval", raw).startswith(
        f"config error in src/repro/papers/relval/config.yaml (scale {scale}): key {key!r} = "
        f"{wrong!r} is invalid")
