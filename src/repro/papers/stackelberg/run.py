"""CLI: every algorithm on one environment and one seed, regret curves written as JSON.

    python -m repro.papers.stackelberg.run --config config/papers/stackelberg.yaml --scale small \\
        --env paper --seed 0 --out results/small/stackelberg/runs/paper/seed0.json

The protocol (one job): draw the instance (game or auction, type distribution p) and one
sequence of T_max contexts, follower types and value noises from the seed; run every algorithm
on that same sequence (common random numbers: paired comparisons across algorithms); record
the cumulative *pseudo-regret*

    R(T) = sum_{t <= T} max_{x in E_{z_t}} <p, u(z_t, x)> - <p, u(z_t, x_t)>

against the benchmark policy pi*(z) = argmax_x E_{f~p} u(z, x, b_f(z, x)) (the optimal
contextual policy knowing p; the expectation over the follower draw removes its noise) at
log-spaced checkpoints including every horizon T of the grid. OFUL, logdet-FTRL (anytime
step size), full information, random play and the oracle do not depend on the horizon, so one
run of length T_max gives R(T) for every T; Harris et al.'s explore-then-commit tunes its
exploration length to T, so it is run once per horizon (on the first T rounds of the same
sequence).
"""

from __future__ import annotations

import time
import zlib
from typing import Any

import numpy as np

from repro.core.config import job_parser, load_settings
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.core.seeding import seed_everything
from repro.papers.stackelberg.algorithms import (
    OFUL,
    ExploreThenCommit,
    FullInformation,
    LogDetFTRL,
    Oracle,
)
from repro.papers.stackelberg.environments import make_env

ALGORITHMS = ("oful", "logdet_ftrl", "harris_etc", "full_info", "random", "oracle")
# random streams of a job: instance, sequence, random play, logdet-FTRL's sampling and reservoir
INSTANCE, SEQUENCE, RANDOM_PLAY, FTRL_SAMPLING, FTRL_RESERVOIR = range(5)


def rng_for(seed: int, env_name: str, stream: int) -> np.random.Generator:
    """An independent, reproducible stream per (seed, environment, purpose)."""
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(env_name.encode()),
                                                         stream]))


def checkpoints(horizons: list[int], n: int) -> list[int]:
    """About n log-spaced round counts in [10, T_max], plus every horizon of the grid."""
    T = max(horizons)
    pts = np.unique(np.round(np.geomspace(min(10, T), T, n)).astype(int))
    return sorted({int(p) for p in pts} | {int(h) for h in horizons})


def make_learners(s: dict[str, Any], env: Any, env_name: str, seed: int
                  ) -> dict[str, tuple[Any, int, np.random.Generator]]:
    """name -> (learner, horizon, rng); explore-then-commit once per horizon (`harris_etc@T`)."""
    algos = s["environments"][env_name]["algorithms"]
    T_max = max(s["horizons"])
    none = np.random.default_rng(0)  # deterministic learners never draw from it
    out: dict[str, tuple[Any, int, np.random.Generator]] = {}
    if "oful" in algos:
        out["oful"] = (OFUL(env.D, env.R, env.S, **s["oful"]), T_max, none)
    if "logdet_ftrl" in algos:
        ftrl = LogDetFTRL(env.D, rng_for(seed, env_name, FTRL_RESERVOIR),
                          reward_range=2.0 * env.R, **s["logdet_ftrl"])
        out["logdet_ftrl"] = (ftrl, T_max, rng_for(seed, env_name, FTRL_SAMPLING))
    if "harris_etc" in algos:
        if not env.fixed_arms:
            raise SystemExit(f"{env_name}: harris_etc needs context-free follower best "
                             "responses (Harris et al.'s bandit setting); drop it from algorithms")
        for T in sorted(s["horizons"]):
            out[f"harris_etc@{T}"] = (ExploreThenCommit(env, T, **s["harris_etc"]), T, none)
    if "full_info" in algos:
        out["full_info"] = (FullInformation(env), T_max, none)
    if "oracle" in algos:
        out["oracle"] = (Oracle(env.theta), T_max, none)
    return out


def run(s: dict[str, Any], env_name: str, seed: int, log: Any = print
        ) -> tuple[dict[str, Any], dict[str, float]]:
    """The job: (result, seconds spent per algorithm and on the arms); see module docstring."""
    spec = s["environments"][env_name]
    env = make_env(spec, rng_for(seed, env_name, INSTANCE))
    horizons = sorted(int(h) for h in s["horizons"])
    T_max = horizons[-1]
    seq = env.draw_sequence(rng_for(seed, env_name, SEQUENCE), T_max)
    learners = make_learners(s, env, env_name, seed)
    play_random = "random" in spec["algorithms"]
    rng_random = rng_for(seed, env_name, RANDOM_PLAY)
    keys = list(learners) + (["random"] if play_random else [])
    regret = dict.fromkeys(keys, 0.0)
    utility = dict.fromkeys(keys, 0.0)
    seconds = dict.fromkeys(keys + ["arms"], 0.0)
    marks = checkpoints(horizons, int(s["n_checkpoints"]))
    mark_set = set(marks)
    curves: dict[str, dict[str, list[float]]] = {k: {"t": [], "regret": [], "utility": []}
                                                 for k in keys}
    best_total = 0.0
    n_arms = []
    report_every = max(T_max // 10, 1)
    for t in range(T_max):
        z, f, noise = seq.z[t], int(seq.f[t]), float(seq.noise[t])
        c0 = time.perf_counter()
        arms = env.arms(z)
        expected = arms.features @ env.theta
        best = float(expected.max())
        seconds["arms"] += time.perf_counter() - c0
        best_total += best
        n_arms.append(len(expected))
        for key, (learner, horizon, rng) in learners.items():
            if t >= horizon:
                continue
            c0 = time.perf_counter()
            i = learner.act(t, z, arms, rng)
            learner.update(t, z, arms, i, env.observe(arms, i, z, f, noise))
            seconds[key] += time.perf_counter() - c0
            regret[key] += best - float(expected[i])
            utility[key] += float(expected[i])
        if play_random:
            c0 = time.perf_counter()
            value = float(env.random_features(z, rng_random) @ env.theta)
            seconds["random"] += time.perf_counter() - c0
            regret["random"] += best - value
            utility["random"] += value
        if t + 1 in mark_set:
            for key in keys:
                if key in learners and t >= learners[key][1]:
                    continue
                curves[key]["t"].append(t + 1)
                curves[key]["regret"].append(regret[key])
                curves[key]["utility"].append(utility[key])
        if (t + 1) % report_every == 0:
            log(f"{env_name} seed {seed}: t={t + 1} " + " ".join(
                f"{k}={regret[k]:.1f}" for k in keys if t < learners.get(k, (0, T_max))[1]))
    # R(T) for every algorithm and horizon: checkpoints of anytime runs, the final value of
    # explore-then-commit's run tuned to T
    final: dict[str, dict[str, float]] = {}
    for key, c in curves.items():
        name, _, horizon = key.partition("@")
        for T in horizons:
            if horizon and int(horizon) != T:
                continue
            if T in c["t"]:
                final.setdefault(name, {})[str(T)] = c["regret"][c["t"].index(T)]
    etc = {T: learners[f"harris_etc@{T}"][0] for T in horizons if f"harris_etc@{T}" in learners}
    return {
        "env": env_name, "seed": seed, "kind": spec["kind"], "horizons": horizons,
        "checkpoints": marks, "curves": curves, "regret": final,
        "benchmark_utility": best_total,
        "harris_etc": {str(T): {"explore_rounds": e.T0, "spanner": [list(x) for x in e.spanner],
                                "p_hat": e.p_hat} for T, e in etc.items()},
        "instance": env.info(), "arms_per_round": {"min": min(n_arms), "max": max(n_arms),
                                                   "mean": float(np.mean(n_arms))},
    }, seconds


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--env", required=True)
    ap.add_argument("--seed", required=True, type=int)
    a = ap.parse_args(argv)
    s = load_settings(a.config, a.scale)
    if a.env not in s["environments"]:
        raise SystemExit(f"unknown environment {a.env!r}: allowed are "
                         f"{', '.join(s['environments'])}")
    from threadpoolctl import threadpool_limits

    seed_everything(a.seed)
    log = get_logger(f"stackelberg.run.{a.env}", a.log)
    c0 = time.process_time()
    with threadpool_limits(1):  # jobs run side by side; the matrices are tiny
        result, seconds = run(s, a.env, a.seed, log=log.info)
    result["scale"] = a.scale
    write_json(a.out, result)  # no timings inside: the same seed writes the same bytes
    log.info(f"wrote {a.out} ({time.process_time() - c0:.1f} CPU-s); R(T_max): " + ", ".join(
        f"{k}={v[str(max(s['horizons']))]:.1f}" for k, v in result["regret"].items()))
    log.info("seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))


if __name__ == "__main__":
    main()
