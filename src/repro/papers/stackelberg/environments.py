"""The environments: the paper's simulation (a Stackelberg game with side information) and its
second-price-auction application, both seen through the reduction as linear contextual bandits.

Every environment exposes, per context z, a finite set of *arms*: leader strategies (extreme
points of the best-response regions, or bids) with their feature vectors phi in R^D, such that
the leader's expected utility is <phi, theta*> for an unknown theta*:

- `StackelbergEnv`: phi = the utility vector u(z, x) in R^K (one entry per follower type),
  theta* = p, the type distribution; the realized reward against type f is u(z, x)_f.
- `AuctionEnv` (bidding in second-price auctions with side information; the paper's
  unknown-leader-utility extension): the bidder's value v(z) = <w, z> + noise is unknown and
  seen only when she wins; the highest competing bid is one of K levels m_1 < ... < m_K (the
  "types") drawn from p. Bidding b earns 1{b >= m}(v - m), whose mean
  sum_k p_k 1{b >= m_k}(<w, z> - m_k) = <phi(z, b), theta*> with
  phi(z, b) = (1{b >= m_k} (z, -m_k))_k and theta* = (p_k (w, 1))_k in R^{K(d+1)}.
  Bids between two levels win against the same competitors, so the arms are the K+1 bids
  {0, m_1, ..., m_K} (the extreme points of the bid space's "regions").

Each arm also has an *outcome* per type (the follower's action; win/lose in the auction): what
the leader observes under bandit feedback, and what Harris et al. (2024)'s estimator counts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from repro.papers.stackelberg.game import (
    Game,
    best_responses,
    extreme_points,
    random_game,
    utility_vectors,
)
from repro.papers.stackelberg.settings import (
    AuctionEnvConfig,
    EnvConfig,
    StackelbergEnvConfig,
    TypeAdversary,
    TypeSequence,
)


@dataclass
class Arms:
    """The leader's candidate strategies at one context."""

    features: np.ndarray  # (N, D): phi, with expected utility <phi, theta*>
    strategies: np.ndarray  # (N, m) mixed strategies (auction: (N, 1) bids)
    outcomes: np.ndarray  # (N, K) observable outcome of each arm against each type


@dataclass
class Sequence:
    """One seed's draws, shared by every algorithm (common random numbers)."""

    z: np.ndarray  # (T, d) contexts
    f: np.ndarray  # (T,) follower types (auction: index of the competing bid level)
    noise: np.ndarray  # (T,) value noise (auction only; zeros otherwise)


@dataclass
class Observation:
    """What one round reveals. Bandit learners use `reward`; Harris et al.'s estimator
    `outcome` (and `value` when `value_seen`); the full-information reference everything."""

    reward: float
    outcome: int
    follower_type: int
    value: float = float("nan")
    value_seen: bool = False


def type_distribution(rng: np.random.Generator, K: int, kind: str) -> np.ndarray:
    if kind == "uniform":
        return np.full(K, 1.0 / K)
    if kind == "dirichlet":
        return rng.dirichlet(np.ones(K))
    raise ValueError(f"type_distribution {kind!r}: allowed are uniform, dirichlet")


def phase_sequence(rng: np.random.Generator, T: int, phases: list[list[float]], first: int,
                   growth: float) -> np.ndarray:
    """An oblivious adversary's type sequence, fixed before play: phases of lengths
    first * growth^j cycling through the type distributions `phases`, types i.i.d. within a
    phase. Every phase is about as long as all the previous ones together, so the empirical type
    frequencies never settle and what the past suggests is always off by a constant fraction."""
    f = np.empty(T, dtype=np.int64)
    start, j, length = 0, 0, float(first)
    while start < T:
        n = min(int(round(length)), T - start)
        q = np.asarray(phases[j % len(phases)], float)
        f[start:start + n] = rng.choice(len(q), size=n, p=q / q.sum())
        start, j, length = start + n, j + 1, length * growth
    return f


@dataclass
class AdversaryTrace:
    """What the adversary's simulation of a learner did on its shadow draws."""

    types: np.ndarray  # (T,) the type sequence f_1..f_T it fixed
    plays: np.ndarray  # (T,) the simulated learner's arm at each shadow round
    gains: np.ndarray  # (T,) its realised utility u(z'_t, x_t)_{f_t} there
    eval_utility: np.ndarray  # (T, K) the learner's mean utility per type over the sample


def sequence_against_learner(env: StackelbergEnv, learner: Any, shadow: Sequence,
                             eval_z: np.ndarray, mix_draws: np.ndarray, mix: float
                             ) -> AdversaryTrace:
    """An oblivious adversary built against a learner (OFUL here): it simulates the learner on
    its own *shadow* contexts (and noises), never the real ones, so the sequence is fixed before
    play and independent of the real contexts and of the leader's real actions. Round t: read
    the learner's current rule, without updating it (`learner.choose`), at the M fixed contexts
    eval_z; average the leader's utility u(z, x(z))_k over them for every type k; f_t = the
    type with the least average (lowest index on ties) -- the construction that gives
    follow-the-leader-like learners linear regret. With probability `mix` (mix_draws[t, 0] <
    mix) f_t is instead uniform (from mix_draws[t, 1]). Then the simulated learner plays shadow
    round t against type f_t and updates. Fills shadow.f; needs context-free followers (fixed
    arms)."""
    if not env.fixed_arms:
        raise ValueError("the adversary needs context-free followers (fixed arms)")
    F_eval = np.stack([env.arms(z).features for z in eval_z])  # (M, N, K)
    rows = np.arange(len(eval_z))
    T = len(shadow.z)
    types, plays = np.empty(T, dtype=np.int64), np.empty(T, dtype=np.int64)
    gains, eval_utility = np.empty(T), np.empty((T, env.K))
    none = np.random.default_rng(0)  # the simulated learner is deterministic (OFUL)
    for t in range(T):
        eval_utility[t] = F_eval[rows, learner.choose(F_eval)].mean(axis=0)
        f = int(np.argmin(eval_utility[t]))
        if mix_draws[t, 0] < mix:
            f = min(int(mix_draws[t, 1] * env.K), env.K - 1)
        z = shadow.z[t]
        arms = env.arms(z)
        i = learner.act(t, z, arms, none)
        learner.update(t, z, arms, i, env.observe(arms, i, z, f, float(shadow.noise[t])))
        types[t], plays[t], gains[t] = f, i, arms.features[i, f]
    shadow.f = types
    return AdversaryTrace(types=types, plays=plays, gains=gains, eval_utility=eval_utility)


def best_policy_in_hindsight(features: np.ndarray, types: np.ndarray) -> np.ndarray:
    """The best fixed policy against a type sequence when contexts are independent of it:
    sum_t E_z u(z, pi(z))_{f_t} = T E_z <p_hat, u(z, pi(z))> is linear in the empirical type
    frequencies p_hat, so it is maximised context by context. features: (n, N, K) utility
    vectors of the N arms at n contexts; returns the arm index per context."""
    K = features.shape[-1]
    p_hat = np.bincount(types, minlength=K) / len(types)
    return np.argmax(features @ p_hat, axis=-1)


class StackelbergEnv:
    """A random game of the paper's shape; contexts i.i.d. uniform on [0, 1]^d, types i.i.d.
    from p, or chosen by an oblivious adversary: phases (`type_sequence`, `phase_sequence`)
    or a sequence built against a learner (`type_adversary`, `sequence_against_learner`; the
    run builds it and passes it to `draw_sequence`).
    With context-free followers (Harris et al.'s bandit setting) the extreme points are
    computed once; otherwise at every context."""

    n_outcomes: int

    def __init__(self, spec: StackelbergEnvConfig, rng: np.random.Generator):
        self.game: Game = random_game(rng, spec.leader_actions, spec.follower_actions,
                                      spec.follower_types, spec.context_dim,
                                      spec.follower_context)
        self.p = type_distribution(rng, self.game.K, spec.type_distribution)
        self.delta = float(spec.delta)
        self.K, self.d, self.D = self.game.K, self.game.d, self.game.K
        self.n_outcomes = self.game.n
        self.adversary: TypeSequence | None = spec.type_sequence
        self.type_adversary: TypeAdversary | None = spec.type_adversary
        if self.adversary and any(len(q) != self.K for q in self.adversary.phases):
            raise ValueError(f"type_sequence.phases: every phase needs {self.K} probabilities")
        if self.adversary and self.type_adversary:
            raise ValueError("type_sequence and type_adversary: give one adversary, not both")
        # no fixed type distribution under an adversary: theta* (and the oracle) undefined
        adversarial = bool(self.adversary or self.type_adversary)
        self.theta: np.ndarray | None = None if adversarial else self.p.copy()
        self.R, self.S = 0.5, 1.0  # rewards in [0, 1]: 1/2-sub-Gaussian noise; ||p||_2 <= 1
        self.fixed_arms = not self.game.follower_context
        if self.fixed_arms:
            self.E = extreme_points(self.game.follower_matrices(), self.delta)
            # u(z, x_i)_k = <z, sum_a x_ia leader[a, sigma_ik]>: precompute (N, K, d)
            self._B = np.einsum("na,ankd->nkd", self.E.x, self.game.leader[:, self.E.profile])

    def draw_sequence(self, rng: np.random.Generator, T: int,
                      types: np.ndarray | None = None) -> Sequence:
        """T contexts from rng, and the types: `types` when given (a sequence built against a
        learner, or a placeholder for its shadow draws), else the phases or i.i.d. from p."""
        z = rng.random((T, self.d))
        if types is not None:
            f = np.asarray(types, dtype=np.int64)[:T].copy()
        elif self.type_adversary:
            raise ValueError("type_adversary: the type sequence is built by the run "
                             "(sequence_against_learner) and passed as `types`")
        elif self.adversary:
            a = self.adversary
            f = phase_sequence(rng, T, a.phases, a.first_phase, float(a.growth))
        else:
            f = rng.choice(self.K, size=T, p=self.p)
        return Sequence(z=z, f=f, noise=np.zeros(T))

    def hindsight(self, seq: Sequence, marks: list[int]) -> dict[int, float]:
        """Per round count c in marks: sum_{t <= c} u(z_t, pi*_c(z_t))_{f_t}, the realised
        utility of the best fixed policy in hindsight over the first c rounds
        (`best_policy_in_hindsight`; context-free followers, so the arms are fixed and
        u(z, x_i)_k = <B_ik, z>)."""
        if not self.fixed_arms:
            raise ValueError("the hindsight benchmark needs context-free followers")
        out = {}
        for c in marks:
            z, f = seq.z[:c], seq.f[:c]
            p_hat = np.bincount(f, minlength=self.K) / c
            idx = np.argmax(z @ np.einsum("nkd,k->nd", self._B, p_hat).T, axis=1)
            out[c] = float(np.einsum("td,td->", self._B[idx, f], z))
        return out

    def arms(self, z: np.ndarray) -> Arms:
        if self.fixed_arms:
            return Arms(self._B @ z, self.E.x, self.E.profile)
        E = extreme_points(self.game.follower_matrices(z), self.delta)
        return Arms(utility_vectors(self.game.leader_matrix(z), E.x, E.profile), E.x, E.profile)

    def observe(self, arms: Arms, i: int, z: np.ndarray, f: int, noise: float) -> Observation:
        return Observation(reward=float(arms.features[i, f]), outcome=int(arms.outcomes[i, f]),
                           follower_type=int(f))

    def random_features(self, z: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Random play: a uniformly random mixed strategy (Dirichlet(1, ..., 1))."""
        x = rng.dirichlet(np.ones(self.game.m))
        br, _ = best_responses(self.game.follower_matrices(z), x)
        return utility_vectors(self.game.leader_matrix(z), x[None], br[None])[0]

    def plugin_theta(self, p_hat: np.ndarray, zz: np.ndarray, zv: np.ndarray) -> np.ndarray:
        """theta from an estimated type distribution (the leader knows her own utility)."""
        return p_hat

    def info(self) -> dict[str, Any]:
        out = {"p": None if self.theta is None else self.p, "D": self.D,
               "follower_context": self.game.follower_context}
        if self.adversary:
            out["type_sequence"] = dataclasses.asdict(self.adversary)
        if self.type_adversary:
            out["type_adversary"] = dataclasses.asdict(self.type_adversary)
        if self.fixed_arms:
            out.update(n_arms=len(self.E), n_regions=int(len(np.unique(self.E.profile, axis=0))))
        return out


class AuctionEnv:
    """Bidding in repeated second-price auctions with side information (see module docstring).
    Ties (b = m) are won; the value noise is uniform on [-noise, noise]."""

    n_outcomes = 2  # 0: lose, 1: win (and then the price, i.e. the competing level, is seen)

    def __init__(self, spec: AuctionEnvConfig, rng: np.random.Generator):
        K, d = spec.follower_types, spec.context_dim
        lo, hi = spec.bid_range
        self.levels = np.sort(rng.uniform(lo, hi, size=K))
        self.w = rng.dirichlet(np.ones(d))  # v(z) = <w, z> in [0, 1] for z in [0, 1]^d
        self.p = type_distribution(rng, K, spec.type_distribution)
        self.value_noise = float(spec.value_noise)
        self.K, self.d, self.D = K, d, K * (d + 1)
        self.theta = (self.p[:, None] * np.append(self.w, 1.0)[None, :]).ravel()
        self.R = 1.0 + self.value_noise / 2  # reward range [-1, 1 + noise]
        self.S = float(np.sqrt(2.0))  # ||theta||^2 = sum_k p_k^2 (|w|^2 + 1) <= 2
        self.fixed_arms = True
        self.bids = np.concatenate([[0.0], self.levels])
        self._wins = (self.bids[:, None] >= self.levels[None, :]).astype(np.int64)  # (K+1, K)

    def draw_sequence(self, rng: np.random.Generator, T: int) -> Sequence:
        return Sequence(z=rng.random((T, self.d)), f=rng.choice(self.K, size=T, p=self.p),
                        noise=rng.uniform(-self.value_noise, self.value_noise, size=T))

    def features_for_bids(self, z: np.ndarray, bids: np.ndarray) -> np.ndarray:
        wins = (bids[:, None] >= self.levels[None, :]).astype(float)  # (N, K)
        block = np.concatenate([np.broadcast_to(z, (self.K, self.d)), -self.levels[:, None]],
                               axis=1)  # (K, d+1)
        return (wins[:, :, None] * block[None]).reshape(len(bids), self.D)

    def arms(self, z: np.ndarray) -> Arms:
        return Arms(self.features_for_bids(z, self.bids), self.bids[:, None], self._wins)

    def observe(self, arms: Arms, i: int, z: np.ndarray, f: int, noise: float) -> Observation:
        value = float(self.w @ z + noise)
        win = int(arms.outcomes[i, f])
        return Observation(reward=win * (value - self.levels[f]), outcome=win,
                           follower_type=int(f), value=value, value_seen=bool(win))

    def random_features(self, z: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Random play: a bid uniform on [0, 1]."""
        return self.features_for_bids(z, rng.uniform(0.0, 1.0, size=1))[0]

    def plugin_theta(self, p_hat: np.ndarray, zz: np.ndarray, zv: np.ndarray) -> np.ndarray:
        """theta from estimated p and the ridge fit (lambda = 1) of the value on the context,
        from the sufficient statistics zz = sum z z^T, zv = sum v z of the values seen."""
        w_hat = np.linalg.solve(zz + np.eye(self.d), zv)
        return (p_hat[:, None] * np.append(w_hat, 1.0)[None, :]).ravel()

    def info(self) -> dict[str, Any]:
        return {"p": self.p, "D": self.D, "levels": self.levels, "w": self.w,
                "n_arms": len(self.bids)}


ENVIRONMENTS = {"stackelberg": StackelbergEnv, "auction": AuctionEnv}


def make_env(spec: EnvConfig, rng: np.random.Generator) -> StackelbergEnv | AuctionEnv:
    """The environment of a typed spec (its class by `kind`), its instance drawn from rng."""
    return ENVIRONMENTS[spec.kind](spec, rng)
