"""ROVER's didactic toy (paper Fig. 5): tabular Q-learning vs. greedy / softmax on uniform-policy Q.

The environment, as the paper defines it (arXiv 2509.24981v1, Sec. 3.1 "A Didactic Example" and
Sec. 3.1.1 "Justification", Fig. 5): starting from an empty (null) state, a policy appends one
action from {A, B, C, D} per step; after 3 actions the episode ends with a binary terminal reward,
1 for the four sequences ACD, BDC, CAB, DBA and 0 for the other 60. Transitions are deterministic
and the state space is a tree (a state is the prefix itself); the paper uses gamma = 1.

Methods (names as in `toy.methods`):
- `q_learning`: tabular Q-learning, target r + max_a' Q(s', a'), epsilon-greedy behaviour,
  greedy evaluation ("standard Q-learning with epsilon-greedy exploration", Fig. 5(b)).
- `rover_greedy`: learns the Q-function of the uniform random policy with the paper's Eq. 2,
  Q(s, a) <- r(s, a) + 1/|A| sum_a' Q(s', a'), from sampled transitions; epsilon-greedy behaviour
  (same exploration as the baseline); greedy evaluation (Fig. 5(c)).
- `rover_rho<r>`: the same uniform-policy Q, but behaviour and evaluation policy are the paper's
  soft sampler pi_s(a|s) = exp(Q(s,a)/rho) / sum_a' exp(Q(s,a')/rho) (Sec. 3.1.1); rho is parsed
  from the name (`rover_rho1` is the paper's "ROVER (rho = 1)", Fig. 5(d)-(e)).

What the paper does NOT state, and what we chose (config `toy:`): learning rate (0.1, constant),
number of episodes, epsilon (0.1), initial Q (0) and how ties are broken. We break ties uniformly
at random in behaviour, and at evaluation the greedy policy is uniform over the actions whose
value is within `tie_tol` of the maximum (the argmax *set*), so a greedy policy is not credited or
blamed for an arbitrary index order. Updates are online, one TD step per transition.

Metrics are exact, not sampled: the evaluation policy's probability of each of the 4^3 = 64
sequences is the product of its per-step action probabilities.
- `toy_success`: total probability of the rewarding sequences.
- `toy_modes`: number of rewarding sequences whose probability is >= `mode_threshold` (0.05:
  a mode counts when at least 1 in 20 episodes of the learned policy produces it).
- `toy_modes_given_success`: the same count on the success-conditional distribution
  P(seq) / P(success), i.e. which modes the successful episodes cover (this is how a "captured
  modes" histogram of correct samples reads); 0 when success is 0.

Read against the paper: with its own soft sampler and the exact uniform-policy Q of Fig. 5(d)
(1/16 at the root, 1/4 after the right first action, 1 at the final step), rho = 1 gives success
(e^{1/4}/(e^{1/4}+3)) * (e/(e+3)) ~= 0.142, spread evenly over the 4 modes (~0.036 each), not
the 100% success the text reports; rho = 0.1 gives ~0.80 and rho -> 0 approaches 1. We report
what the learned policies give (and, under `reference`, what the exact Q-functions give).
Also note that the "single mode" of the greedy methods rests on a tie: every first action has
Q^u = 1/16 (and Q* = 1) exactly, so greedy on the *exact* Q with uniform tie-breaking covers all
four modes; the learned estimates break the tie by estimation error. With lr 0.1 and epsilon 0.1
the root values are still apart after 3,000 episodes (one mode, as in the paper, whose Fig. 5(b)
Q-learning map is visibly unconverged) but agree to 1e-12 after 30,000 (then all four modes):
the greedy methods' mode count depends on the training length and on how ties are broken.
"""

from __future__ import annotations

import itertools
import re
import time
import zlib
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from repro.core.config import job_parser, load_settings
from repro.core.io import write_json
from repro.core.progress import get_logger, progress

METRICS = ("toy_success", "toy_modes", "toy_modes_given_success")
_RHO = re.compile(r"^rover_rho(\d+(?:\.\d+)?)$")


@dataclass(frozen=True)
class ToyConfig:
    """Hyper-parameters of the toy; the paper fixes the environment, not the learning settings."""

    actions: tuple[str, ...] = ("A", "B", "C", "D")  # action alphabet (one letter each)
    depth: int = 3  # actions per episode = depth of the tree
    rewarding: tuple[str, ...] = ("ACD", "BDC", "CAB", "DBA")  # sequences with terminal reward R
    reward: float = 1.0  # R of the binary terminal reward {0, R} (paper: 1)
    methods: tuple[str, ...] = ("q_learning", "rover_greedy", "rover_rho1")  # see module doc
    episodes: int = 3000  # training episodes per method and seed
    lr: float = 0.1  # constant TD step size
    epsilon: float = 0.1  # epsilon-greedy exploration of the greedy methods during training
    init_q: float = 0.0  # initial value of every Q(s, a)
    mode_threshold: float = 0.05  # a rewarding sequence is a covered mode at this probability
    tie_tol: float = 1e-12  # values this close to the max count as argmax ties

    @classmethod
    def from_settings(cls, toy: dict[str, Any]) -> ToyConfig:
        """Build from the merged `toy:` settings, rejecting unknown keys and bad values early."""
        allowed = set(cls.__dataclass_fields__)
        unknown = sorted(set(toy) - allowed)
        if unknown:
            raise ValueError(f"toy: unknown key(s) {unknown}; allowed: {sorted(allowed)}")
        kw = {k: tuple(v) if isinstance(v, list) else v for k, v in toy.items()}
        cfg = cls(**kw)
        for m in cfg.methods:
            parse_method(m)
        if any(len(a) != 1 for a in cfg.actions) or len(set(cfg.actions)) != len(cfg.actions):
            raise ValueError(f"toy.actions: need distinct single letters, got {cfg.actions}")
        for seq in cfg.rewarding:
            if len(seq) != cfg.depth or any(c not in cfg.actions for c in seq):
                raise ValueError(f"toy.rewarding: {seq!r} is not a length-{cfg.depth} sequence")
        if cfg.episodes < 0 or not 0 < cfg.lr <= 1 or not 0 <= cfg.epsilon <= 1:
            raise ValueError("toy: need episodes >= 0, 0 < lr <= 1, 0 <= epsilon <= 1")
        return cfg


def parse_method(name: str) -> tuple[str, float | None]:
    """Split a method name into (kind, rho); kind: 'q_learning', 'rover_greedy' or 'rover_soft'."""
    if name in ("q_learning", "rover_greedy"):
        return name, None
    m = _RHO.match(name)
    if m and float(m.group(1)) > 0:
        return "rover_soft", float(m.group(1))
    raise ValueError(
        f"toy.methods: unknown method {name!r}; allowed: q_learning, rover_greedy, "
        "rover_rho<r> with r > 0 (e.g. rover_rho1, rover_rho0.1)"
    )


class ToyTree:
    """The deterministic tree MDP: a state is a prefix of actions, indexed level by level.

    A prefix of length d with base-|A| code c has state id offset[d] + c; its child under action a
    has code c * |A| + a, so the children of consecutive states are consecutive (handy for
    vectorised recursion over a whole level).
    """

    def __init__(
        self, actions: tuple[str, ...], depth: int, rewarding: tuple[str, ...], reward: float = 1.0
    ) -> None:
        self.actions = tuple(actions)
        self.n = len(actions)
        self.depth = depth
        self.offset = [sum(self.n**k for k in range(d)) for d in range(depth + 1)]
        self.n_states = self.offset[depth]  # non-terminal states (prefixes of length < depth)
        self.terminal_reward = np.zeros(self.n**depth)  # R(s) of each complete sequence, by code
        for seq in rewarding:
            self.terminal_reward[self.code(seq)] = reward

    def code(self, seq: str) -> int:
        c = 0
        for ch in seq:
            c = c * self.n + self.actions.index(ch)
        return c

    def sequences(self) -> list[str]:
        """All complete sequences in code order (AAA, AAB, ...)."""
        return ["".join(p) for p in itertools.product(self.actions, repeat=self.depth)]

    def state_names(self) -> list[str]:
        """Names of the non-terminal states in id order; the empty prefix is 'root'."""
        names = ["root"]
        for d in range(1, self.depth):
            names += ["".join(p) for p in itertools.product(self.actions, repeat=d)]
        return names

    def level(self, d: int) -> slice:
        return slice(self.offset[d], self.offset[d + 1])


def exact_q(env: ToyTree, backup: str) -> np.ndarray:
    """Exact Q by backward recursion (gamma = 1); backup 'mean' gives Q^{pi_u}, 'max' gives Q*.

    Q(s, a) = r(s, a) + 1/|A| sum_a' Q(s', a')   (paper Eq. 2, the mean operator), or
    Q(s, a) = r(s, a) + max_a' Q(s', a')          (Bellman optimality).
    """
    q = np.zeros((env.n_states, env.n))
    q[env.level(env.depth - 1)] = env.terminal_reward.reshape(-1, env.n)  # last step: r only
    op = np.mean if backup == "mean" else np.max
    for d in range(env.depth - 2, -1, -1):
        v_next = op(q[env.level(d + 1)], axis=1)  # V(s') of every child, in code order
        q[env.level(d)] = v_next.reshape(-1, env.n)  # r = 0 before the end
    return q


def softmax(x: np.ndarray, rho: float) -> np.ndarray:
    """pi_s(a|s) = exp(Q(s,a)/rho) / sum_a' exp(Q(s,a')/rho), row-wise, numerically stable."""
    z = (x - x.max(axis=-1, keepdims=True)) / rho
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def greedy(x: np.ndarray, tie_tol: float) -> np.ndarray:
    """Greedy policy as the uniform distribution over the argmax set (ties within tie_tol)."""
    best = x >= x.max(axis=-1, keepdims=True) - tie_tol
    return best / best.sum(axis=-1, keepdims=True)


def eval_policy(q: np.ndarray, method: str, cfg: ToyConfig) -> np.ndarray:
    """The evaluation policy pi(a|s) of a method, one row per non-terminal state."""
    kind, rho = parse_method(method)
    return softmax(q, rho) if kind == "rover_soft" else greedy(q, cfg.tie_tol)


def sequence_probs(env: ToyTree, pi: np.ndarray) -> np.ndarray:
    """Exact probability of every complete sequence (code order): product of per-step probs."""
    p = pi[0].copy()
    for d in range(1, env.depth):
        p = (p[:, None] * pi[env.level(d)]).reshape(-1)
    return p


def policy_metrics(env: ToyTree, seq_p: np.ndarray, threshold: float) -> dict[str, float]:
    """toy_success, toy_modes and toy_modes_given_success of a sequence distribution."""
    good = env.terminal_reward > 0
    p_modes = seq_p[good]
    success = float(p_modes.sum())
    modes_cond = int((p_modes / success >= threshold).sum()) if success > 0 else 0
    return {
        "toy_success": success,
        "toy_modes": int((p_modes >= threshold).sum()),
        "toy_modes_given_success": modes_cond,
    }


def run_rng(seed: int, method: str) -> np.random.Generator:
    """Independent, reproducible stream per (seed, method), keyed by the name not list position."""
    return np.random.default_rng([seed, zlib.crc32(method.encode())])


def train(env: ToyTree, method: str, cfg: ToyConfig, rng: np.random.Generator) -> np.ndarray:
    """Online tabular TD learning of Q for one method; returns the learned Q table."""
    kind, rho = parse_method(method)
    n, depth, lr = env.n, env.depth, cfg.lr
    q = np.full((env.n_states, n), cfg.init_q)
    r_term = env.terminal_reward
    for _ in progress(range(cfg.episodes), desc=f"toy {method}", total=cfg.episodes):
        code = 0
        for d in range(depth):
            s = env.offset[d] + code
            qs = q[s]
            # behaviour policy
            if kind == "rover_soft":
                p = softmax(qs, rho)
                a = min(int(np.searchsorted(np.cumsum(p), rng.random() * p.sum())), n - 1)
            elif rng.random() < cfg.epsilon:
                a = int(rng.integers(n))
            else:
                ties = np.flatnonzero(qs >= qs.max() - cfg.tie_tol)
                a = int(ties[rng.integers(len(ties))])
            nxt = code * n + a
            if d == depth - 1:
                target = r_term[nxt]  # terminal: r(s, a) only
            else:
                q_next = q[env.offset[d + 1] + nxt]
                if kind == "q_learning":
                    target = q_next.max()  # r + max_a' Q(s', a'), r = 0 before the end
                else:
                    target = q_next.mean()  # Eq. 2: r + 1/|A| sum_a' Q(s', a')
            q[s, a] += lr * (target - q[s, a])
            code = nxt
    return q


def run(cfg: ToyConfig, seeds: list[int], log: Any = None) -> dict[str, Any]:
    """Train every method on every seed; return the documented JSON payload."""
    env = ToyTree(cfg.actions, cfg.depth, cfg.rewarding, cfg.reward)
    seqs, names = env.sequences(), env.state_names()
    q_exact = {"uniform": exact_q(env, "mean"), "optimal": exact_q(env, "max")}
    records: list[dict[str, Any]] = []
    policies: dict[str, dict[str, Any]] = {}
    reference: dict[str, Any] = {}
    for method in cfg.methods:
        kind, _ = parse_method(method)
        q_ref = q_exact["optimal" if kind == "q_learning" else "uniform"]
        ref_p = sequence_probs(env, eval_policy(q_ref, method, cfg))
        reference[method] = policy_metrics(env, ref_p, cfg.mode_threshold)
        policies[method] = {}
        for seed in seeds:
            q = train(env, method, cfg, run_rng(seed, method))
            pi = eval_policy(q, method, cfg)
            seq_p = sequence_probs(env, pi)
            for metric, value in policy_metrics(env, seq_p, cfg.mode_threshold).items():
                records.append({"method": method, "metric": metric, "seed": seed, "value": value})
            policies[method][str(seed)] = {
                "first_action": dict(zip(cfg.actions, pi[0].tolist(), strict=True)),
                "sequences": dict(zip(seqs, seq_p.tolist(), strict=True)),
                "q_values": {nm: row.tolist() for nm, row in zip(names, q, strict=True)},
                "max_abs_err_vs_exact_q": float(np.abs(q - q_ref).max()),
            }
            if log is not None:
                m = {r["metric"]: r["value"] for r in records[-len(METRICS) :]}
                log.info(
                    "%s seed %d: success %.4f modes %d (given success %d)",
                    method,
                    seed,
                    m["toy_success"],
                    m["toy_modes"],
                    m["toy_modes_given_success"],
                )
    return {
        "settings": {"seeds": list(seeds), **asdict(cfg)},
        "records": records,
        "policies": policies,
        "reference": {
            "note": "evaluation policy of each method applied to the exact Q-function "
            "(Q^uniform for ROVER, Q* for Q-learning), no learning",
            "metrics": reference,
            "q_uniform": {
                nm: row.tolist() for nm, row in zip(names, q_exact["uniform"], strict=True)
            },
        },
    }


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    args = ap.parse_args(argv)
    settings = load_settings(args.config, args.scale)
    cfg = ToyConfig.from_settings(settings.get("toy", {}))
    log = get_logger("rove.toy", args.log)
    t0 = time.perf_counter()
    payload = run(cfg, [int(s) for s in settings["seeds"]], log)
    write_json(args.out, payload)
    log.info("wrote %s in %.1f s", args.out, time.perf_counter() - t0)


if __name__ == "__main__":
    main()
