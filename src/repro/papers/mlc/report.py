"""mlc report: refusal and over-refusal per language, collinearity, the paper's numbers beside
ours, figures, and the claims ledger.

Languages are grouped as MultiJail groups them by resource level: high (zh it vi), medium
(ar ko th), low (bn sw jv); English is the supervised language and is reported apart.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml
from repro.core.io import read_json
from repro.core.plotting import save_figure, subplots
from repro.core.tables import PM, pm, reported_table, write_table
from repro.papers.mlc.settings import REFERENCE, load

GROUPS = {"high": ("zh", "it", "vi"), "medium": ("ar", "ko", "th"), "low": ("bn", "sw", "jv")}


def summary(e: dict) -> dict[str, float]:
    """One evaluation's metrics (rates in [0, 1]); a group absent from the run is left out."""
    langs = e["langs"]
    other = [g for g in langs if g != "en"]
    m = {"refusal_en": e["refusal"]["en"],
         "refusal_non_en": float(np.mean([e["refusal"][g] for g in other])),
         "over_refusal": float(np.mean(list(e["over_refusal"].values()))),
         "over_refusal_non_en": float(np.mean([e["over_refusal"][g] for g in other])),
         "collinearity": e["collinearity"]}
    m["discrimination_non_en"] = m["refusal_non_en"] - m["over_refusal_non_en"]
    for name, members in GROUPS.items():
        got = [e["refusal"][g] for g in members if g in langs]
        if got:
            m[f"refusal_{name}"] = float(np.mean(got))
    m |= {f"refusal_{g}": e["refusal"][g] for g in langs}
    m |= {f"over_refusal_{g}": e["over_refusal"][g] for g in langs}
    m |= {f"cos_en_{g}": e["cos_en"][g] for g in langs}
    return m


def records_of(evals: list[dict]) -> list[dict]:
    """Long records {method, metric, seed, value}, plus each method's per-seed costs against
    the plain objective (`<method>/vs_plain`: over-refusal and refusal differences)."""
    recs = [{"method": e["method"], "metric": k, "seed": e["seed"], "value": v}
            for e in evals for k, v in summary(e).items()]
    base = {e["seed"]: summary(e) for e in evals if e["method"] == "plain"}
    for e in evals:
        if e["method"] in (REFERENCE, "plain") or e["seed"] not in base:
            continue
        s = summary(e)
        for k in ("over_refusal", "refusal_non_en", "refusal_low"):
            if k in s:
                recs.append({"method": f"{e['method']}/vs_plain", "metric": f"{k}_gain",
                             "seed": e["seed"], "value": s[k] - base[e["seed"]][k]})
    return recs


def cell(recs: list[dict], method: str, metric: str, pct: bool = True) -> str:
    v = [r["value"] for r in recs if r["method"] == method and r["metric"] == metric]
    if not v:
        return ""
    v = [100 * x for x in v] if pct else v
    return pm(v, 1 if pct else 3) if len(v) > 1 else f"{v[0]:.1f}" if pct else f"{v[0]:.3f}"


def paper_cell(reported: list[dict], method: str, metric: str) -> str:
    v = [r for r in reported if r["method"] == method and r["metric"] == metric]
    return "; ".join(f"{r['value']}" + ("" if "Qwen2.5-7B" in r["setting"] else
                                         f" ({r['setting'].split(',')[0]})") for r in v)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("mlc tables, figures and claims ledger")
    ap.add_argument("--evals", nargs="+", required=True, type=Path)
    ap.add_argument("--adapters", nargs="*", default=[], type=Path)
    a = ap.parse_args(argv)
    cfg, raw = load(a.config, a.scale), load_yaml(a.config)
    reported = raw["reported"]
    evals = [read_json(p) for p in a.evals]
    methods = list(cfg.methods)
    rows = [m for m in (REFERENCE, *methods) if any(e["method"] == m for e in evals)]
    recs = records_of(evals)
    langs = evals[0]["langs"]
    seeds = len(cfg.seeds)
    label = {REFERENCE: "none (starting model, greedy: one run)"}

    main_rows = []
    for m in rows:
        r = {"method": label.get(m, m), "consistency term": cfg.methods.get(m, "-")}
        for k, name in (("refusal_en", "refusal en %"), ("refusal_non_en", "refusal non-en %"),
                        ("refusal_high", "refusal high-res %"),
                        ("refusal_medium", "refusal mid-res %"),
                        ("refusal_low", "refusal low-res %"), ("over_refusal", "over-refusal %")):
            r[f"{name} ({PM})"] = cell(recs, m, k)
        r[f"refusal - over-refusal, non-en ({PM})"] = cell(recs, m, "discrimination_non_en")
        r["collinearity"] = cell(recs, m, "collinearity", pct=False)
        r["paper: safety rate avg % (Qwen2.5-7B, DPO, PKU-SafeRLHF x 10 langs; unverified)"] = \
            paper_cell(reported, m, "safety_avg")
        r["paper: MultiJail ASR % unseen langs (unverified)"] = paper_cell(
            reported, m, "multijail_asr_unseen_langs")
        main_rows.append(r)
    write_table(pd.DataFrame(main_rows), a.out / "tables", "main",
                f"Held-out MultiJail prompts ({len(evals[0]['harmful']['en'])} per language, never "
                f"trained on in any language): refusal rate per resource group, over-refusal of "
                f"{len(evals[0]['benign']['en'])} benign prompts per language, and collinearity "
                f"(sigma_1 / sum sigma over {len(langs)} languages, layer {cfg.train.layer}, "
                f"{cfg.train.pooling} pooling); {PM} over {seeds} seeds (scale {a.scale}, "
                f"objective {cfg.train.objective}). The paper's columns are its own numbers "
                "in its own setting (Qwen2.5-7B-Instruct, DPO, PKU-SafeRLHF and MultiJail, GPT-4o "
                "judge; safety rate = 1 - harmful rate, not our refusal rate), read through "
                "secondary summaries and unverified; `plain` is its monolingual DPO, `none` its "
                "raw model. Never ours.")
    lang_rows = []
    for g in langs:
        r = {"language": g}
        for m in rows:
            r[f"{m}: refusal %"] = cell(recs, m, f"refusal_{g}")
        for m in rows:
            r[f"{m}: over-refusal %"] = cell(recs, m, f"over_refusal_{g}")
        lang_rows.append(r)
    write_table(pd.DataFrame(lang_rows), a.out / "tables", "languages",
                f"Refusal of held-out harmful prompts and over-refusal of benign prompts, per "
                f"language ({PM} over {seeds} seeds; judge: judge.is_refusal).")
    col_rows = []
    for m in rows:
        r = {"method": m, "collinearity": cell(recs, m, "collinearity", pct=False)}
        r |= {f"cos to en: {g}": cell(recs, m, f"cos_en_{g}", pct=False)
              for g in langs if g != "en"}
        col_rows.append(r)
    write_table(pd.DataFrame(col_rows), a.out / "tables", "collinearity",
                "Representation geometry of the held-out prompts: collinearity (sigma_1 / sum "
                "sigma of the unit vectors of one prompt in every language, mean over prompts) "
                f"and each language's cosine to English ({PM} over seeds).")
    write_table(reported_table(reported), a.out / "tables", "paper_reported",
                "The paper's own numbers, each with its source and setting (never ours).")

    fig, ax = subplots(figsize=(8, 3.4))
    w = 0.8 / len(rows)
    for i, m in enumerate(rows):
        mean = [np.mean([r["value"] for r in recs if r["method"] == m
                         and r["metric"] == f"refusal_{g}"]) * 100 for g in langs]
        sd = [np.std([r["value"] for r in recs if r["method"] == m
                      and r["metric"] == f"refusal_{g}"], ddof=1) * 100
              if seeds > 1 and m != REFERENCE else 0.0 for g in langs]
        ax.bar(np.arange(len(langs)) + (i - (len(rows) - 1) / 2) * w, mean, w, yerr=sd,
               label=m, capsize=2)
    ax.set_xticks(range(len(langs)), langs)
    ax.set_ylabel("refusal of held-out harmful prompts (%)")
    ax.set_title("English-only supervision: does refusal carry to other languages?")
    ax.legend(fontsize=7, ncols=len(rows))
    save_figure(fig, a.out / "figures" / "refusal_by_language.png")

    fig, axes = subplots(1, 2, figsize=(8, 3))
    for p in a.adapters:
        t = read_json(p / "train.json")
        axes[0].plot(t["curves"]["objective"], alpha=0.6, label=f"{t['method']} s{t['seed']}")
        if t["consistency"] != "none":
            pts = [(k, c) for k, c in enumerate(t["curves"]["consistency"]) if c is not None]
            axes[1].plot(*zip(*pts, strict=True), alpha=0.6, label=f"{t['method']} s{t['seed']}")
    axes[0].set_title(f"objective ({cfg.train.objective})")
    axes[1].set_title("consistency term (steps it is added on)")
    for ax in axes:
        ax.set_xlabel("step")
        ax.legend(fontsize=6)
    save_figure(fig, a.out / "figures" / "training.png")
    write_ledger(a.out, "mlc", a.scale, raw["claims"], recs)


if __name__ == "__main__":
    main()
