"""Contextual Stackelberg games under adversarial follower types and the constants ablation:
the best fixed policy in hindsight against brute force over all policies, the run's benchmark
against a direct loop, zero regret for the hindsight policy, the adversary's phases, the
oblivious sequence built against OFUL (independent of the real contexts, deterministic, its
brute-force definition, OFUL's own trajectory, harmful to the OFUL it simulates), and the
tuning selection (tuning seeds only; main-table constants copied, not rerun)."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
import yaml

from repro.core.config import resolve_scale
from repro.papers.stackelberg import run as run_mod
from repro.papers.stackelberg.algorithms import OFUL, ExploreThenCommit
from repro.papers.stackelberg.environments import (
    StackelbergEnv,
    best_policy_in_hindsight,
    phase_sequence,
)
from repro.papers.stackelberg.settings import env_config, settings_of

CFG = "src/repro/papers/stackelberg/config.yaml"


def _settings(scale="small"):
    from conftest import REPO

    return resolve_scale(yaml.safe_load((REPO / CFG).read_text()), scale)


def _small_adversarial_env(seed=0):
    spec = dict(_settings()["environments"]["adversarial"], leader_actions=3,
                follower_actions=2, follower_types=3,
                type_sequence={"phases": [[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]], "first_phase": 5,
                               "growth": 2.0})
    return StackelbergEnv(env_config("adversarial", spec), np.random.default_rng(seed))


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
    out, _ = run_mod.run(settings_of(s), "adversarial", 0, log=lambda m: None)
    env = StackelbergEnv(env_config("adversarial", s["environments"]["adversarial"]),
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
    out, _ = run_mod.run(settings_of(s), "adversarial", 0, log=lambda m: None)
    assert abs(out["regret"]["oful"]["600"]) < 1e-9


def _fake_tuning(seed, best):
    labels = ["c=1", "c=0.25"]
    reg = {lab: {"100": 10.0, "400": (1.0 if lab == best else 50.0)} for lab in labels}
    s = _settings()
    configs = run_mod.ablation_configs(settings_of(s))
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
    out = run_mod.run_tuned(settings_of(s), 0, tuning, main, log=lambda m: None)
    assert out["copied_from_main_run"] == sorted(run_mod.ABLATED)
    assert out["regret"] == main["regret"]


def test_harris_without_the_log_factor_explores_less():
    env = _small_adversarial_env()
    a = ExploreThenCommit(env, 5000, 1.0, log_factor=True)
    b = ExploreThenCommit(env, 5000, 1.0, log_factor=False)
    assert b.T0 < a.T0 and a.T0 / b.T0 == pytest.approx(np.log(5000) ** (1 / 3), rel=0.05)


# --- the oblivious type sequence built against OFUL (environment `adversarial_oful`) ---

ADV = "adversarial_oful"


def _adv_settings(horizons=(100, 300)):
    s = copy.deepcopy(_settings())
    s["horizons"] = list(horizons)
    s["n_checkpoints"] = 6
    return s


def _adv_env(s, seed=0):
    return StackelbergEnv(env_config(ADV, s["environments"][ADV]),
                          run_mod.rng_for(seed, ADV, run_mod.INSTANCE))


def _recording_draws(monkeypatch):
    """Record every Sequence StackelbergEnv.draw_sequence returns (shadow first, then real)."""
    calls = []
    original = StackelbergEnv.draw_sequence

    def draw(self, rng, T, types=None):
        seq = original(self, rng, T, types)
        calls.append(seq)
        return seq

    monkeypatch.setattr(StackelbergEnv, "draw_sequence", draw)
    return calls


def test_the_oful_adversary_ignores_the_real_contexts(monkeypatch):
    """The real contexts (SEQUENCE stream) change, the type sequence the run plays does not:
    the adversary is oblivious to them (and to the leader's real actions)."""
    s = _adv_settings()
    s["environments"][ADV]["algorithms"] = ["oful", "full_info"]
    calls = _recording_draws(monkeypatch)
    run_mod.run(settings_of(s), ADV, 0, log=lambda m: None)
    real_a = calls[-1]
    original = run_mod.rng_for
    monkeypatch.setattr(run_mod, "rng_for", lambda seed, env, stream: original(
        seed + 1000 if stream == run_mod.SEQUENCE else seed, env, stream))
    calls.clear()
    run_mod.run(settings_of(s), ADV, 0, log=lambda m: None)
    real_b = calls[-1]
    assert not np.allclose(real_a.z, real_b.z)  # other real contexts
    assert np.array_equal(real_a.f, real_b.f)  # the same types
    assert len(np.unique(real_a.f)) > 1


def test_the_oful_adversary_is_deterministic_from_the_seed_and_horizon_free():
    s = _adv_settings()
    env = _adv_env(s)
    cfg = settings_of(s)
    f = run_mod.adversary_sequence(cfg, env, ADV, 0, 300)[1].types
    assert np.array_equal(f, run_mod.adversary_sequence(cfg, _adv_env(s), ADV, 0, 300)[1].types)
    assert np.array_equal(f[:120], run_mod.adversary_sequence(cfg, env, ADV, 0, 120)[1].types)
    assert not np.array_equal(f, run_mod.adversary_sequence(cfg, env, ADV, 1, 300)[1].types)


@pytest.mark.parametrize("mix", [0.0, 0.3])
def test_the_oful_adversary_matches_its_definition(mix):
    """Recompute the sequence by brute force: a fresh OFUL (the main run's constants), at each
    round its choice at every evaluation context one by one (`act`, no update), the type with
    the least average utility (lowest index on ties; uniform with probability mix), then one
    shadow round against that type."""
    s = _adv_settings()
    s["environments"][ADV]["type_adversary"]["mix"] = mix
    env = _adv_env(s, seed=2)
    T = 150
    shadow, trace = run_mod.adversary_sequence(settings_of(s), env, ADV, 2, T)
    a = s["environments"][ADV]["type_adversary"]
    z_shadow = run_mod.rng_for(2, ADV, run_mod.SHADOW).random((T, env.d))
    rng = run_mod.rng_for(2, ADV, run_mod.ADVERSARY)
    z_eval = rng.random((a["eval_contexts"], env.d))
    draws = rng.random((T, 2))
    oful = OFUL(env.D, env.R, env.S, **s["oful"])
    none = np.random.default_rng(0)
    types = []
    for t in range(T):
        avg = [0.0] * env.K
        for z in z_eval:
            arms = env.arms(z)
            i = oful.act(t, z, arms, none)
            for k in range(env.K):
                avg[k] += arms.features[i, k] / len(z_eval)
        f = 0
        for k in range(1, env.K):
            if avg[k] < avg[f]:
                f = k
        if draws[t, 0] < mix:
            f = int(draws[t, 1] * env.K)
        types.append(f)
        arms = env.arms(z_shadow[t])
        i = oful.act(t, z_shadow[t], arms, none)
        oful.update(t, z_shadow[t], arms, i, env.observe(arms, i, z_shadow[t], f, 0.0))
    assert np.allclose(shadow.z, z_shadow)
    assert trace.types.tolist() == types
    if mix:
        assert 0.1 < np.mean(draws[:, 0] < mix) < 0.5  # some types were mixed in
    else:
        assert np.allclose(trace.eval_utility.min(axis=1),
                           trace.eval_utility[np.arange(T), trace.types])


def test_the_shadow_oful_is_the_runs_oful_on_the_shadow_draws(monkeypatch):
    """Run the normal path (run.run, OFUL as make_learners builds it) on the shadow draws
    (the SEQUENCE stream swapped for the SHADOW stream) with the built sequence: every arm it
    plays and its utility equal the adversary's simulation."""
    s = _adv_settings()
    s["environments"][ADV]["algorithms"] = ["oful"]
    traces, plays = [], []
    build = run_mod.adversary_sequence
    monkeypatch.setattr(run_mod, "adversary_sequence",
                        lambda *a: traces.append(build(*a)) or traces[-1])
    make = run_mod.make_learners

    class Recorder:
        def __init__(self, learner):
            self.learner = learner

        def act(self, t, z, arms, rng):
            plays.append(self.learner.act(t, z, arms, rng))
            return plays[-1]

        def update(self, *args):
            self.learner.update(*args)

    def learners(*a):
        out = make(*a)
        oful, horizon, rng = out["oful"]
        assert type(oful) is OFUL
        return {"oful": (Recorder(oful), horizon, rng)}

    monkeypatch.setattr(run_mod, "make_learners", learners)
    original = run_mod.rng_for
    monkeypatch.setattr(run_mod, "rng_for", lambda seed, env, stream: original(
        seed, env, run_mod.SHADOW if stream == run_mod.SEQUENCE else stream))
    out, _ = run_mod.run(settings_of(s), ADV, 0, log=lambda m: None)
    shadow, trace = traces[0]
    assert plays == trace.plays.tolist() and len(set(plays)) > 3
    c = out["curves"]["oful"]
    assert np.allclose(c["utility"], np.cumsum(trace.gains)[np.array(c["t"]) - 1])
    assert out["adversary"]["shadow_oful_regret"]["300"] == pytest.approx(c["regret"][-1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_oful_adversary_hurts_the_oful_it_simulates(seed):
    """On the shadow draws the sequence is built on, OFUL earns less against it than against
    i.i.d. uniform types (10 of 10 seeds at T = 300; on the *real* contexts, where OFUL's
    trajectory departs from the simulated one, only about half the seeds, so not tested)."""
    s = _adv_settings()
    env = _adv_env(s, seed)
    T = 200
    shadow, trace = run_mod.adversary_sequence(settings_of(s), env, ADV, seed, T)
    iid = np.random.default_rng(seed).integers(env.K, size=T)
    none = np.random.default_rng(0)

    def utility(types):
        oful, total = run_mod.make_oful(settings_of(s), env), 0.0
        for t in range(T):
            arms = env.arms(shadow.z[t])
            i = oful.act(t, shadow.z[t], arms, none)
            oful.update(t, shadow.z[t], arms, i, env.observe(arms, i, shadow.z[t], types[t], 0))
            total += arms.features[i, types[t]]
        return total / T

    assert utility(trace.types) == pytest.approx(trace.gains.mean())
    assert utility(trace.types) < utility(iid) - 0.005


def test_oful_choose_is_act_at_every_context():
    """The batched rule the adversary reads equals `act` context by context, and reading it
    changes nothing."""
    s = _adv_settings()
    env = _adv_env(s)
    oful = run_mod.make_oful(settings_of(s), env)
    rng = np.random.default_rng(4)
    for t, z in enumerate(rng.random((30, env.d))):
        arms = env.arms(z)
        i = int(rng.integers(len(arms.features)))
        oful.update(t, z, arms, i, env.observe(arms, i, z, int(rng.integers(env.K)), 0.0))
    Z = rng.random((16, env.d))
    F = np.stack([env.arms(z).features for z in Z])
    state = (oful.Vinv.copy(), oful.b.copy(), oful.logdet_ratio)
    got = oful.choose(F)
    assert got.tolist() == [oful.act(0, z, env.arms(z), rng) for z in Z]
    assert len(set(got.tolist())) > 1
    assert np.array_equal(state[0], oful.Vinv) and np.array_equal(state[1], oful.b)
    assert state[2] == oful.logdet_ratio
