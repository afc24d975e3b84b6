"""CLI: every algorithm on one environment and one seed, regret curves written as JSON.

    python -m repro.papers.stackelberg.run --config src/repro/papers/stackelberg/config.yaml \\
        --scale small \\
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

Under an oblivious adversary (`type_sequence` in the environment: the follower types are a
sequence fixed before play, the contexts i.i.d. and independent of it) there is no type
distribution to know; the benchmark is the best fixed policy in hindsight over the first T
rounds, pi*_T(z) = argmax_x <p_hat_T, u(z, x)> with p_hat_T the realised type frequencies
(it maximises sum_t E_z u(z, pi(z))_{f_t}, the utility in expectation over the contexts), and

    R(T) = sum_{t <= T} u(z_t, pi*_T(z_t))_{f_t} - u(z_t, x_t)_{f_t},

whose expectation over the contexts is the pseudo-regret against that policy (z_t is
independent of the leader's policy at t and of pi*_T). It can be negative on a seed.

An adversary built against OFUL (`type_adversary`, environment `adversarial_oful`) is also
oblivious: before play it simulates the main run's OFUL (same class and constants) on its own
shadow draws (contexts from the SHADOW stream, its evaluation sample and mixing draws from the
ADVERSARY stream), choosing each f_t as the type that is worst on average for OFUL's current
rule (`environments.sequence_against_learner`); the real contexts (SEQUENCE stream) never enter
it, so the benchmark above is unchanged. Every algorithm then plays the real draws against it.

The ablation (`--ablation tune|eval`): the same runs on the ablation's environment with every
algorithm's exploration constant times a multiplier c (OFUL's radius times c, Harris et al.'s
exploration length times c, with and without its log factor, logdet-FTRL's step size divided
by c: smaller c explores less for all three). `tune` runs every configuration on a tuning seed;
`eval` runs, on a main seed, each algorithm's configuration with the least mean R(T_max) over
the tuning seeds (`select_constants`), copying it from the main run when it is the main
table's.

Stopping and resuming (`repro.core.checkpoint`): the round loop saves its state (the
environment and every learner with its generators, the running utilities, the curves so far,
the random player's generator) every `REPRO_CHECKPOINT_MINUTES` of wall time and on SIGTERM /
SIGINT, and a rerun continues from the round it stopped at with the same numbers as an
uninterrupted run. The draws (instance, sequence, adversary) are remade from the seed. A tuning
job is a loop over configurations, each a resumable run: finished configurations are kept.
"""

from __future__ import annotations

import dataclasses
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser, typed
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger, progress
from repro.core.seeding import seed_everything
from repro.papers.stackelberg.algorithms import (
    OFUL,
    ExploreThenCommit,
    FullInformation,
    LogDetFTRL,
    Oracle,
)
from repro.papers.stackelberg.environments import (
    AdversaryTrace,
    Sequence,
    make_env,
    sequence_against_learner,
)
from repro.papers.stackelberg.settings import (
    HarrisConfig,
    LogDetFTRLConfig,
    OFULConfig,
    Settings,
    env_horizons,
    load,
)

# random streams of a job: instance, sequence, random play, logdet-FTRL's sampling and
# reservoir, and the adversary's own: shadow contexts (and noises), evaluation sample and mixing
(INSTANCE, SEQUENCE, RANDOM_PLAY, FTRL_SAMPLING, FTRL_RESERVOIR, SHADOW,
 ADVERSARY) = range(7)


def rng_for(seed: int, env_name: str, stream: int) -> np.random.Generator:
    """An independent, reproducible stream per (seed, environment, purpose)."""
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(env_name.encode()),
                                                         stream]))


def checkpoints(horizons: list[int], n: int) -> list[int]:
    """About n log-spaced round counts in [10, T_max], plus every horizon of the grid."""
    T = max(horizons)
    pts = np.unique(np.round(np.geomspace(min(10, T), T, n)).astype(int))
    return sorted({int(p) for p in pts} | {int(h) for h in horizons})


def make_oful(cfg: Settings, env: Any) -> OFUL:
    """The main run's OFUL (the theory's constants from `cfg.oful`); the adversary built
    against OFUL simulates exactly this one."""
    c = cfg.oful
    return OFUL(env.D, env.R, env.S, lam=c.lam, delta=c.delta, beta_scale=c.beta_scale)


def adversary_sequence(cfg: Settings, env: Any, env_name: str, seed: int, T: int
                       ) -> tuple[Sequence, AdversaryTrace]:
    """The type sequence of an adversary built against OFUL, fixed before play from the
    adversary's own streams only (never the SEQUENCE stream of the real contexts): shadow
    draws as the environment draws real ones, M evaluation contexts from the same
    distribution, and per round a (coin, type) pair for the optional uniform mixing. Every
    draw is made row by row, so the first T' < T types do not depend on T."""
    a = env.type_adversary
    if a.against != "oful":
        raise ValueError(f"type_adversary.against {a.against!r}: allowed is oful")
    placeholder = np.zeros(T, dtype=np.int64)
    shadow = env.draw_sequence(rng_for(seed, env_name, SHADOW), T, types=placeholder)
    rng = rng_for(seed, env_name, ADVERSARY)
    eval_z = rng.random((a.eval_contexts, env.d))
    mix_draws = rng.random((T, 2))
    trace = sequence_against_learner(env, make_oful(cfg, env), shadow, eval_z, mix_draws,
                                     float(a.mix))
    return shadow, trace


def make_learners(cfg: Settings, env: Any, env_name: str, seed: int
                  ) -> dict[str, tuple[Any, int, np.random.Generator]]:
    """name -> (learner, horizon, rng); explore-then-commit once per horizon (`harris_etc@T`)."""
    algos = cfg.environments[env_name].algorithms
    horizons = env_horizons(cfg, env_name)
    T_max = horizons[-1]
    none = np.random.default_rng(0)  # deterministic learners never draw from it
    out: dict[str, tuple[Any, int, np.random.Generator]] = {}
    if "oful" in algos:
        out["oful"] = (make_oful(cfg, env), T_max, none)
    if "logdet_ftrl" in algos:
        c = cfg.logdet_ftrl
        ftrl = LogDetFTRL(env.D, rng_for(seed, env_name, FTRL_RESERVOIR),
                          sample_size=c.sample_size, fw_iters=c.fw_iters,
                          eta_scale=c.eta_scale, ridge=c.ridge, reward_range=2.0 * env.R)
        out["logdet_ftrl"] = (ftrl, T_max, rng_for(seed, env_name, FTRL_SAMPLING))
    if "harris_etc" in algos:
        if not env.fixed_arms:
            raise SystemExit(f"{env_name}: harris_etc needs context-free follower best "
                             "responses (Harris et al.'s bandit setting); drop it from algorithms")
        h = cfg.harris_etc
        for T in horizons:
            out[f"harris_etc@{T}"] = (ExploreThenCommit(env, T, explore_scale=h.explore_scale,
                                                        log_factor=h.log_factor), T, none)
    if "full_info" in algos:
        out["full_info"] = (FullInformation(env), T_max, none)
    if "oracle" in algos:
        if env.theta is None:
            raise SystemExit(f"{env_name}: no oracle under an adversarial type sequence (no "
                             "type distribution); drop it from algorithms")
        out["oracle"] = (Oracle(env.theta), T_max, none)
    return out


def run(cfg: Settings, env_name: str, seed: int, log: Any = print,
        resume: str | Path | None = None) -> tuple[dict[str, Any], dict[str, float]]:
    """The job: (result, seconds spent per algorithm and on the arms); see module docstring.
    With `resume` (the output path) the round loop is resumable."""
    if resume is None:
        return _run(cfg, env_name, seed, log, None)
    key = {"settings": settings_key(dataclasses.asdict(cfg)), "env": env_name, "seed": seed}
    with Resumable(resume, key, total=env_horizons(cfg, env_name)[-1],
                   what=f"{env_name} seed {seed}") as ck:
        return _run(cfg, env_name, seed, log, ck)


def _run(cfg: Settings, env_name: str, seed: int, log: Any, ck: Resumable | None
         ) -> tuple[dict[str, Any], dict[str, float]]:
    spec = cfg.environments[env_name]
    env = make_env(spec, rng_for(seed, env_name, INSTANCE))
    horizons = env_horizons(cfg, env_name)
    T_max = horizons[-1]
    extra: dict[str, Any] = {}
    adversary_seconds = 0.0
    if getattr(env, "type_adversary", None):  # fixed before play, from its own streams
        c0 = time.perf_counter()
        shadow, trace = adversary_sequence(cfg, env, env_name, seed, T_max)
        seq = env.draw_sequence(rng_for(seed, env_name, SEQUENCE), T_max, types=trace.types)
        shadow_bench = env.hindsight(shadow, horizons)
        gains = np.cumsum(trace.gains)
        # the simulated OFUL's regret on its own shadow draws (against the hindsight policy
        # there): how hard the sequence hits the learner it was built against
        extra["adversary"] = {
            "type_frequencies": (np.bincount(trace.types, minlength=env.K) / T_max).tolist(),
            "switches": int(np.count_nonzero(np.diff(trace.types))),
            "shadow_oful_regret": {str(T): shadow_bench[T] - float(gains[T - 1])
                                   for T in horizons}}
        adversary_seconds = time.perf_counter() - c0
    else:
        seq = env.draw_sequence(rng_for(seed, env_name, SEQUENCE), T_max)
    learners = make_learners(cfg, env, env_name, seed)
    play_random = "random" in spec.algorithms
    rng_random = rng_for(seed, env_name, RANDOM_PLAY)
    keys = list(learners) + (["random"] if play_random else [])
    utility = dict.fromkeys(keys, 0.0)
    seconds = dict.fromkeys(keys + ["arms"], 0.0)
    marks = checkpoints(horizons, cfg.n_checkpoints)
    mark_set = set(marks)
    curves: dict[str, dict[str, list[float]]] = {k: {"t": [], "regret": [], "utility": []}
                                                 for k in keys}
    # the benchmark's cumulative utility: the hindsight policy's (adversarial types), or the
    # per-round best expected utility summed as we go (stochastic types)
    adversarial = env.theta is None
    hindsight = env.hindsight(seq, marks) if adversarial else {}
    best_total = 0.0
    n_arms: list[int] = []
    report_every = max(T_max // 10, 1)

    def state() -> dict[str, Any]:
        # one pickle: the learners keep their references to the environment and generators
        return {"env": env, "learners": learners, "rng_random": rng_random,
                "utility": utility, "seconds": seconds, "curves": curves,
                "best_total": best_total, "n_arms": n_arms}

    saved = ck.load() if ck is not None else None
    start = 0
    if saved is not None:
        env, learners, rng_random = saved["env"], saved["learners"], saved["rng_random"]
        utility, seconds, curves = saved["utility"], saved["seconds"], saved["curves"]
        best_total, n_arms = saved["best_total"], saved["n_arms"]
        start = ck.start
    for t in progress(range(start, T_max), desc=f"{env_name} seed {seed}, rounds",
                      total=T_max - start):
        z, f, noise = seq.z[t], int(seq.f[t]), float(seq.noise[t])
        c0 = time.perf_counter()
        arms = env.arms(z)
        # the utility each arm earns this round: realised against the adversary's type, or
        # expected over the follower's draw
        gain = arms.features[:, f] if adversarial else arms.features @ env.theta
        seconds["arms"] += time.perf_counter() - c0
        if not adversarial:
            best_total += float(gain.max())
        n_arms.append(len(gain))
        for key, (learner, horizon, rng) in learners.items():
            if t >= horizon:
                continue
            c0 = time.perf_counter()
            i = learner.act(t, z, arms, rng)
            learner.update(t, z, arms, i, env.observe(arms, i, z, f, noise))
            seconds[key] += time.perf_counter() - c0
            utility[key] += float(gain[i])
        if play_random:
            c0 = time.perf_counter()
            phi = env.random_features(z, rng_random)
            value = float(phi[f] if adversarial else phi @ env.theta)
            seconds["random"] += time.perf_counter() - c0
            utility["random"] += value
        if t + 1 in mark_set:
            bench = hindsight[t + 1] if adversarial else best_total
            for key in keys:
                if key in learners and t >= learners[key][1]:
                    continue
                curves[key]["t"].append(t + 1)
                curves[key]["regret"].append(bench - utility[key])
                curves[key]["utility"].append(utility[key])
        if (t + 1) % report_every == 0:
            log(f"{env_name} seed {seed}: t={t + 1} " + " ".join(
                f"{k}={c['regret'][-1]:.1f}" for k, c in curves.items() if c["regret"]))
        if ck is not None:
            ck.step(t + 1, state)
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
        "env": env_name, "seed": seed, "kind": spec.kind, "horizons": horizons,
        "checkpoints": marks, "curves": curves, "regret": final,
        "benchmark_utility": hindsight[T_max] if adversarial else best_total,
        "harris_etc": {str(T): {"explore_rounds": e.T0, "spanner": [list(x) for x in e.spanner],
                                "p_hat": e.p_hat} for T, e in etc.items()},
        "instance": env.info(), "arms_per_round": {"min": min(n_arms), "max": max(n_arms),
                                                   "mean": float(np.mean(n_arms))},
        **extra,
    }, {**seconds, "adversary": adversary_seconds}


ABLATED = ("oful", "logdet_ftrl", "harris_etc")


# the typed constants of each ablated algorithm (its section of the settings)
CONSTANTS: dict[str, type] = {"oful": OFULConfig, "logdet_ftrl": LogDetFTRLConfig,
                              "harris_etc": HarrisConfig}


def ablation_configs(cfg: Settings) -> dict[str, dict[str, dict[str, Any]]]:
    """algorithm -> configuration label -> its constants (the main table's times c), as plain
    dicts: they are written to the tuning runs and read back to choose."""
    oful, ftrl, harris = (dataclasses.asdict(c) for c in
                          (cfg.oful, cfg.logdet_ftrl, cfg.harris_etc))
    out: dict[str, dict[str, dict[str, Any]]] = {a: {} for a in ABLATED}
    for c in cfg.ablation.multipliers:
        c = float(c)
        out["oful"][f"c={c:g}"] = {**oful, "beta_scale": oful["beta_scale"] * c}
        out["logdet_ftrl"][f"c={c:g}"] = {**ftrl, "eta_scale": ftrl["eta_scale"] / c}
        for log_factor in (True, False):
            label = f"c={c:g}" + ("" if log_factor else ", no log")
            out["harris_etc"][label] = {**harris, "log_factor": log_factor,
                                        "explore_scale": harris["explore_scale"] * c}
    return out


def _run_configs(cfg: Settings, seed: int, chosen: dict[str, dict[str, Any]], log: Any,
                 resume: str | Path | None = None) -> dict[str, dict[str, float]]:
    """R(T) of each algorithm in `chosen` with its constants, on the ablation's environment
    and this seed (the main run's draws: same environment name, same streams)."""
    env_name = cfg.ablation.env
    env = dataclasses.replace(cfg.environments[env_name], algorithms=list(chosen))
    constants = {a: typed(CONSTANTS[a], c, f"ablation constants of {a}")
                 for a, c in chosen.items()}
    cfg2 = dataclasses.replace(cfg, environments={**cfg.environments, env_name: env},
                               **constants)
    return run(cfg2, env_name, seed, log=log, resume=resume)[0]["regret"]


def run_tuning(cfg: Settings, seed: int, log: Any = print,
               resume: str | Path | None = None) -> dict[str, Any]:
    """Every configuration of every ablated algorithm on one tuning seed. With `resume` (the
    output path) finished configurations are kept and the one running resumes."""
    configs = ablation_configs(cfg)
    regret: dict[str, dict[str, dict[str, float]]] = {a: {} for a in configs}
    labels = sorted({lab for cfg in configs.values() for lab in cfg},
                    key=lambda lab: list(configs["harris_etc"]).index(lab))

    def one(i: int) -> dict[str, dict[str, float]]:
        chosen = {a: cfg[labels[i]] for a, cfg in configs.items() if labels[i] in cfg}
        inner = None if resume is None else f"{resume}.config{i}"
        return _run_configs(cfg, seed, chosen, log, resume=inner)

    if resume is None:
        done = [one(i) for i in range(len(labels))]
    else:
        key = {"settings": settings_key(dataclasses.asdict(cfg)), "seed": seed, "role": "tune"}
        with Resumable(resume, key, every=1, what=f"tuning seed {seed}") as ck:
            done = ck.map(one, range(len(labels)))
    for label, by_alg in zip(labels, done, strict=True):
        for a, by_T in by_alg.items():
            regret[a][label] = by_T
    return {"env": cfg.ablation.env, "seed": seed, "role": "tune",
            "horizons": env_horizons(cfg, cfg.ablation.env), "regret": regret, "constants": configs}


def select_constants(tuning: list[dict[str, Any]], tuning_seeds: list[int]
                     ) -> dict[str, dict[str, Any]]:
    """Per algorithm, the configuration with the least mean R(T_max) over the tuning seeds
    only (runs of other seeds are ignored; ties go to the first configuration listed)."""
    runs = [r for r in tuning if r["seed"] in set(tuning_seeds)]
    if {r["seed"] for r in runs} != set(tuning_seeds):
        raise ValueError(f"tuning runs cover seeds {sorted(r['seed'] for r in runs)}, "
                         f"expected {sorted(tuning_seeds)}")
    T = str(max(runs[0]["horizons"]))
    out = {}
    for alg, by_label in runs[0]["regret"].items():
        means = {lab: float(np.mean([r["regret"][alg][lab][T] for r in runs]))
                 for lab in by_label}
        best = min(means, key=lambda lab: means[lab])
        out[alg] = {"label": best, "constants": runs[0]["constants"][alg][best],
                    "tuning_mean_regret_Tmax": means}
    return out


def run_tuned(cfg: Settings, seed: int, tuning: list[dict[str, Any]],
              main_run: dict[str, Any], log: Any = print,
              resume: str | Path | None = None) -> dict[str, Any]:
    """Each algorithm at its tuned constants on a main seed; a configuration equal to the main
    table's is copied from the main run of that seed (the same draws, so the same numbers)."""
    sel = select_constants(tuning, cfg.ablation.tuning_seeds)
    main_constants = {a: dataclasses.asdict(getattr(cfg, a)) for a in sel}
    copied = [a for a, v in sel.items() if v["constants"] == main_constants[a]]
    todo = {a: v["constants"] for a, v in sel.items() if a not in copied}
    regret = {a: main_run["regret"][a] for a in copied}
    if todo:
        regret.update(_run_configs(cfg, seed, todo, log, resume=resume))
    return {"env": cfg.ablation.env, "seed": seed, "role": "eval",
            "horizons": env_horizons(cfg, cfg.ablation.env), "selection": sel,
            "regret": {a: regret[a] for a in sel}, "copied_from_main_run": sorted(copied)}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--env", help="environment (not with --ablation: its own)")
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--ablation", choices=("tune", "eval"))
    ap.add_argument("--tuning-runs", nargs="+", default=[], help="eval: the tuning runs")
    ap.add_argument("--main-run", help="eval: the main run of this seed")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    env = cfg.ablation.env if a.ablation else a.env
    if env not in cfg.environments:
        raise SystemExit(f"unknown environment {env!r}: allowed are "
                         f"{', '.join(cfg.environments)}")
    from threadpoolctl import threadpool_limits

    seed_everything(a.seed)
    log = get_logger(f"stackelberg.run.{a.ablation or env}", a.log)
    c0 = time.process_time()
    with threadpool_limits(1):  # jobs run side by side; the matrices are tiny
        if a.ablation == "tune":
            result = run_tuning(cfg, a.seed, log=log.info, resume=a.out)
        elif a.ablation == "eval":
            if not a.tuning_runs or not a.main_run:
                raise SystemExit("--ablation eval needs --tuning-runs and --main-run")
            result = run_tuned(cfg, a.seed, [read_json(p) for p in a.tuning_runs],
                               read_json(a.main_run), log=log.info, resume=a.out)
        else:
            result, seconds = run(cfg, env, a.seed, log=log.info, resume=a.out)
            log.info("seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
    result["scale"] = a.scale
    write_json(a.out, result)  # no timings inside: the same seed writes the same bytes
    log.info(f"wrote {a.out} ({time.process_time() - c0:.1f} CPU-s)")


if __name__ == "__main__":
    main()
