"""LFST report: accuracy, unweighted accuracy and macro-F1 per front-end and condition beside the
paper's IEMOCAP / EMO-DB numbers, LFST's ablations, the corpus, figures and the claims ledger.

Records (in %, one per seed): `<method>` with acc_<condition>, ua_<condition>, f1_<condition>
(the mean over folds where a condition has several) and acc_mean, ua_mean, f1_mean over the
conditions. Below full the conditions are a synthesised corpus, not the paper's: the paper's
columns sit beside ours for the comparison of front-ends, never as the same experiment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml
from repro.core.io import read_json
from repro.core.plotting import save_figure, subplots
from repro.core.tables import PM, paper_value, pm, reported_table, write_table
from repro.papers.lfst.settings import load

LABELS = {"stft": "STFT", "cwt": "Morlet CWT", "superlet": "fixed superlet (Moca et al.)",
          "leaf": "LEAF", "lfst": "LFST", "lfst_fixed_grid": "LFST, fixed grid",
          "lfst_integer_orders": "LFST, integer orders", "lfst_no_laht": "LFST, no LAHT"}
METRICS = {"acc": "accuracy", "ua": "UA", "f1": "macro-F1"}
ABLATIONS = ("lfst_fixed_grid", "lfst_integer_orders", "lfst_no_laht")


def records_of(evals: list[dict[str, Any]], conditions: list[str]) -> list[dict[str, Any]]:
    by: dict[tuple[str, int], dict[str, list[dict[str, Any]]]] = {}
    for e in evals:
        by.setdefault((e["method"], e["seed"]), {}).setdefault(e["condition"], []).append(e)
    recs = []
    for (m, seed), per in sorted(by.items()):
        for k in METRICS:
            cond_vals = {}
            for c, folds in per.items():
                cond_vals[c] = 100 * float(np.mean([f[k] for f in folds]))
                recs.append({"method": m, "metric": f"{k}_{c}", "seed": seed,
                             "value": cond_vals[c]})
            if all(c in cond_vals for c in conditions):
                recs.append({"method": m, "metric": f"{k}_mean", "seed": seed,
                             "value": float(np.mean([cond_vals[c] for c in conditions]))})
    return recs


def vals(recs, method: str, metric: str) -> list[float]:
    return [r["value"] for r in recs if r["method"] == method and r["metric"] == metric]


def main_table(recs, reported, methods, conditions) -> pd.DataFrame:
    rows = []
    for m in methods:
        row: dict[str, Any] = {"front-end (+ STEE)": LABELS[m]}
        for c in conditions:
            for k, name in METRICS.items():
                row[f"{c}: {name} %"] = pm(vals(recs, m, f"{k}_{c}"), 1)
        row["seeds"] = len(vals(recs, m, "acc_mean"))
        for d, name in (("iemocap", "IEMOCAP"), ("emodb", "EMO-DB")):
            acc, f1 = paper_value(reported, m, f"acc_{d}"), paper_value(reported, m, f"f1_{d}")
            row[f"paper: {name} acc / F1 %"] = (f"{acc} / {f1}" if acc is not None else "")
        rows.append(row)
    return pd.DataFrame(rows)


def per_condition_table(evals, conditions) -> pd.DataFrame:
    rows = []
    for c in conditions:
        for m in LABELS:
            es = [e for e in evals if e["condition"] == c and e["method"] == m]
            if not es:
                continue
            rows.append({"condition": c, "front-end": LABELS[m],
                         f"validation UA % ({PM})": pm([100 * e["val_ua"] for e in es], 1),
                         "best epoch (mean)": round(float(np.mean([e["best_epoch"] + 1
                                                                   for e in es])), 1),
                         f"test UA % ({PM})": pm([100 * e["ua"] for e in es], 1),
                         "test clips": es[0]["test"], "runs": len(es)})
    return pd.DataFrame(rows)


def ablation_table(recs, methods) -> pd.DataFrame:
    full = vals(recs, "lfst", "acc_mean")
    if not full:
        return pd.DataFrame()
    rows = []
    for m in ("lfst", *ABLATIONS):
        if m not in methods:
            continue
        v = vals(recs, m, "acc_mean")
        diff = [a - b for a, b in zip(v, full, strict=True)] if m != "lfst" else []
        rows.append({"variant": LABELS[m], f"accuracy % ({PM}), mean of conditions": pm(v, 1),
                     "UA %": pm(vals(recs, m, "ua_mean"), 1),
                     "macro-F1 %": pm(vals(recs, m, "f1_mean"), 1),
                     "minus LFST, points (paired by seed)": pm(diff, 1) if diff else "",
                     "paper": "87.5 (IEMOCAP)" if m == "lfst" else
                     "lower (number not reachable)"})
    return pd.DataFrame(rows)


def corpus_table(infos: list[dict[str, Any]], synth: dict[str, Any] | None) -> pd.DataFrame:
    """One row per condition; a synthesised one shows the corpus it is a channel over."""
    rows = []
    for i in infos:
        if synth is not None and "source" not in i:
            i = {**synth, **i}
        per = i.get("per_class")
        rows.append({"condition": i["condition"], "source": i.get("source", ""),
                     "channel": i.get("channel", ""), "noise SNR dB": i.get("snr_db"),
                     "classes": ", ".join(i["classes"]),
                     "utterances": i.get("utterances", ""),
                     "train / val / test clips": " / ".join(
                         str(sum(per[s].values())) for s in ("train", "val", "test"))
                     if per else "leave-one-group-out",
                     "speakers train / val / test": " / ".join(
                         str(len(i["speakers"][s])) for s in ("train", "val", "test"))
                     if "speakers" in i else ""})
    return pd.DataFrame(rows)


def plot_accuracy(recs, methods, conditions, path: Path) -> None:
    fig, ax = subplots(figsize=(max(6, 1.1 * len(methods)), 3.6))
    w = 0.8 / len(conditions)
    for k, c in enumerate(conditions):
        means = [np.mean(vals(recs, m, f"acc_{c}")) for m in methods]
        sds = [np.std(vals(recs, m, f"acc_{c}"), ddof=1) if len(vals(recs, m, f"acc_{c}")) > 1
               else 0.0 for m in methods]
        ax.bar(np.arange(len(methods)) + k * w, means, w, yerr=sds, capsize=2, label=c)
    ax.set_xticks(np.arange(len(methods)) + 0.4 - w / 2, [LABELS[m] for m in methods],
                  rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(f"test accuracy % (ours, {PM} over seeds)")
    ax.legend(fontsize=7)
    save_figure(fig, path)


def plot_learned(evals, cfg, path: Path) -> None:
    fig, axes = subplots(1, 2, figsize=(8, 3.2))
    init = ((cfg.frontend.orders + 1) / 2, cfg.frontend.c1)  # uniform weights; c1's start
    for ax, v in zip(axes, init, strict=True):
        ax.axhline(v, color="k", ls="--", lw=0.8, label="initial value")
    for e in evals:
        p = e.get("learned")
        if not p or e["method"] != "lfst":
            continue
        axes[0].plot(p["freq_hz"], p["order"], alpha=0.6, lw=0.9,
                     label=f"{e['condition']} seed {e['seed']}")
        axes[1].plot(p["freq_hz"], p["c1"], alpha=0.6, lw=0.9)
    for ax, name in zip(axes, ("effective order (sum_o w_o o)", "base cycles c1"), strict=True):
        ax.set_xscale("log")
        ax.set_xlabel("band centre (Hz, learned grid)")
        ax.set_ylabel(name)
    axes[0].legend(fontsize=6)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("lfst tables, figures and claims ledger")
    ap.add_argument("--evals", nargs="+", required=True, type=Path)
    ap.add_argument("--infos", nargs="+", required=True, type=Path)
    ap.add_argument("--synth", type=Path, help="the synthesised corpus's facts (synth.json)")
    a = ap.parse_args(argv)
    cfg, raw = load(a.config, a.scale), load_yaml(a.config)
    reported = raw["reported"]
    evals = [read_json(p) for p in a.evals]
    recs = records_of(evals, cfg.conditions)
    tables = a.out / "tables"
    conds = ", ".join(cfg.conditions)
    write_table(main_table(recs, reported, cfg.methods, cfg.conditions), tables, "main",
                f"Test accuracy, unweighted accuracy (UA) and macro-F1 (%) per front-end on the "
                f"same STEE encoder, {PM} over {len(cfg.seeds)} seeds (scale {a.scale}; "
                f"conditions {conds}). Below full the conditions are our synthesised corpus "
                "(espeak-ng, prosody classes, held-out speakers); the paper's columns are its "
                "own IEMOCAP (4 classes) and EMO-DB (7 classes) accuracy / F1, a different data "
                "set, beside ours for the ranking of front-ends only.")
    write_table(per_condition_table(evals, cfg.conditions), tables, "per_condition",
                f"Model selection per condition: the best validation UA (held-out validation "
                f"speakers), its epoch, and the test UA, {PM} over seeds.")
    write_table(ablation_table(recs, cfg.methods), tables, "ablation",
                f"LFST's ablations: accuracy, UA and macro-F1 (%), mean over the conditions, "
                f"{PM} over seeds; differences paired by seed. The paper reports that each "
                "lowers LFST; its numbers were not reachable here.")
    write_table(corpus_table([read_json(p) for p in a.infos],
                             read_json(a.synth) if a.synth else None), tables, "corpus",
                "The conditions: source, channel, classes, clips per split and speakers.")
    write_table(reported_table(reported), tables, "paper_reported",
                "The paper's own numbers (never presented as ours).")
    plot_accuracy(recs, cfg.methods, cfg.conditions, a.out / "figures" / "accuracy.png")
    plot_learned(evals, cfg, a.out / "figures" / "learned.png")
    write_ledger(a.out, "lfst", a.scale, raw.get("claims", []), recs)


if __name__ == "__main__":
    main()
