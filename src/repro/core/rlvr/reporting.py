"""Report pieces every RLVR paper needs: seed summaries, pass@k curves, entropy over training
(series and start/end records), and their figures."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.metrics import pass_at_k
from repro.core.plotting import save_figure, subplots
from repro.core.tables import PM, pm


@dataclass
class ReportScale:
    """The few scale settings an RLVR report reads (the rest of the YAML is the jobs')."""

    seeds: list[int]  # the config seeds (captions)
    countdown_methods: list[str]  # Countdown RL methods, in table order
    math_methods: list[str]  # math RL methods, in table order
    math_benchmarks: list[str]  # the math test benchmarks

    @classmethod
    def from_settings(cls, s: dict[str, Any], **extra: Any) -> ReportScale:
        """`extra`: the fields a paper's subclass adds, already typed by the paper."""
        return cls(
            seeds=[int(x) for x in s["seeds"]],
            countdown_methods=list(s["countdown"]["methods"]),
            math_methods=list(s["math"]["methods"]),
            math_benchmarks=list(s["math"]["data"]["test"]),
            **extra,
        )

Curves = Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]]


def by_method_metric(records: list[dict[str, Any]]) -> dict[tuple[str, str], list[float]]:
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        if r["value"] is not None:
            out[(r["method"], r["metric"])].append(float(r["value"]))
    return out


def passk_curves(evals: list[dict[str, Any]]) -> dict[str, tuple[np.ndarray, ...]]:
    """pass@k for every k <= n from the per-problem correct counts; mean/sd over seeds."""
    per_method: dict[str, list[np.ndarray]] = defaultdict(list)
    for ev in evals:
        pp = ev["per_problem"]
        n = min(p["n"] for p in pp)
        ks = np.unique(np.round(np.geomspace(1, n, num=min(n, 16))).astype(int))
        curve = np.array([np.mean([pass_at_k(p["n"], p["correct"], k) for p in pp]) for k in ks])
        per_method[ev["records"][0]["method"]].append((ks, curve))
    out = {}
    for m, runs in per_method.items():
        ks = runs[0][0]
        arr = np.stack([c for _, c in runs])
        out[m] = (ks, arr.mean(0), arr.std(0, ddof=1) if len(arr) > 1 else np.zeros(len(ks)))
    return out


def rollout_records(train_logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rollouts sampled per RL step, one record per run: the budget each method spent (equal
    across methods unless one resamples, as dynamic sampling does), shown in the tables."""
    return [
        {"method": tl["method"], "metric": "rollouts_per_step", "seed": tl["seed"],
         "value": float(np.mean([s.get("rollouts_sampled", np.nan) for s in tl["steps"]]))}
        for tl in train_logs
    ]


def step_series(
    train_logs: list[dict[str, Any]], key: str = "entropy"
) -> dict[str, tuple[np.ndarray, ...]]:
    """method -> (steps, mean over seeds of `key` per step, sd); steps without it are skipped."""
    runs: dict[str, list[tuple[np.ndarray, np.ndarray]]] = defaultdict(list)
    for tl in train_logs:
        rows = [s for s in tl["steps"] if key in s]
        runs[tl["method"]].append(
            (np.array([s["step"] for s in rows]), np.array([s[key] for s in rows]))
        )
    out = {}
    for m, rs in runs.items():
        n = min(len(s) for s, _ in rs)
        arr = np.stack([e[:n] for _, e in rs])
        out[m] = (rs[0][0][:n], arr.mean(0), arr.std(0, ddof=1) if len(arr) > 1 else np.zeros(n))
    return out


def entropy_series(train_logs: list[dict[str, Any]]) -> dict[str, tuple[np.ndarray, ...]]:
    return step_series(train_logs, "entropy")


def train_records(
    train_logs: list[dict[str, Any]], metric: str = "train_entropy_final"
) -> list[dict[str, Any]]:
    """Entropy at the end of training (mean of the last 10% of steps), one record per run."""
    return _window_records(train_logs, metric, start=False)


def entropy_start_end_records(
    train_logs: list[dict[str, Any]], prefix: str = "train_entropy"
) -> list[dict[str, Any]]:
    """Per run: rollout entropy over the first and the last 10% of steps, and end - start."""
    start = _window_records(train_logs, f"{prefix}_start", start=True)
    end = _window_records(train_logs, f"{prefix}_final", start=False)
    change = [
        {**e, "metric": f"{prefix}_change", "value": e["value"] - s["value"]}
        for s, e in zip(start, end, strict=True)
    ]
    return start + end + change


def _window_records(
    train_logs: list[dict[str, Any]], metric: str, start: bool
) -> list[dict[str, Any]]:
    recs = []
    for tl in train_logs:
        ent = [s["entropy"] for s in tl["steps"] if "entropy" in s]
        w = max(1, len(ent) // 10)
        part = ent[:w] if start else ent[-w:]
        recs.append(
            {"method": tl["method"], "metric": metric, "seed": tl["seed"],
             "value": float(np.mean(part))}
        )
    return recs


def plot_curves(
    curves: Curves,
    path: str | Path,
    xlabel: str,
    ylabel: str,
    title: str,
    styles: Mapping[str, dict] | None = None,
    logx: bool = False,
) -> None:
    """One line per method with a ± sd band over seeds."""
    styles = styles or {}
    fig, ax = subplots(figsize=(5.2, 3.6))
    for m, (x, mean, sd) in curves.items():
        style = styles.get(m, {})
        ax.plot(x, mean, label=m, **style)
        ax.fill_between(x, mean - sd, mean + sd, alpha=0.15, color=style.get("color"))
    if logx:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    save_figure(fig, path)


def plot_passk(curves: Curves, path: str | Path, styles: Mapping[str, dict] | None = None,
               task: str = "held-out Countdown") -> None:
    plot_curves(curves, path, "k", f"pass@k ({task})", f"pass@k, {PM} over seeds",
                styles, logx=True)


def plot_entropy(curves: Curves, path: str | Path,
                 styles: Mapping[str, dict] | None = None) -> None:
    plot_curves(curves, path, "RL step", "mean token entropy of rollouts (nats)",
                "Entropy over training", styles)


def ours_rows(
    records: list[dict[str, Any]], methods: list[str], metrics: tuple[str, ...]
) -> list[dict[str, Any]]:
    """One row per method: 'mean ± sd' over seeds of every avg@n and of each of `metrics`
    that the records hold, as '<metric> (ours)' columns; callers add the paper's columns."""
    vals = by_method_metric(records)
    present = sorted({r["metric"] for r in records if r["metric"].startswith("avg@")})
    present += [m for m in metrics if any(k[1] == m for k in vals)]
    return [
        {"method": m, **{f"{metric} (ours)": pm(vals[(m, metric)]) for metric in present}}
        for m in methods
    ]
