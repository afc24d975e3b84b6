"""Fast tests of the relval PPO / PPO+RV learner: critic antisymmetry, autoreset boundaries,
R-GAE offsets, pairwise targets under termination/truncation, seeding, short CartPole runs."""

from __future__ import annotations

import math
from dataclasses import asdict

import gymnasium as gym
import numpy as np
import pytest
import torch

from repro.core.config import typed
from repro.papers.relval import ppo
from repro.papers.relval.agent import ActorCritic
from repro.papers.relval.envs import ale_game_name, make_env
from repro.papers.relval.settings import RV_TERMINALS, PPOConfig, load, settings_of

GAMMA, LAM = 0.9, 0.8
torch.set_num_threads(1)  # tiny nets: extra threads only contend on a shared machine


class Chain(gym.Env):
    """Reward 1 per step, obs = steps since reset, terminates after `length` steps."""

    def __init__(self, length: int = 3):
        self.length = length
        self.observation_space = gym.spaces.Box(0, 1000, (1,), np.float32)
        self.action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.k = 0
        return np.array([0.0], np.float32), {}

    def step(self, action):
        self.k += 1
        return np.array([self.k], np.float32), 1.0, self.k >= self.length, False, {}


def chain_envs(lengths, limits):
    """One sub-env per (termination length, time limit) pair, NEXT_STEP autoreset."""
    fns = [lambda n=n, lim=lim: gym.wrappers.TimeLimit(Chain(n), lim)
           for n, lim in zip(lengths, limits, strict=True)]
    return gym.vector.SyncVectorEnv(fns, autoreset_mode=gym.vector.AutoresetMode.NEXT_STEP)


def exact_values(ro: ppo.Rollout, lengths) -> np.ndarray:
    """V(k) = (1 - g^(L-k)) / (1 - g) per env (ignores time limits: they are truncations)."""
    k = ro.obs[..., 0]
    L = np.asarray(lengths, float)[None, :]
    return (1 - GAMMA ** (L - k)) / (1 - GAMMA)


def rollout(lengths, limits, T):
    envs = chain_envs(lengths, limits)
    st = ppo.start(envs, seed=0)
    act = lambda o: (np.zeros(len(o), np.int64), np.zeros(len(o), np.float32))  # noqa: E731
    return ppo.collect(envs, act, st, T)


def test_relative_head_antisymmetric():
    for obs_shape in [(4,), (4, 84, 84)]:
        for head in ("pair", "diff"):
            torch.manual_seed(0)
            net = ActorCritic(obs_shape, 3, "ppo_rv", rv_head=head)
            x = torch.rand(5, *obs_shape) * (255 if len(obs_shape) == 3 else 1)
            y = torch.rand(5, *obs_shape) * (255 if len(obs_shape) == 3 else 1)
            ex, ey = net.features(x)[1], net.features(y)[1]
            d = net.delta(ex, ey)
            assert torch.allclose(d, -net.delta(ey, ex), atol=1e-6)
            assert torch.allclose(net.delta(ex, ex), torch.zeros(5), atol=1e-6)
            assert d.abs().max() > 0


def test_autoreset_boundaries_masked():
    # env 0 terminates after 3 steps; env 1 would terminate at 10 but is truncated at 4
    ro, eps = rollout([3, 10], [100, 4], T=12)
    assert ro.valid[:, 0].tolist() == [True] * 3 + [False] + [True] * 3 + [False] \
        + [True] * 3 + [False]
    assert ro.valid[:, 1].tolist() == [True] * 4 + [False] + [True] * 4 + [False] + [True] * 2
    assert ro.term[:, 0].sum() == 3 and not ro.term[:, 1].any()
    assert (ro.rewards[~ro.valid] == 0).all()
    assert sorted((r, n) for _, r, n in eps) == [(3.0, 3)] * 3 + [(4.0, 4)] * 2
    # exact values give zero advantages only if terminals, truncations (bootstrapped from the
    # true final obs) and pseudo-steps are all handled
    V = exact_values(ro, [3, 10])
    adv = ppo.gae(V, ro, GAMMA, LAM)
    assert np.abs(adv).max() < 1e-9
    # control: treating the pseudo-steps as real transitions breaks it
    bad = ppo.Rollout(**{**ro.__dict__, "valid": np.ones_like(ro.valid),
                         "done": np.zeros_like(ro.done), "term": np.zeros_like(ro.term)})
    assert np.abs(ppo.gae(V, bad, GAMMA, LAM)).max() > 0.1


def test_autoreset_with_real_env_final_obs():
    envs = make_env("CartPole-v1", 2, 0)
    st = ppo.start(envs, 0)
    act = lambda o: (np.zeros(len(o), np.int64), np.zeros(len(o), np.float32))  # noqa: E731
    ro, eps = ppo.collect(envs, act, st, 40)
    assert eps and (~ro.valid).sum() == len(eps)
    t, e = np.argwhere(ro.reset_next)[0]
    assert abs(ro.obs[t + 1, e, 2]) > 0.2  # the stored obs after a done is the failing state


def test_rgae_equals_gae_up_to_offset():
    lengths, limits, T = [5, 100], [100, 100], 12
    ro, _ = rollout(lengths, limits, T)
    V = exact_values(ro, lengths)
    anc = ppo.anchors(ro)
    c = np.take_along_axis(V, anc, 0)  # V(anchor) per state
    a_true = ppo.gae(V, ro, GAMMA, LAM)
    a_rel = ppo.gae(V - c, ro, GAMMA, LAM)  # R-GAE with an exact critic, no offset
    gl = GAMMA * LAM
    for e in range(2):
        for t in np.flatnonzero(ro.valid[:, e]):
            cc = c[t, e]
            if e == 0:  # segments end in a masked terminal
                end = t + int(np.argmax(ro.term[t:, e]))
                n_left = end - t + 1
                b = cc * ((1 - GAMMA) + GAMMA * (1 - LAM) * gl ** (n_left - 1)) / (1 - gl)
            else:  # rollout end, bootstrapped with the anchored value
                b = cc * (1 - GAMMA) * (1 - gl ** (T - t)) / (1 - gl)
            assert abs(a_rel[t, e] - a_true[t, e] - b) < 1e-9
    # an exact offset (Vhat = Delta + V(anchor)) recovers GAE exactly
    assert np.abs(ppo.gae(V - c + c, ro, GAMMA, LAM) - a_true).max() < 1e-12


@pytest.mark.parametrize("terminal", ["vhat", "case_split", "state"])
def test_pair_targets_exact_across_boundaries(terminal):
    lengths, limits = [3, 10, 7], [100, 4, 100]
    ro, _ = rollout(lengths, limits, T=16)
    V = exact_values(ro, lengths)
    e_old = torch.as_tensor(V, dtype=torch.float64)[..., None]
    L, cum, ends = ppo.nstep_windows(ro, 5, GAMMA)
    tb = ppo.RVTables(e_old, e_old[..., 0], lambda a, b: (a - b)[:, 0], torch.as_tensor(L),
                      torch.as_tensor(cum), torch.as_tensor(ends), np.zeros_like(L),
                      torch.as_tensor(ro.rewards, dtype=torch.float64), terminal)
    if terminal == "state":  # Vz = Delta(s, z) = V(s); vhat is then only R-GAE's: spoil it
        tb.vz, tb.vhat = tb.vhat, tb.vhat + 123.0
    idx = np.flatnonzero(ro.valid.ravel())
    i, j = np.repeat(idx, len(idx)), np.tile(idx, len(idx))
    y, d_old = ppo.pair_targets(tb, i, j, GAMMA, "cpu")
    Vf = V[:-1].ravel()
    assert np.abs(y.numpy() - (Vf[i] - Vf[j])).max() < 1e-9
    assert np.abs(d_old.numpy() - (Vf[i] - Vf[j])).max() < 1e-12
    assert ends.sum() > 0 and (L < 5).sum() > 0
    if terminal == "state":  # pairs with the terminal state: y_iz = V(s_i) - V(z) = V(s_i)
        y_z, v_old = ppo.terminal_targets(tb, idx, GAMMA, "cpu")
        assert np.abs(y_z.numpy() - Vf[idx]).max() < 1e-6  # float32 rewards
        assert np.abs(v_old.numpy() - Vf[idx]).max() < 1e-12
        tb.vz = tb.vz + 1.0  # control: a wrong terminal level breaks the targets
        y_bad, _ = ppo.terminal_targets(tb, idx, GAMMA, "cpu")
        assert np.abs(y_bad.numpy() - Vf[idx]).max() > 0.5


def test_sample_partners_same_and_other():
    seg = np.repeat(np.arange(4), 8).reshape(8, 4)  # (T=8, N=4): env e is segment e
    idx = np.arange(32)
    rng = np.random.default_rng(0)
    j = ppo.sample_partners(idx, seg, idx, 1.0, rng)
    assert (seg.ravel()[j] == seg.ravel()[idx]).all()
    j = ppo.sample_partners(idx, seg, idx, 0.0, rng)
    assert (seg.ravel()[j] != seg.ravel()[idx]).all()


def test_ale_names():
    assert ale_game_name("ALE/Breakout-v5") == "breakout"
    assert ale_game_name("ALE/VideoPinball-v5") == "video_pinball"


SMALL = dict(n_envs=4, n_steps=128, lr=2.5e-4, anneal_lr=True, gamma=0.99, gae_lambda=0.95,
             n_minibatches=4, update_epochs=4, clip_coef=0.2, ent_coef=0.01, vf_coef=0.5,
             max_grad_norm=0.5, norm_adv=True, clip_vloss=True,
             rv=dict(loss_coef=1.25, clip=0.15, n_step=[6, 5], same_episode_prob=0.33,
                     offsets=True))


def _cfg(**kw) -> PPOConfig:
    return typed(PPOConfig, {**SMALL, **kw})


def test_every_scale_types_every_env_and_bad_settings_fail():
    for scale in ("tiny", "small", "full"):
        s = load("src/repro/papers/relval/config.yaml", scale)
        for env in s.allowed_envs():
            assert s.run_config(env).rv.terminal in RV_TERMINALS
        for name, ab in s.ablations.items():  # an ablation is ppo_rv with its rv overrides
            for env in ab["envs"]:
                rv = s.run_config(env, name).rv
                assert {k: getattr(rv, k) for k in ab["rv"]} == ab["rv"]
                assert s.base_agent(name) == "ppo_rv"
    small = load("src/repro/papers/relval/config.yaml", "small")
    assert small.run_config("Acrobot-v1", "ppo_rv").rv.terminal == "case_split"  # the paper's
    assert small.run_config("Acrobot-v1", "ppo_rv_state").rv.terminal == "state"
    with pytest.raises(ValueError, match="rv.terminal"):
        _cfg(total_steps=1, rv={"terminal": "nowhere"})
    bad = dict(asdict(small), ablations={"x": {"rv": {}, "envs": ["ALE/Qbert-v5"]}})
    with pytest.raises(ValueError, match="not envs of this scale"):
        settings_of(bad)
    with pytest.raises(ValueError, match="must differ"):
        settings_of(dict(asdict(small), ablations={"ppo_rv": {"rv": {}, "envs": []}}))
    with pytest.raises(ValueError, match="unknown key"):
        _cfg(total_steps=1, n_epochs=3)


@pytest.mark.parametrize("agent", ["ppo", "ppo_rv"])
def test_short_cartpole_runs_and_seeding(agent):
    s = _cfg(total_steps=2048)
    a = ppo.train(s, "CartPole-v1", agent, 3, log=lambda m: None)
    b = ppo.train(s, "CartPole-v1", agent, 3, log=lambda m: None)
    assert a["curve"] == b["curve"] and a["episodes"] == b["episodes"]
    s = _cfg(total_steps=8192)
    r = ppo.train(s, "CartPole-v1", agent, 0, log=lambda m: None)
    assert len(r["curve"]) == 16 and all(math.isfinite(v) for _, v in r["curve"])
    assert math.isfinite(r["final_return"]) and r["sps"] > 0


def test_ppo_learns_cartpole():
    r = ppo.train(_cfg(total_steps=25_000), "CartPole-v1", "ppo", 0, log=lambda m: None)
    assert r["final_return"] > 60  # random policy: ~22
