"""Relative Value Learning theory checks: hand-built MDP, each theorem on random MDPs, each negative
control failing where it should, and the CLI (numpy only, a few seconds)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from repro.papers.relval import theory as th

TOL = 1e-10


def mdps(seed: int, k: int = 3, **kw) -> list[th.MDP]:
    rng = np.random.default_rng(seed)
    args = {"n_states": 5, "n_actions": 2, "p_terminate": 0.2, "reward_mean": 1.0} | kw
    return [th.random_mdp(rng, **args) for _ in range(k)]


def test_hand_built_two_state_cycle() -> None:
    # 0 -> 1 -> 0 deterministically, r = (1, 0), gamma = 1/2: V = (4/3, 2/3), z unreachable
    P = np.zeros((3, 1, 3))
    P[0, 0, 1] = P[1, 0, 0] = P[2, 0, 2] = 1.0
    mdp = th.MDP(P=P, R=np.array([[1.0], [0.0], [0.0]]), pi=np.ones((3, 1)))
    np.testing.assert_allclose(mdp.values(0.5), [4 / 3, 2 / 3, 0.0])
    D = th.pairwise_fixed_point(mdp, 0.5)
    assert D[0, 1] == pytest.approx(2 / 3) and D[1, 0] == pytest.approx(-2 / 3)
    assert D[0, 2] == pytest.approx(4 / 3) and D[2, 2] == pytest.approx(0.0)
    # one application of T to D = 0 gives the reward differences
    T0 = th.pairwise_operator(mdp.r_pi, mdp.p_pi, 0.5)(np.zeros((3, 3)))
    np.testing.assert_allclose(T0, [[0, 1, 1], [-1, 0, 0], [-1, 0, 0]])


@pytest.mark.parametrize("gamma", [0.5, 0.9, 0.99])
def test_contraction_factor_at_most_gamma_and_tight(gamma: float) -> None:
    rng = np.random.default_rng(1)
    for mdp in mdps(int(gamma * 100)):
        res = th.contraction_check(mdp, gamma, 60, rng)
        assert res["factor_random_pairs"] <= gamma + 1e-12
        assert res["factor"] <= gamma + 1e-12
        assert res["factor_witness"] == pytest.approx(gamma, abs=1e-12)  # E = 1 1^T
        assert res["exact_induced_norm"] == pytest.approx(gamma, abs=1e-12)
        assert res["factor_value_differences"] <= res["dobrushin_bound"] + 1e-12
        # control: backing up each argument separately doubles the Lipschitz constant
        assert res["control_exact_induced_norm"] == pytest.approx(2 * gamma, abs=1e-12)
        assert res["control_factor"] > gamma + 0.4


@pytest.mark.parametrize("gamma", [0.5, 0.9, 0.99])
def test_fixed_point_is_true_value_difference(gamma: float) -> None:
    rng = np.random.default_rng(2)
    for mdp in mdps(3 + int(gamma * 100)):
        res = th.fixed_point_check(mdp, gamma, rng)
        assert res["error_iterated"] <= TOL and res["error_solved"] <= TOL
        assert res["antisymmetry_error"] <= TOL
        assert res["apriori_ratio_max"] <= 1 + 1e-9
        # control: the fixed-reference operator converges to V(s_i), not V(s_i) - V(s_j)
        assert res["control_error_vs_V_i"] <= TOL
        assert res["control_error"] > 0.1 and res["control_antisymmetry_error"] > 0.1


def test_gae_equals_lambda_return_minus_value() -> None:
    mdp, gamma, lam, L = mdps(4, 1)[0], 0.9, 0.8, 7
    rng = np.random.default_rng(4)
    V = mdp.values(gamma)
    ro = th.sample_rollouts(mdp, rng, 20, L)  # z absorbs: no truncation special case needed
    s, r = ro["states"], ro["rewards"]
    A = th.gae(r, V[s], V[s[:, L]], np.full(20, L), gamma, lam)
    lam_ret = th.lambda_from_nstep(th.nstep_table(r, V[s], gamma), lam)
    np.testing.assert_allclose(A, lam_ret - V[s[:, :-1]], atol=1e-12)
    np.testing.assert_allclose(lam_ret, th.lambda_return_recursive(r, V[s], gamma, lam), atol=1e-12)


@pytest.mark.parametrize(("gamma", "lam"), [(0.9, 0.95), (0.99, 0.0), (0.99, 1.0)])
def test_targets_match_value_targets(gamma: float, lam: float) -> None:
    rng = np.random.default_rng(5)
    n_split = 0
    for mdp in mdps(6):
        D = th.pairwise_fixed_point(mdp, gamma)
        res = th.targets_check(mdp, D, gamma, lam, 3, 24, 10, rng)
        for k in ("nstep_error", "lambda_error", "anchored_nstep_error", "anchored_lambda_error",
                  "port_case_split_formula_error"):
            assert res[k] <= TOL, k
        # control: dropping the (1 - gamma^n) V(s_ref) constant of a fixed reference is wrong
        assert res["control_naive_anchored_error"] > 1e-3
        n_split += res["port_case_split_n"]
    assert n_split > 0  # the case-split diagnostic saw terminal transitions


@pytest.mark.parametrize(("gamma", "lam"), [(0.9, 0.95), (0.99, 0.0), (0.99, 1.0)])
def test_rgae_identity_per_trajectory(gamma: float, lam: float) -> None:
    rng = np.random.default_rng(7)
    n_term = 0
    for mdp in mdps(8):
        D = th.pairwise_fixed_point(mdp, gamma)
        res = th.rgae_identity_check(mdp, D, gamma, lam, 40, 12, rng)
        assert res["identity_error"] <= TOL
        assert res["offset_max_abs_masked"] > 1e-2  # B_t is not zero: the identity has content
        # control: the infinite-horizon constant c(1-g)/(1-g lam) is wrong near a segment's end
        assert res["control_naive_error_masked"] > 1e-3
        if lam > 0:
            assert res["control_naive_error_valued"] > 1e-3
        else:  # derived: at lam = 0 every B_t is c (1 - g) unless the terminal is masked
            assert res["control_naive_error_valued"] <= TOL
        n_term += res["n_terminated"]
    assert 0 < n_term < 3 * 40  # both terminated and truncated segments were checked


def test_enumeration_is_the_exact_trajectory_law() -> None:
    gamma, L = 0.9, 4
    mdp = mdps(9, 1, n_states=3)[0]
    paths = th.enumerate_paths(mdp, L)
    assert paths["prob"].sum() == pytest.approx(1.0, abs=1e-12)
    # E[sum_t gamma^t r_t] from the paths = mu^T sum_t (gamma P)^t r (z has reward 0)
    disc = (paths["rewards"] * gamma ** np.arange(L)).sum(1) @ paths["prob"]
    mu = np.zeros(mdp.n)
    mu[mdp.start_states] = 1 / len(mdp.start_states)
    exact = sum(mu @ np.linalg.matrix_power(gamma * mdp.p_pi, t) @ mdp.r_pi for t in range(L))
    assert disc == pytest.approx(exact, abs=1e-12)
    ep = th.layered_mdp(np.random.default_rng(9), 2, L, 2, 0.3)
    assert th.enumerate_paths(ep, L)["terminated"].all()  # episodic: every path terminates


def test_rgae_policy_gradient_equal_in_expectation_only() -> None:
    cfg = th.TheoryConfig(gamma=0.9, lam=0.9, pg_states=2, pg_actions=2, pg_horizon=4)
    for seed in range(3):
        res = th.rgae_pg_check(cfg, np.random.default_rng(seed))
        for k in th.PG_VARIANTS:
            assert res[k]["total_prob"] == pytest.approx(1.0, abs=1e-12)
        # the theorem: exact in expectation, not per trajectory
        assert res["truncation"]["expected_pg_rel_error"] <= TOL
        assert res["truncation"]["per_trajectory_rel_diff"] > 1e-2
        assert res["episodic_masked_lambda1"]["expected_pg_rel_error"] <= TOL
        # control: an anchor chosen after the actions biases the gradient
        assert res["control_anchor_last_state"]["expected_pg_rel_error"] > 1e-6
        # derived: with termination B_t depends on the steps left / on how the segment ends
        for k in ("episodic_masked", "episodic_valued", "mixed_masked_lambda1"):
            assert res[k]["expected_pg_rel_error"] > 1e-6, k


def test_config_validation() -> None:
    assert th.TheoryConfig.from_settings({"seeds": [3, 4]}).seeds == (3, 4)
    with pytest.raises(ValueError, match="unknown"):
        th.TheoryConfig.from_settings({"n_mdp": 3})
    with pytest.raises(ValueError, match="gamma"):
        th.TheoryConfig.from_settings({"gamma": 1.0})


TINY = {
    "seeds": [0, 1], "n_mdps": 3, "n_states": 4, "n_actions": 2, "gamma": 0.99, "lam": 0.95,
    "n_step": 3, "n_pairs": 30, "n_trajectories": 24, "horizon": 8, "pg_mdps": 1,
    "pg_states": 2, "pg_actions": 2, "pg_horizon": 3,
}


def test_cli_writes_records_and_table(tmp_path: Path) -> None:
    cfg = tmp_path / "relval.yaml"
    cfg.write_text(yaml.safe_dump({"defaults": {"theory": TINY},
                                   "scales": {"tiny": {}, "small": {}, "full": {}}}))
    out = tmp_path / "theory.json"
    th.main(["--config", str(cfg), "--scale", "tiny", "--out", str(out)])
    d = json.loads(out.read_text())
    assert {"settings", "per_seed", "summary", "records", "table"} <= set(d)
    assert d["settings"]["seeds"] == [0, 1]
    recs = d["records"]
    assert {r["seed"] for r in recs} == {0, 1}
    for r in recs:
        assert set(r) == {"method", "metric", "seed", "value"} and np.isfinite(r["value"])
    by = {(r["method"], r["metric"], r["seed"]): r["value"] for r in recs}
    assert by[("pairwise_bellman", "contraction_excess", 0)] <= 1e-12
    assert by[("additive_bellman", "contraction_excess", 0)] > 0.5
    assert by[("rgae", "pg_expectation_rel_error", 1)] <= TOL
    verdicts = {"theorem": "holds", "control": "fails as it should", "finding": "as derived"}
    assert len(d["table"]) == 16
    for row in d["table"]:
        assert row["verdict"] == verdicts[row["kind"]], row
    out2 = tmp_path / "again.json"
    th.main(["--config", str(cfg), "--scale", "tiny", "--out", str(out2)])
    assert out.read_bytes() == out2.read_bytes()
    # the table flags a broken theorem and a control that stopped failing
    bad = copy.deepcopy(d)
    bad["summary"]["contraction_factor"] = 0.995
    bad["summary"]["rgae_identity_control_error"] = 0.0
    rows = {r["check"][:12]: r["verdict"] for r in th.theory_table(bad)}
    assert rows["1 contractio"] == "FAILS" and rows["4a control: "] == "CONTROL DID NOT FAIL"
