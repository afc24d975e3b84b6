"""cotenc report: strategy recovery by the bottom-up rubrics against the predefined list and
the planted truth, the predictor, steering, the encyclopedia each seed built, the paper's
numbers beside ours, figures and the claims ledger."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml
from repro.core.io import read_json
from repro.core.plotting import save_figure, subplots
from repro.core.tables import PM, pm, reported_table, write_table
from repro.papers.cotenc.settings import load

SETS = {"bottom_up": "bottom-up rubrics (the encyclopedia)",
        "bottom_up_extractive": "bottom-up, analyst-free: CoT sentences clustered (ours)",
        "predefined": "predefined list (Gandhi et al. behaviours)",
        "planted": "the planted axes' true rubrics (judge ceiling)"}


def values(recs: list[dict], method: str, metric: str) -> list[float]:
    return [r["value"] for r in recs if r["method"] == method and r["metric"] == metric]


def cell(recs: list[dict], method: str, metric: str, pct: bool = True, nd: int = 1) -> str:
    v = values(recs, method, metric)
    if not v:
        return ""
    v = [100 * x for x in v] if pct else v
    return pm(v, nd) if len(v) > 1 else f"{v[0]:.{nd}f}"


def paper(reported: list[dict], method: str, metric: str) -> str:
    got = {r["metric"]: r["value"] for r in reported if r["method"] == method}
    if metric in got:
        return str(got[metric])
    if f"{metric}_min" in got:
        return f"{got[f'{metric}_min']}-{got[f'{metric}_max']}"
    return ""


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("cotenc tables, figures and claims ledger")
    ap.add_argument("--evals", nargs="+", required=True, type=Path)
    ap.add_argument("--encyclopedias", nargs="+", required=True, type=Path)
    ap.add_argument("--generations", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg, raw = load(a.config, a.scale), load_yaml(a.config)
    reported = raw["reported"]
    evals = [read_json(p) for p in a.evals]
    encs = [read_json(p) for p in a.encyclopedias]
    gens = read_json(a.generations)
    recs = [r for e in evals for r in e["records"]]
    seeds = len(evals)
    judges = list(cfg.judge.judges)
    tables = a.out / "tables"

    rows = []
    for judge in judges:
        for s, label in SETS.items():
            m = f"{s}/{judge}"
            rows.append({"rubrics": label, "judge": judge,
                         f"recovery, templated CoTs (balanced acc. %, {PM})":
                             cell(recs, m, "recovery_mean"),
                         f"recovery, reasoner's CoTs (%, {PM})":
                             cell(recs, m, "model_recovery_mean"),
                         f"purity (%, {PM})": cell(recs, m, "purity"),
                         f"ARI ({PM})": cell(recs, m, "ari", pct=False, nd=3),
                         "paper: judged reasonable by humans % (Figure 3, v1)":
                             paper(reported, s, "reasonable_rate") if judge == "llm" else ""})
    rows.append({"rubrics": "no rubric: raw CoT embeddings (all-MiniLM-L6-v2)", "judge": "-",
                 f"purity (%, {PM})": cell(recs, "raw_embedding", "purity"),
                 f"ARI ({PM})": cell(recs, "raw_embedding", "ari", pct=False, nd=3)})
    n_test = evals[0]["n_test_cots"]
    write_table(pd.DataFrame(rows).fillna(""), tables, "main",
                "How well each set of rubrics recovers the planted strategies "
                f"({', '.join(cfg.planted)}) of held-out CoTs ({n_test} held-out of "
                f"{evals[0]['n_cots']} per seed; {PM} over "
                f"{seeds} seeds; scale {a.scale}). Recovery: for each planted axis, the rubric "
                "and orientation that agree best on the training CoTs, scored (balanced "
                "accuracy, 50 = chance) on held-out ones, mean over axes; the reasoner's CoTs "
                "are scored against the strategy they were asked for. Purity/ARI: k-means "
                "groups of the held-out templated CoTs' rubric scores against their planted "
                "combination. Judges: llm = the analyst's answer A or B (the paper's; here "
                f"{cfg.analyst.model or 'SmolLM2-135M-Instruct'}), embed = sentence-embedding "
                "similarity (ours). The paper's column is its human evaluation of its own "
                "pipeline against Gandhi et al.'s behaviours (GPT-4o analyst, 32B reasoning "
                "models): a different measure, never ours.")

    ax_rows = []
    for ax in cfg.planted:
        r = {"planted axis": f"{ax} ({cfg.axes[ax].a.name} vs {cfg.axes[ax].b.name})"}
        for judge in judges:
            for s in SETS:
                r[f"{s}/{judge} (%)"] = cell(recs, f"{s}/{judge}", f"recovery_{ax}")
        r["predictor, pipeline labels (%)"] = cell(recs, "predictor/pipeline", f"accuracy_{ax}")
        r["predictor, planted labels (%)"] = cell(recs, "predictor/planted", f"accuracy_{ax}")
        ax_rows.append(r)
    write_table(pd.DataFrame(ax_rows), tables, "axes",
                f"Per planted axis: held-out recovery (balanced accuracy %) by each rubric set "
                f"and judge, and the predictor's held-out accuracy from the question alone "
                f"({PM} over {seeds} seeds; the templated reasoner follows its question-dependent "
                f"preference with probability {1 - cfg.data.noise:.2f}, the predictor's ceiling).")

    st_rows = []
    order = ["steer/none", "steer/question_specific", "steer/dataset_optimal",
             "steer/sub_optimal", "steer/random", "steer/oracle"]
    fixed = sorted({r["method"] for r in recs if r["method"].startswith("steer/fixed:")})
    for m in order + fixed:
        st_rows.append({"condition": m.removeprefix("steer/"),
                        f"accuracy (%, {PM})": cell(recs, m, "accuracy"),
                        "paper: GPQA-Diamond (%, Figure 4, v1; 3 models' mean)":
                            paper([r for r in reported if "GPQA" in r["setting"] and
                                   "v1" in r["source"]], m, "accuracy"),
                        "paper: GPQA-Diamond (%, ICLR version, unverified)":
                            paper([r for r in reported if "unverified" in r["source"]], m,
                                  "accuracy")})
    for m, label in (("predictor/pipeline", "predictor trained on the pipeline's labels"),
                     ("predictor/planted", "predictor trained on the planted labels"),
                     ("predictor/majority", "majority class")):
        st_rows.append({"condition": label, f"accuracy (%, {PM})": cell(recs, m, "accuracy"),
                        "paper: GPQA-Diamond (%, Figure 4, v1; 3 models' mean)":
                            "in-domain " + paper(reported, "predictor", "accuracy")
                            if m == "predictor/pipeline" else ""})
    qs = len({r["question"] for r in gens["rows"]})
    write_table(pd.DataFrame(st_rows).fillna(""), tables, "steering",
                f"Steering the reasoner ({gens['reasoner']}) on held-out questions ({qs} "
                f"questions, half held out per seed; families {', '.join(cfg.data.steer_families)};"
                f" axes {', '.join(cfg.steer)}; {PM} over {seeds} seeds), and the strategy "
                "predictor's held-out accuracy on the templated CoTs (mean over planted axes). "
                "The paper's columns are its own numbers on GPQA-Diamond with 32B reasoning "
                "models (v1 read; the ICLR version's through secondary summaries), never ours.")

    enc_rows = []
    for e in encs:
        for j, r in enumerate(e["rubrics"]):
            enc_rows.append({"seed": e["seed"], "rubric": j, "cluster size":
                             e["clusters"][j]["size"], "criterion": r["criterion"],
                             "pattern A": r["a"]["name"], "pattern B": r["b"]["name"],
                             "parsed": r["parsed"],
                             "silhouette": f"{max(e['silhouette'].values()):.3f}"
                             if e["silhouette"] else ""})
        x = e["extractive"]
        for j, r in enumerate(x["rubrics"]):
            enc_rows.append({"seed": f"{e['seed']} extractive", "rubric": j,
                             "cluster size": x["clusters"][j]["size"],
                             "criterion": r["criterion"], "pattern A": r["a"]["name"],
                             "pattern B": r["b"]["name"], "parsed": r["parsed"],
                             "silhouette": f"{max(x['silhouette'].values()):.3f}"
                             if x["silhouette"] else ""})
    write_table(pd.DataFrame(enc_rows), tables, "encyclopedia",
                "The encyclopedia each seed built: one rubric per cluster of extracted criteria "
                "(k by silhouette), as the analyst wrote it; `parsed` false means its answer "
                "lacked a Pattern A/B line and the medoid criterion's own wording stands in. "
                "Rows marked `extractive` are the analyst-free control's clusters of CoT "
                "sentences (medoid sentence: present vs absent).")
    write_table(reported_table(reported), tables, "paper_reported",
                "The paper's own numbers, each with its source and setting (never ours).")

    fig, ax = subplots(figsize=(8, 3.4))
    bars = [(f"{s}/{j}", f"{s.replace('_extractive', ' extr.')}\n{j}") for j in judges
            for s in SETS]
    for i, (m, _) in enumerate(bars):
        v = np.array(values(recs, m, "recovery_mean")) * 100
        ax.bar(i, v.mean() if len(v) else 0, yerr=v.std(ddof=1) if len(v) > 1 else 0,
               capsize=3, color="C3" if "extractive" in m else "C0" if m.startswith(
                   "bottom_up") else "C1" if m.startswith("predefined") else "C2")
    ax.axhline(50, color="gray", lw=0.8, ls="--")
    ax.set_xticks(range(len(bars)), [b[1] for b in bars], fontsize=7)
    ax.set_ylabel("held-out recovery (balanced acc. %)")
    ax.set_title("Recovering planted strategies: bottom-up vs predefined vs true rubrics")
    save_figure(fig, a.out / "figures" / "recovery.png")

    fig, ax = subplots(figsize=(7, 3.2))
    for i, m in enumerate(order):
        v = np.array(values(recs, m, "accuracy")) * 100
        ax.bar(i, v.mean() if len(v) else 0, yerr=v.std(ddof=1) if len(v) > 1 else 0,
               capsize=3)
    ax.set_xticks(range(len(order)), [m.removeprefix("steer/") for m in order], fontsize=7)
    ax.set_ylabel("held-out accuracy (%)")
    ax.set_title(f"Steering the reasoner ({gens['reasoner']})")
    save_figure(fig, a.out / "figures" / "steering.png")
    write_ledger(a.out, "cotenc", a.scale, raw["claims"], recs)


if __name__ == "__main__":
    main()
