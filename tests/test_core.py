"""Core pieces: atomic writes, deterministic JSON, pass@k, config merging and validation."""

import itertools
import json
import math

import numpy as np
import pytest

from repro.core.config import deep_merge, resolve_scale
from repro.core.io import atomic_path, read_json, write_json
from repro.core.metrics import pass_at_k
from repro.core.validate import ConfigError, validate


def test_atomic_path_leaves_nothing_when_the_block_fails(tmp_path):
    target = tmp_path / "out" / "table.csv"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert not target.exists()
    assert list((tmp_path / "out").iterdir()) == []


def test_atomic_path_replaces_old_file_and_directory(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("old")
    with atomic_path(f) as tmp:
        tmp.write_text("new")
    assert f.read_text() == "new"
    d = tmp_path / "ckpt"
    d.mkdir()
    (d / "stale").write_text("x")
    with atomic_path(d) as tmp:
        tmp.mkdir()
        (tmp / "model.bin").write_text("y")
    assert sorted(p.name for p in d.iterdir()) == ["model.bin"]


def test_write_json_is_byte_deterministic(tmp_path):
    obj = {"b": np.float64(0.5), "a": [np.int64(1), 2]}
    write_json(tmp_path / "x.json", obj)
    write_json(tmp_path / "y.json", dict(reversed(list(obj.items()))))
    assert (tmp_path / "x.json").read_bytes() == (tmp_path / "y.json").read_bytes()
    assert read_json(tmp_path / "x.json") == {"a": [1, 2], "b": 0.5}


@pytest.mark.parametrize("n,c", [(5, 0), (5, 2), (6, 6), (8, 3)])
def test_pass_at_k_matches_brute_force(n, c):
    samples = [1] * c + [0] * (n - c)
    for k in range(1, n + 1):
        subsets = list(itertools.combinations(samples, k))
        brute = sum(any(s) for s in subsets) / len(subsets)
        assert math.isclose(pass_at_k(n, c, k), brute, rel_tol=1e-12, abs_tol=1e-12)


def test_pass_at_k_rejects_k_above_n():
    with pytest.raises(ValueError, match="at least 8"):
        pass_at_k(4, 1, 8)


def test_resolve_scale_merges_defaults_and_rejects_unknown_scale():
    cfg = {"defaults": {"seeds": [0, 1, 2], "toy": {"episodes": 10, "lr": 0.1}},
           "scales": {"tiny": {"seeds": [0], "toy": {"episodes": 2}}}}
    assert resolve_scale(cfg, "tiny") == {"seeds": [0], "toy": {"episodes": 2, "lr": 0.1}}
    assert resolve_scale(cfg, "small")["toy"]["episodes"] == 10
    assert deep_merge({"a": [1, 2]}, {"a": [3]}) == {"a": [3]}
    with pytest.raises(ValueError, match="tiny, small, full"):
        resolve_scale(cfg, "huge")


SCHEMA = {"type": "object", "additionalProperties": False,
          "properties": {"scale": {"enum": ["tiny", "small", "full"]}, "n": {"type": "integer"}}}


def test_validate_names_bad_value_and_allowed_values_in_one_line():
    with pytest.raises(ConfigError) as e:
        validate({"scale": "huge"}, SCHEMA, "cfg.yaml")
    msg = str(e.value)
    assert "\n" not in msg and "'scale'" in msg and "'huge'" in msg and "'tiny'" in msg


def test_validate_names_unknown_key_and_allowed_keys():
    with pytest.raises(ConfigError) as e:
        validate({"scal": "tiny"}, SCHEMA, "cfg.yaml")
    msg = str(e.value)
    assert "unknown key 'scal'" in msg and "n, scale" in msg
    validate({"scale": "tiny", "n": 3}, SCHEMA, "cfg.yaml")  # valid passes silently


def test_json_roundtrip_of_records(tmp_path):
    recs = [{"method": "rover", "metric": "pass@1", "seed": 0, "value": 0.25}]
    write_json(tmp_path / "r.json", recs)
    assert json.loads((tmp_path / "r.json").read_text()) == recs


def test_typed_settings_build_nested_dataclasses_and_reject_unknown_keys():
    from dataclasses import dataclass, field

    import pytest

    from repro.core.config import typed

    @dataclass
    class Inner:
        lr: float = 0.1
        steps: int = 10

    @dataclass
    class Outer:
        name: str
        inner: Inner = field(default_factory=Inner)
        extra: dict = field(default_factory=dict)
        by_name: dict[str, Inner] = field(default_factory=dict)
        stages: list[Inner] = field(default_factory=list)
        maybe: Inner | None = None

    cfg = typed(Outer, {"name": "a", "inner": {"lr": 0.5}, "extra": {"k": 1},
                        "by_name": {"x": {"steps": 3}}, "stages": [{"lr": 1.0}],
                        "maybe": {"steps": 7}})
    assert cfg == Outer("a", Inner(0.5, 10), {"k": 1}, {"x": Inner(0.1, 3)}, [Inner(1.0, 10)],
                        Inner(0.1, 7))
    with pytest.raises(ValueError, match=r"by_name\.x: unknown key\(s\) stepz"):
        typed(Outer, {"name": "a", "by_name": {"x": {"stepz": 3}}})
    with pytest.raises(ValueError, match=r"toy\.inner: unknown key\(s\) lrr"):
        typed(Outer, {"name": "a", "inner": {"lrr": 0.5}}, "toy")
    with pytest.raises(ValueError, match="missing key name"):
        typed(Outer, {})


def test_seed_everything_makes_torch_deterministic_without_loading_the_compiler():
    """The flag eager kernels read is set (warn-only, as the public call would), and seeding
    does not import torch._inductor / torch._dynamo (seconds in every job) when nothing
    compiles. Run in a fresh interpreter: this process may have imported them already."""
    import subprocess
    import sys

    code = (
        "import sys, torch\n"
        "from repro.core.seeding import seed_everything\n"
        "seed_everything(3)\n"
        "a = torch.rand(3)\n"
        "seed_everything(3)\n"
        "assert torch.equal(a, torch.rand(3))\n"
        "assert torch.are_deterministic_algorithms_enabled()\n"
        "assert torch.is_deterministic_algorithms_warn_only_enabled()\n"
        "assert 'torch._inductor.config' not in sys.modules\n"
        "assert 'torch._dynamo' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
