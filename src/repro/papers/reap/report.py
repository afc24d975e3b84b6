"""REAP report: the compression table (discriminative and generative metrics per method and
ratio, mean ± sd over the claims' unit: trained models, or calibration seeds of one model), the
per-model table (does an ordering hold in every trained model?), the paper's Qwen3-30B-A3B
numbers beside ours (labelled with their setting), router statistics before pruning, the
merging-vs-pruning gap, figures, and the claims ledger.

Reads only finished artifacts (each model's train_log.json, the calibration summaries, one JSON
per evaluation).

Units. The variation a claim depends on is the trained model's (REAP vs EAN flips between
models trained alike) more than the calibration draw's, so with several trained models
(`models`) a record's unit is the model, its value the mean over that model's calibration
seeds; with one model (full: the released checkpoint) the unit is the calibration seed.
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


def eval_records(evals: list[dict[str, Any]], seeds: list[int], by_model: bool
                 ) -> list[dict[str, Any]]:
    """Long records {method, metric, seed, value, model, calibration_seeds}, `seed` being the
    claims' unit: the trained model (`by_model`: the mean over its calibration seeds) or the
    calibration seed (one model). The unpruned model (no calibration) is repeated under every
    calibration seed of its model so claims pair."""
    cells: dict[tuple[str, str, int, int], list[tuple[int, float]]] = defaultdict(list)
    for e in evals:
        model = int(e.get("model", 0))
        for seed in (seeds if e["method"] == "unpruned" else [e["seed"]]):
            for k, v in e["metrics"].items():
                unit = model if by_model else seed
                cells[(e["method"], metric_name(k, e["ratio"]), unit, model)].append(
                    (seed, float(v)))
    return [{"method": method, "metric": metric, "seed": unit, "model": model,
             "calibration_seeds": sorted(s for s, _ in vals),
             "value": float(np.mean([v for _, v in vals]))}
            for (method, metric, unit, model), vals in cells.items()]


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
            "models": len({x.get("model", 0) for x in e}),
            "calibration seeds": len({x["seed"] for x in e}) if method != "unpruned" else 0,
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


def per_model_table(records: list[dict[str, Any]], methods: list[str], ratios: list[int],
                    metric: str = "gen_score") -> pd.DataFrame:
    """One column per trained model (its mean over calibration seeds), each method's rank in
    that model: whether an ordering holds in every model, not only on average."""
    cell: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for r in records:
        cell[(r["method"], r["metric"], int(r.get("model", 0)))].append(float(r["value"]))
    models = sorted({m for (_, _, m) in cell})
    rows = []
    for ratio in ratios:
        name = metric_name(metric, ratio)
        means = {(meth, m): float(np.mean(cell[(meth, name, m)]))
                 for meth in methods for m in models if cell.get((meth, name, m))}
        for meth in methods:
            row: dict[str, Any] = {"compression": f"{ratio}%", "method": LABELS.get(meth, meth)}
            for m in models:
                v = means.get((meth, m))
                rank = 1 + sum(means.get((o, m), -np.inf) > v for o in methods) if v is not None \
                    else None
                row[f"model {m}"] = "-" if v is None else f"{v:.3f} (#{rank})"
            rows.append(row)
    return pd.DataFrame(rows)


def router_table(train_logs: list[dict[str, Any]], summaries: list[dict[str, Any]]
                 ) -> pd.DataFrame:
    """Per layer: router entropy (/ log E) at init and after training, on training windows and
    on the calibration samples; usage balance and the extreme expert shares (calibration);
    mean ± sd over trained models (and calibration seeds)."""
    logs = [t for t in train_logs if t.get("router_init") and t.get("router_trained")]
    rows = []
    for layer in sorted(summaries[0]["layers"], key=int):
        per = [s["layers"][layer] for s in summaries]
        li = int(layer)
        row: dict[str, Any] = {"layer": li}
        if logs:
            row["router entropy, init"] = pm([t["router_init"]["router_entropy"][li]
                                              for t in logs], 4)
            row["router entropy, trained"] = pm([t["router_trained"]["router_entropy"][li]
                                                 for t in logs], 4)
        row["router entropy, calibration"] = pm([p["router_entropy"] for p in per], 4)
        row["usage balance, calibration"] = pm([p["usage_balance"] for p in per], 4)
        if logs:
            row["usage balance, init"] = pm([t["router_init"]["usage_balance"][li]
                                             for t in logs], 4)
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


def _units(cfg: Any) -> str:
    if len(cfg.models) > 1:
        return (f"training seeds {cfg.models}, each the mean over calibration seeds "
                f"{cfg.seeds}")
    return f"calibration seeds {cfg.seeds} of one model"


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    ap.add_argument("--models", nargs="+", required=True, type=Path,
                    help="the trained model directories (train_log.json in each)")
    ap.add_argument("--observations", nargs="+", required=True)
    ap.add_argument("--evals", nargs="+", required=True)
    a = ap.parse_args(argv)
    raw = load_yaml(a.config)  # `reported:` and `claims:` are data, read as they are
    cfg = settings_of(resolve_scale(raw, a.scale))
    reported = raw["reported"]
    train_logs = [read_json(m / "train_log.json") for m in a.models]
    summaries = [read_json(p) for p in a.observations]
    evals = [read_json(p) for p in a.evals]
    methods, ratios = cfg.methods, cfg.ratios
    unit = cfg.unit()
    records = eval_records(evals, cfg.seeds, by_model=unit == "trained model")
    records += damage_avoided(records, cfg.gap, ratios,
                              [m for m in methods if m in ("frequency", "ean", "reap")])

    tables = a.out / "tables"
    write_table(main_table(evals, records, methods, ratios), tables, "compression",
                f"Compressed MoE (scale {a.scale}), {PM} over {unit}s ({_units(cfg)}). "
                "Discriminative: held-out next-token NLL (nats/token) and accuracy "
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
    write_table(per_model_table(records, methods, ratios), tables, "per_model",
                f"Generative score per trained model (scale {a.scale}; training seeds "
                f"{cfg.models}, each the mean over calibration seeds {cfg.seeds}) and the "
                "method's rank within that model at that ratio: an ordering the claims find "
                "on average may not hold in every model.")
    write_table(router_table(train_logs, summaries), tables, "router",
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
    plot_router(train_logs[0], summaries, figs / "router.png")
    write_ledger(a.out, "reap", a.scale, raw.get("claims", []), records)


if __name__ == "__main__":
    main()
