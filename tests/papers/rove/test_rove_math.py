"""ROVER's math task (DeepScaleR setting): reward, problem loading, and a tiny end-to-end run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from repro.core.fetch import excerpt
from repro.core.rlvr import evaluate, sft
from repro.core.rlvr import math_task as mt
from repro.core.tokenizers import ByteTokenizer
from repro.papers.rove import train

REPO = Path(__file__).resolve().parents[3]
CONFIG = str(REPO / "src/repro/papers/rove/config.yaml")


def _bench(name: str) -> list[mt.MathProblem]:
    import pandas as pd

    from repro.core.config import load_settings

    files = load_settings(CONFIG, "full")["math"]["data"]["benchmarks"]
    path = excerpt("rove", f"math-eval/{files[name]}")  # the official file's first problems
    return mt.frame_to_problems(pd.read_parquet(path), name)


def test_benchmarks_are_deduped():
    """The committed excerpts keep the official files' repeats (each problem twice, as the
    x256/x64/x5 files tile their problems); loading keeps one of each."""
    sizes = {name: len(_bench(name)) for name in ("aime24", "aime25", "hmmt25", "amc23")}
    assert sizes == {"aime24": 10, "aime25": 10, "hmmt25": 10, "amc23": 10}
    m500 = _bench("math500")
    assert len(m500) == 16 and len({p.key() for p in m500}) == 16
    p = _bench("aime24")[0]
    assert p.answer == "204" and p.question.endswith(mt.INSTRUCTION)
    assert _bench("amc23")[0].answer == "27"  # a float ground truth, 27.0, as text


@pytest.mark.parametrize("name", ["aime24", "aime25", "hmmt25", "math500"])
def test_reward_on_real_rows(name):
    for p in _bench(name)[:10]:
        assert mt.score(f"So the answer is \\boxed{{{p.answer}}}.", p) == (1.0, True)
        assert mt.score(f"\\boxed{{{p.answer}}} wait, no: \\boxed{{-98765}}", p) == (0.0, False)
        assert mt.score(p.answer, p) == (0.0, False)  # no \boxed{}: no answer


def test_equivalent_forms_and_answer_extraction():
    p = mt.MathProblem("q", "\\frac{1}{2}")
    assert mt.score("\\boxed{1/2}", p)[1]
    assert mt.score("\\boxed{0.5}", p)[1]
    assert mt.score("\\boxed{\\dfrac{1}{2}}", p)[1]
    assert not mt.score("\\boxed{\\frac{1}{3}}", p)[1]
    assert mt.last_boxed("a \\boxed{\\frac{1}{2}} b \\boxed{x^{2}}") == "x^{2}"
    assert mt.last_boxed("none") is None
    assert mt.canonical_answer("$1,000$.") == mt.canonical_answer("1000") == "1000"
    assert mt.canonical_answer("\\frac{2}{4}") == mt.canonical_answer("0.5")
    if mt.CHECKER == "math_verify":  # symbolic equivalence needs the official checker
        assert mt.score("\\boxed{\\sqrt{4}}", mt.MathProblem("q", "2"))[1]


def test_prompt_styles():
    task = mt.MathTask("plain", max_prompt_chars=10)
    p = mt.MathProblem("What is 1+1? " + mt.INSTRUCTION, "2")
    tok = ByteTokenizer()
    assert task.prompt_text(tok, p) == mt.INSTRUCTION[-10:] + "\nAnswer: "
    assert tok.decode(task.prompt_ids(tok, p)) == task.prompt_text(tok, p)
    assert tok.decode(tok.encode("π ≈ \\frac{22}{7}") + [tok.eos_id, 5]) == "π ≈ \\frac{22}{7}"
    rng = np.random.default_rng(0)
    assert task.warmup_answer(p, rng, 1.0) == "\\boxed{2}"


def test_byte_tokenizer_layouts_and_checkpoint_files(tmp_path):
    """rlvr's layout (pad/eos first, byte b -> b + 2) and REAP's (bytes first, then
    pad/bos/eos) from one class; a checkpoint's byte_tokenizer.json, old or new, loads back."""
    rl, reap = ByteTokenizer(), ByteTokenizer(("<pad>", "<bos>", "<eos>"), specials_first=False)
    assert (rl.pad_id, rl.eos_id, rl.bos_id, rl.vocab_size) == (0, 1, None, 258)
    assert (reap.pad_id, reap.bos_id, reap.eos_id, reap.vocab_size) == (256, 257, 258, 259)
    assert rl.encode("A") == [67] and reap.encode("A") == [65]
    for tok in (rl, reap):
        ids = [tok.pad_id, *tok.encode("é1"), tok.eos_id, *tok.encode("x")]
        assert tok.decode(ids) == "é1"
        tok.save(tmp_path)
        back = ByteTokenizer.load(tmp_path)
        assert (back.pad_id, back.eos_id, back.vocab_size) == (tok.pad_id, tok.eos_id,
                                                               tok.vocab_size)
    old = '{"kind": "byte", "specials": ["<pad>", "<eos>"]}'
    (tmp_path / "byte_tokenizer.json").write_text(old)
    assert ByteTokenizer.load(tmp_path).encode("A") == [67]  # files written before this class


def test_fallback_checker_without_math_verify(monkeypatch):
    monkeypatch.setattr(mt, "_mv_verify", None)
    p = mt.MathProblem("q", "\\frac{1}{2}")
    assert mt.score("\\boxed{0.5}", p)[1] and mt.score("\\boxed{1/2}", p)[1]
    assert not mt.score("\\boxed{2}", p)[1]
    assert mt.score("\\boxed{\\text{(A)}}", mt.MathProblem("q", "(A)"))[1]


def _cli(module, *extra: str, **args: object) -> None:
    argv = ["--task", "math", "--config", CONFIG, "--scale", "tiny", *extra]
    for k, v in args.items():
        argv += [f"--{k}", str(v)]
    module.main(argv)


def test_tiny_math_end_to_end(tmp_path):
    """fetch -> base (warm-up) -> 2 RL steps (ROVER) -> evaluate, in-process, at tiny scale."""
    mt.main(["--config", CONFIG, "--scale", "tiny", "--out", str(tmp_path / "data")])
    src = json.loads((tmp_path / "data/source.json").read_text())
    assert src["n_train"] == 8 and src["n_test"] == 3 and src["checker"] == mt.CHECKER
    _cli(sft, data=tmp_path / "data", out=tmp_path / "base")
    _cli(train, method="rover", seed=0, data=tmp_path / "data", base=tmp_path / "base",
         out=tmp_path / "rover")
    log = json.loads((tmp_path / "rover/train_log.json").read_text())
    assert len(log["steps"]) == 2 and all(np.isfinite(s["loss"]) for s in log["steps"])
    assert log["config"]["temperature"] == 1.0 and log["config"]["objective"]["std_norm"] is True
    _cli(evaluate, method="rover", seed=0, data=tmp_path / "data", policy=tmp_path / "rover",
         out=tmp_path / "eval.json")
    ev = json.loads((tmp_path / "eval.json").read_text())
    metrics = {r["metric"] for r in ev["records"]}
    assert {"math_pass@1", "math_pass@4", "math_avg@4", "math_entropy",
            "math_aime24_pass@1"} <= metrics
    assert ev["settings"]["task"] == "math"
    assert [r["source"] for r in ev["per_problem"]] == ["aime24"] * 3
