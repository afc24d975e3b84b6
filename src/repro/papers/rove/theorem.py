"""Numerical check of ROVER's Theorem 3.1 on random tree MDPs, with a control that breaks it.

Theorem 3.1 (arXiv 2509.24981v1): in a finite-horizon episodic MDP with deterministic transitions,
tree-structured state space and binary terminal rewards R(s) in {0, R}, R > 0, the greedy policy
w.r.t. the Q-function of the uniform random policy, argmax_a Q^{pi_u}(s, a), is optimal.

We check it exhaustively: for each random tree and EVERY non-terminal state s, every action in the
argmax set of Q^{pi_u}(s, .) (ties within `tie_tol`) must lead to a child s' with V*(s') = V*(s).
Q^{pi_u} comes from exact backward recursion with the mean operator (paper Eq. 2, gamma = 1):

    Q^{pi_u}(s, a) = r(s, a) + 1/|A(s')| sum_{a'} Q^{pi_u}(s', a'),

and V* from the max recursion V*(s) = max_a [r(s, a) + V*(s')]. Since the reward arrives on entering
a terminal state, Q(s, a) equals U(s') where U(leaf) = R(leaf), U(internal) = mean (or max) over
its children: we store U per node.

Random MDPs: every non-terminal state has 1..max_branching actions (uniform); a non-root state
above max_depth is terminal with prob p_stop and every state at max_depth is terminal, so leaves
sit at mixed depths; each leaf is rewarded (R) with prob p_reward, and optionally one random leaf
is rewarded in MDPs that drew none (else every policy is trivially optimal there).
Control: the same tree shapes with terminal rewards drawn uniformly from [0, 1] (not binary).
There the mean can prefer a branch of many mediocre leaves over one with a single excellent leaf,
so violations must appear; they show the check is not vacuous.

All MDPs are processed at once as a forest stored level by level, where the children of a node
form a contiguous block of the next level (np.add/maximum.reduceat over blocks).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from repro.core.config import job_parser, load_settings
from repro.core.io import write_json
from repro.core.progress import get_logger


@dataclass(frozen=True)
class TheoremConfig:
    """How the random tree MDPs are drawn and compared."""

    n_mdps: int = 2000  # random MDPs per check
    max_depth: int = 6  # deepest leaf
    max_branching: int = 4  # actions per non-terminal state are 1..max_branching
    p_stop: float = 0.2  # prob that a non-root state above max_depth is terminal
    p_reward: float = 0.15  # prob that a leaf carries reward R
    reward: float = 1.0  # R > 0 of the binary terminal reward {0, R}
    ensure_rewarding_leaf: bool = True  # reward one random leaf in MDPs that drew none
    tie_tol: float = 1e-12  # argmax ties of Q^{pi_u}

    @classmethod
    def from_settings(cls, th: dict[str, Any]) -> TheoremConfig:
        """Build from the merged `theorem:` settings, rejecting unknown keys and bad values."""
        allowed = set(cls.__dataclass_fields__)
        unknown = sorted(set(th) - allowed)
        if unknown:
            raise ValueError(f"theorem: unknown key(s) {unknown}; allowed: {sorted(allowed)}")
        cfg = cls(**th)
        if cfg.n_mdps < 1 or cfg.max_depth < 1 or cfg.max_branching < 1:
            raise ValueError("theorem: need n_mdps >= 1, max_depth >= 1, max_branching >= 1")
        if not (0 <= cfg.p_stop <= 1 and 0 <= cfg.p_reward <= 1 and cfg.reward > 0):
            raise ValueError("theorem: need p_stop, p_reward in [0, 1] and reward > 0")
        return cfg


@dataclass
class Forest:
    """Many rooted trees, level by level. Node i of level d has n_children[d][i] children, which
    are nodes first_child[d][i] ... + n_children[d][i] - 1 of level d + 1 (0 children = terminal);
    tree[d][i] is the MDP it belongs to and reward[d][i] its terminal reward (0 if internal)."""

    n_children: list[np.ndarray]
    first_child: list[np.ndarray]
    tree: list[np.ndarray]
    reward: list[np.ndarray]
    n_trees: int

    def leaf_mask(self, d: int) -> np.ndarray:
        return self.n_children[d] == 0


def _levels_from_counts(counts: list[np.ndarray], n_trees: int) -> Forest:
    """Fill in first_child / tree ids from the per-level child counts."""
    first, tree = [], []
    ids = np.arange(n_trees)
    for k in counts:
        first.append(np.cumsum(k) - k)
        tree.append(ids)
        ids = np.repeat(ids, k)
    rewards = [np.zeros(len(k)) for k in counts]
    return Forest(counts, first, tree, rewards, n_trees)


def random_forest(cfg: TheoremConfig, rng: np.random.Generator) -> Forest:
    """Tree shapes of cfg.n_mdps random MDPs (rewards are drawn separately)."""
    counts: list[np.ndarray] = []
    n = cfg.n_mdps
    for d in range(cfg.max_depth + 1):
        if d == cfg.max_depth:
            leaf = np.ones(n, dtype=bool)
        elif d == 0:
            leaf = np.zeros(n, dtype=bool)
        else:
            leaf = rng.random(n) < cfg.p_stop
        k = np.where(leaf, 0, rng.integers(1, cfg.max_branching + 1, size=n))
        counts.append(k)
        n = int(k.sum())
        if n == 0:
            break
    return _levels_from_counts(counts, cfg.n_mdps)


def forest_from_nested(trees: list[Any]) -> Forest:
    """Forest from nested lists: a number is a terminal reward, a list is a state's children.

    E.g. [[1, 0, 0, 0], [0.5]] is a root with two actions: one to a state with four terminal
    children (reward 1, 0, 0, 0), one to a state with a single terminal child of reward 0.5.
    """
    counts, rewards = [], []
    level = list(trees)
    while level:
        counts.append(np.array([len(x) if isinstance(x, list) else 0 for x in level]))
        rewards.append(np.array([0.0 if isinstance(x, list) else float(x) for x in level]))
        level = [c for x in level if isinstance(x, list) for c in x]
    forest = _levels_from_counts(counts, len(trees))
    forest.reward = rewards
    return forest


def binary_rewards(
    forest: Forest, cfg: TheoremConfig, rng: np.random.Generator
) -> list[np.ndarray]:
    """R with prob p_reward at each leaf, 0 elsewhere; optionally one rewarded leaf per MDP."""
    out = [
        np.where(forest.leaf_mask(d) & (rng.random(len(k)) < cfg.p_reward), cfg.reward, 0.0)
        for d, k in enumerate(forest.n_children)
    ]
    if cfg.ensure_rewarding_leaf:
        has = np.zeros(forest.n_trees, dtype=bool)
        for d, r in enumerate(out):
            has[forest.tree[d][r > 0]] = True
        lacking = np.flatnonzero(~has)
        if len(lacking):
            # all leaves of the lacking MDPs as (level, index), grouped by MDP
            cand: dict[int, list[tuple[int, int]]] = {int(t): [] for t in lacking}
            for d in range(len(out)):
                idx = np.flatnonzero(forest.leaf_mask(d) & ~has[forest.tree[d]])
                for i in idx:
                    cand[int(forest.tree[d][i])].append((d, int(i)))
            for t in lacking:
                d, i = cand[int(t)][int(rng.integers(len(cand[int(t)])))]
                out[d][i] = cfg.reward
    return out


def uniform_rewards(forest: Forest, rng: np.random.Generator) -> list[np.ndarray]:
    """Control: terminal rewards ~ Uniform[0, 1], breaking the binary-reward assumption."""
    return [
        np.where(forest.leaf_mask(d), rng.random(len(k)), 0.0)
        for d, k in enumerate(forest.n_children)
    ]


def solve(forest: Forest, rewards: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Exact U^{pi_u} and U* per node by backward recursion (U(child) = Q(parent, action))."""
    depth = len(forest.n_children)
    u_mean: list[np.ndarray] = [np.empty(0)] * depth
    u_max: list[np.ndarray] = [np.empty(0)] * depth
    for d in range(depth - 1, -1, -1):
        k, r = forest.n_children[d], rewards[d]
        u_mean[d], u_max[d] = r.astype(float), r.astype(float)
        inner = k > 0
        if inner.any():
            starts = forest.first_child[d][inner]
            # Eq. 2: Q^{pi_u}(s, a) = r(s, a) + 1/|A| sum_a' Q^{pi_u}(s', a')  (mean over children)
            u_mean[d][inner] = np.add.reduceat(u_mean[d + 1], starts) / k[inner]
            # Bellman optimality: V*(s) = max_a Q*(s, a)
            u_max[d][inner] = np.maximum.reduceat(u_max[d + 1], starts)
    return u_mean, u_max


def check(forest: Forest, rewards: list[np.ndarray], tie_tol: float = 1e-12) -> dict[str, Any]:
    """Count non-terminal states where some argmax action of Q^{pi_u} loses optimal value."""
    u_mean, u_max = solve(forest, rewards)
    viol_per_tree = np.zeros(forest.n_trees, dtype=np.int64)
    n_checked = n_choice = 0
    for d in range(len(forest.n_children) - 1):
        k = forest.n_children[d]
        inner = np.flatnonzero(k > 0)
        if len(inner) == 0:
            continue
        starts = forest.first_child[d][inner]
        parent = np.repeat(np.arange(len(inner)), k[inner])  # row in `inner` of each child
        best_q = np.maximum.reduceat(u_mean[d + 1], starts)  # max_a Q^{pi_u}(s, a)
        is_argmax = u_mean[d + 1] >= best_q[parent] - tie_tol
        loses = u_max[d + 1] < u_max[d][inner][parent] - tie_tol  # V*(s') < V*(s)
        bad_state = np.logical_or.reduceat(is_argmax & loses, starts)
        np.add.at(viol_per_tree, forest.tree[d][inner], bad_state.astype(np.int64))
        n_checked += len(inner)
        n_choice += int((k[inner] >= 2).sum())
    return {
        "n_mdps": forest.n_trees,
        "n_states_checked": n_checked,
        "n_states_with_choice": n_choice,
        "n_violations": int(viol_per_tree.sum()),
        "n_mdps_with_violation": int((viol_per_tree > 0).sum()),
        "optimal_fraction": float((viol_per_tree == 0).mean()),
    }


def run(cfg: TheoremConfig, seed: int) -> dict[str, Any]:
    """Both checks on the same random tree shapes; returns the documented JSON payload."""
    rng = np.random.default_rng(seed)
    forest = random_forest(cfg, rng)
    binary = check(forest, binary_rewards(forest, cfg, rng), cfg.tie_tol)
    control = check(forest, uniform_rewards(forest, rng), cfg.tie_tol)
    return {
        "settings": {"seed": seed, **asdict(cfg)},
        "n_mdps": binary["n_mdps"],
        "n_states_checked": binary["n_states_checked"],
        "n_states_with_choice": binary["n_states_with_choice"],
        "n_violations": binary["n_violations"],
        "greedy_uniform_q_optimal": binary["n_violations"] == 0,
        "control": {
            "assumption_broken": "terminal rewards drawn uniformly from [0, 1] instead of {0, R} "
            "(same tree shapes)",
            **{
                k: control[k]
                for k in (
                    "n_mdps",
                    "n_states_checked",
                    "n_states_with_choice",
                    "n_violations",
                    "n_mdps_with_violation",
                )
            },
        },
        "records": [
            {
                "method": "uniform_q_greedy",
                "metric": "theorem_optimal_fraction",
                "seed": seed,
                "value": binary["optimal_fraction"],
            },
            {
                "method": "uniform_q_greedy_nonbinary",
                "metric": "theorem_optimal_fraction",
                "seed": seed,
                "value": control["optimal_fraction"],
            },
        ],
    }


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    args = ap.parse_args(argv)
    settings = load_settings(args.config, args.scale)
    cfg = TheoremConfig.from_settings(settings.get("theorem", {}))
    log = get_logger("rove.theorem", args.log)
    t0 = time.perf_counter()
    out = run(cfg, int(settings["seeds"][0]))
    write_json(args.out, out)
    c = out["control"]
    log.info(
        "binary: %d MDPs, %d states checked, %d violations; control (%s): %d violations "
        "in %d MDPs; wrote %s in %.1f s",
        out["n_mdps"],
        out["n_states_checked"],
        out["n_violations"],
        "uniform [0,1] rewards",
        c["n_violations"],
        c["n_mdps_with_violation"],
        args.out,
        time.perf_counter() - t0,
    )


if __name__ == "__main__":
    main()
