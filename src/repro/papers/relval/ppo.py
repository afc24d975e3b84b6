"""One cleanrl-style PPO loop for both agents: "ppo" (value critic, GAE) and "ppo_rv" (pairwise
relative critic, n-step pairwise targets, R-GAE).

Autoreset: envs use gymnasium's NEXT_STEP mode (see envs.py). The step after an env done is a
pseudo-step (reset obs, reward 0, action ignored); `Rollout.valid` is False there and those steps
are left out of every loss, of the minibatches, of pair sampling and of GAE / R-GAE. The obs
stored after a done is the true final obs, so truncation bootstraps from it. Atari life loss is a
terminal for learning (cleanrl's EpisodicLife) but not an env reset; reported returns are full
games with raw rewards, learning uses sign-clipped rewards.

Relative critic (ppo_rv). Each rollout is cut into trajectory segments: a segment starts at the
rollout's first step and after every learning-episode end. The anchor of a step is its segment's
first state. Absolute value estimates used where a terminal state z appears are
    Vhat(s) = Delta_old(s, anchor) + O(anchor),
with O = 0 (rv.offsets false) or the trajectory-ranking offsets O_k = mean_j Delta(a_k, a_j) -
min_k' O_k' over the rollout's anchors (rv.offsets true; row means of the anchors' pairwise matrix,
shifted to be non-negative, as in the paper / port). Termination choice for R-GAE (see theory.py):
the step after a terminal gets next value 0, i.e. relative value -O(anchor). With O = 0 this is the
"masked terminal" variant of theory.py (bias B_t as derived there); with O = V(anchor) it would be
exact GAE (B_t = 0).
Pairwise n-step targets, for pair (i, j) with common window m = min(L_i, L_j)
(L = steps until n, a done, or the rollout end):
    y_ij = sum_{k<m} g^k (r^i_k - r^j_k) + g^m B,
    B = Delta_old(s^i_m, s^j_m)  both alive;   -Vhat(s^j_m)  i terminated at m;
        +Vhat(s^i_m)  j terminated at m;        0  both terminated,
which is exact (Delta(z, s) = -V(s)) whenever Vhat is; unlike the port's case split it never
assumes V(s_i) = r_i. Truncation / rollout end bootstrap from the stored state (no terminal).
Caveat: Vhat's absolute level comes only from the offsets, and ranking offsets are relative
(min anchor = 0), so with terminal="vhat" "all Delta = 0" is a self-consistent fixed point on
envs whose rewards are constant (CartPole: measured RV loss ~1e-6). rv.terminal="case_split"
uses the port's rewrite Delta(z, s_j') = Delta(s_i_last, s_j') - r_i_last instead: it assumes
V(s_last) = r_last (off by V(s_last) - r_last, see theory.py) but pins the absolute level at
pre-terminal states, where termination is often near-certain (CartPole, life loss); on Acrobot
(V ~ -100, reward 0 on the terminating step) it points the wrong way and 2/5 seeds never learn.
rv.terminal="state" (ours; the ablation agent ppo_rv_state) makes the absorbing terminal z a
state of the critic with learned features e_z (agent.py). Terminal bootstraps use
Vz(s) = Delta_old(s, z), i.e. B = -Vz(s^j_m) or +Vz(s^i_m), exact pairwise Bellman targets
since Delta(z, s) = -V(s); every sampled step is also paired with z, with target
    y_iz = sum_{k<L} g^k r^i_k + g^L (0 if the window ends in a terminal else Vz(s^i_L)),
the pairwise operator on (s_i, z), as z stays in z with reward 0. R-GAE keeps its form, anchored
differences plus the anchor's offset, the offset being the anchor's difference to z:
Vhat(s) = Delta_old(s, anchor) + Vz(anchor) (no ranking offsets: V(z) = 0 fixes the level).
"""

from __future__ import annotations

import copy
import math
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from repro.core.checkpoint import Resumable
from repro.core.progress import progress
from repro.papers.relval.agent import ActorCritic
from repro.papers.relval.envs import is_atari, make_env
from repro.papers.relval.settings import PPOConfig, RVConfig

# --------------------------------------------------------------------------------------------
# Rollouts
# --------------------------------------------------------------------------------------------


@dataclass
class Rollout:
    """T steps of N envs. obs has T+1 rows: obs[T] is the observation after the last step."""

    obs: np.ndarray  # (T+1, N, *obs_shape)
    actions: np.ndarray  # (T, N)
    logprobs: np.ndarray  # (T, N)
    rewards: np.ndarray  # (T, N) learning rewards (sign-clipped on Atari), 0 on pseudo-steps
    term: np.ndarray  # (T, N) terminal for learning (env terminal or life loss)
    done: np.ndarray  # (T, N) learning episode ends here (term or truncation)
    reset_next: np.ndarray  # (T, N) the env itself ended (next step is a pseudo-step)
    valid: np.ndarray  # (T, N) a real transition


@dataclass
class EnvState:
    """What carries over between rollouts."""

    obs: np.ndarray
    pseudo: np.ndarray  # next step is an autoreset pseudo-step
    ep_ret: np.ndarray
    ep_len: np.ndarray
    lives: np.ndarray | None
    global_step: int = 0


def start(envs: Any, seed: int) -> EnvState:
    obs, info = envs.reset(seed=seed)
    n = obs.shape[0]
    lives = np.asarray(info["lives"]).copy() if "lives" in info else None
    return EnvState(obs, np.zeros(n, bool), np.zeros(n), np.zeros(n, int), lives)


def collect(
    envs: Any,
    act: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    st: EnvState,
    n_steps: int,
    clip_rewards: bool = False,
) -> tuple[Rollout, list[list[float]]]:
    """Step the envs n_steps times; returns the rollout and finished [step, return, length]."""
    T, N = n_steps, st.obs.shape[0]
    obs = np.zeros((T + 1, *st.obs.shape), st.obs.dtype)
    actions = np.zeros((T, N), np.int64)
    logprobs, rewards = np.zeros((T, N), np.float32), np.zeros((T, N), np.float32)
    term, done, reset_next, valid = (np.zeros((T, N), bool) for _ in range(4))
    episodes: list[list[float]] = []
    for t in range(T):
        obs[t], valid[t] = st.obs, ~st.pseudo
        actions[t], logprobs[t] = act(st.obs)
        st.obs, r, term_env, trunc_env, info = envs.step(actions[t])
        st.global_step += N
        r = np.asarray(r, np.float64) * valid[t]
        env_done = (np.asarray(term_env) | np.asarray(trunc_env)) & valid[t]
        life_loss = np.zeros(N, bool)
        if st.lives is not None:
            lives = np.asarray(info["lives"])
            life_loss = (lives < st.lives) & valid[t] & ~env_done
            st.lives = lives.copy()
        term[t] = (np.asarray(term_env) & valid[t]) | life_loss
        done[t] = term[t] | env_done
        reset_next[t] = env_done
        rewards[t] = np.sign(r) if clip_rewards else r
        st.ep_ret += r
        st.ep_len += valid[t]
        for e in np.flatnonzero(env_done):
            episodes.append([st.global_step, float(st.ep_ret[e]), int(st.ep_len[e])])
            st.ep_ret[e], st.ep_len[e] = 0.0, 0
        st.pseudo = env_done
    obs[T] = st.obs
    return Rollout(obs, actions, logprobs, rewards, term, done, reset_next, valid), episodes


def anchors(ro: Rollout) -> np.ndarray:
    """(T+1, N) index t of the first state of the segment that obs[t] belongs to.

    A segment starts at t = 0, after a pseudo-step (reset obs) and after a learning-episode end
    that is not an env reset (life loss). The final obs after an env done stays in its episode's
    segment (it is the bootstrap state for truncation)."""
    T, N = ro.rewards.shape
    out = np.zeros((T + 1, N), np.int64)
    for t in range(1, T + 1):
        new = ~ro.valid[t - 1] | (ro.done[t - 1] & ~ro.reset_next[t - 1])
        out[t] = np.where(new, t, out[t - 1])
    return out


def gae(values: np.ndarray, ro: Rollout, gamma: float, lam: float) -> np.ndarray:
    """GAE over (T+1, N) values (absolute or anchored); 0 on pseudo-steps, terminal valued 0."""
    T = ro.rewards.shape[0]
    adv = np.zeros_like(ro.rewards, dtype=np.float64)
    last = np.zeros(ro.rewards.shape[1])
    for t in reversed(range(T)):
        delta = ro.rewards[t] + gamma * values[t + 1] * ~ro.term[t] - values[t]
        last = (delta + gamma * lam * ~ro.done[t] * last) * ro.valid[t]
        adv[t] = last
    return adv


def nstep_windows(
    ro: Rollout, n: int, gamma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per step: L (steps until n, a done or the rollout end), cum[..., m] = sum_{k<m} g^k r_{t+k}
    for m <= L, and whether the window ends in a terminal (at step L)."""
    T, N = ro.rewards.shape
    L = np.zeros((T, N), np.int64)
    cum = np.zeros((T, N, n + 1))
    ends = np.zeros((T, N), bool)
    alive = ro.valid.copy()
    ts = np.arange(T)
    for k in range(n):
        u = np.minimum(ts + k, T - 1)
        alive = alive & (ts + k < T)[:, None]
        cum[:, :, k + 1] = cum[:, :, k] + np.where(alive, gamma**k * ro.rewards[u], 0.0)
        L += alive
        ends |= alive & ro.term[u]
        alive = alive & ~ro.done[u]
    return L, cum, ends


# --------------------------------------------------------------------------------------------
# Learner
# --------------------------------------------------------------------------------------------


def _batched(fn: Callable[[torch.Tensor], torch.Tensor], x: np.ndarray, device: str,
             chunk: int = 1024) -> torch.Tensor:
    with torch.no_grad():
        return torch.cat([fn(torch.as_tensor(x[i:i + chunk], device=device))
                          for i in range(0, len(x), chunk)])


def trajectory_offsets(head: nn.Module, e_anchor: torch.Tensor) -> torch.Tensor:
    """Trajectory ranking: O_k = mean_j Delta(a_k, a_j), shifted so min_k O_k = 0."""
    K = e_anchor.shape[0]
    with torch.no_grad():
        d = head(e_anchor.repeat_interleave(K, 0), e_anchor.repeat(K, 1)).view(K, K)
    o = d.mean(1)
    return o - o.min()


def anneal_int(spec: Any, frac_done: float) -> int:
    """n-step spec: an int or [start, end] interpolated linearly over training."""
    if isinstance(spec, (list, tuple)):
        return int(round(spec[0] + (spec[1] - spec[0]) * frac_done))
    return int(spec)


@dataclass
class RVTables:
    """Per-rollout tables for the relative critic, from the old (rollout-time) network."""

    e_old: torch.Tensor  # (T+1, N, d) critic features
    vhat: torch.Tensor  # (T+1, N)
    head_old: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    L: torch.Tensor
    cum: torch.Tensor
    ends: torch.Tensor
    seg: np.ndarray  # (T, N) segment id of each step
    rewards: torch.Tensor | None = None  # (T, N), for terminal="case_split"
    terminal: str = "vhat"
    vz: torch.Tensor | None = None  # (T+1, N) Delta_old(s, z), for terminal="state"


def rv_tables(agent: ActorCritic, ro: Rollout, rv: RVConfig, n: int, gamma: float,
              device: str) -> RVTables:
    T1, N = ro.obs.shape[:2]
    flat = ro.obs.reshape(T1 * N, *ro.obs.shape[2:])
    e = _batched(lambda x: agent.features(x)[1], flat, device).view(T1, N, -1)
    head_old = copy.deepcopy(agent.critic).requires_grad_(False)
    anc = anchors(ro)
    cols = np.ascontiguousarray(np.broadcast_to(np.arange(N), (T1, N)))
    e_anc = e[torch.as_tensor(anc), torch.as_tensor(cols)]
    with torch.no_grad():
        vhat = head_old(e.view(T1 * N, -1), e_anc.reshape(T1 * N, -1)).view(T1, N)
    vz = None
    if rv.terminal == "state":  # offsets: the anchors' differences to the terminal state
        e_z = agent.terminal.detach().clone().expand(T1 * N, -1)
        with torch.no_grad():
            vz = head_old(e.view(T1 * N, -1), e_z).view(T1, N)
        vhat = vhat + vz[torch.as_tensor(anc), torch.as_tensor(cols)]
    elif rv.offsets:
        starts = np.flatnonzero((anc == np.arange(T1)[:, None]).ravel())  # flat (t, e) anchors
        off = trajectory_offsets(head_old, e.view(T1 * N, -1)[torch.as_tensor(starts)])
        table = torch.zeros(T1 * N, device=e.device)
        table[torch.as_tensor(starts, device=e.device)] = off
        vhat = vhat + table[torch.as_tensor(anc * N + cols, device=e.device)]
    L, cum, ends = nstep_windows(ro, n, gamma)
    seg = (anc[:-1] * N + np.arange(N)).astype(np.int64)
    as_t = lambda a: torch.as_tensor(a, device=e.device)  # noqa: E731
    return RVTables(e, vhat, head_old, as_t(L), as_t(cum).float(), as_t(ends), seg,
                    as_t(ro.rewards).float(), rv.terminal, vz)


def sample_partners(i: np.ndarray, seg: np.ndarray, valid_idx: np.ndarray, p_same: float,
                    rng: np.random.Generator) -> np.ndarray:
    """For flat step indices i: a partner from the same segment with prob p_same, else from a
    different segment (uniform over valid steps; same segment only if there is no other)."""
    segv = seg.ravel()[valid_idx]
    order = np.argsort(segv, kind="stable")
    uniq, first, count = np.unique(segv[order], return_index=True, return_counts=True)
    pos = np.searchsorted(uniq, seg.ravel()[i])
    same = valid_idx[order[first[pos] + (rng.random(len(i)) * count[pos]).astype(np.int64)]]
    other = valid_idx[rng.integers(0, len(valid_idx), len(i))]
    if len(uniq) > 1:
        for _ in range(8):
            clash = segv[np.searchsorted(valid_idx, other)] == seg.ravel()[i]
            if not clash.any():
                break
            other[clash] = valid_idx[rng.integers(0, len(valid_idx), int(clash.sum()))]
    return np.where(rng.random(len(i)) < p_same, same, other)


def pair_targets(tb: RVTables, i: np.ndarray, j: np.ndarray, gamma: float, device: str
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """(y_ij, Delta_old(s_i, s_j)) for pairs of flat step indices (see the module docstring)."""
    N = tb.e_old.shape[1]
    ti, ni = torch.as_tensor(i // N, device=device), torch.as_tensor(i % N, device=device)
    tj, nj = torch.as_tensor(j // N, device=device), torch.as_tensor(j % N, device=device)
    with torch.no_grad():
        Li, Lj = tb.L[ti, ni], tb.L[tj, nj]
        m = torch.minimum(Li, Lj)
        zi, zj = tb.ends[ti, ni] & (Li == m), tb.ends[tj, nj] & (Lj == m)
        boot = tb.head_old(tb.e_old[ti + m, ni], tb.e_old[tj + m, nj])
        if tb.terminal == "case_split":  # port: V(last state) = its reward
            assert tb.rewards is not None
            mi, mj = (ti + m - 1).clamp(min=0), (tj + m - 1).clamp(min=0)
            boot = torch.where(zi, tb.head_old(tb.e_old[mi, ni], tb.e_old[tj + m, nj])
                               - tb.rewards[mi, ni], boot)
            boot = torch.where(zj, tb.head_old(tb.e_old[ti + m, ni], tb.e_old[mj, nj])
                               + tb.rewards[mj, nj], boot)
        else:
            v = tb.vhat if tb.vz is None else tb.vz
            boot = torch.where(zi, -v[tj + m, nj], boot)
            boot = torch.where(zj, v[ti + m, ni], boot)
        boot = torch.where(zi & zj, torch.zeros_like(boot), boot)
        y = tb.cum[ti, ni, m] - tb.cum[tj, nj, m] + gamma ** m.to(boot.dtype) * boot
        return y, tb.head_old(tb.e_old[ti, ni], tb.e_old[tj, nj])


def rv_loss(agent: ActorCritic, tb: RVTables, e_i: torch.Tensor, obs: np.ndarray,
            i: np.ndarray, j: np.ndarray, gamma: float, clip: float, device: str
            ) -> torch.Tensor:
    """Pairwise n-step TD loss, clipped around Delta_old like PPO's value clipping."""
    N = tb.e_old.shape[1]
    e_j = agent.features(torch.as_tensor(obs[j // N, j % N], device=device))[1]
    y, d_old = pair_targets(tb, i, j, gamma, device)
    d_new = agent.delta(e_i, e_j)
    loss = _clipped_sq(d_new, d_old, y, clip)
    if tb.vz is not None:  # the pair (s_i, z): the terminal is one more state of the critic
        y_z, v_old = terminal_targets(tb, i, gamma, device)
        loss = 0.5 * (loss + _clipped_sq(agent.delta_to_terminal(e_i), v_old, y_z, clip))
    return loss


def _clipped_sq(d_new: torch.Tensor, d_old: torch.Tensor, y: torch.Tensor, clip: float
                ) -> torch.Tensor:
    d_clip = d_old + torch.clamp(d_new - d_old, -clip, clip)
    return 0.5 * torch.max((d_new - y) ** 2, (d_clip - y) ** 2).mean()


def terminal_targets(tb: RVTables, i: np.ndarray, gamma: float, device: str
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """(y_iz, Delta_old(s_i, z)) for flat step indices i (terminal="state")."""
    N = tb.e_old.shape[1]
    ti, ni = torch.as_tensor(i // N, device=device), torch.as_tensor(i % N, device=device)
    with torch.no_grad():
        L = tb.L[ti, ni]
        assert tb.vz is not None
        boot = torch.where(tb.ends[ti, ni], torch.zeros_like(tb.vz[ti, ni]), tb.vz[ti + L, ni])
        return tb.cum[ti, ni, L] + gamma ** L.to(boot.dtype) * boot, tb.vz[ti, ni]


def _recent_mean(episodes: list[list[float]], k: int = 10) -> float:
    return float(np.mean([ep[1] for ep in episodes[-k:]]))


def env_snapshot(envs: Any) -> bytes | None:
    """The state of a classic-control vector env (its sub-envs, their RNGs and episode
    counters, the autoreset flags), pickled; None for Atari (ale_py's vector env cannot be
    snapshotted)."""
    if not hasattr(envs, "envs"):
        return None
    return pickle.dumps({k: v for k, v in vars(envs).items() if k != "env_fns"})


def train(cfg: PPOConfig, env_id: str, agent: str, seed: int,
          log: Callable[[str], None] = print, device: str = "cpu",
          resume: Path | None = None, resume_key: Any = None) -> dict[str, Any]:
    """Train one agent on one env; returns curve, episodes, final_return, sps and settings.

    With `resume` (the run's output path) the state after each update can be saved and picked
    up again (repro.core.checkpoint): every `cfg.checkpoint_every` updates and on SIGTERM /
    SIGINT. Classic control resumes exactly (the envs are snapshotted: same bytes as an
    uninterrupted run); Atari games cannot be snapshotted, so a resumed Atari run goes on from
    the saved learner with freshly reset games (seeded from the seed and the update)."""
    if resume is None:
        return _train(cfg, env_id, agent, seed, log, device, None)
    with Resumable(resume, resume_key, every=cfg.checkpoint_every,
                   total=max(1, int(cfg.total_steps) // (int(cfg.n_envs) * int(cfg.n_steps))),
                   what=f"{env_id} {agent} seed {seed}", map_location=device) as ck:
        return _train(cfg, env_id, agent, seed, log, device, ck)


def _train(cfg: PPOConfig, env_id: str, agent: str, seed: int, log: Callable[[str], None],
           device: str, ck: Resumable | None) -> dict[str, Any]:
    rv = cfg.rv
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    ale = {k: v for k, v in (("atari_threads", cfg.atari_threads),
                             ("repeat_action_probability", cfg.repeat_action_probability),
                             ("max_frames_per_episode", cfg.max_frames_per_episode))
           if v is not None}
    envs = make_env(env_id, int(cfg.n_envs), seed, **ale)
    st = start(envs, seed)
    net = ActorCritic(st.obs.shape[1:], int(envs.single_action_space.n), agent,
                      rv_head=rv.head, terminal_state=rv.terminal == "state").to(device)
    opt = torch.optim.Adam(net.parameters(), lr=float(cfg.lr), eps=1e-5)
    N, T = int(cfg.n_envs), int(cfg.n_steps)
    n_updates = max(1, int(cfg.total_steps) // (N * T))
    gamma, lam = float(cfg.gamma), float(cfg.gae_lambda)

    def act(o: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.no_grad():
            logits = net.logits(net.features(torch.as_tensor(o, device=device))[0])
            dist = torch.distributions.Categorical(logits=logits)
            a = dist.sample()
            return a.cpu().numpy(), dist.log_prob(a).cpu().numpy()

    curve: list[list[float]] = []
    episodes: list[list[float]] = []
    t0 = time.time()
    saved = None
    if ck is not None:
        ck.rngs["rng"] = rng
        saved = ck.load()
    if saved is not None:
        net.load_state_dict(saved["net"])
        opt.load_state_dict(saved["opt"])
        curve, episodes, t0 = saved["curve"], saved["episodes"], time.time() - saved["elapsed"]
        if saved["envs"] is not None:
            vars(envs).update(pickle.loads(saved["envs"]))
            st = saved["env_state"]
        else:  # Atari: the learner resumes, the games start afresh
            st = start(envs, seed + 1_000_003 * ck.start)
            st.global_step = saved["env_state"].global_step
            log(f"{env_id}: the games cannot be restored: resuming with fresh games")

    def state() -> dict[str, Any]:
        return {"net": net.state_dict(), "opt": opt.state_dict(), "curve": curve,
                "episodes": episodes, "elapsed": time.time() - t0,
                "envs": env_snapshot(envs), "env_state": st}

    first = 1 + (ck.start if ck is not None else 0)
    for update in progress(range(first, n_updates + 1), desc=f"{env_id} PPO updates",
                           total=n_updates + 1 - first):
        if cfg.anneal_lr:
            opt.param_groups[0]["lr"] = float(cfg.lr) * (1.0 - (update - 1) / n_updates)
        net.eval()
        ro, eps = collect(envs, act, st, T, clip_rewards=is_atari(env_id))
        episodes += eps
        T1 = T + 1
        flat_obs = ro.obs.reshape(T1 * N, *ro.obs.shape[2:])
        if net.relative:
            tb = rv_tables(net, ro, rv, anneal_int(rv.n_step, (update - 1) / n_updates),
                           gamma, device)
            values = tb.vhat.cpu().numpy().astype(np.float64)
        else:
            values = _batched(lambda x: net.value(net.features(x)[1]), flat_obs, device)
            values = values.view(T1, N).cpu().numpy().astype(np.float64)
        adv = gae(values, ro, gamma, lam)
        returns = adv + values[:-1]
        valid_idx = np.flatnonzero(ro.valid.ravel())
        b_obs = ro.obs[:-1].reshape(T * N, *ro.obs.shape[2:])
        b_act = torch.as_tensor(ro.actions.ravel(), device=device)
        b_lp = torch.as_tensor(ro.logprobs.ravel(), device=device)
        b_adv = torch.as_tensor(adv.ravel(), device=device, dtype=torch.float32)
        b_ret = torch.as_tensor(returns.ravel(), device=device, dtype=torch.float32)
        b_val = torch.as_tensor(values[:-1].ravel(), device=device, dtype=torch.float32)
        net.train()
        for _ in range(int(cfg.update_epochs)):
            for mb in np.array_split(rng.permutation(valid_idx), int(cfg.n_minibatches)):
                if len(mb) < 2:
                    continue
                h_a, h_c = net.features(torch.as_tensor(b_obs[mb], device=device))
                dist = torch.distributions.Categorical(logits=net.logits(h_a))
                mbt = torch.as_tensor(mb, device=device)
                ratio = (dist.log_prob(b_act[mbt]) - b_lp[mbt]).exp()
                a = b_adv[mbt]
                if cfg.norm_adv:
                    a = (a - a.mean()) / (a.std() + 1e-8)
                c = float(cfg.clip_coef)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - c, 1 + c)).mean()
                if net.relative:
                    j = sample_partners(mb, tb.seg, valid_idx, float(rv.same_episode_prob),
                                        rng)
                    v_loss = rv_loss(net, tb, h_c, ro.obs, mb, j, gamma, float(rv.clip), device)
                    v_coef = float(rv.loss_coef)
                else:
                    v = net.value(h_c)
                    if cfg.clip_vloss:
                        vc = b_val[mbt] + (v - b_val[mbt]).clamp(-c, c)
                        v_loss = 0.5 * torch.max((v - b_ret[mbt]) ** 2,
                                                 (vc - b_ret[mbt]) ** 2).mean()
                    else:
                        v_loss = 0.5 * ((v - b_ret[mbt]) ** 2).mean()
                    v_coef = float(cfg.vf_coef)
                loss = pg_loss - float(cfg.ent_coef) * dist.entropy().mean() + v_coef * v_loss
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), float(cfg.max_grad_norm))
                opt.step()
        if episodes:
            curve.append([st.global_step, _recent_mean(episodes)])
        if update % max(1, n_updates // 10) == 0 or update == n_updates:
            sps = st.global_step / (time.time() - t0)
            ret = f"{curve[-1][1]:.1f}" if curve else "n/a"
            log(f"{env_id} {agent} seed={seed} step={st.global_step} return={ret} "
                f"sps={sps:.0f} v_loss={v_loss.item():.4g}")
        if ck is not None:
            ck.step(update, state)
    envs.close()
    k = max(10, math.ceil(0.1 * len(episodes)))
    final = float(np.mean([ep[1] for ep in episodes[-k:]])) if episodes else float("nan")
    return {"curve": curve, "episodes": episodes, "final_return": final,
            "sps": st.global_step / (time.time() - t0), "settings": cfg.given()}
