"""Relative Value Learning report: the theory table, final returns (ours beside the paper's
40M-frame numbers, labelled), human-normalised Atari aggregates (IQM / median / mean, wins vs
PPO), learning curves, and the claims ledger.

Reads only finished artifacts (theory.json and one JSON per env x agent x seed).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml, resolve_scale
from repro.core.io import read_json
from repro.core.plotting import save_figure, subplots
from repro.core.tables import PM, paper_value, pm, reported_table, write_table
from repro.papers.relval.settings import Settings, settings_of
from repro.papers.relval.theory import theory_table

PAPER_SETTING = "Atari, 40M frames, 10 seeds"
STYLES = {"ppo": dict(color="tab:blue"), "ppo_rv": dict(color="tab:red", lw=2.0),
          "ppo_rv_state": dict(color="tab:green", ls="--")}


def run_records(run: dict[str, Any]) -> list[dict[str, Any]]:
    """final_return (the run's own), initial_return (first 10% of its finished episodes),
    improvement = final - initial; per env, agent, seed."""
    env, agent, seed = run["env"], run["agent"], run["seed"]
    eps = [e[1] for e in run["episodes"]]
    initial = float(np.mean(eps[: max(1, len(eps) // 10)])) if eps else float("nan")
    final = float(run["final_return"])
    return [
        {"method": agent, "metric": f"{env}/{m}", "seed": seed, "value": v}
        for m, v in (("final_return", final), ("initial_return", initial),
                     ("improvement", final - initial))
    ]


def iqm(x: np.ndarray) -> float:
    """Interquartile mean (rliable): the mean of the middle 50% of all runs' scores."""
    x = np.sort(np.asarray(x, dtype=float).ravel())
    n = len(x)
    lo, hi = int(np.floor(0.25 * n)), int(np.ceil(0.75 * n))
    return float(x[lo:hi].mean()) if hi > lo else float(x.mean())


def human_normalised(runs: list[dict[str, Any]], scores: dict[str, dict[str, float]]
                     ) -> dict[str, dict[str, list[float]]]:
    """agent -> game -> human-normalised final returns over seeds."""
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in runs:
        s = scores.get(r["env"])
        if s is not None:
            hns = (float(r["final_return"]) - s["random"]) / (s["human"] - s["random"])
            out[r["agent"]][r["env"]].append(hns)
    return out


def atari_aggregate(runs: list[dict[str, Any]], scores: dict[str, dict[str, float]],
                    n_paper_games: int = 49) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    hn = human_normalised(runs, scores)
    rows, recs = [], []
    games = sorted({g for per in hn.values() for g in per})
    for agent, per in sorted(hn.items()):
        all_runs = np.array([v for g in games for v in per.get(g, [])])
        game_means = np.array([np.mean(per[g]) for g in games if per.get(g)])
        stats = {"hns_iqm": iqm(all_runs), "hns_median": float(np.median(game_means)),
                 "hns_mean": float(np.mean(game_means))}
        rows.append({"agent": agent, "games": len(game_means), "runs": len(all_runs),
                     **{k: round(v, 4) for k, v in stats.items()}})
        recs += [{"method": agent, "metric": f"atari/{k}", "seed": 0, "value": v}
                 for k, v in stats.items()]
    if {"ppo", "ppo_rv"} <= set(hn):
        common = [g for g in games if hn["ppo"].get(g) and hn["ppo_rv"].get(g)]
        wins = sum(np.mean(hn["ppo_rv"][g]) > np.mean(hn["ppo"][g]) for g in common)
        for row in rows:
            row["wins vs other agent"] = (
                wins if row["agent"] == "ppo_rv" else len(common) - wins
            )
        if len(common) == n_paper_games:  # the paper's count needs all its games
            recs.append({"method": "ppo_rv", "metric": f"wins_vs_ppo_of_{n_paper_games}",
                         "seed": 0, "value": float(wins)})
    return pd.DataFrame(rows), recs


def agent_label(cfg: Settings, agent: str) -> str:
    """The agent as the tables name it: an ablation says what it changes."""
    ab = cfg.ablations.get(agent)
    if ab is None:
        return agent
    changes = ", ".join(f"rv.{k}={v}" for k, v in sorted((ab.get("rv") or {}).items()))
    return f"{agent} (ablation, ours: {changes})"


def returns_table(records: list[dict[str, Any]], cfg: Settings,
                  reported: list[dict[str, Any]]) -> pd.DataFrame:
    vals: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        vals[(r["method"], r["metric"])].append(float(r["value"]))
    rows = []
    for env in [*cfg.classic, *cfg.atari]:
        ablations = [a for a, ab in cfg.ablations.items() if env in (ab.get("envs") or [])]
        for agent in [*cfg.agents, *ablations]:
            rows.append({
                "env": env,
                "agent": agent_label(cfg, agent),
                "final return (ours)": pm(vals[(agent, f"{env}/final_return")], 4, "g"),
                "first-episodes return (ours)": pm(vals[(agent, f"{env}/initial_return")], 4, "g"),
                "seeds": len(vals[(agent, f"{env}/final_return")]),
                f"final return (paper: {PAPER_SETTING})": paper_value(
                    reported, agent, f"{env}/final_return", PAPER_SETTING),
            })
    return pd.DataFrame(rows)


def plot_curves(runs: list[dict[str, Any]], env: str, path: Path) -> None:
    """Mean episodic return vs environment steps, mean ± sd over seeds (common step grid)."""
    fig, ax = subplots(figsize=(5.2, 3.6))
    by_agent: dict[str, list[np.ndarray]] = defaultdict(list)
    for r in runs:
        if r["env"] == env and r["curve"]:
            by_agent[r["agent"]].append(np.asarray(r["curve"], dtype=float))
    for agent, curves in sorted(by_agent.items()):
        n = min(len(c) for c in curves)
        steps = curves[0][:n, 0]
        ys = np.stack([c[:n, 1] for c in curves])
        mean = np.nanmean(ys, 0)
        sd = np.nanstd(ys, 0, ddof=1) if len(ys) > 1 else np.zeros(n)
        style = STYLES.get(agent, {})
        ax.plot(steps, mean, label=f"{agent} ({len(curves)} seeds)", **style)
        ax.fill_between(steps, mean - sd, mean + sd, alpha=0.15, color=style.get("color"))
    ax.set_xlabel("environment steps (agent steps x envs)")
    ax.set_ylabel("episodic return (recent episodes)")
    ax.set_title(env)
    ax.legend(fontsize=8)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    ap.add_argument("--theory", required=True)
    ap.add_argument("--runs", nargs="+", required=True)
    a = ap.parse_args(argv)

    raw = load_yaml(a.config)  # `reported:` and `claims:` are data, read as they are
    cfg = settings_of(resolve_scale(raw, a.scale))
    reported = raw["reported"]
    theory = read_json(a.theory)
    runs = [read_json(p) for p in a.runs]
    run_recs = [rec for r in runs for rec in run_records(r)]
    atari_runs = [r for r in runs if r["env"] in cfg.atari]
    agg, agg_recs = atari_aggregate(atari_runs, cfg.atari_scores)
    records = theory["records"] + run_recs + agg_recs

    tables = a.out / "tables"
    write_table(pd.DataFrame(theory_table(theory)), tables, "theory",
                f"Exact checks on random finite MDPs (scale {a.scale}; worst case over seeds). "
                "Controls must fail; findings are reported, not judged.")
    envs = [*cfg.classic, *cfg.atari]
    write_table(returns_table(run_recs, cfg, reported), tables, "returns",
                f"Final return (scale {a.scale}): {PM} over seeds of each run's mean return "
                "over its last 10% of finished episodes (Atari: full-game scores, unclipped). "
                f"ppo_rv is the paper's purely relative critic (rv.terminal={cfg.rv['terminal']}); "
                "ablations change one setting of it. "
                f"The paper's column is its {PAPER_SETTING} setting, not comparable in budget.")
    write_table(agg if len(agg) else pd.DataFrame({"note": ["no Atari runs"]}), tables,
                "atari_aggregate",
                "Human-normalised final returns ((score - random) / (human - random), DQN-paper "
                "reference scores): IQM over all runs, median and mean over games' seed means, "
                "and games won against the other agent. The paper: 49 games, 40M frames.")
    write_table(reported_table(reported),
                tables, "paper_reported",
                "The paper's own numbers (not ours), with their source and setting.")
    figs = a.out / "figures"
    for env in envs:
        plot_curves(runs, env, figs / f"curves_{env.replace('/', '_')}.png")

    write_ledger(a.out, "relval", a.scale, raw.get("claims", []), records)


if __name__ == "__main__":
    main()
