"""Countdown task pieces (verifier, canonical form, generator, pass@k) and the tiny pipeline:
data -> sft -> train (each method) -> evaluate, in-process, through the real CLIs."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from repro.core.manifest import Manifest
from repro.core.metrics import pass_at_k
from repro.core.rlvr import data as data_mod
from repro.core.rlvr import evaluate, sft, trainer
from repro.core.rlvr.countdown import (
    Problem,
    all_equations,
    canonical,
    check_equation,
    extract_equation,
    generate_problems,
    make_prompt,
    random_equation,
    score,
    solutions,
)
from repro.core.tokenizers import CharTokenizer
from repro.papers.rove import train

ROOT = Path(__file__).resolve().parents[3]
CONFIG = str(ROOT / "src/repro/papers/rove/config.yaml")
P = Problem((3, 5, 2), 13)


@pytest.mark.parametrize(
    ("eq", "ok"),
    [
        ("3+5*2", True),
        ("5*2+3", True),
        ("(5*2)+3", True),
        (" 2 * 5 + 3 ", True),
        ("3+5+2", False),  # right numbers, wrong value
        ("3+5*3", False),  # reuses 3, drops 2
        ("3+10", False),  # a number that is not given
        ("3*5", False),  # leaves a number unused
        ("3+5*2+2", False),  # uses 2 twice
        ("35*2", False),  # concatenating digits is not allowed
        ("3+5*2+", False),  # not an expression
        ("3+5**2", False),  # power is not an allowed operator
        ("3+x*2", False),  # letters
        ("", False),
        (None, False),
    ],
)
def test_verifier(eq, ok):
    assert check_equation(eq, P) is ok


def test_verifier_division_is_exact_and_zero_division_is_wrong():
    assert check_equation("8/(3-1)", Problem((8, 3, 1), 4))
    assert check_equation("(1+2)/3*9", Problem((1, 2, 3, 9), 9))
    assert not check_equation("7/2", Problem((7, 2), 3))  # 3.5, not 3
    assert check_equation("7/2*2", Problem((7, 2, 2), 7))
    assert not check_equation("5/(3-3)", Problem((5, 3, 3), 0))
    assert check_equation("-3+5*2", Problem((3, 5, 2), 7))  # unary minus, as python eval allows


def test_score_follows_the_official_partial_credit():
    assert score("3+5*2", P, "char") == (1.0, True)
    assert score("3+5+2", P, "char") == (0.1, False)  # extracted but wrong
    assert score("3+5+2", P, "char", format_score=0.0) == (0.0, False)
    assert score("3+a", P, "char") == (0.0, False)  # nothing extractable
    resp = " 3+5=8 </think> <answer>3+5+2</answer> oops <answer> 3 + 5 * 2 </answer>"
    assert extract_equation(resp, "tinyzero") == "3 + 5 * 2"  # the last answer tag counts
    assert score(resp, P, "tinyzero") == (1.0, True)
    assert score("3+5*2", P, "tinyzero") == (0.0, False)  # no tags


def test_canonical_form_merges_reorderings_only():
    same = ["3+5-2", "5+3-2", "(3+5)-2", "5-(2-3)", "-2+5+3"]
    assert len({canonical(e) for e in same}) == 1
    assert canonical("3*(5-2)") == canonical("(5-2)*3")
    assert canonical("8/2*3") == canonical("3*8/2") == canonical("8/(2/3)")
    assert canonical("3*5-2") != canonical("3*(5-2)")
    assert canonical("8/2") != canonical("2/8")
    assert canonical("3+") is None


def test_equation_enumeration_and_random_equations_are_valid_format():
    eqs = all_equations((2, 3, 5))
    assert all(sorted(int(x) for x in re.findall(r"\d+", e)) == [2, 3, 5] for e in eqs)
    assert set(solutions(P)) == {e for e in eqs if check_equation(e, P)}
    assert "3+5*2" in solutions(P) and "2*5+3" in solutions(P)
    rng = np.random.default_rng(0)
    for _ in range(200):
        e = random_equation((2, 3, 5), rng)
        assert e in eqs


def test_generator_is_seeded_solvable_in_range_and_disjoint():
    test = generate_problems(20, np.random.default_rng(1), max_target=20)
    again = generate_problems(20, np.random.default_rng(1), max_target=20)
    assert test == again
    train_ = generate_problems(
        100, np.random.default_rng(2), max_target=20, exclude={p.key() for p in test}
    )
    assert not {p.key() for p in test} & {p.key() for p in train_}
    assert len({p.key() for p in train_}) == 100
    for p in test + train_:
        assert 1 <= p.target <= 20 and len(p.nums) == 3 and max(p.nums) <= 9
        assert solutions(p)


def test_prompts_and_char_tokenizer():
    tok = CharTokenizer()
    text = make_prompt(Problem((12, 5, 3), 27), "char")
    assert text == "12 5 3=27:"
    ids = tok.encode(text + "(12-5)*3")
    assert tok.decode(ids + [tok.eos_id, 5, 6]) == text + "(12-5)*3"
    with pytest.raises(ValueError, match="not in the char vocabulary"):
        tok.encode("x")
    import pandas as pd

    from repro.core.fetch import excerpt

    # byte-identical to the ROVER/TinyZero test prompts (the committed excerpt of its test set)
    for _, row in pd.read_parquet(excerpt("rove", "countdown/test.parquet")).iterrows():
        p = Problem(tuple(int(x) for x in row["nums"]), int(row["target"]))
        assert make_prompt(p, "tinyzero") == row["prompt"][0]["content"]


@pytest.mark.parametrize("n", [1, 4, 7])
def test_pass_at_k_matches_brute_force(n):
    """The estimator evaluate.py reports (repro.core.metrics), against enumeration."""
    for c in range(n + 1):
        outcomes = [1] * c + [0] * (n - c)
        for k in range(1, n + 1):
            subsets = list(itertools.combinations(range(n), k))
            brute = sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)
            assert pass_at_k(n, c, k) == pytest.approx(brute, abs=1e-12)
    with pytest.raises(ValueError):
        pass_at_k(n, 0, n + 1)


def test_full_data_reads_the_mirror_test_set_and_keeps_train_disjoint(tmp_path, monkeypatch):
    import pandas as pd

    mirror = tmp_path / "mirror"
    (mirror / "countdown").mkdir(parents=True)
    pd.DataFrame({"nums": [[1, 2, 3], [4, 5, 6]], "target": [6, 15]}).to_parquet(
        mirror / "countdown" / "test.parquet"
    )
    hub = pd.DataFrame({"nums": [[3, 2, 1], [7, 8, 9], [1, 1, 1]], "target": [6, 24, 3]})
    monkeypatch.setattr(data_mod, "_hub_rows", lambda cfg, train_file: hub)
    cfg = data_mod.CountdownData(
        source="hub",
        hub_dataset="x/y",
        hub_train_size=3,
        n_test=2,
        test_file="countdown/test.parquet",
        test_url="http://invalid",
    )
    manifest = Manifest("rove", tmp_path / "manifest.json")  # what these stand-in files are
    manifest.record("countdown/test.parquet", mirror / "countdown" / "test.parquet",
                    origin="mirror")
    manifest.files["x/y"] = {"origin": "hub", "requires_columns": ["nums", "target"]}
    train_, test, src = data_mod._hub(cfg, mirror, manifest, tmp_path / "cache")
    assert [p.target for p in test] == [6, 15] and src["test"].startswith("mirror ")
    assert [p.nums for p in train_] == [(7, 8, 9), (1, 1, 1)]  # (3,2,1)->6 is a test problem


def test_unreachable_hub_names_the_real_mirror_path(tmp_path, monkeypatch):
    """The error says where to put the rows: the mirror's real path, not a placeholder."""
    import sys
    import types

    import pandas as pd

    def offline(*_a, **_k):
        raise ConnectionError("no network")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=offline))
    mirror = tmp_path / "mirror"
    (mirror / "countdown").mkdir(parents=True)
    pd.DataFrame({"nums": [[1, 2, 3]], "target": [6]}).to_parquet(
        mirror / "countdown" / "test.parquet")
    cfg = data_mod.CountdownData(source="hub", hub_dataset="x/y", hub_train_size=3, n_test=1,
                                 test_file="countdown/test.parquet", test_url="http://invalid")
    manifest = Manifest("rove", tmp_path / "manifest.json")
    manifest.record("countdown/test.parquet", mirror / "countdown" / "test.parquet",
                    origin="mirror")
    with pytest.raises(SystemExit) as err:
        data_mod._hub(cfg, mirror, manifest, tmp_path / "cache")
    msg = str(err.value)
    assert str((mirror / "countdown" / "train.parquet").resolve()) in msg and "<" not in msg


# ----------------------------------------------------------------------------- tiny pipeline


# The paper's config with every Countdown method at tiny (the tiny DAG trains two of the four;
# this module trains all of them), written by the `tiny` fixture.
_TINY_CONFIG: list[str] = [CONFIG]


def _cli(module, **args: object) -> None:
    """Run a CLI's main() in-process at tiny scale (imports paid once): _cli(m, seed=0, ...)."""
    argv = ["--config", _TINY_CONFIG[0], "--scale", "tiny"]
    for k, v in args.items():
        argv += [f"--{k}", str(v)]
    module.main(argv)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rove_tiny")
    cfg = yaml.safe_load(Path(CONFIG).read_text())
    cfg["scales"]["tiny"]["countdown"]["methods"] = cfg["defaults"]["countdown"]["methods"]
    (root / "rove.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    _TINY_CONFIG[0] = str(root / "rove.yaml")
    _cli(data_mod, mirror=root / "no-mirror", out=root / "data")
    _cli(sft, data=root / "data", out=root / "base")
    return root


def _train(root: Path, method: str, seed: int, out: Path) -> dict:
    _cli(train, method=method, seed=seed, data=root / "data", base=root / "base", out=out)
    return json.loads((out / "train_log.json").read_text())


def test_tiny_data_and_sft_outputs(tiny):
    src = json.loads((tiny / "data" / "source.json").read_text())
    assert src["source"] == "generator"
    train_ = [json.loads(x) for x in (tiny / "data" / "train.jsonl").read_text().splitlines()]
    test = [json.loads(x) for x in (tiny / "data" / "test.jsonl").read_text().splitlines()]
    assert len(train_) == src["n_train"] and len(test) == src["n_test"]
    key = lambda d: (tuple(sorted(d["nums"])), d["target"])  # noqa: E731
    assert not {key(d) for d in train_} & {key(d) for d in test}
    log = json.loads((tiny / "base" / "sft_log.json").read_text())
    assert log["steps"] and all(np.isfinite(s["loss"]) for s in log["steps"])
    for f in ("policy.json", "config.json", "model.safetensors", "char_tokenizer.json"):
        assert (tiny / "base" / f).exists()
    assert not [p for p in tiny.iterdir() if p.name.startswith(".")]  # no temporaries left


@pytest.mark.parametrize("method", ["grpo", "grpo_kl", "grpo_clip_higher", "rover"])
def test_tiny_train_and_evaluate(tiny, method):
    out = tiny / method / "seed0"
    log = _train(tiny, method, 0, out)
    assert log["method"] == method and log["seed"] == 0
    assert [s["step"] for s in log["steps"]] == [1, 2]
    for s in log["steps"]:
        for k in ("reward_mean", "accuracy", "entropy", "loss"):
            assert np.isfinite(s[k])
    if method == "grpo_kl":
        assert "kl" in log["steps"][0]
    assert not (tiny / method / ".seed0.resume").exists()
    _cli(evaluate, method=method, seed=0, data=tiny / "data", policy=out, out=out / "eval.json")
    ev = json.loads((out / "eval.json").read_text())
    metrics = {r["metric"]: r["value"] for r in ev["records"]}
    assert set(metrics) == {"avg@8", "pass@1", "pass@8", "distinct_correct", "entropy"}
    assert all(r["method"] == method and r["seed"] == 0 for r in ev["records"])
    assert metrics["pass@1"] == pytest.approx(metrics["avg@8"])
    assert 0 <= metrics["pass@1"] <= metrics["pass@8"] <= 1
    assert len(ev["per_problem"]) == 4


def test_tiny_base_evaluation(tiny):
    out = tiny / "base_eval.json"
    _cli(evaluate, method="base", seed=0, data=tiny / "data", policy=tiny / "base", out=out)
    assert {r["method"] for r in json.loads(out.read_text())["records"]} == {"base"}


def test_same_seed_same_log_and_resume_matches(tiny, monkeypatch):
    a, b = tiny / "det" / "a", tiny / "det" / "b"
    _train(tiny, "rover", 1, a)
    _train(tiny, "rover", 1, b)
    assert (a / "train_log.json").read_bytes() == (b / "train_log.json").read_bytes()
    # kill a run after its first step (checkpoint_every 1 at tiny), then resume it
    real = trainer.rl_step
    calls = {"n": 0}

    def dying(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(trainer, "rl_step", dying)
    c = tiny / "det" / "c"
    with pytest.raises(KeyboardInterrupt):
        _train(tiny, "rover", 1, c)
    assert not c.exists() and (tiny / "det" / ".c.resume" / "state.pt").exists()
    monkeypatch.setattr(trainer, "rl_step", real)
    _train(tiny, "rover", 1, c)
    assert (c / "train_log.json").read_bytes() == (a / "train_log.json").read_bytes()


def test_unknown_method_names_the_allowed_ones(tiny):
    with pytest.raises(SystemExit, match="grpo, grpo_kl, grpo_clip_higher, rover"):
        _train(tiny, "ppo", 0, tiny / "ppo")
