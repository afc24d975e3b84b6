"""ROVER Theorem 3.1 check: hand-built MDPs, a brute-force cross-check, random MDPs, CLI."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest

from repro.papers.rove import theorem as th

CONFIG = Path(__file__).resolve().parents[3] / "src/repro/papers/rove/config.yaml"


def check_nested(trees: list, tie_tol: float = 1e-12) -> dict:
    forest = th.forest_from_nested(trees)
    return th.check(forest, forest.reward, tie_tol)


def test_hand_built_values() -> None:
    # root: action 0 -> a state with 4 terminal children (1, 0, 0, 0); action 1 -> leaf 0.5
    forest = th.forest_from_nested([[[1, 0, 0, 0], 0.5]])
    u_mean, u_max = th.solve(forest, forest.reward)
    np.testing.assert_allclose(u_mean[1], [0.25, 0.5])  # Q^u(root, .)
    np.testing.assert_allclose(u_max[1], [1.0, 0.5])  # Q*(root, .)
    assert u_mean[0][0] == pytest.approx(0.375) and u_max[0][0] == 1.0
    # greedy on Q^u picks the 0.5 leaf although the other branch reaches 1: one violation
    res = check_nested([[[1, 0, 0, 0], 0.5]])
    assert res["n_states_checked"] == 2 and res["n_violations"] == 1
    assert res["optimal_fraction"] == 0.0
    # the same shape with binary rewards: greedy is optimal
    assert check_nested([[[1, 0, 0, 0], 0]])["n_violations"] == 0


def test_hand_built_ties() -> None:
    # binary tie: both branches have Q^u = 0.5 and both reach R -> fine
    assert check_nested([[[1, 0], [0, 1]]])["n_violations"] == 0
    # non-binary tie: Q^u = 0.5 on both, but the second only reaches 0.5 < 1 -> violation
    assert check_nested([[[1, 0], [0.5, 0.5]]])["n_violations"] == 1
    # all-zero MDP: every action is argmax and every action is optimal
    assert check_nested([[[0, 0], 0, [[0]]]])["n_violations"] == 0


def test_toy_tree_is_an_instance() -> None:
    actions = "ABCD"
    good = {"ACD", "BDC", "CAB", "DBA"}

    def node(prefix: str):
        if len(prefix) == 3:
            return 1.0 if prefix in good else 0.0
        return [node(prefix + a) for a in actions]

    forest = th.forest_from_nested([node("")])
    u_mean, _ = th.solve(forest, forest.reward)
    np.testing.assert_allclose(u_mean[1], [1 / 16] * 4)  # Q^u(root, a) = 1/16
    res = th.check(forest, forest.reward)
    assert res["n_states_checked"] == 21 and res["n_violations"] == 0


def _random_nested(rng: random.Random, depth: int, binary: bool):
    if depth == 3 or (depth > 0 and rng.random() < 0.3):
        return float(rng.random() < 0.3) if binary else rng.random()
    return [_random_nested(rng, depth + 1, binary) for _ in range(rng.randint(1, 3))]


def _brute_violations(node) -> int:
    """Recursive reference: count states where an argmax child of Q^u is not V*-optimal."""

    def u(n, op):
        return n if not isinstance(n, list) else op([u(c, op) for c in n])

    if not isinstance(node, list):
        return 0
    qu = [u(c, lambda xs: sum(xs) / len(xs)) for c in node]
    vs = [u(c, max) for c in node]
    bad = any(q >= max(qu) - 1e-12 and v < max(vs) - 1e-12 for q, v in zip(qu, vs, strict=True))
    return int(bad) + sum(_brute_violations(c) for c in node)


def test_vectorised_check_matches_brute_force() -> None:
    rng = random.Random(0)
    for binary in (True, False):
        trees = [_random_nested(rng, 0, binary) for _ in range(200)]
        trees = [t if isinstance(t, list) else [t] for t in trees]
        res = check_nested(trees)
        assert res["n_violations"] == sum(_brute_violations(t) for t in trees)
        n_inner = sum(1 for t in trees for _ in _inner_nodes(t))
        assert res["n_states_checked"] == n_inner


def _inner_nodes(node):
    if isinstance(node, list):
        yield node
        yield from itertools.chain.from_iterable(_inner_nodes(c) for c in node)


def test_theorem_holds_on_random_mdps_and_control_breaks_it() -> None:
    cfg = th.TheoremConfig(n_mdps=300)
    out = th.run(cfg, seed=0)
    assert out["n_mdps"] == 300 and out["n_states_checked"] > 300
    assert out["n_violations"] == 0 and out["greedy_uniform_q_optimal"] is True
    assert out["control"]["n_violations"] > 0
    fr = {r["method"]: r["value"] for r in out["records"]}
    assert fr["uniform_q_greedy"] == 1.0 and fr["uniform_q_greedy_nonbinary"] < 1.0


def test_random_forest_shapes() -> None:
    cfg = th.TheoremConfig(n_mdps=100, max_depth=5, max_branching=3)
    forest = th.random_forest(cfg, np.random.default_rng(1))
    assert len(forest.n_children) <= cfg.max_depth + 1
    assert (forest.n_children[0] >= 1).all()  # roots are never terminal
    assert all(((k >= 0) & (k <= 3)).all() for k in forest.n_children)
    assert (forest.n_children[-1] == 0).all()
    rewards = th.binary_rewards(forest, cfg, np.random.default_rng(2))
    has = np.zeros(cfg.n_mdps, dtype=bool)
    for d, r in enumerate(rewards):
        assert set(np.unique(r)) <= {0.0, 1.0}
        assert (r[~forest.leaf_mask(d)] == 0).all()
        has[forest.tree[d][r > 0]] = True
    assert has.all()  # ensure_rewarding_leaf


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="unknown key"):
        th.TheoremConfig.from_settings({"n_trees": 3})
    with pytest.raises(ValueError, match="reward"):
        th.TheoremConfig.from_settings({"reward": 0})


def test_cli_writes_documented_json_at_tiny_scale(tmp_path: Path) -> None:
    out = tmp_path / "theorem.json"
    th.main(["--config", str(CONFIG), "--scale", "tiny", "--out", str(out)])
    d = json.loads(out.read_text())
    for key in ("settings", "n_mdps", "n_states_checked", "n_violations",
                "greedy_uniform_q_optimal", "control", "records"):
        assert key in d
    assert d["n_violations"] == 0 and d["greedy_uniform_q_optimal"] is True
    assert {"assumption_broken", "n_mdps", "n_states_checked", "n_violations"} <= set(d["control"])
    assert [r["method"] for r in d["records"]] == ["uniform_q_greedy", "uniform_q_greedy_nonbinary"]
    for r in d["records"]:
        assert r["metric"] == "theorem_optimal_fraction" and 0 <= r["value"] <= 1
    out2 = tmp_path / "again.json"
    th.main(["--config", str(CONFIG), "--scale", "tiny", "--out", str(out2)])
    assert out.read_bytes() == out2.read_bytes()
