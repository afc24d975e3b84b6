"""NFT report: the gradient-equivalence table, the Countdown comparison beside the paper's
Tab. 1 (labelled, different models and data), figures, and the claims ledger.

Reads only finished artifacts (equivalence check, per-seed evaluations and training logs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml, resolve_scale
from repro.core.io import read_json
from repro.core.rlvr.reporting import (
    ReportScale,
    by_method_metric,
    entropy_series,
    entropy_start_end_records,
    ours_rows,
    passk_curves,
    plot_curves,
    plot_entropy,
    plot_passk,
    rollout_records,
)
from repro.core.tables import PM, paper_value, pm, reported_table, write_table

SETTINGS_7B = "Qwen2.5-Math-7B"
SETTING_32B = "Qwen2.5-32B"
BENCHMARKS = ("aime24", "math500", "aime25", "amc23", "olympiad", "minerva")
# the paper's method names for ours (DAPO-lite is our reduced DAPO)
PAPER_NAME = {"dapo_lite": "dapo"}

STYLES = {
    "base": dict(color="0.5", ls=":"),
    "rft": dict(color="tab:orange"),
    "nft": dict(color="tab:red", lw=2.2),
    "grpo": dict(color="tab:blue"),
    "dr_grpo": dict(color="tab:cyan"),
    "dapo_lite": dict(color="tab:purple"),
    "nft_norm2_vs_grpo": dict(color="tab:red", lw=2.2),
    "nft_norm1_vs_dr_grpo": dict(color="tab:blue", ls="--"),
    "control_nft_norm0_vs_grpo": dict(color="0.5", ls=":"),
    "control_rft_vs_grpo": dict(color="tab:orange", ls=":"),
}
PAIR_LABEL = {
    "nft_norm2_vs_grpo": "NFT (normalize=2) vs GRPO  [Prop. 4.2]",
    "nft_norm1_vs_dr_grpo": "NFT (normalize=1) vs Dr.GRPO  [README]",
    "control_nft_norm0_vs_grpo": "control: NFT (normalize=0) vs GRPO",
    "control_rft_vs_grpo": "control: RFT vs GRPO",
}


def _sci(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{np.mean(values):.3e} (max {np.max(values):.1e})"


def _cos(values: list[float]) -> str:
    """Cosines near 1: print 1 - cos so the agreement is visible."""
    if not values:
        return "-"
    gap = 1.0 - np.asarray(values)
    return f"{np.mean(values):.12f} (1-cos {np.mean(gap):.1e})"


def equivalence_table(eq: dict[str, Any]) -> pd.DataFrame:
    vals = by_method_metric(eq["records"])
    k = int(eq["settings"]["off_policy_updates"])
    rows = []
    for pair, label in PAIR_LABEL.items():
        rows.append(
            {
                "pair": label,
                "cosine, on-policy": _cos(vals[(pair, "cosine_on_policy")]),
                "|g_nft| / |g_rl|": pm(vals[(pair, "norm_ratio_on_policy")], 6),
                "relative difference": _sci(vals[(pair, "rel_diff_on_policy")]),
                "rel. diff. after best rescaling": _sci(vals[(pair, "rel_diff_scaled_on_policy")]),
                "cosine after 1 off-policy update": pm(vals[(pair, "cosine_after_1")], 4),
                f"cosine after {k} updates": pm(vals[(pair, f"cosine_after_{k}")], 4),
                f"mean |log ratio| after {k}": pm(vals[(pair, f"mean_abs_log_ratio_after_{k}")], 3),
            }
        )
    return pd.DataFrame(rows)


def equivalence_curves(eq: dict[str, Any]) -> dict[str, tuple[np.ndarray, ...]]:
    """pair -> (updates 0..K, mean cosine over seeds, sd)."""
    out = {}
    for pair in PAIR_LABEL:
        runs = []
        for res in eq["per_seed"].values():
            row = res["pairs"][pair]
            runs.append([row["on_policy"]["cosine"], *[s["cosine"] for s in row["off_policy"]]])
        arr = np.array(runs)
        sd = arr.std(0, ddof=1) if len(arr) > 1 else np.zeros(arr.shape[1])
        out[pair] = (np.arange(arr.shape[1]), arr.mean(0), sd)
    return out


def countdown_table(
    records: list[dict[str, Any]], methods: list[str], reported: list[dict[str, Any]]
) -> pd.DataFrame:
    metrics = ("pass@1", "pass@8", "pass@64", "distinct_correct", "train_entropy_start",
               "train_entropy_final", "train_entropy_change", "rollouts_per_step")
    rows = ours_rows(records, methods, metrics)
    for row in rows:
        m = row["method"]
        name = PAPER_NAME.get(m, m)
        row[f"average (paper: {SETTINGS_7B}, Tab. 1; not comparable)"] = paper_value(
            reported, name, "average", SETTINGS_7B
        )
        row[f"average (paper: {SETTING_32B}, Tab. 1; not comparable)"] = paper_value(
            reported, name, "average", SETTING_32B
        )
    return pd.DataFrame(rows)


def paper_table(reported: list[dict[str, Any]]) -> pd.DataFrame:
    """The paper's Tab. 1 as it prints it (theirs, not ours)."""
    rows = []
    for setting in (SETTINGS_7B, SETTING_32B):
        methods = list(dict.fromkeys(r["method"] for r in reported if r["setting"] == setting))
        for m in methods:
            row: dict[str, Any] = {"setting (paper)": setting, "method": m}
            for b in (*BENCHMARKS, "average"):
                row[b] = paper_value(reported, m, b, setting)
            rows.append(row)
    return pd.DataFrame(rows)


def math_table(
    records: list[dict[str, Any]], methods: list[str], reported: list[dict[str, Any]],
    benchmarks: list[str],
) -> pd.DataFrame:
    """Full scale: our per-benchmark avg@n (x100) and their average, beside the paper's 7B."""
    per: dict[tuple[str, str], dict[int, float]] = {}
    for r in records:
        for b in benchmarks:
            if r["metric"].startswith(f"math_{b}_avg@") and r["value"] is not None:
                per.setdefault((r["method"], b), {})[r["seed"]] = 100 * float(r["value"])
    rows = []
    for m in methods:
        name = PAPER_NAME.get(m, m)
        row: dict[str, Any] = {"method": m}
        for b in benchmarks:
            row[f"{b} (ours)"] = pm(list(per.get((m, b), {}).values()), 1)
            row[f"{b} (paper, 7B)"] = paper_value(reported, name, b, SETTINGS_7B)
        seeds = set.intersection(*[set(per.get((m, b), {})) for b in benchmarks])
        avg = [float(np.mean([per[(m, b)][s] for b in benchmarks])) for s in sorted(seeds)]
        row["average (ours)"] = pm(avg, 1)
        row["average (paper, 7B)"] = paper_value(reported, name, "average", SETTINGS_7B)
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    ap.add_argument("--equivalence", required=True)
    ap.add_argument("--evals", nargs="+", required=True)
    ap.add_argument("--train-runs", nargs="+", required=True)
    ap.add_argument("--math-evals", nargs="*", default=[])
    ap.add_argument("--math-train-runs", nargs="*", default=[])
    a = ap.parse_args(argv)

    raw = load_yaml(a.config)  # `reported:` and `claims:` are data, read as they are
    cfg = ReportScale.from_settings(resolve_scale(raw, a.scale))
    reported = raw["reported"]
    eq = read_json(a.equivalence)
    evals = [read_json(p) for p in a.evals]
    logs = [read_json(Path(p) / "train_log.json") for p in a.train_runs]
    cd_records = (
        [r for ev in evals for r in ev["records"]]
        + entropy_start_end_records(logs)
        + rollout_records(logs)
    )
    math_evals = [read_json(p) for p in a.math_evals]
    math_logs = [read_json(Path(p) / "train_log.json") for p in a.math_train_runs]
    math_records = [r for ev in math_evals for r in ev["records"]] + entropy_start_end_records(
        math_logs, "math_train_entropy"
    )
    records = eq["records"] + cd_records + math_records

    tables = a.out / "tables"
    k = eq["settings"]["off_policy_updates"]
    write_table(
        equivalence_table(eq),
        tables,
        "equivalence",
        f"Prop. 4.2 on real gradients (scale {a.scale}): full parameter gradients of each pair "
        f"on one on-policy batch per seed ({len(eq['per_seed'])} seeds; float64), then after "
        f"1..{k} off-policy AdamW updates of the NFT side on the same batch (lr "
        f"{eq['settings']['lr']}). Relative difference = |g_nft - g_rl| / |g_rl|; after best "
        "rescaling = the same once g_rl is scaled to fit (collinearity).",
    )
    write_table(
        countdown_table(cd_records, ["base", *cfg.countdown_methods], reported),
        tables,
        "countdown",
        f"Countdown (scale {a.scale}; rove's setting, binary reward): ours are {PM} over "
        f"{len(cfg.seeds)} seeds on held-out problems; entropy = rollout token entropy "
        "over the first / last 10% of steps. The paper's columns are math-benchmark averages of "
        "other models (labelled), for orientation only; its DAPO is our dapo_lite.",
    )
    write_table(paper_table(reported), tables, "paper_table1",
                "The paper's Tab. 1 (its numbers, not ours): avg@32 on AIME24/25 and AMC23, "
                "avg@1 on the others.")
    if math_evals:
        write_table(
            math_table(math_records, ["base", *cfg.math_methods], reported, cfg.math_benchmarks),
            tables,
            "math",
            f"Math (scale {a.scale}): our avg@n x 100 per benchmark beside the paper's "
            "Qwen2.5-Math-7B numbers (Tab. 1).",
        )
    write_table(reported_table(reported), tables, "paper_reported",
                "The paper's own numbers (not ours), with their source and setting.")

    figs = a.out / "figures"
    plot_curves(equivalence_curves(eq), figs / "equivalence.png", "off-policy updates",
                "cosine(g_nft, g_rl)", "NFT vs GRPO-family gradients", STYLES)
    plot_passk(passk_curves(evals), figs / "passk.png", STYLES)
    plot_entropy(entropy_series(logs), figs / "entropy.png", STYLES)

    write_ledger(a.out, "nft", a.scale, raw.get("claims", []), records)


if __name__ == "__main__":
    main()
