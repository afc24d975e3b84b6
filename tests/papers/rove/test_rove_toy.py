"""ROVER Fig. 5 toy: environment, exact recursions, learning, exact metrics, CLI contract."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from repro.papers.rove import toy

CONFIG = Path(__file__).resolve().parents[3] / "src/repro/papers/rove/config.yaml"
PAPER = toy.ToyConfig(methods=("q_learning", "rover_greedy", "rover_rho0.1", "rover_rho1"))


@pytest.fixture
def env() -> toy.ToyTree:
    return toy.ToyTree(PAPER.actions, PAPER.depth, PAPER.rewarding, PAPER.reward)


def q_of(env: toy.ToyTree, q: np.ndarray, state: str) -> np.ndarray:
    return q[env.state_names().index(state)]


def test_enumeration_and_rewards(env: toy.ToyTree) -> None:
    seqs = env.sequences()
    assert len(seqs) == 64 and len(set(seqs)) == 64
    assert seqs[0] == "AAA" and seqs[-1] == "DDD"
    assert [env.code(s) for s in seqs] == list(range(64))
    rewarded = {s for s, r in zip(seqs, env.terminal_reward, strict=True) if r > 0}
    assert rewarded == {"ACD", "BDC", "CAB", "DBA"}
    assert set(env.terminal_reward) == {0.0, 1.0}
    assert env.n_states == 1 + 4 + 16 and len(env.state_names()) == 21


def test_exact_uniform_q_matches_paper_fig5d(env: toy.ToyTree) -> None:
    q = toy.exact_q(env, "mean")
    # every first action has exactly 1 rewarding completion out of 16 -> Q^u = 1/16
    np.testing.assert_allclose(q_of(env, q, "root"), [1 / 16] * 4)
    np.testing.assert_allclose(q_of(env, q, "A"), [0, 0, 1 / 4, 0])
    np.testing.assert_allclose(q_of(env, q, "D"), [0, 1 / 4, 0, 0])
    np.testing.assert_allclose(q_of(env, q, "AC"), [0, 0, 0, 1])
    np.testing.assert_allclose(q_of(env, q, "DB"), [1, 0, 0, 0])
    np.testing.assert_allclose(q_of(env, q, "AA"), [0, 0, 0, 0])
    # Q^u(s, a) = probability that acting uniformly afterwards succeeds: check by enumeration
    for a, first in enumerate(env.actions):
        completions = [s for s in env.sequences() if s[0] == first]
        frac = np.mean([env.terminal_reward[env.code(s)] for s in completions])
        assert q_of(env, q, "root")[a] == pytest.approx(frac)
    qstar = toy.exact_q(env, "max")
    np.testing.assert_allclose(q_of(env, qstar, "root"), [1, 1, 1, 1])
    np.testing.assert_allclose(q_of(env, qstar, "B"), [0, 0, 0, 1])


def test_sequence_probs_are_exact(env: toy.ToyTree) -> None:
    rng = np.random.default_rng(0)
    pi = rng.dirichlet(np.ones(4), size=env.n_states)
    p = toy.sequence_probs(env, pi)
    assert p.sum() == pytest.approx(1.0)
    names = env.state_names()
    for seq in ("ACD", "DBA", "BCA"):
        expect = pi[0][env.actions.index(seq[0])]
        expect *= pi[names.index(seq[0])][env.actions.index(seq[1])]
        expect *= pi[names.index(seq[:2])][env.actions.index(seq[2])]
        assert p[env.code(seq)] == pytest.approx(expect)
    uniform = np.full((env.n_states, 4), 0.25)
    m = toy.policy_metrics(env, toy.sequence_probs(env, uniform), 0.05)
    assert m == {"toy_success": pytest.approx(4 / 64), "toy_modes": 0, "toy_modes_given_success": 4}


def test_softmax_on_exact_q_has_closed_form(env: toy.ToyTree) -> None:
    q = toy.exact_q(env, "mean")
    for rho in (0.1, 1.0, 3.0):
        p = toy.sequence_probs(env, toy.softmax(q, rho))
        step2 = math.exp(0.25 / rho) / (math.exp(0.25 / rho) + 3)
        step3 = math.exp(1 / rho) / (math.exp(1 / rho) + 3)
        m = toy.policy_metrics(env, p, 0.05)
        assert m["toy_success"] == pytest.approx(step2 * step3)
        assert m["toy_modes_given_success"] == 4
    # greedy on the exact Q: the root is a 4-way tie, broken uniformly -> all modes, success 1
    m = toy.policy_metrics(env, toy.sequence_probs(env, toy.greedy(q, 1e-12)), 0.05)
    assert m == {"toy_success": pytest.approx(1.0), "toy_modes": 4, "toy_modes_given_success": 4}


def test_learned_uniform_q_converges_to_exact_recursion(env: toy.ToyTree) -> None:
    cfg = toy.ToyConfig(episodes=3000)
    exact = toy.exact_q(env, "mean")
    for method in ("rover_rho1", "rover_rho3"):
        q = toy.train(env, method, cfg, toy.run_rng(0, method))
        assert np.abs(q - exact).max() < 1e-2, method
    # the greedy method's Q is exact along the branches it keeps visiting
    q = toy.train(env, "rover_greedy", cfg, toy.run_rng(0, "rover_greedy"))
    first = int(np.argmax(q[0]))
    assert q[0, first] == pytest.approx(1 / 16, abs=1e-3)


def test_greedy_methods_find_a_rewarding_sequence(env: toy.ToyTree) -> None:
    cfg = toy.ToyConfig(episodes=2000)
    for method in ("q_learning", "rover_greedy"):
        q = toy.train(env, method, cfg, toy.run_rng(0, method))
        p = toy.sequence_probs(env, toy.eval_policy(q, method, cfg))
        assert toy.policy_metrics(env, p, 0.05)["toy_success"] == pytest.approx(1.0)


def test_method_names_and_config_validation() -> None:
    assert toy.parse_method("rover_rho0.1") == ("rover_soft", 0.1)
    assert toy.parse_method("rover_rho3") == ("rover_soft", 3.0)
    assert toy.parse_method("q_learning") == ("q_learning", None)
    for bad in ("rover_rho0", "rover", "sarsa", "rover_rho-1"):
        with pytest.raises(ValueError, match="toy.methods"):
            toy.parse_method(bad)
    with pytest.raises(ValueError, match="unknown key"):
        toy.ToyConfig.from_settings({"eval_samples": 10})
    with pytest.raises(ValueError, match="rewarding"):
        toy.ToyConfig.from_settings({"rewarding": ["ACE"]})


def test_same_seed_same_json() -> None:
    cfg = toy.ToyConfig(methods=("q_learning", "rover_rho1"), episodes=150)
    a = json.dumps(toy.run(cfg, [0, 1]), sort_keys=True)
    b = json.dumps(toy.run(cfg, [0, 1]), sort_keys=True)
    c = json.dumps(toy.run(cfg, [2, 1]), sort_keys=True)
    assert a == b and a != c


def test_cli_writes_documented_json_at_tiny_scale(tmp_path: Path) -> None:
    out = tmp_path / "rove" / "toy" / "metrics.json"
    toy.main(["--config", str(CONFIG), "--scale", "tiny", "--out", str(out)])
    d = json.loads(out.read_text())
    assert {"settings", "records", "policies"} <= set(d)
    methods, seeds = d["settings"]["methods"], d["settings"]["seeds"]
    assert len(d["records"]) == len(methods) * len(seeds) * len(toy.METRICS)
    for r in d["records"]:
        assert set(r) == {"method", "metric", "seed", "value"}
        assert r["method"] in methods and r["seed"] in seeds and r["metric"] in toy.METRICS
        if r["metric"] == "toy_success":
            assert 0.0 <= r["value"] <= 1.0 + 1e-12
        else:
            assert r["value"] in range(5)
    for m in methods:
        for s in seeds:
            pol = d["policies"][m][str(s)]
            assert set(pol["first_action"]) == {"A", "B", "C", "D"}
            assert sum(pol["first_action"].values()) == pytest.approx(1.0)
            assert len(pol["sequences"]) == 64
            assert sum(pol["sequences"].values()) == pytest.approx(1.0)
    # writing again gives identical bytes (determinism end to end)
    out2 = tmp_path / "again.json"
    toy.main(["--config", str(CONFIG), "--scale", "tiny", "--out", str(out2)])
    assert out.read_bytes() == out2.read_bytes()
