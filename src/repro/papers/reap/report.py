"""REAP report: the compression table (discriminative and generative metrics per method and
ratio, mean ± sd over calibration seeds), the paper's Qwen3-30B-A3B numbers beside ours
(labelled with their setting), router statistics before pruning, the merging-vs-pruning gap,
figures, and the claims ledger.

Reads only finished artifacts (train_log.json, the calibration summaries, one JSON per
evaluation).
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
from repro.papers.reap.settings import GapConfig, settings_of

PAPER_SETTING = "paper, Qwen3-30B-A3B, code avg (EvalPlus/LiveCodeBench...)"
LABELS = {"unpruned": "unpruned", "frequency": "frequency", "ean": "EAN", "reap": "REAP",
          "m_smoe": "M-SMoE", "hc_smoe": "HC-SMoE"}
STYLES = {"frequency": dict(color="tab:gray", marker="v"), "ean": dict(color="tab:orange",
          marker="s"), "reap": dict(color="tab:red", marker="o", lw=2.2),
          "m_smoe": dict(color="tab:blue", marker="^", ls="--"),
          "hc_smoe": dict(color="tab:cyan", marker="D", ls="--")}
METRICS = ["code_nll", "prose_nll", "nll", "code_acc", "prose_acc", "acc", "parse_rate",
           "next_line_em", "next_line_sim", "gen_agreement", "first_div", "gen_score"]
BENCH = ["humaneval", "humaneval_plus", "mbpp", "mbpp_plus", "livecodebench", "code_avg"]


def metric_name(metric: str, ratio: int) -> str:
    return metric if ratio == 0 else f"{metric}@{ratio}"


def eval_records(evals: list[dict[str, Any]], seeds: list[int]) -> list[dict[str, Any]]:
    """Long records {method, metric, seed, value}; the unpruned model (no calibration) is
    repeated under every calibration seed so claims pair by seed."""
    recs = []
    for e in evals:
        for seed in (seeds if e["method"] == "unpruned" else [e["seed"]]):
            for k, v in e["metrics"].items():
                recs.append({"method": e["method"], "metric": metric_name(k, e["ratio"]),
                             "seed": seed, "value": float(v)})
    return recs


def damage_avoided(records: list[dict[str, Any]], gap: GapConfig, ratios: list[int],
                   pruners: list[str] | None = None) -> list[dict[str, Any]]:
    """(P - M) / (U - M) per seed and ratio: the share of merging's damage (U - M) that a
    pruning method P avoids, on the generative and on the discriminative metric (M = mean of
    the merging methods, U = unpruned). Orientation free (NLL, lower is better, and scores,
    higher is better, alike). `gap.pruning` first; `pruners` adds the others for the table."""
    val = {(r["method"], r["metric"], r["seed"]): r["value"] for r in records}
    out = []
    for pruner in dict.fromkeys([gap.pruning, *(pruners or [])]):
        seeds = sorted({r["seed"] for r in records if r["method"] == pruner})
        for ratio in ratios:
            for kind in ("generative", "discriminative"):
                metric = getattr(gap, kind)
                for s in seeds:
                    try:
                        u = val[("unpruned", metric, s)]
                        p = val[(pruner, f"{metric}@{ratio}", s)]
                        m = float(np.mean([val[(mm, f"{metric}@{ratio}", s)]
                                           for mm in gap.merging]))
                    except KeyError:
                        continue
                    if u == m:
                        continue
                    out.append({"method": f"{pruner}_vs_merging",
                                "metric": f"damage_avoided_{kind}@{ratio}", "seed": s,
                                "value": (p - m) / (u - m)})
    return out


def _values(records: list[dict[str, Any]]) -> dict[tuple[str, str], list[float]]:
    vals: dict[tuple[str, str], list[float]] = defaultdict(list)
    seen = set()
    for r in records:
        key = (r["method"], r["metric"], r["seed"])
        if key in seen:
            continue
        seen.add(key)
        vals[(r["method"], r["metric"])].append(float(r["value"]))
    return vals


def main_table(evals: list[dict[str, Any]], records: list[dict[str, Any]], methods: list[str],
               ratios: list[int]) -> pd.DataFrame:
    vals = _values(records)
    unpruned = next(e for e in evals if e["method"] == "unpruned")
    rows = []
    present = [m for m in METRICS + BENCH if m in unpruned["metrics"]]
    for method, ratio in [("unpruned", 0)] + [(m, r) for r in ratios for m in methods]:
        e = [x for x in evals if x["method"] == method and x["ratio"] == ratio]
        if not e:
            continue
        uniq = e[0]["compression"].get("unique_experts")
        n_layers = len(e[0]["compression"].get("kept") or e[0]["compression"].get("groups") or [1])
        row: dict[str, Any] = {
            "method": LABELS.get(method, method), "compression": f"{ratio}%",
            "experts/layer": (e[0]["num_experts_config"] if uniq is None
                              else round(uniq / n_layers, 2)),
            "seeds": len({x["seed"] for x in e}) if method != "unpruned" else 1,
        }
        for k in present:
            row[k] = pm(vals[(method, metric_name(k, ratio))])
        rows.append(row)
    return pd.DataFrame(rows)


def paper_table(records: list[dict[str, Any]], reported: list[dict[str, Any]],
                methods: list[str], ratios: list[int]) -> pd.DataFrame:
    """Our numbers at every ratio beside the paper's Qwen3-30B-A3B code average (labelled with
    its setting; '-' where our sources give no paper number, e.g. at 25%)."""
    vals = _values(records)
    rows = []
    for method, r in [("unpruned", 0)] + [(m, r) for r in ratios for m in methods]:
        rows.append({
            "method": LABELS.get(method, method),
            "compression": f"{r}%",
            "ours: gen score": pm(vals[(method, metric_name("gen_score", r))]),
            "ours: held-out NLL": pm(vals[(method, metric_name("nll", r))]),
            "ours: code avg (EvalPlus/LCB, full only)": pm(
                vals[(method, metric_name("code_avg", r))]),
            PAPER_SETTING: paper_value(reported, method, metric_name("code_avg", r),
                                       PAPER_SETTING),
        })
    return pd.DataFrame(rows)


def router_table(train_log: dict[str, Any], summaries: list[dict[str, Any]]) -> pd.DataFrame:
    """Per layer: router entropy (/ log E) at init and after training, on training windows and
    on the calibration samples; usage balance and the extreme expert shares (calibration)."""
    init, trained = train_log.get("router_init"), train_log.get("router_trained")
    rows = []
    for layer in sorted(summaries[0]["layers"], key=int):
        per = [s["layers"][layer] for s in summaries]
        row: dict[str, Any] = {"layer": int(layer)}
        if init and trained:
            row["router entropy, init"] = round(init["router_entropy"][int(layer)], 4)
            row["router entropy, trained"] = round(trained["router_entropy"][int(layer)], 4)
        row["router entropy, calibration"] = pm([p["router_entropy"] for p in per], 4)
        row["usage balance, calibration"] = pm([p["usage_balance"] for p in per], 4)
        if init:
            row["usage balance, init"] = round(init["usage_balance"][int(layer)], 4)
        row["max expert share"] = pm([p["max_expert_share"] for p in per], 4)
        row["min expert share"] = pm([p["min_expert_share"] for p in per], 4)
        row["unused experts"] = pm([float(p["unused_experts"]) for p in per], 1)
        rows.append(row)
    return pd.DataFrame(rows)


def gap_table(records: list[dict[str, Any]], ratios: list[int]) -> pd.DataFrame:
    vals = _values(records)
    pruners = sorted({m for (m, k) in vals if k.startswith("damage_avoided_")})
    rows = []
    for ratio in ratios:
        for pruner in pruners:
            row = {"compression": f"{ratio}%",
                   "pruning method": LABELS.get(pruner.removesuffix("_vs_merging"), pruner)}
            for kind in ("generative", "discriminative"):
                row[f"{kind}: share of merging's damage avoided"] = pm(
                    vals[(pruner, f"damage_avoided_{kind}@{ratio}")])
            rows.append(row)
    return pd.DataFrame(rows)


def plot_compression(records: list[dict[str, Any]], methods: list[str], ratios: list[int],
                     path: Path) -> None:
    """Held-out NLL (discriminative) and generative score vs compression, per method."""
    vals = _values(records)
    fig, axes = subplots(1, 2, figsize=(9.5, 3.8))
    for ax, metric, title in ((axes[0], "nll", "held-out NLL (nats/token), lower is better"),
                              (axes[1], "gen_score", "generative score, higher is better")):
        for m in methods:
            xs, ys, es = [0], [], []
            u = vals[("unpruned", metric)]
            ys.append(np.mean(u))
            es.append(0.0)
            for r in ratios:
                v = vals[(m, f"{metric}@{r}")]
                if v:
                    xs.append(r)
                    ys.append(np.mean(v))
                    es.append(np.std(v, ddof=1) if len(v) > 1 else 0.0)
            ax.errorbar(xs, ys, yerr=es, label=LABELS[m], capsize=3, **STYLES.get(m, {}))
        ax.set_xlabel("experts removed per layer (%)")
        ax.set_title(title, fontsize=9)
        ax.set_xticks([0, *ratios])
    axes[1].legend(fontsize=8)
    save_figure(fig, path)


def plot_router(train_log: dict[str, Any], summaries: list[dict[str, Any]], path: Path) -> None:
    """Training: LM loss and router entropy per step; calibration: sorted expert shares."""
    fig, axes = subplots(1, 2, figsize=(9.5, 3.6))
    steps = [s for s in train_log.get("steps", []) if "router_entropy_mean" in s]
    if steps:
        ax = axes[0]
        ax.plot([s["step"] for s in steps], [s["lm_loss"] for s in steps], color="k",
                label="LM loss (nats/byte)")
        ax.set_xlabel("training step")
        ax.set_ylabel("LM loss")
        ax2 = ax.twinx()
        ax2.plot([s["step"] for s in steps], [s["router_entropy_mean"] for s in steps],
                 color="tab:red", label="router entropy / log E")
        ax2.plot([s["step"] for s in steps], [s["usage_balance_mean"] for s in steps],
                 color="tab:blue", ls="--", label="usage balance")
        ax2.set_ylim(0, 1.05)
        ax.legend(loc="upper center", fontsize=7)
        ax2.legend(loc="center right", fontsize=7)
    s0 = summaries[0]["layers"]
    for layer in sorted(s0, key=int):
        f = np.sort(np.asarray(s0[layer]["expert_frequency"], dtype=float))[::-1]
        axes[1].plot(np.arange(len(f)), f / f.sum(), marker=".", label=f"layer {layer}")
    axes[1].axhline(1 / len(f), color="gray", ls=":", label="uniform")
    axes[1].set_xlabel("expert (sorted by routed share)")
    axes[1].set_ylabel("share of routed tokens (calibration)")
    axes[1].legend(fontsize=7)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    ap.add_argument("--train-log", required=True)
    ap.add_argument("--observations", nargs="+", required=True)
    ap.add_argument("--evals", nargs="+", required=True)
    a = ap.parse_args(argv)
    raw = load_yaml(a.config)  # `reported:` and `claims:` are data, read as they are
    cfg = settings_of(resolve_scale(raw, a.scale))
    reported = raw["reported"]
    train_log = read_json(a.train_log)
    summaries = [read_json(p) for p in a.observations]
    evals = [read_json(p) for p in a.evals]
    methods, ratios = cfg.methods, cfg.ratios
    records = eval_records(evals, cfg.seeds)
    records += damage_avoided(records, cfg.gap, ratios,
                              [m for m in methods if m in ("frequency", "ean", "reap")])

    tables = a.out / "tables"
    write_table(main_table(evals, records, methods, ratios), tables, "compression",
                f"Compressed MoE (scale {a.scale}), {PM} over calibration seeds "
                f"{cfg.seeds}. Discriminative: held-out next-token NLL (nats/token) and accuracy "
                "on stdlib code and reference-manual prose. Generative: greedy continuations of "
                "held-out function prefixes: parse rate, next-line exact match, agreement with "
                "the unpruned model (1 - token edit distance), first divergence; gen_score = mean "
                f"of {cfg.eval.gen_score_of}. Merged models keep every router row (experts "
                "of a group share weights): experts/layer counts distinct experts.")
    write_table(paper_table(records, reported, methods, ratios), tables, "paper_comparison",
                f"Ours (scale {a.scale}; gen score = mean of {cfg.eval.gen_score_of}, "
                "held-out NLL = code and prose mean) beside the paper's Qwen3-30B-A3B code "
                "average at 50% (its 25% numbers are not in our sources). Different models "
                "and benchmarks: compare orderings, not values.")
    write_table(router_table(train_log, summaries), tables, "router",
                "Router before pruning: mean per-token router entropy / log E (1 = uniform, "
                "as a fresh router) and expert-usage balance (entropy of routed shares / log E), "
                "at initialisation and after training (training windows) and on the "
                f"calibration samples ({PM} over seeds).")
    write_table(gap_table(records, ratios), tables, "merging_gap",
                "Share of merging's damage avoided by pruning, (P - M) / (U - M): U unpruned, "
                f"P a pruning method (the claim uses {cfg.gap.pruning}), M mean of "
                f"{cfg.gap.merging}; generative = "
                f"{cfg.gap.generative}, discriminative = {cfg.gap.discriminative}. "
                "Larger on the generative side = merging falls further behind there.")
    write_table(reported_table(reported), tables, "paper_reported",
                "The paper's own numbers (not ours), with their source and setting.")
    figs = a.out / "figures"
    plot_compression(records, methods, ratios, figs / "compression.png")
    plot_router(train_log, summaries, figs / "router.png")
    write_ledger(a.out, "reap", a.scale, raw.get("claims", []), records)


if __name__ == "__main__":
    main()
