"""cotenc: the planted-strategy generator, the parsers, clustering, the scoring of recovery,
the predictor and steering, and the shared backend's batched calls (the generic checks are in
tests/test_papers.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from repro.core.fetch import excerpt
from repro.papers.cotenc import encyclopedia as E
from repro.papers.cotenc import evaluate as V
from repro.papers.cotenc import problems as P
from repro.papers.cotenc.data import read_countdown

AXES = ["direction", "verification", "exploration"]


def test_expression_steps_evaluate_in_order():
    steps, value = P.expression_steps("(3 + 4) * (10 - 2) - 6")
    assert [(s.lhs, s.rhs) for s in steps] == [("3 + 4", "7"), ("10 - 2", "8"), ("7 * 8", "56"),
                                               ("56 - 6", "50")]
    assert value == "50"
    assert P.expression_steps("7 / 2")[1] == "7/2"


def test_countdown_problems_carry_a_valid_solution():
    from repro.core.rlvr.countdown import Problem, check_equation

    pool = read_countdown(excerpt("cotenc", "countdown/test.parquet"))
    assert len(pool) == 32  # the committed excerpt: ROVER's first 32 test problems
    got = P.countdown_problems(pool, 12, np.random.default_rng(0))
    assert len(got) == 12
    for p in got:
        assert check_equation(p.answer, Problem(tuple(p.features["nums"]),
                                                p.features["target"]))
        assert p.steps[-1].rhs == str(p.features["target"])
        assert len(p.steps) == p.features["n_numbers"] - 1


def test_logic_puzzles_answer_the_question_asked():
    for p in P.logic_problems(30, np.random.default_rng(1)):
        facts = re.findall(r"(\w+) is taller than (\w+)", p.question)
        taller = {a for a, _ in facts}
        shorter = {b for _, b in facts}
        want = (taller - shorter) if p.features["ask"] == "tallest" else (shorter - taller)
        assert want == {p.answer}


@pytest.mark.parametrize("plan", [dict(zip(AXES, c, strict=True)) for c in
                                  [("a", "a", "a"), ("b", "b", "b"), ("a", "b", "a"),
                                   ("b", "a", "b")]])
def test_each_planted_axis_changes_the_cots_structure(plan):
    rng = np.random.default_rng(3)
    p = P.arithmetic_problems(1, rng)[0]
    text = P.write_cot(p, plan, rng)
    n = len(p.steps)
    pos = [m.start() if (m := re.search(rf"(?<![\d(]){re.escape(s.lhs)}(?!\d)", text)) else -1
           for s in p.steps]
    assert all(x >= 0 for x in pos)
    # direction: the steps in evaluation order, or reversed
    assert pos == sorted(pos) if plan["direction"] == "a" else pos == sorted(pos, reverse=True)
    checks = sum(text.count(w) for w in ("Check:", "Verify this step", "Double-check"))
    finals = sum(text.count(w) for w in ("check the whole", "Verify at the end",
                                         "check the result once"))
    assert (checks, finals) == ((n, 0) if plan["verification"] == "a" else (0, 1))
    rejected = sum(text.count(w) for w in ("reject it", "that fails", "discard it"))
    assert (rejected > 0) == (plan["exploration"] == "a")
    assert ("subgoal" in text.lower()) == (plan["exploration"] == "b")
    assert text.endswith(f"Answer: {p.answer}")


def test_the_reasoner_follows_its_preference_up_to_the_noise():
    rng = np.random.default_rng(4)
    ps = P.logic_problems(20, rng) + P.arithmetic_problems(20, rng)
    for p in ps:
        _, plan = P.planted_cot(p, AXES, 0.0, rng)
        assert plan == P.preference(p)
        _, flipped = P.planted_cot(p, AXES, 1.0, rng)
        assert all(flipped[x] != plan[x] for x in AXES)
    rates = [P.planted_cot(p, AXES, 0.3, rng)[1] == P.preference(p) for p in ps * 10]
    assert np.mean(rates) == pytest.approx(0.7 ** 3, abs=0.08)


def test_answers_are_read_and_scored():
    q = {"kind": "number", "answer": "12"}
    assert P.is_correct("7 + 5 = 12. Answer: 12.", q)
    assert P.is_correct("so we get 12", q) and not P.is_correct("Answer: 13", q)
    names = {"kind": "name", "answer": "Bob", "choices": ["Ann", "Bob"]}
    assert P.is_correct("Ann is taller, so the shorter one is Bob", names)
    assert not P.is_correct("Bob is shorter than Ann", names)
    assert P.final_answer(r"thus \boxed{\frac{1}{2}} done", {"kind": "math"}) == r"\frac{1}{2}"
    assert P.is_correct("The answer is C", {"kind": "choice", "answer": "C"})


def test_criteria_lines_are_parsed_into_triplets():
    text = ("<patterns>\n1. Search direction (Forward from the givens vs. Backward from the "
            "goal)\n- Verification timing: checks each step vs checks at the end\n"
            "* Uses clear structure\n1. Search direction (Forward from the givens vs. Backward "
            "from the goal)\nx\n</patterns> trailing")
    got = E.parse_criteria(text, 10)
    assert got[0] == {"name": "Search direction", "a": "Forward from the givens",
                      "b": "Backward from the goal", "triplet": True}
    assert got[1]["triplet"] and got[1]["a"] == "checks each step"
    assert got[2] == {"name": "Uses clear structure", "a": "", "b": "", "triplet": False}
    assert len(got) == 3  # the repeat and the one-word line are dropped
    assert len(E.parse_criteria(text, 2)) == 2


def test_rubrics_are_parsed_or_fall_back_to_the_medoid():
    c = {"name": "Search direction", "a": "Forward", "b": "Backward", "triplet": True}
    r = E.parse_rubric("Pattern A: Forward: starts from the givens.\nPattern B: Backward: "
                       "starts from the goal and works back to the givens.", c, 5)
    assert r["parsed"] and r["a"] == {"name": "Forward", "text": "starts from the givens."}
    assert r["b"]["text"] == "starts from the goal and"
    bad = E.parse_rubric("I think it is good.", c, 5)
    assert not bad["parsed"] and bad["a"]["name"] == "Forward" and bad["b"]["name"] == "Backward"
    loose = E.parse_rubric("", {"name": "Clarity", "a": "", "b": "", "triplet": False}, 5)
    assert loose["b"]["name"] == "not Clarity"


def test_clustering_finds_separated_groups_and_their_medoids():
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.default_rng(0)
    centres = np.eye(8)[:3]
    x = np.concatenate([c + 0.05 * rng.normal(size=(10, 8)) for c in centres])
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    truth = np.repeat([0, 1, 2], 10)
    lab, scores = E.choose_k(x, 2, 6, "average")
    assert max(scores, key=scores.get) == 3 and adjusted_rand_score(truth, lab) == 1.0
    group = np.concatenate([centres[:1], x[:10]])
    assert E.medoid(group / np.linalg.norm(group, axis=1, keepdims=True)) == 0


def test_extractive_criteria_mask_numbers_and_skip_answers():
    cots = [{"id": "a", "text": "Compute 3 + 4: 7. Check: 3 + 4 gives 7, correct. Answer: 7"},
            {"id": "b", "text": "Compute 5 + 6: 11. Answer: 11"}]
    got = [c["name"] for c in E.extractive_criteria(cots)]
    assert got == ["Compute N + N: N.", "Check: N + N gives N, correct."]


def test_recovery_scoring_finds_the_matching_rubric_and_its_orientation():
    y = np.array([1, 0] * 10)
    z = np.stack([np.ones(20, int), 1 - y, np.arange(20) % 3 == 0], axis=1).astype(int)
    train = np.arange(20) < 10
    assert V.match_axis(z, y, train) == (1, True)
    assert V.balanced_accuracy(np.ones(20, int), y) == 0.5
    assert V.balanced_accuracy(y, y) == 1.0
    x = np.array([[0.0, 5.0], [1.0, 6.0], [2.0, 7.0], [3.0, 8.0]])
    assert V.calibrate(x, np.array([True, True, True, False])).tolist() == [[0, 0], [0, 0],
                                                                         [1, 1], [1, 1]]
    pur, ari = V.group_scores(np.repeat(np.eye(3), 4, axis=0), ["x"] * 4 + ["y"] * 4 + ["z"] * 4,
                              0)
    assert (pur, ari) == (1.0, 1.0)


def test_the_split_is_stratified_and_seeded():
    ids = {"f": [f"f{i}" for i in range(10)], "g": [f"g{i}" for i in range(4)]}
    a, b = V.split(ids, 0.5, 0), V.split(ids, 0.5, 1)
    assert len(a) == 7 and sum(x.startswith("g") for x in a) == 2
    assert a == V.split(ids, 0.5, 0) and a != b


def _settings(scale: str = "small"):
    from repro.papers.cotenc.settings import load

    return load(Path("src/repro/papers/cotenc/config.yaml"), scale)


def test_steering_picks_the_better_pattern_from_training_questions():
    from repro.papers.cotenc.generate import NONE, combinations, condition_name

    cfg = _settings()
    qs = [{"id": f"q{i}", "question": f"What is {i} + 1?"} for i in range(12)]
    rows = []
    for q in qs:
        rows.append({"question": q["id"], "condition": NONE, "correct": False})
        for pl in combinations(cfg):
            rows.append({"question": q["id"], "condition": condition_name(pl),
                         "correct": pl["direction"] == "b"})
    recs: dict[str, float] = {}
    V.steering(cfg, {"steer": qs}, {"rows": rows}, {f"q{i}" for i in range(6)},
               lambda t: np.eye(len(t), 16), 0, lambda m, k, v: recs.__setitem__(m, v))
    assert recs["steer/none"] == 0.0 and recs["steer/oracle"] == 1.0
    assert recs["steer/dataset_optimal"] == 1.0 and recs["steer/sub_optimal"] == 0.0
    assert recs["steer/question_specific"] == 1.0
    assert 0.0 <= recs["steer/random"] <= 1.0


def test_steering_prompt_spells_out_every_selected_pattern():
    from repro.papers.cotenc.generate import combinations, conversation

    cfg = _settings()
    plans = combinations(cfg)
    assert len(plans) == 2 ** len(cfg.steer)
    msgs = conversation(cfg, {"question": "What is 2 + 3?", "kind": "number"},
                        {"direction": "b", "verification": "a"})
    assert msgs[0]["role"] == "system"
    assert "Backward" in msgs[0]["content"] and "Verify as you go" in msgs[0]["content"]
    assert "Forward" not in msgs[0]["content"]
    assert conversation(cfg, {"question": "Q", "kind": "number"}, {})[0]["role"] == "user"


def test_settings_refuse_an_axis_the_generator_cannot_plant(tmp_path):
    import yaml

    from repro.papers.cotenc.settings import load

    cfg = yaml.safe_load(Path("src/repro/papers/cotenc/config.yaml").read_text())
    cfg["defaults"]["planted"] = ["direction", "style"]
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(cfg))
    with pytest.raises(ValueError, match="style"):
        load(p, "small")


@pytest.fixture(scope="module")
def local():
    from repro.core import llm

    return llm.LocalModel()


def test_shared_prefix_option_logprobs_equal_separate_calls(local):
    cot = "Start from the goal 24. To get 24 we need 28 - 4. Answer: 28 - 4"
    convs = [[{"role": "user", "content": f"Response:\n{cot}\n\nCriterion {i}: {w}. "
                                          "Answer with one letter, A or B."}]
             for i, w in enumerate(["works backward", "checks every step", "guesses"])]
    together = np.array(local.option_logprobs(convs, ["A", "B"]))
    apart = np.array([local.option_logprobs([c], ["A", "B"])[0] for c in convs])
    assert together.shape == (3, 2) and np.allclose(together, apart, atol=1e-4)
    assert np.all(together < 0)


def test_batched_generation_equals_one_at_a_time(local):
    convs = [[{"role": "user", "content": q}] for q in ("What is 2 + 2?", "Name a colour.",
                                                        "Say hello in French, please.")]
    batched = local.generate_many(convs, max_tokens=8, batch_size=3)
    single = [local.generate(c, max_tokens=8)[0] for c in convs]
    assert batched == single


def test_the_embedding_judge_prefers_the_matching_pattern():
    from repro.papers.cotenc.backends import Embedder
    from repro.papers.cotenc.judge import embed_scores

    r = {"criterion": "Direction", "a": {"name": "Backward", "text": "Starts from the goal and "
                                                                      "works backward."},
         "b": {"name": "Forward", "text": "Starts from the givens and works forward."}}
    cots = [{"text": "Begin at the target 24 and work backward. We need 28 - 4."},
            {"text": "Start from the numbers and work forward. 25 + 3 gives 28."}]
    s = embed_scores(Embedder("minilm"), cots, [r])
    assert s[0, 0] > 0 > s[1, 0]
