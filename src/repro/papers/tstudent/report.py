"""Transformers-as-students report: fitted rates beside the paper's, recovery of the teacher's
blocks, the image CNN case, figures (loss curves, recovery curves, attention heatmaps) and the
claims ledger.

Reads only finished artifacts (one JSON per setting x seed, one per digits seed, the CNN's).
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
from repro.papers.tstudent.settings import TeacherSetting, settings_of

PAPER_SETTING = "all six teacher settings"
LABELS = {"conv": "conv + avg pooling", "gcn": "GCN (cycle)", "sparse_token": "sparse token sel.",
          "group_sparse": "group-sparse linear"}
FINAL_METRICS = ("train_slope", "ood_slope", "train_excess", "ood_excess", "cos", "attn_tv",
                 "support_recovery", "value_rel_error", "attn_tv_slope", "value_error_slope")
DIGITS_METRICS = (*FINAL_METRICS, "real_excess", "real_excess_slope", "accuracy",
                  "teacher_accuracy", "accuracy_ratio", "agreement")


def run_records(run: dict[str, Any], rates: dict[str, float]) -> list[dict[str, Any]]:
    """One record per final metric, plus |slope - paper's rate| for both slopes."""
    method, seed, f = run["setting"], run["seed"], run["final"]
    names = DIGITS_METRICS if method == "digits" else FINAL_METRICS
    recs = [{"method": method, "metric": m, "seed": seed, "value": f[m]} for m in names]
    for m in ("train_slope", "ood_slope"):
        if m in rates:
            recs.append({"method": method, "metric": f"{m}_dev", "seed": seed,
                         "value": abs(f[m] - rates[m])})
    return recs


def aggregate_records(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per seed, the worst case over the synthetic settings (method `all_settings`)."""
    by_seed: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in runs:
        by_seed[r["seed"]].append(r["final"])
    out = []
    for seed, finals in sorted(by_seed.items()):
        out.append({"method": "all_settings", "metric": "max_ood_slope", "seed": seed,
                    "value": max(f["ood_slope"] for f in finals)})
        out.append({"method": "all_settings", "metric": "max_attn_tv", "seed": seed,
                    "value": max(f["attn_tv"] for f in finals)})
    return out


def _vals(records: list[dict[str, Any]]) -> dict[tuple[str, str], list[float]]:
    vals: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        vals[(r["method"], r["metric"])].append(float(r["value"]))
    return vals


def rates_table(records: list[dict[str, Any]], settings: dict[str, TeacherSetting],
                reported: list[dict[str, Any]]) -> pd.DataFrame:
    v = _vals(records)
    rows = []
    for name, spec in settings.items():
        rows.append({
            "setting": name, "teacher": LABELS[spec.teacher], "D": spec.D, "K": spec.K,
            "activation": spec.act,
            "train-loss slope (ours)": pm(v[(name, "train_slope")], 3, "g"),
            "train-loss slope (paper)": paper_value(reported, "paper", "train_slope",
                                                    PAPER_SETTING),
            "OOD-loss slope (ours)": pm(v[(name, "ood_slope")], 3, "g"),
            "OOD-loss slope (paper)": paper_value(reported, "paper", "ood_slope", PAPER_SETTING),
            "final excess train loss": pm(v[(name, "train_excess")], 3, "g"),
            "final excess OOD loss": pm(v[(name, "ood_excess")], 3, "g"),
            "attention-TV slope": pm(v[(name, "attn_tv_slope")], 3, "g"),
            "value-error slope": pm(v[(name, "value_error_slope")], 3, "g"),
            "seeds": len(v[(name, "train_slope")]),
        })
    return pd.DataFrame(rows)


def recovery_table(records: list[dict[str, Any]], settings: dict[str, TeacherSetting],
                   reported: list[dict[str, Any]]) -> pd.DataFrame:
    v = _vals(records)
    rows = []
    for name, spec in settings.items():
        rows.append({
            "setting": name, "teacher": LABELS[spec.teacher], "activation": spec.act,
            "cos(W_V, V*) (ours)": pm(v[(name, "cos")], 5, "g"),
            "cos (paper, T -> inf)": paper_value(reported, "paper", "cos", PAPER_SETTING),
            "value error ‖W_V - V*‖ / ‖V*‖": pm(v[(name, "value_rel_error")], 3, "g"),
            "attention TV to S*": pm(v[(name, "attn_tv")], 3, "g"),
            "queries with top-K = supp(S*)": pm(v[(name, "support_recovery")], 3, "g"),
            "seeds": len(v[(name, "cos")]),
        })
    return pd.DataFrame(rows)


def digits_table(records: list[dict[str, Any]], cnn: dict[str, Any], source: dict[str, Any]
                 ) -> pd.DataFrame:
    v = _vals(records)
    rows = [{"quantity": "data", "value": f"{source['source']} ({source.get('provider', '')}"
             f"{', '.join(sorted(source.get('files', {}).values()))}), "
             f"{source['n_train']} train / {source['n_test']} test images"},
            {"quantity": "CNN teacher: test accuracy", "value": f"{cnn['test_accuracy']:.4f}"}]
    for label, metric, digits in (
            ("student: cos(W_V, V*)", "cos", 5),
            ("student: attention TV to S*", "attn_tv", 3),
            ("student: queries with top-4 = the 2x2 window", "support_recovery", 3),
            ("student: excess loss, N(0, I) inputs", "train_excess", 3),
            ("student: excess loss, Exp(1) inputs", "ood_excess", 3),
            ("student: excess loss, held-out real images", "real_excess", 3),
            ("train-loss slope", "train_slope", 3),
            ("real-image loss slope", "real_excess_slope", 3),
            ("CNN accuracy with the student's features", "accuracy", 4),
            ("  / with the teacher's features", "accuracy_ratio", 4),
            ("agreement with the teacher's predictions", "agreement", 4)):
        rows.append({"quantity": label, "value": pm(v[("digits", metric)], digits, "g")})
    return pd.DataFrame(rows)


def _band(ax: Any, t: np.ndarray, ys: np.ndarray, label: str, color: str) -> None:
    """Geometric mean and min-max band over seeds on log axes."""
    ys = np.clip(ys, 1e-300, None)
    ax.plot(t, np.exp(np.log(ys).mean(0)), color=color, label=label)
    if len(ys) > 1:
        ax.fill_between(t, ys.min(0), ys.max(0), color=color, alpha=0.2)


def _reference(ax: Any, t: np.ndarray, y_end: float, slope: float, color: str) -> None:
    """A dashed line of the paper's slope through the last point."""
    ax.plot(t, y_end * (t / t[-1]) ** slope, ls="--", lw=1, color=color,
            label=f"slope {slope:g} (paper)")


def plot_curves(runs_by: dict[str, list[dict[str, Any]]], rates: dict[str, float], path: Path
                ) -> None:
    names = list(runs_by)
    ncol = 3
    nrow = (len(names) + ncol - 1) // ncol
    fig, axes = subplots(nrow, ncol, figsize=(4.2 * ncol, 3.3 * nrow), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        runs = runs_by[name]
        t = np.asarray(runs[0]["curve"]["t"], float)
        for key, color, rate in (("train_excess", "tab:blue", rates.get("train_slope")),
                                 ("ood_excess", "tab:red", rates.get("ood_slope"))):
            ys = np.array([r["curve"][key] for r in runs])
            _band(ax, t, ys, key.replace("_", " "), color)
            if rate is not None:
                _reference(ax, t, float(np.exp(np.log(ys[:, -1]).mean())), rate, color)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{name} ({len(runs)} seeds)", fontsize=10)
        ax.set_xlabel("iteration t")
        ax.set_ylabel("excess loss")
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    save_figure(fig, path)


def plot_recovery(runs_by: dict[str, list[dict[str, Any]]], path: Path) -> None:
    fig, (a1, a2) = subplots(1, 2, figsize=(10, 3.6))
    for i, (name, runs) in enumerate(runs_by.items()):
        color = f"C{i}"
        t = np.asarray(runs[0]["curve"]["t"], float)
        cos = np.array([r["curve"]["cos"] for r in runs])
        tv = np.array([r["curve"]["attn_tv"] for r in runs])
        a1.plot(t, 1 - cos.mean(0) + 1e-16, color=color, label=name)
        a2.plot(t, tv.mean(0), color=color, label=name)
    t_ref = np.asarray(next(iter(runs_by.values()))[0]["curve"]["t"], float)
    a2.plot(t_ref, 0.5 * (t_ref / t_ref[-1]) ** -0.5 * 0.05, ls="--", color="k", lw=1,
            label="slope -0.5")
    a2.legend(fontsize=7)
    a1.set(xscale="log", yscale="log", xlabel="iteration t", ylabel="1 - cos(W_V, V*)")
    a2.set(xscale="log", yscale="log", xlabel="iteration t",
           ylabel="attention TV distance to S*")
    a1.legend(fontsize=7)
    save_figure(fig, path)


def plot_attention(runs_by: dict[str, list[dict[str, Any]]], path: Path) -> None:
    """Seed 0's learned attention A (column i = query i) beside the teacher's S*."""
    names = list(runs_by)
    fig, axes = subplots(len(names), 2, figsize=(6.4, 3.0 * len(names)), squeeze=False)
    for row, name in zip(axes, names, strict=True):
        run = min(runs_by[name], key=lambda r: r["seed"])
        A, S = np.asarray(run["attention"]), np.asarray(run["S_star"])
        vmax = float(S.max())
        for ax, M, title in ((row[0], A, f"{name}: learned A (seed {run['seed']})"),
                             (row[1], S, f"{name}: teacher S*")):
            im = ax.imshow(M, cmap="viridis", vmin=0, vmax=vmax)
            ax.set_title(title, fontsize=9)
            ax.set_xlabel("query i")
            ax.set_ylabel("key j")
        fig.colorbar(im, ax=row[1], fraction=0.046)
    save_figure(fig, path)


def plot_digits(runs: list[dict[str, Any]], path: Path) -> None:
    fig, axes = subplots(1, 4, figsize=(17, 3.6))
    t = np.asarray(runs[0]["curve"]["t"], float)
    for key, color, label in (("train_excess", "tab:blue", "N(0, I) (training inputs)"),
                              ("ood_excess", "tab:red", "Exp(1) inputs"),
                              ("real_excess", "tab:green", "held-out real images")):
        _band(axes[0], t, np.array([r["curve"][key] for r in runs]), label, color)
    axes[0].set(xscale="log", yscale="log", xlabel="iteration t", ylabel="excess loss",
                title=f"student of the image CNN's first layer ({len(runs)} seeds)")
    axes[0].legend(fontsize=7)
    acc = np.array([r["curve"]["accuracy"] for r in runs])
    axes[1].plot(t, acc.mean(0), color="tab:green", label="CNN with the student's features")
    axes[1].axhline(runs[0]["final"]["teacher_accuracy"], ls="--", color="k",
                    label="CNN (teacher's features)")
    axes[1].set(xscale="log", xlabel="iteration t", ylabel="held-out accuracy")
    axes[1].legend(fontsize=7)
    run = min(runs, key=lambda r: r["seed"])
    A, S = np.asarray(run["attention"]), np.asarray(run["S_star"])
    for ax, M, title in ((axes[2], A, "learned A"), (axes[3], S, "teacher S* (2x2 pooling)")):
        ax.imshow(M, cmap="viridis", vmin=0, vmax=float(S.max()))
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("query i")
        ax.set_ylabel("key j")
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    ap.add_argument("--runs", nargs="+", required=True)
    ap.add_argument("--digits", nargs="+", required=True)
    ap.add_argument("--cnn", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args(argv)

    raw = load_yaml(a.config)  # its `reported:` and `claims:` are data, read as they are
    cfg = settings_of(resolve_scale(raw, a.scale))
    reported = raw["reported"]
    rates = {m: paper_value(reported, "paper", m, PAPER_SETTING)
             for m in ("train_slope", "ood_slope")}
    rates = {k: v for k, v in rates.items() if v is not None}
    runs = [read_json(p) for p in a.runs]
    digits = [read_json(p) for p in a.digits]
    cnn, source = read_json(a.cnn), read_json(a.source)

    records = [rec for r in runs + digits for rec in run_records(r, rates)]
    records += aggregate_records(runs)
    settings = cfg.settings
    runs_by = {name: sorted([r for r in runs if r["setting"] == name], key=lambda r: r["seed"])
               for name in settings}

    out = a.out
    write_table(rates_table(records, settings, reported), out / "tables", "rates",
                "Fitted log-log slopes of the excess losses (t >= "
                f"{cfg.fit_from:g} T, T = {cfg.iterations}), {PM} over seeds; paper: "
                "its rates. Excess training loss = exact population loss under N(0, I); "
                f"excess OOD loss on {cfg.ood.n_samples} inputs with i.i.d. "
                f"Exp({cfg.ood.rate:g}) entries. Last two columns: slopes of the parameter "
                "errors (attention TV distance to S*, ‖W_V - V*‖ / ‖V*‖).")
    write_table(recovery_table(records, settings, reported), out / "tables", "recovery",
                f"Recovery of the teacher's blocks after T = {cfg.iterations} steps, {PM} "
                "over seeds.")
    write_table(digits_table(records, cnn, source), out / "tables", "digits",
                "Real-data case: the student learns the first layer (conv with 2x2 average "
                "pooling, ReLU) of a CNN trained on images; student trained on "
                f"{cfg.digits.student.train_inputs} inputs, evaluated on held-out "
                f"images; {PM} over seeds.")
    write_table(reported_table(reported), out / "tables", "paper_reported",
                "The paper's own rates (never presented as ours).")
    plot_curves(runs_by, rates, out / "figures" / "curves.png")
    plot_recovery(runs_by, out / "figures" / "recovery.png")
    plot_attention(runs_by, out / "figures" / "attention.png")
    plot_digits(sorted(digits, key=lambda r: r["seed"]), out / "figures" / "digits.png")
    write_ledger(out, "tstudent", a.scale, raw["claims"], records)


if __name__ == "__main__":
    main()
