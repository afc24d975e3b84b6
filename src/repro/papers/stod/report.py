"""STOD report: clean / FGSM / PGD accuracy and GTC per encoding beside the paper's CIFAR-10
numbers, GTC per layer and time step, accuracy against eps, and the claims ledger.

Records (one per data set, method, seed; accuracies in %): clean_acc, fgsm_acc and pgd_acc at
the data set's headline eps, robust_auc (mean accuracy over every eps and both attacks),
gtc_input (GTC at the input layer, the gradient an attack uses), gtc_layers (mean over layers);
and `<dataset>/stod_vs_direct` clean_gap (STOD minus direct clean accuracy, points, per seed).
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
from repro.papers.stod.settings import load

LABELS = {"direct": "direct encoding", "rate": "rate encoding (Bernoulli)",
          "stod": "STOD (orthogonal kernels + regulariser)",
          "stod_noreg": "orthogonal kernels, no regulariser (ablation)"}
INPUT = "1 input"


def headline(e: dict[str, Any], kind: str) -> float:
    (acc,) = [r["acc"] for r in e["attacks"] if r["attack"] == kind and r["eps"] ==
              e["headline_eps"]]
    return 100 * acc


def records_of(evals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    recs = []
    for e in evals:
        m = f"{e['dataset']}/{e['method']}"
        vals = {"clean_acc": 100 * e["clean_acc"], "fgsm_acc": headline(e, "fgsm"),
                "pgd_acc": headline(e, "pgd"),
                "robust_auc": 100 * float(np.mean([r["acc"] for r in e["attacks"]])),
                "gtc_input": e["gtc"][INPUT]["gtc"],
                "gtc_layers": float(np.mean([g["gtc"] for g in e["gtc"].values()]))}
        recs += [{"method": m, "metric": k, "seed": e["seed"], "value": v}
                 for k, v in vals.items()]
    by = {(e["dataset"], e["method"], e["seed"]): e for e in evals}
    for (ds, method, seed), e in sorted(by.items()):
        if method == "stod" and (ds, "direct", seed) in by:
            gap = 100 * (e["clean_acc"] - by[(ds, "direct", seed)]["clean_acc"])
            recs.append({"method": f"{ds}/stod_vs_direct", "metric": "clean_gap", "seed": seed,
                         "value": gap})
    return recs


def _vals(recs: list[dict[str, Any]], method: str, metric: str) -> list[float]:
    return [r["value"] for r in recs if r["method"] == method and r["metric"] == metric]


def robustness_table(evals, recs, reported, datasets, methods) -> pd.DataFrame:
    rows = []
    for ds in datasets:
        eps = next(e["headline_eps"] for e in evals if e["dataset"] == ds)
        for m in methods:
            key = f"{ds}/{m}"
            if not _vals(recs, key, "clean_acc"):
                continue
            rows.append({
                "data set": ds, "encoding": LABELS[m],
                f"clean acc. % ({PM})": pm(_vals(recs, key, "clean_acc"), 2),
                f"FGSM acc. % at eps {eps:g}": pm(_vals(recs, key, "fgsm_acc"), 2),
                f"PGD acc. % at eps {eps:g}": pm(_vals(recs, key, "pgd_acc"), 2),
                "GTC, input layer": pm(_vals(recs, key, "gtc_input"), 3),
                "GTC, mean of layers": pm(_vals(recs, key, "gtc_layers"), 3),
                "seeds": len(_vals(recs, key, "clean_acc")),
                "paper FGSM % (CIFAR-10, 8/255)": paper_value(reported, m, "fgsm_acc"),
                "paper PGD % (CIFAR-10, 8/255)": paper_value(reported, m, "pgd_acc"),
                "paper GTC (CIFAR-10)": paper_value(reported, m, "gtc"),
            })
    return pd.DataFrame(rows)


def gtc_table(evals, datasets, methods) -> pd.DataFrame:
    rows = []
    for ds in datasets:
        for m in methods:
            mine = [e for e in evals if e["dataset"] == ds and e["method"] == m]
            if not mine:
                continue
            for layer in mine[0]["gtc"]:
                g = [e["gtc"][layer] for e in mine]
                steps = np.mean([x["per_step"] for x in g], axis=0)
                zero = np.mean([x["zero_share"] for x in g])
                rows.append({"data set": ds, "encoding": m, "layer": layer,
                             f"GTC ({PM})": pm([x["gtc"] for x in g], 3),
                             "cos(g_t, sum g) per time step": ", ".join(f"{v:.2f}"
                                                                      for v in steps),
                             "images with zero gradient": f"{zero:.1%}"})
    return pd.DataFrame(rows)


def plot_eps(evals, datasets, methods, path: Path) -> None:
    fig, axes = subplots(2, len(datasets), figsize=(4.5 * len(datasets), 7), squeeze=False)
    for c, ds in enumerate(datasets):
        for r, kind in enumerate(("fgsm", "pgd")):
            ax = axes[r][c]
            for m in methods:
                mine = [e for e in evals if e["dataset"] == ds and e["method"] == m]
                if not mine:
                    continue
                eps = [0.0] + sorted({a["eps"] for a in mine[0]["attacks"]})
                acc = np.array([[100 * e["clean_acc"]] + [
                    next(a["acc"] for a in e["attacks"] if a["attack"] == kind and a["eps"] == x)
                    * 100 for x in eps[1:]] for e in mine])
                sd = acc.std(0, ddof=1) if len(acc) > 1 else np.zeros(acc.shape[1])
                ax.errorbar(eps, acc.mean(0), yerr=sd, marker="o", capsize=3, label=LABELS[m])
            ax.set_title(f"{ds}: {kind.upper()} (ours, {PM} over seeds)")
            ax.set_xlabel("eps (L_inf, [0, 1] pixels)")
            ax.set_ylabel("accuracy %")
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    save_figure(fig, path)


def plot_gtc(evals, datasets, methods, reported, path: Path) -> None:
    fig, axes = subplots(1, len(datasets), figsize=(5 * len(datasets), 3.8), squeeze=False)
    for ax, ds in zip(axes[0], datasets, strict=True):
        layers = next(list(e["gtc"]) for e in evals if e["dataset"] == ds)
        w = 0.8 / len(methods)
        for k, m in enumerate(methods):
            mine = [e for e in evals if e["dataset"] == ds and e["method"] == m]
            if not mine:
                continue
            v = np.array([[e["gtc"][layer]["gtc"] for layer in layers] for e in mine])
            ax.bar(np.arange(len(layers)) + k * w, v.mean(0), w,
                   yerr=v.std(0, ddof=1) if len(v) > 1 else None, label=f"{m} (ours)")
        for m, style in (("direct", "r--"), ("rate", "g:")):
            p = paper_value(reported, m, "gtc")
            if p is not None:
                ax.axhline(p, color=style[0], ls=style[1:], lw=1,
                           label=f"paper, {m} (CIFAR-10)")
        ax.set_xticks(np.arange(len(layers)) + 0.4 - w / 2, layers, rotation=30)
        ax.set_ylabel("GTC (mean pairwise cosine)")
        ax.set_title(f"{ds}: GTC per layer")
    axes[0][0].legend(fontsize=7)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("stod tables, figures and claims ledger")
    ap.add_argument("--evals", nargs="+", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg, raw = load(a.config, a.scale), load_yaml(a.config)
    reported = raw["reported"]
    evals = [read_json(p) for p in a.evals]
    recs = records_of(evals)
    tables = a.out / "tables"
    steps = "/".join(str(s) for s in sorted({cfg.attack[d]["pgd_steps"] for d in cfg.datasets}))
    best = [paper_value(reported, "best_baseline", k) for k in ("fgsm_acc", "pgd_acc")]
    write_table(robustness_table(evals, recs, reported, cfg.datasets, cfg.methods), tables,
                "robustness",
                f"Clean, FGSM and PGD accuracy (white-box, BPTT through the surrogate; PGD "
                f"{steps} steps) and GTC per encoding, {PM} over {len(cfg.seeds)} seeds (scale "
                f"{a.scale}, T = {cfg.snn.T}). The paper's columns are the paper's own CIFAR-10 "
                f"numbers (PAPERS.md; its best baseline: FGSM {best[0]:g}, PGD {best[1]:g}), not "
                "ours.")
    write_table(gtc_table(evals, cfg.datasets, cfg.methods), tables, "gtc_layers",
                "GTC per layer: mean pairwise cosine of the per-time-step loss gradients on the "
                "layer's input (layer 1: the encoded image), and each time step's cosine with "
                f"the summed gradient; {PM} over seeds.")
    write_table(reported_table(reported), tables, "paper_reported",
                "The paper's own numbers (never presented as ours).")
    plot_eps(evals, cfg.datasets, cfg.methods, a.out / "figures" / "accuracy_vs_eps.png")
    plot_gtc(evals, cfg.datasets, cfg.methods, reported, a.out / "figures" / "gtc.png")
    write_ledger(a.out, "stod", a.scale, raw.get("claims", []), recs)


if __name__ == "__main__":
    main()
