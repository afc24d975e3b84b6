"""Contextual Stackelberg games under adversarial follower types and the constants ablation:
the best fixed policy in hindsight against brute force over all policies, the run's benchmark
against a direct loop, zero regret for the hindsight policy, the adversary's phases, and the
tuning selection (tuning seeds only; main-table constants copied, not rerun)."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
import yaml

from repro.core.config import resolve_scale
from repro.papers.stackelberg import run as run_mod
from repro.papers.stackelberg.algorithms import ExploreThenCommit
from repro.papers.stackelberg.environments import (
    StackelbergEnv,
    best_policy_in_hindsight,
    phase_sequence,
)

CFG = "config/papers/stackelberg.yaml"


def _settings(scale="small"):
    from conftest import REPO

    return resolve_scale(yaml.safe_load((REPO / CFG).read_text()), scale)


def _small_adversarial_env(seed=0):
    spec = dict(_settings()["environments"]["adversarial"], leader_actions=3,
                follower_actions=2, follower_types=3,
                type_sequence={"phases": [[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]], "first_phase": 5,
                               "growth": 2.0})
    return StackelbergEnv(spec, np.random.default_rng(seed))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_best_policy_in_hindsight_matches_brute_force(seed):
    """On a finite context distribution, the per-context argmax against the empirical type
    frequencies maximises sum_t E_z u(z, pi(z))_{f_t} over all N^n policies, and every policy's
    expected regret against it is >= 0 (0 for the benchmark policy itself)."""
    env = _small_adversarial_env(seed)
    rng = np.random.default_rng(10 + seed)
    Z = rng.random((3, env.d))
    w = rng.dirichlet(np.ones(3))  # the context distribution
    F = np.stack([env.arms(z).features for z in Z])  # (3, N, K)
    f = env.draw_sequence(rng, 35).f
    idx = best_policy_in_hindsight(F, f)

    def value(pi):  # sum over the type sequence of the expected utility over contexts
        return sum(w[j] * F[j, pi[j], ft] for ft in f for j in range(3))

    best = value(idx)
    values = [value(pi) for pi in itertools.product(range(F.shape[1]), repeat=3)]
    assert F.shape[1] ** 3 == len(values) > 100
    assert best == pytest.approx(max(values), abs=1e-12)
    assert min(best - v for v in values) >= -1e-12


def test_run_benchmark_matches_a_direct_loop():
    """env.hindsight (vectorised over the fixed arms) equals the hindsight policy's realised
    utility computed round by round from the arms."""
    env = _small_adversarial_env()
    seq = env.draw_sequence(np.random.default_rng(3), 300)
    bench = env.hindsight(seq, [37, 300])
    for c in (37, 300):
        F = np.stack([env.arms(z).features for z in seq.z[:c]])
        idx = best_policy_in_hindsight(F, seq.f[:c])
        assert bench[c] == pytest.approx(sum(F[t, idx[t], seq.f[t]] for t in range(c)),
                                         abs=1e-9)


def test_the_adversarys_phases_alternate_and_grow():
    f = phase_sequence(np.random.default_rng(0), 700, [[1, 0, 0, 0], [0, 0, 0, 1]], 100, 2.0)
    assert (f[:100] == 0).all() and (f[100:300] == 3).all() and (f[300:700] == 0).all()


class _Hindsight:
    """Plays the best fixed policy in hindsight over the first T rounds (knows the sequence)."""

    name = "hindsight"

    def __init__(self, p_hat):
        self.p_hat = p_hat

    def act(self, t, z, arms, rng):
        return int(np.argmax(arms.features @ self.p_hat))

    def update(self, t, z, arms, i, obs):
        pass


def test_the_hindsight_policy_has_zero_regret_and_learners_are_measured_against_it(
        monkeypatch):
    s = copy.deepcopy(_settings())
    s["horizons"] = [150, 600]
    s["environments"]["adversarial"]["algorithms"] = ["oful", "full_info", "random"]
    out, _ = run_mod.run(s, "adversarial", 0, log=lambda m: None)
    env = StackelbergEnv(s["environments"]["adversarial"],
                         run_mod.rng_for(0, "adversarial", run_mod.INSTANCE))
    seq = env.draw_sequence(run_mod.rng_for(0, "adversarial", run_mod.SEQUENCE), 600)
    assert out["benchmark_utility"] == pytest.approx(env.hindsight(seq, [600])[600])
    for c in out["curves"].values():  # regret = benchmark(t) - utility(t), as recorded
        bench = env.hindsight(seq, c["t"])
        assert np.allclose(np.array(c["regret"]),
                           [bench[t] - u for t, u in zip(c["t"], c["utility"], strict=True)])
    assert out["regret"]["random"]["600"] > 3 * max(out["regret"]["full_info"]["600"], 1.0)
    p_hat = np.bincount(seq.f, minlength=env.K) / 600
    monkeypatch.setattr(run_mod, "make_learners", lambda s, env, name, seed: {
        "oful": (_Hindsight(p_hat), 600, np.random.default_rng(0))})
    s["environments"]["adversarial"]["algorithms"] = ["oful"]
    out, _ = run_mod.run(s, "adversarial", 0, log=lambda m: None)
    assert abs(out["regret"]["oful"]["600"]) < 1e-9


def _fake_tuning(seed, best):
    labels = ["c=1", "c=0.25"]
    reg = {lab: {"100": 10.0, "400": (1.0 if lab == best else 50.0)} for lab in labels}
    s = _settings()
    configs = run_mod.ablation_configs(s)
    return {"seed": seed, "horizons": [100, 400],
            "regret": {a: {lab: reg[lab] for lab in labels} for a in run_mod.ABLATED},
            "constants": {a: {lab: configs[a][lab] for lab in labels} for a in configs}}


def test_tuning_selection_uses_only_tuning_seeds():
    runs = [_fake_tuning(100, "c=0.25"), _fake_tuning(101, "c=0.25"), _fake_tuning(0, "c=1"),
            _fake_tuning(1, "c=1"), _fake_tuning(2, "c=1")]
    sel = run_mod.select_constants(runs, [100, 101])
    assert {a: v["label"] for a, v in sel.items()} == dict.fromkeys(run_mod.ABLATED, "c=0.25")
    assert sel["oful"]["constants"]["beta_scale"] == 0.25
    assert sel["logdet_ftrl"]["constants"]["eta_scale"] == 4.0
    assert sel["harris_etc"]["constants"] == {"explore_scale": 0.25, "log_factor": True}
    assert sel["oful"]["tuning_mean_regret_Tmax"] == {"c=1": 50.0, "c=0.25": 1.0}
    with pytest.raises(ValueError, match="tuning runs cover"):
        run_mod.select_constants(runs, [100, 101, 102])


def test_main_table_constants_are_copied_from_the_main_run():
    s = _settings()
    tuning = [_fake_tuning(seed, "c=1") for seed in s["ablation"]["tuning_seeds"]]
    main = {"regret": {a: {"100": 1.0, "400": 2.0} for a in run_mod.ABLATED}}
    out = run_mod.run_tuned(s, 0, tuning, main, log=lambda m: None)
    assert out["copied_from_main_run"] == sorted(run_mod.ABLATED)
    assert out["regret"] == main["regret"]


def test_harris_without_the_log_factor_explores_less():
    env = _small_adversarial_env()
    a = ExploreThenCommit(env, 5000, 1.0, log_factor=True)
    b = ExploreThenCommit(env, 5000, 1.0, log_factor=False)
    assert b.T0 < a.T0 and a.T0 / b.T0 == pytest.approx(np.log(5000) ** (1 / 3), rel=0.05)
