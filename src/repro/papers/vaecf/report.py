"""VAE-CF report: the main table (ours beside the paper's numbers, labelled with their setting),
the clean / masking / masking+anchor ablation, the masking-rate and beta grids, the
validation selection of lambda_A, metrics by user activity, the latent-proximity analysis,
figures, and the claims ledger.

Reads only finished artifacts: one run.json per dataset x variant x seed, one proximity JSON
per analysed (dataset, variant), the data stats (one per dataset x split) and fetch sources.
The unit of every spread and claim interval is the seed; with `data_protocol.vary_split` seed k
is trained and scored on data split k, so it is a (split, init) pair and the spread over seeds
includes the split-to-split spread (records carry both `seed` and `split`).
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
from repro.core.tables import PM, mean_sd, paper_value, pm, reported_table, write_table
from repro.papers.vaecf.settings import TrainConfig, VariantConfig, settings_of

METRICS = ("recall@20", "recall@50", "ndcg@100")
MAIN = ("clean", "masking", "masking_anchor")
LABELS = {"clean": "Mult-VAE, clean input", "masking": "Mult-VAE (masking p=0.5)",
          "masking_anchor": "Mult-VAE + anchor (masking + L_A)"}
PAPER_SETTING = {"ml-20m": "ML-20M, Liang et al. protocol",
                 "netflix": "Netflix, Liang et al. protocol",
                 "msd": "MSD, Liang et al. protocol"}


def by_key(records: list[dict[str, Any]]) -> dict[tuple[str, str], dict[int, float]]:
    """(method, metric) -> seed -> value."""
    out: dict[tuple[str, str], dict[int, float]] = defaultdict(dict)
    for r in records:
        out[(r["method"], r["metric"])][r["seed"]] = float(r["value"])
    return out


def splits_by_key(records: list[dict[str, Any]]) -> dict[tuple[str, str], set[int]]:
    """(method, metric) -> the data splits its values come from."""
    out: dict[tuple[str, str], set[int]] = defaultdict(set)
    for r in records:
        out[(r["method"], r["metric"])].add(int(r["split"]))
    return out


def select(runs: list[dict[str, Any]], selections: dict[str, list[str]]
           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[tuple[str, str], str]]:
    """For each reported method and dataset: the candidate variant with the best seed-mean
    validation NDCG@100 (never test). Returns its records renamed to the method, the
    selection table rows, and (dataset, method) -> chosen variant."""
    recs, rows, chosen = [], [], {}
    datasets = sorted({r["dataset"] for r in runs})
    for method, candidates in selections.items():
        for d in datasets:
            cand = {v: [r for r in runs if r["dataset"] == d and r["variant"] == v]
                    for v in candidates}
            cand = {v: rs for v, rs in cand.items() if rs}
            if not cand:
                continue
            val = {v: float(np.mean([r["val"]["ndcg@100"] for r in rs])) for v, rs in cand.items()}
            best = max(val, key=lambda v: (val[v], -candidates.index(v)))
            chosen[(d, method)] = best
            for v, rs in cand.items():
                rows.append({
                    "dataset": d, "method": method, "candidate": v,
                    "val NDCG@100": pm([r["val"]["ndcg@100"] for r in rs], 4),
                    "test NDCG@100": pm([r["test"]["ndcg@100"] for r in rs], 4),
                    "seeds": len(rs), "chosen": "yes" if v == best else "",
                })
            for r in cand[best]:
                recs += [{**rec, "method": method} for rec in r["records"]]
    return recs, rows, chosen


def main_table(keyed: dict, splits: dict, datasets: list[str], methods: list[str],
               reported: list[dict[str, Any]]) -> pd.DataFrame:
    """Ours (mean ± sd over seeds, `pm`; how many data splits they span) with the paper's
    number for the same method; where our data set is not one of the paper's, the paper's
    ML-20M number, labelled as such."""
    rows = []
    for d in datasets:
        pd_ = d if d in PAPER_SETTING else "ml-20m"
        setting = PAPER_SETTING[pd_] + ("" if d == pd_ else f" (not comparable: ours is {d})")
        for m in methods:
            if not keyed.get((m, f"{d}/ndcg@100")):
                continue
            row = {"dataset": d, "method": m}
            for k in METRICS:
                row[f"{k} (ours)"] = pm(list(keyed[(m, f"{d}/{k}")].values()), 4)
            row["seeds"] = len(keyed[(m, f"{d}/ndcg@100")])
            row["splits"] = len(splits[(m, f"{d}/ndcg@100")])
            for k in ("recall@20", "ndcg@100"):
                row[f"{k} (paper)"] = paper_value(reported, m, f"{pd_}/{k}", PAPER_SETTING[pd_])
            row["paper setting"] = setting
            rows.append(row)
    return pd.DataFrame(rows)


def ablation_table(keyed: dict, datasets: list[str], reported: list[dict[str, Any]]
                   ) -> pd.DataFrame:
    rows = []
    for d in datasets:
        base = keyed.get(("masking", f"{d}/ndcg@100"), {})
        for m in MAIN:
            vals = keyed.get((m, f"{d}/ndcg@100"), {})
            if not vals:
                continue
            diffs = [vals[s] - base[s] for s in vals if s in base]
            rows.append({
                "dataset": d, "method": LABELS[m],
                "NDCG@100 (ours)": pm(list(vals.values()), 4),
                "vs masking (paired by seed = split)": pm(diffs, 4) if m != "masking" else "-",
                "Recall@20 (ours)": pm(list(keyed[(m, f"{d}/recall@20")].values()), 4),
                "NDCG@100 (paper, ML-20M ablation)": paper_value(
                    reported, m, "ml-20m/ndcg@100", PAPER_SETTING["ml-20m"]),
            })
    return pd.DataFrame(rows)


def _kl_at_best(run: dict[str, Any]) -> float:
    row = run["curve"][run["best_epoch"] - 1] if run["best_epoch"] > 0 else run["curve"][-1]
    return float(row["kl"])


def _kl_schedule(spec: VariantConfig, train: TrainConfig) -> tuple[float, int]:
    """A variant's KL cap and anneal steps: its overrides, else the shared train settings."""
    cap = spec.anneal_cap if spec.anneal_cap is not None else train.anneal_cap
    steps = (spec.total_anneal_steps if spec.total_anneal_steps is not None
             else train.total_anneal_steps)
    return cap, steps


def grid_rows(runs: list[dict[str, Any]], variants: dict[str, VariantConfig],
              train: TrainConfig) -> pd.DataFrame:
    """Every variant with its masking rate, KL weight and lambda_A, test NDCG@100 / Recall@20,
    and the KL(q||p) per user at the selected epoch (low KL = posterior collapse)."""
    rows = []
    for d in sorted({r["dataset"] for r in runs}):
        for v, spec in variants.items():
            rs = [r for r in runs if r["dataset"] == d and r["variant"] == v]
            if not rs:
                continue
            cap, steps = _kl_schedule(spec, train)
            rows.append({
                "dataset": d, "variant": v, "masking p": spec.dropout,
                "beta": f"{cap} (annealed)" if steps > 0 else f"{cap} (constant)",
                "lambda_A": spec.anchor_weight,
                "NDCG@100": pm([r["test"]["ndcg@100"] for r in rs], 4),
                "Recall@20": pm([r["test"]["recall@20"] for r in rs], 4),
                "KL per user": pm([_kl_at_best(r) for r in rs], 2),
                "best epoch": pm([float(r["best_epoch"]) for r in rs], 0),
                "seeds": len(rs),
            })
    return pd.DataFrame(rows)


def activity_buckets(run: dict[str, Any], n_buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """A run's test-user activity and each user's equal-count activity bucket (-1: no held-out
    items), ranked within the run's own test users: runs on different splits score
    different users."""
    act = np.asarray(run["user_activity"], dtype=float)
    ok = np.array([x is not None for x in run["per_user"]["ndcg@100"]])
    bucket = np.full(len(act), -1)
    bucket[ok] = pd.qcut(pd.Series(act[ok]).rank(method="first"), n_buckets,
                         labels=False).to_numpy()
    return act, bucket


def _span(values: list[int]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def activity_table(runs: list[dict[str, Any]], chosen: dict[tuple[str, str], str],
                   n_buckets: int) -> pd.DataFrame:
    """NDCG@100 / Recall@20 by test-user activity (#interactions, equal-count buckets of each
    run's own test users; the interaction range and bucket size span the splits)."""
    rows = []
    for d in sorted({r["dataset"] for r in runs}):
        variant_of = {"clean": "clean", "masking": "masking",
                      "masking_anchor": chosen.get((d, "masking_anchor"))}
        ours = [(r, *activity_buckets(r, n_buckets)) for r in runs if r["dataset"] == d]
        for b in range(n_buckets):
            acts = [act[bucket == b] for _, act, bucket in ours]
            lo, hi = int(min(a.min() for a in acts)), int(max(a.max() for a in acts))
            for m, v in variant_of.items():
                rs = [(r, bucket == b) for r, _, bucket in ours if r["variant"] == v]
                if not rs:
                    continue
                vals = {k: [float(np.mean(np.asarray(r["per_user"][k], dtype=float)[sel]))
                            for r, sel in rs] for k in ("ndcg@100", "recall@20")}
                rows.append({"dataset": d, "bucket": b + 1, "interactions": f"{lo}-{hi}",
                             "users": _span([int(a.size) for a in acts]), "method": m,
                             "NDCG@100": pm(vals["ndcg@100"], 4),
                             "Recall@20": pm(vals["recall@20"], 4),
                             "_ndcg": float(np.mean(vals["ndcg@100"])),
                             "_ndcg_sd": mean_sd(vals["ndcg@100"])[1]})
    return pd.DataFrame(rows)


STAGES = ("early", "final")


def proximity_table(prox: list[dict[str, Any]]) -> pd.DataFrame:
    rows = []
    for p in prox:
        for stage in STAGES:
            seeds = [s for s in p["seeds"] if s["stage"] == stage]
            if seeds:
                rows.append(_proximity_row(p, stage, seeds))
    return pd.DataFrame(rows)


def _proximity_row(p: dict[str, Any], stage: str, seeds: list[dict[str, Any]]
                   ) -> dict[str, Any]:
    return {
        "dataset": p["dataset"], "variant": p["variant"], "model": stage,
        "seeds": len(seeds),
        "spearman(W2, transfer)": pm([s["spearman_w2"] for s in seeds], 3),
        "spearman(W2, abs transfer)": pm([s["spearman_w2_influence"] for s in seeds], 3),
        "spearman(input cosine, transfer)": pm([s["spearman_cos"] for s in seeds], 3),
        "rel. transfer, nearest bin": pm(
            [s["relative_transfer_by_bin"][0] for s in seeds], 4),
        "rel. transfer, farthest bin": pm(
            [s["relative_transfer_by_bin"][-1] for s in seeds], 4),
        "helped, nearest bin": pm([s["fraction_helped_by_bin"][0] for s in seeds], 3),
        "helped, farthest bin": pm([s["fraction_helped_by_bin"][-1] for s in seeds], 3),
        "median W2": pm([s["w2_median"] for s in seeds], 3),
    }


def data_table(stats: list[str], sources: list[str]) -> pd.DataFrame:
    """One row per (dataset, split): sizes after preprocessing and the source read."""
    source_of = {so["dataset"]: so["source"] for so in map(read_json, sources)}
    rows = []
    for st in map(read_json, stats):
        rows.append({"dataset": st["dataset"], "split": st["split"],
                     "split seed": st["split_seed"], "source": source_of[st["dataset"]],
                     **{k: st[k] for k in ("interactions", "users", "items", "train_users",
                                           "heldout_users", "val_te_interactions",
                                           "test_te_interactions")}})
    return pd.DataFrame(rows).sort_values(["dataset", "split"], kind="stable")


def plot_ablation(keyed: dict, datasets: list[str], path: Path) -> None:
    fig, axes = subplots(1, len(datasets), figsize=(4.2 * len(datasets), 3.4), squeeze=False)
    for ax, d in zip(axes[0], datasets, strict=True):
        for i, m in enumerate(MAIN):
            vals = list(keyed.get((m, f"{d}/ndcg@100"), {}).values())
            if vals:
                ax.bar(i, np.mean(vals), yerr=np.std(vals, ddof=1) if len(vals) > 1 else 0,
                       color=("tab:gray", "tab:blue", "tab:red")[i], capsize=4)
                ax.scatter(np.full(len(vals), i), vals, color="k", s=8, zorder=3)
        ax.set_xticks(range(len(MAIN)), ["clean", "masking", "masking\n+anchor"])
        ax.set_ylabel("test NDCG@100")
        ax.set_title(f"{d} ({PM} over seeds; dots: seeds)", fontsize=9)
        lo = min((v for m in MAIN for v in keyed.get((m, f"{d}/ndcg@100"), {}).values()),
                 default=0.0)
        ax.set_ylim(bottom=max(0.0, lo - 0.03))
    save_figure(fig, path)


def plot_grids(runs: list[dict[str, Any]], variants: dict[str, VariantConfig],
               train: TrainConfig, path: Path) -> None:
    fig, axes = subplots(1, 2, figsize=(9, 3.4))
    for d in sorted({r["dataset"] for r in runs}):
        def pts(filt, d=d):
            out = []
            for v, spec in variants.items():
                rs = [r for r in runs if r["dataset"] == d and r["variant"] == v]
                if rs and filt(spec):
                    out.append((v, spec, [r["test"]["ndcg@100"] for r in rs],
                                [_kl_at_best(r) for r in rs]))
            return out
        # the masking-rate grid: no anchors, the shared KL schedule
        mask = sorted(pts(lambda s: s.anchor_weight == 0 and s.total_anneal_steps != 0
                          and s.anneal_cap is None),
                      key=lambda t: t[1].dropout)
        if mask:
            x = [t[1].dropout for t in mask]
            axes[0].errorbar(x, [np.mean(t[2]) for t in mask],
                             yerr=[np.std(t[2], ddof=1) if len(t[2]) > 1 else 0 for t in mask],
                             marker="o", capsize=3, label=d)
        # the KL-weight grid: clean input, no anchors
        beta = sorted(pts(lambda s: s.dropout == 0 and s.anchor_weight == 0),
                      key=lambda t: _kl_schedule(t[1], train)[0])
        if beta:
            x = [_kl_schedule(t[1], train)[0] for t in beta]
            axes[1].errorbar(x, [np.mean(t[2]) for t in beta],
                             yerr=[np.std(t[2], ddof=1) if len(t[2]) > 1 else 0 for t in beta],
                             marker="o", capsize=3, label=f"{d} NDCG@100")
            ax2 = axes[1].twinx()
            ax2.plot(x, [np.mean(t[3]) for t in beta], "s--", color="tab:gray", label="KL/user")
            ax2.set_ylabel("KL(q||p) per user (gray)")
    axes[0].set_xlabel("input masking rate p (clean: 0)")
    axes[0].set_ylabel("test NDCG@100")
    axes[0].set_title("masking rate (beta annealed to 0.2)", fontsize=9)
    axes[1].set_xlabel("KL weight beta (clean input; 0.2 annealed, others constant)")
    axes[1].set_ylabel("test NDCG@100")
    axes[1].set_title("beta-KL on clean input", fontsize=9)
    for ax in axes:
        ax.legend(fontsize=8)
    save_figure(fig, path)


def plot_activity(act: pd.DataFrame, path: Path) -> None:
    datasets = sorted(set(act["dataset"])) if len(act) else []
    fig, axes = subplots(1, max(1, len(datasets)), figsize=(4.5 * max(1, len(datasets)), 3.4),
                         squeeze=False)
    for ax, d in zip(axes[0], datasets, strict=False):
        sub = act[act["dataset"] == d]
        methods = [m for m in MAIN if m in set(sub["method"])]
        buckets = sorted(set(sub["bucket"]))
        w = 0.8 / max(1, len(methods))
        for i, m in enumerate(methods):
            s = sub[sub["method"] == m].sort_values("bucket")
            ax.bar(np.arange(len(buckets)) + i * w, s["_ndcg"], w, yerr=s["_ndcg_sd"],
                   capsize=2, label=m, color=("tab:gray", "tab:blue", "tab:red")[MAIN.index(m)])
        labels = [sub[sub["bucket"] == b]["interactions"].iloc[0] for b in buckets]
        ax.set_xticks(np.arange(len(buckets)) + w * (len(methods) - 1) / 2, labels)
        ax.set_xlabel("test user's #interactions (bucket)")
        ax.set_ylabel("test NDCG@100")
        ax.set_title(d, fontsize=9)
        ax.legend(fontsize=8)
    save_figure(fig, path)


def plot_proximity(prox: list[dict[str, Any]], path: Path) -> None:
    """Rows: model stage (mid-training, selected); columns: relative transfer and fraction of
    users helped vs latent distance bin; one line per analysed variant."""
    fig, axes = subplots(2, 2, figsize=(9, 6.4), squeeze=False)
    for row, stage in enumerate(STAGES):
        for p in prox:
            seeds = [s for s in p["seeds"] if s["stage"] == stage]
            if not seeds:
                continue
            x = np.mean([s["distance_by_bin"] for s in seeds], 0)
            for ax, key in zip(axes[row], ("relative_transfer_by_bin", "fraction_helped_by_bin"),
                               strict=True):
                ys = np.array([s[key] for s in seeds])
                sd = ys.std(0, ddof=1) if len(ys) > 1 else np.zeros(ys.shape[1])
                ax.errorbar(x, ys.mean(0), yerr=sd, marker="o", capsize=3,
                            label=f"{p['dataset']} {p['variant']}")
        axes[row][0].set_ylabel(f"{stage}: loss decrease of v / of u")
        axes[row][1].set_ylabel(f"{stage}: fraction of v helped")
        for ax in axes[row]:
            ax.axhline(0 if ax is axes[row][0] else 0.5, color="k", lw=0.5, ls=":")
            ax.legend(fontsize=7)
    for ax in axes[1]:
        ax.set_xlabel("latent W2(u, v) / median (per-source quantile bins)")
    axes[0][0].set_title("one SGD step on u: transfer to v vs latent distance", fontsize=9)
    axes[0][1].set_title("empirical sharing radius", fontsize=9)
    save_figure(fig, path)


def plot_curves(runs: list[dict[str, Any]], chosen: dict[tuple[str, str], str], path: Path
                ) -> None:
    datasets = sorted({r["dataset"] for r in runs})
    fig, axes = subplots(1, len(datasets), figsize=(4.5 * len(datasets), 3.4), squeeze=False)
    for ax, d in zip(axes[0], datasets, strict=True):
        for m, color in zip(MAIN, ("tab:gray", "tab:blue", "tab:red"), strict=True):
            v = chosen.get((d, m), m)
            rs = [r for r in runs if r["dataset"] == d and r["variant"] == v]
            if not rs:
                continue
            n = min(len(r["curve"]) for r in rs)
            ys = np.array([[c["val_ndcg@100"] for c in r["curve"][:n]] for r in rs])
            ax.plot(np.arange(1, n + 1), ys.mean(0), color=color, label=f"{m} ({v})")
            if len(rs) > 1:
                ax.fill_between(np.arange(1, n + 1), ys.mean(0) - ys.std(0, ddof=1),
                                ys.mean(0) + ys.std(0, ddof=1), color=color, alpha=0.15)
        ax.set_xlabel("epoch")
        ax.set_ylabel("validation NDCG@100")
        ax.set_title(d, fontsize=9)
        ax.legend(fontsize=8)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0])
    ap.add_argument("--stats", nargs="+", required=True)
    ap.add_argument("--sources", nargs="+", required=True)
    ap.add_argument("--runs", nargs="+", required=True, help="run directories (run.json)")
    ap.add_argument("--proximity", nargs="*", default=[])
    a = ap.parse_args(argv)

    raw = load_yaml(a.config)  # its `reported:` and `claims:` are data, read as they are
    cfg = settings_of(resolve_scale(raw, a.scale))
    reported = raw["reported"]
    runs = [read_json(Path(p) / "run.json") for p in a.runs]
    prox = [read_json(p) for p in a.proximity]
    sel_recs, sel_rows, chosen = select(runs, cfg.select)
    records = [rec for r in runs for rec in r["records"]] + sel_recs
    records += [rec for p in prox for rec in p["records"]]
    keyed, splits = by_key(records), splits_by_key(records)
    datasets = [d for d in cfg.datasets if any(r["dataset"] == d for r in runs)]
    methods = [*MAIN, *[v for v in cfg.variants if v not in MAIN]]

    tables = a.out / "tables"
    unit = ("seed k = data split k x init k" if cfg.data_protocol.vary_split
            else "every seed on the one fixed data split")
    write_table(main_table(keyed, splits, datasets, methods, reported), tables, "main",
                f"Test metrics (scale {a.scale}; Liang et al.'s definitions, recall normalised by "
                f"min(k, #held-out)), {PM} over seeds ({unit}). masking_anchor = the lambda_A "
                "chosen on validation NDCG@100 (tables/selection). The paper's columns are its own "
                "numbers in its setting, labelled; ML-100k has no paper number.")
    write_table(ablation_table(keyed, datasets, reported), tables, "ablation",
                "The paper's ablation in miniature: clean vs masking vs masking + anchor "
                f"(test NDCG@100, {PM} over seeds ({unit}); the difference to masking is "
                "paired by seed, i.e. on the same split). The paper's column is ML-20M.")
    write_table(grid_rows(runs, cfg.variants, cfg.train), tables, "grids",
                "Every variant: masking rate, KL weight (annealed as Liang et al., or constant = "
                "beta-KL), lambda_A; test metrics and KL(q||p) per user at the selected epoch.")
    write_table(pd.DataFrame(sel_rows), tables, "selection",
                "Validation selection of reported methods among candidate variants (seed-mean "
                "validation NDCG@100; test shown for reference, never used to choose).")
    act = activity_table(runs, chosen, cfg.activity_buckets)
    write_table(act.drop(columns=["_ndcg", "_ndcg_sd"]) if len(act) else act, tables,
                "activity", "Test metrics by user activity (#interactions of the test user, "
                "equal-count buckets of each run's test users; interactions and users span the "
                f"splits), {PM} over seeds of the bucket means.")
    write_table(proximity_table(prox) if prox else pd.DataFrame({"note": ["no proximity runs"]}),
                tables, "proximity",
                "Latent proximity: one SGD step on user u changes user v's NLL; Spearman of the "
                "latent W2(q_u, q_v) with v's loss decrease (signed), with its size (influence), "
                "and of input cosine with the decrease (control), per source then averaged; "
                "relative transfer = v's decrease / u's decrease in the nearest / farthest "
                f"distance bin; {PM} over seeds. model: early = mid-training weights, final = "
                "selected weights.")
    write_table(data_table(a.stats, a.sources), tables, "data",
                "Data after Liang et al.'s preprocessing, one row per data split (split k: user "
                "permutation and fold-in seed split_seed + k), and which source was read.")
    write_table(reported_table(reported), tables, "paper_reported",
                "The paper's own numbers (not ours), with their source and setting.")

    figs = a.out / "figures"
    plot_ablation(keyed, datasets, figs / "ablation.png")
    plot_grids(runs, cfg.variants, cfg.train, figs / "grids.png")
    plot_activity(act, figs / "activity.png")
    plot_proximity(prox, figs / "proximity.png")
    plot_curves(runs, chosen, figs / "curves.png")
    write_ledger(a.out, "vaecf", a.scale, raw.get("claims", []), records)


if __name__ == "__main__":
    main()
