"""ROVER report: tables (ours beside the paper's), figures, and the claims ledger.

Reads only finished artifacts (toy metrics, theorem check, per-seed evaluations and training
logs), so it reruns in seconds after `dvc pull` or a plotting change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml, resolve_scale
from repro.core.io import read_json
from repro.core.rlvr import reporting as rlvr_reporting
from repro.core.rlvr.reporting import (
    by_method_metric,
    entropy_series,
    ours_rows,
    passk_curves,
    plot_entropy,
    plot_passk,
    rollout_records,
    train_records,
)
from repro.core.tables import PM, paper_value, pm, reported_table, write_table
from repro.papers.rove import plots

MATH_SETTING = "Qwen3-8B-Base, avg of math benchmarks"
FIG1_SETTING = "Qwen3-8B-Base, AIME24/25+HMMT25"
COUNTDOWN_SETTING = "Qwen2.5-3B, Countdown (TinyZero), ~400 steps"


@dataclass
class ReportScale(rlvr_reporting.ReportScale):
    """The shared RLVR report settings and the toy's rewarding sequences (policy figure)."""

    toy_rewarding: list[str] = field(default_factory=list)

    @classmethod
    def from_settings(cls, s: dict[str, Any], **extra: Any) -> ReportScale:
        return super().from_settings(s, toy_rewarding=list(s["toy"]["rewarding"]), **extra)


def toy_table(toy: dict[str, Any], reported: list[dict[str, Any]]) -> pd.DataFrame:
    vals = by_method_metric(toy["records"])
    rows = []
    for m in toy["policies"]:
        rows.append(
            {
                "method": m,
                "success rate (ours)": pm(vals[(m, "toy_success")]),
                "modes >= 5% of all episodes (ours)": pm(vals[(m, "toy_modes")]),
                "modes >= 5% of successes (ours)": pm(vals[(m, "toy_modes_given_success")]),
                "success (paper, Fig. 5)": paper_value(reported, m, "toy_success"),
                "modes of 4 (paper, Fig. 5)": paper_value(reported, m, "toy_modes_given_success"),
            }
        )
    return pd.DataFrame(rows)


def theorem_table(th: dict[str, Any]) -> pd.DataFrame:
    rows = [
        {
            "setting": "tree MDP, binary terminal rewards (the theorem's assumptions)",
            "MDPs": th["n_mdps"],
            "states checked": th["n_states_checked"],
            "violations": th["n_violations"],
        },
        {
            "setting": f"control: {th['control']['assumption_broken']}",
            "MDPs": th["control"]["n_mdps"],
            "states checked": th["control"]["n_states_checked"],
            "violations": th["control"]["n_violations"],
        },
    ]
    return pd.DataFrame(rows)


def countdown_table(
    records: list[dict[str, Any]], methods: list[str], reported: list[dict[str, Any]]
) -> pd.DataFrame:
    metrics = ("pass@1", "pass@8", "pass@64", "distinct_correct", "entropy", "train_entropy_final",
               "rollouts_per_step")
    rows = ours_rows(records, methods, metrics)
    for row in rows:
        m = row["method"]
        row[f"avg@64 (paper: {COUNTDOWN_SETTING}, read off Fig. 3)"] = paper_value(
            reported, m, "avg@64", COUNTDOWN_SETTING
        )
        row[f"pass@1 (paper: {MATH_SETTING}, Tab. 1; not comparable)"] = paper_value(
            reported, m, "pass@1", MATH_SETTING
        )
    return pd.DataFrame(rows)


def math_table(
    records: list[dict[str, Any]],
    methods: list[str],
    reported: list[dict[str, Any]],
    benchmarks: list[str],
) -> pd.DataFrame:
    """Math RL: our pooled metrics (mean over the test problems of all benchmarks, each
    benchmark the same size at full: 30 problems) beside the paper's Tab. 1 / Fig. 1 numbers."""
    vals = by_method_metric(records)
    pooled = [r["metric"] for r in records if r["metric"].startswith("math_")]
    per_bench = tuple(f"math_{b}_" for b in benchmarks)
    pooled = [m for m in dict.fromkeys(pooled) if not m.startswith(per_bench)]
    rows = []
    for m in [*methods, "best_baseline"]:
        row: dict[str, Any] = {"method": m}
        for metric in pooled:
            row[f"{metric} (ours)"] = pm(vals[(m, metric)])
        for metric in ("pass@1", "pass@256"):
            row[f"{metric} (paper: {FIG1_SETTING}, Fig. 1)"] = paper_value(
                reported, m, metric, FIG1_SETTING
            )
        row[f"pass@1 (paper: {MATH_SETTING}, Tab. 1)"] = paper_value(
            reported, m, "pass@1", MATH_SETTING
        )
        rows.append(row)
    return pd.DataFrame(rows)



def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    ap.add_argument("--toy", required=True)
    ap.add_argument("--theorem", required=True)
    ap.add_argument("--evals", nargs="+", required=True)
    ap.add_argument("--train-runs", nargs="+", required=True,
                    help="RL run directories, each with its train_log.json")
    ap.add_argument("--math-evals", nargs="*", default=[],
                    help="math evaluations (also recognised in --evals by settings.task)")
    ap.add_argument("--math-train-runs", nargs="*", default=[])
    a = ap.parse_args(argv)

    raw = load_yaml(a.config)  # `reported:` and `claims:` are data, read as they are
    cfg = ReportScale.from_settings(resolve_scale(raw, a.scale))
    reported = raw["reported"]
    toy = read_json(a.toy)
    th = read_json(a.theorem)
    all_evals = [read_json(p) for p in [*a.evals, *a.math_evals]]
    evals = [ev for ev in all_evals if ev.get("settings", {}).get("task", "countdown") != "math"]
    math_evals = [ev for ev in all_evals if ev.get("settings", {}).get("task") == "math"]
    logs = [read_json(Path(p) / "train_log.json") for p in a.train_runs]
    math_logs = [read_json(Path(p) / "train_log.json") for p in a.math_train_runs]
    math_records = [r for ev in math_evals for r in ev["records"]] + train_records(
        math_logs, "math_train_entropy_final"
    )
    methods = ["base", *cfg.countdown_methods]
    cd_records = [r for ev in evals for r in ev["records"]] + train_records(logs) + (
        rollout_records(logs))
    records = toy["records"] + th["records"] + cd_records + math_records

    tables = a.out / "tables"
    write_table(
        toy_table(toy, reported),
        tables,
        "toy",
        f"Fig. 5 toy (scale {a.scale}): {PM} over {len(cfg.seeds)} seeds; "
        "the paper's columns are read off its Fig. 5.",
    )
    write_table(
        theorem_table(th),
        tables,
        "theorem",
        "Theorem check: greedy w.r.t. the uniform-policy Q is optimal (violations = states "
        "where an argmax action loses optimal value).",
    )
    write_table(
        countdown_table(cd_records, methods, reported),
        tables,
        "countdown",
        f"Countdown RL (scale {a.scale}): ours are {PM} over seeds on held-out "
        "problems. Paper columns come from different models and data (labelled), shown "
        "for orientation only.",
    )
    if math_evals:
        write_table(
            math_table(
                math_records,
                ["base", *cfg.math_methods],
                reported,
                cfg.math_benchmarks,
            ),
            tables,
            "math",
            f"Math RL (scale {a.scale}): ours are {PM} over seeds, pooled over the test "
            f"benchmarks ({', '.join(cfg.math_benchmarks)}); the paper's columns "
            "are Qwen3-8B-Base (Fig. 1: AIME24/25+HMMT25; Tab. 1: avg of its math benchmarks). "
            "Only the full scale is the paper's setting.",
        )
    write_table(
        reported_table(reported),
        tables,
        "paper_reported",
        "The paper's own numbers (not ours), with their source and setting.",
    )

    figs = a.out / "figures"
    plots.plot_toy_policies(toy["policies"], cfg.toy_rewarding, figs / "toy_policies.png")
    plot_passk(passk_curves(evals), figs / "passk.png", plots.METHOD_STYLE)
    plot_entropy(entropy_series(logs), figs / "entropy.png", plots.METHOD_STYLE)

    write_ledger(a.out, "rove", a.scale, raw.get("claims", []), records)


if __name__ == "__main__":
    main()
