"""PS/PM report: how every measure follows the known leakage and distortion levels (Pearson and
Spearman, per data set, mean and spread over the synthesis seeds), selectivity, the ranking
against the baselines, the error terms, and the paper's human-MOS numbers beside ours,
labelled as the paper's (offline there is no human MOS: the controlled levels are a proxy).

Unit of correlation: all (mixture, system, source) items of one data set and seed; the claims
take each seed's mean over the data sets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml
from repro.core.io import read_json
from repro.core.plotting import save_figure, subplots
from repro.core.tables import pm, reported_table, write_table
from repro.papers.pspm.baselines import MEASURES as BASELINES
from repro.papers.pspm.settings import load

AXES = ("leak", "dist")
AXIS_NAME = {"leak": "leakage", "dist": "distortion"}
OWN = {"ps": "leak", "pm": "dist"}
LABEL = {"ps": "PS", "pm": "PM", "si_sdr": "SI-SDR", "sdr": "SDR", "sir": "SIR", "sar": "SAR",
         "pesq": "PESQ-WB", "stoi": "STOI", "estoi": "ESTOI"}
DATA_LABEL = {"speech_en": "speech (en)", "speech_es": "speech (es)", "music": "music",
              "sassec_en": "SASSEC speech (en)", "sassec_es": "SASSEC speech (es)",
              "sassec_music": "SASSEC music"}


def measure_names(encoders: list[str]) -> list[str]:
    """ps / pm for the first (primary) encoder, ps_<enc> / pm_<enc> for the others, baselines."""
    ours = [f"{k}{'' if i == 0 else '_' + e}" for i, e in enumerate(encoders) for k in ("ps", "pm")]
    return [*ours, *BASELINES]


def label(m: str) -> str:
    base, _, enc = m.partition("_") if m[:3] in ("ps_", "pm_") else (m, "", "")
    return f"{LABEL[base]} ({enc})" if enc else LABEL.get(m, m)


def items(scores: dict[str, dict], base: dict, encoders: list[str]) -> pd.DataFrame:
    """One row per (mixture, system, source): the levels, MOS, every measure and error term."""
    key = ("mixture", "system", "source")
    df = pd.DataFrame(base["records"]).set_index(list(key))
    for i, e in enumerate(encoders):
        s = pd.DataFrame(scores[e]["records"]).set_index(list(key))
        suffix = "" if i == 0 else f"_{e}"
        cols = {c: f"{c.split('_')[0]}{suffix}{'_' + c.split('_', 1)[1] if '_' in c else ''}"
                for c in ("ps", "pm", "ps_radius", "ps_half", "pm_radius", "pm_half")}
        df = df.join(s[list(cols)].rename(columns=cols))
        if i == 0:
            df = df.join(s[["leak", "dist", "mos", "frames"]])
    return df.reset_index()


def _corr(x: pd.Series, y: pd.Series) -> tuple[float | None, float | None]:
    ok = x.notna() & y.notna()
    if ok.sum() < 3 or x[ok].nunique() < 2 or y[ok].nunique() < 2:
        return None, None
    return (float(stats.pearsonr(x[ok], y[ok])[0]), float(stats.spearmanr(x[ok], y[ok])[0]))


def _shift_r(x: pd.Series, level: pd.Series, width: pd.Series) -> float | None:
    """How far |Pearson(x, level)| can move when each item moves by at most its width: the
    larger change of the two extreme moves (every item pushed with or against the trend)."""
    ok = x.notna() & level.notna() & width.notna()
    if ok.sum() < 3 or level[ok].nunique() < 2:
        return None
    x, lv, w = x[ok].to_numpy(), level[ok].to_numpy(float), width[ok].to_numpy()
    r0 = stats.pearsonr(x, lv)[0]
    sign = np.sign(lv - lv.mean())
    moved = [abs(stats.pearsonr(x + k * w * sign, lv)[0] - r0) for k in (-1, 1)]
    return float(max(moved))


def correlations(df: pd.DataFrame, measures: list[str]) -> dict[str, dict[str, Any]]:
    out = {}
    for m in measures:
        row: dict[str, Any] = {}
        for ax in AXES:
            row[f"pearson_{ax}"], row[f"spearman_{ax}"] = _corr(df[m], df[ax].where(df[ax] >= 0))
        row["pearson_mos"], row["spearman_mos"] = _corr(df[m], df["mos"])
        if all(row[f"spearman_{ax}"] is not None for ax in AXES):
            row["selectivity_leak"] = abs(row["spearman_leak"]) - abs(row["spearman_dist"])
            row["selectivity_dist"] = -row["selectivity_leak"]
        base = m.split("_")[0] if m[:3] in ("ps_", "pm_") else m
        if base in OWN:
            lv = df[OWN[base]].where(df[OWN[base]] >= 0)
            suffix = m[2:]
            row["radius_on_r"] = _shift_r(df[m], lv, df[f"{base}{suffix}_radius"])
            row["ci_on_r"] = _shift_r(df[m], lv, df[f"{base}{suffix}_half"])
            row["mean_radius"] = float(df[f"{base}{suffix}_radius"].mean())
            row["mean_half"] = float(df[f"{base}{suffix}_half"].mean())
        out[m] = row
    for m in ("ps", "pm"):  # the margin over the best baseline on the own axis
        ax = f"spearman_{OWN[m]}"
        best = [abs(out[b][ax]) for b in BASELINES if out[b].get(ax) is not None]
        if out[m].get(ax) is not None and best:
            out[m]["margin_own"] = abs(out[m][ax]) - max(best)
    return out


def _records(corr: dict[tuple[str, int], dict], datasets: list[str], seeds: list[int]
             ) -> list[dict[str, Any]]:
    """Per seed: each measure's metrics averaged over the data sets, ps_pm's worst error."""
    recs = []
    for seed in seeds:
        per = [corr[(d, seed)] for d in datasets if (d, seed) in corr]
        for m in per[0]:
            for k in sorted({k for p in per for k in p[m]}):
                vals = [p[m][k] for p in per if p[m].get(k) is not None]
                if k in ("radius_on_r", "ci_on_r", "mean_radius", "mean_half") or not vals:
                    continue
                recs.append({"method": m, "metric": k, "seed": seed,
                             "value": float(np.mean(vals))})
        for k in ("radius_on_r", "ci_on_r"):
            vals = [p[m][k] for p in per for m in ("ps", "pm") if p[m].get(k) is not None]
            if vals:
                recs.append({"method": "ps_pm", "metric": k, "seed": seed,
                             "value": float(max(vals))})
        mos = [max(abs(p["ps"]["pearson_mos"] or 0), abs(p["pm"]["pearson_mos"] or 0))
               for p in per if p["ps"]["pearson_mos"] is not None]
        if mos:
            recs.append({"method": "ps_pm", "metric": "pearson_mos", "seed": seed,
                         "value": float(np.mean(mos))})
    return recs


def _cell(corr, d, seeds, m, k, digits=3) -> str:
    return pm([corr[(d, s)][m].get(k) for s in seeds if (d, s) in corr], digits)


def _paper_mos(reported, d: str) -> str:
    key = "pearson_mos_music" if "music" in d else "pearson_mos_speech"
    v = [r["value"] for r in reported if r["metric"] == key]
    return f"{v[0]:.4f}" if v else ""


def main_table(corr, datasets, seeds, measures, reported) -> pd.DataFrame:
    rows = []
    for d in datasets:
        for m in measures:
            row = {"data": DATA_LABEL[d], "measure": label(m)}
            for ax in AXES:
                row[f"Pearson {AXIS_NAME[ax]}"] = _cell(corr, d, seeds, m, f"pearson_{ax}")
                row[f"Spearman {AXIS_NAME[ax]}"] = _cell(corr, d, seeds, m, f"spearman_{ax}")
            if any(corr[(d, s)][m].get("pearson_mos") is not None for s in seeds
                   if (d, s) in corr):
                row["Pearson MOS (ours)"] = _cell(corr, d, seeds, m, "pearson_mos")
            row["paper: Pearson with human MOS, SEBASS (best of PS/PM)"] = (
                _paper_mos(reported, d) if m in ("ps", "pm") else "")
            rows.append(row)
    return pd.DataFrame(rows)


def selectivity_table(corr, datasets, seeds, measures) -> pd.DataFrame:
    rows = []
    for d in datasets:
        for m in measures:
            leak = [abs(corr[(d, s)][m]["spearman_leak"]) for s in seeds
                    if (d, s) in corr and corr[(d, s)][m].get("spearman_leak") is not None]
            dist = [abs(corr[(d, s)][m]["spearman_dist"]) for s in seeds
                    if (d, s) in corr and corr[(d, s)][m].get("spearman_dist") is not None]
            sel = _cell(corr, d, seeds, m, "selectivity_leak")
            tracks = ("leakage" if leak and dist and np.mean(leak) > np.mean(dist)
                      else "distortion" if leak and dist else "")
            rows.append({"data": DATA_LABEL[d], "measure": label(m),
                         "|Spearman| leakage": pm(leak), "|Spearman| distortion": pm(dist),
                         "|rho_leak| - |rho_dist|": sel, "moves more with": tracks})
    return pd.DataFrame(rows)


def ranking_table(corr, datasets, seeds, measures) -> pd.DataFrame:
    rows = []
    for d in datasets:
        for ax in AXES:
            mean = {m: np.mean([abs(corr[(d, s)][m][f"spearman_{ax}"]) for s in seeds
                                if (d, s) in corr
                                and corr[(d, s)][m].get(f"spearman_{ax}") is not None] or [0])
                    for m in measures}
            order = sorted(measures, key=lambda m: -mean[m])
            rows.append({"data": DATA_LABEL[d], "axis": AXIS_NAME[ax],
                         "rank of PS": order.index("ps") + 1, "rank of PM": order.index("pm") + 1,
                         "of": len(measures),
                         "top 3 by mean |Spearman|": ", ".join(
                             f"{label(m)} {mean[m]:.3f}" for m in order[:3])})
    return pd.DataFrame(rows)


def errors_table(corr, datasets, seeds, encoders, reported) -> pd.DataFrame:
    paper = {r["metric"]: r["value"] for r in reported}
    rows = []
    for d in datasets:
        for i, e in enumerate(encoders):
            for base in ("ps", "pm"):
                m = base if i == 0 else f"{base}_{e}"
                rows.append({
                    "data": DATA_LABEL[d], "measure": label(m),
                    "own axis": AXIS_NAME[OWN[base]],
                    "mean frame radius": _cell(corr, d, seeds, m, "mean_radius"),
                    "mean 95% half-width": _cell(corr, d, seeds, m, "mean_half"),
                    "radius on |Pearson|": _cell(corr, d, seeds, m, "radius_on_r"),
                    "half-width on |Pearson|": _cell(corr, d, seeds, m, "ci_on_r"),
                    "paper: worst radius / 95% CI on the MOS correlation":
                        f"{paper.get('radius_on_r', '')} / {paper.get('ci_on_r', '')}"})
    return pd.DataFrame(rows)


def data_table(infos, scores, datasets, encoders) -> pd.DataFrame:
    rows = []
    for d in datasets:
        inf = [i for i in infos if i["dataset"] == d]
        sc = [scores[(d, i["seed"])][encoders[0]] for i in inf]
        rows.append({
            "data": DATA_LABEL[d], "seeds": len(inf),
            "mixtures per seed": len(inf[0]["mixtures"]),
            "sources per mixture": len(inf[0]["mixtures"][0]["sources"]),
            "systems per mixture": inf[0]["systems"] if isinstance(inf[0]["systems"], int)
            else len(inf[0]["systems"]),
            "seconds": inf[0].get("seconds", ""),
            "PS / PM bank per reference": f"{sc[0]['ps_bank']} / {sc[0]['pm_bank']}",
            "frames per signal": sc[0]["frames_per_signal"],
            "kept diffusion dims PS / PM": " / ".join(
                f"{np.mean([s['mean_kept_dims'][k] for s in sc]):.1f}" for k in ("ps", "pm")),
        })
    return pd.DataFrame(rows)


def figure(frames: dict[str, list[pd.DataFrame]], datasets: list[str], path: Path) -> None:
    fig, axes = subplots(len(datasets), 2, figsize=(8, 2.4 * len(datasets)), squeeze=False)
    for r, d in enumerate(datasets):
        df = pd.concat(frames[d])
        for c, ax_name in enumerate(AXES):
            ax = axes[r][c]
            other = "dist" if ax_name == "leak" else "leak"
            sub = df[df[other] == df[other].min()]  # the other axis at its cleanest level
            for m, style in (("ps", "o-"), ("pm", "s-"), ("stoi", "^--"), ("estoi", "v--")):
                g = sub.groupby(ax_name)[m].mean()
                ax.plot(g.index, g.to_numpy(), style, label=label(m))
            ax.set_title(f"{DATA_LABEL[d]}: {AXIS_NAME[ax_name]}", fontsize=9)
            ax.set_xlabel(f"{AXIS_NAME[ax_name]} level (other axis clean)")
            ax.set_ylim(-0.05, 1.05)
    axes[0][0].legend(fontsize=7)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("PS/PM tables, figure and claims ledger")
    ap.add_argument("--scores", nargs="+", required=True, type=Path)
    ap.add_argument("--baselines", nargs="+", required=True, type=Path)
    ap.add_argument("--infos", nargs="+", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg, raw = load(a.config, a.scale), load_yaml(a.config)
    reported = raw["reported"]
    infos = [read_json(p) for p in a.infos]
    scores: dict[tuple[str, int], dict[str, dict]] = {}
    for p in a.scores:  # <dataset>/seed<k>_<encoder>.json
        d, (seed, enc) = p.parent.name, p.stem.removeprefix("seed").split("_", 1)
        scores.setdefault((d, int(seed)), {})[enc] = read_json(p)
    base = {(p.parent.name, int(p.stem.removeprefix("seed").split("_")[0])): read_json(p)
            for p in a.baselines}
    measures = measure_names(cfg.encoders)
    corr, frames = {}, {d: [] for d in cfg.datasets}
    for key in sorted(scores):
        df = items(scores[key], base[key], cfg.encoders)
        corr[key] = correlations(df, measures)
        frames[key[0]].append(df)
    seeds = cfg.seeds
    out = a.out
    stand_in = " (offline stand-in for wav2vec2, see the README)" * (cfg.encoders[0] == "logmel")
    cap = (f"(scale {a.scale}; {len(seeds)} synthesis seeds, mean ± sd over seeds; encoder "
           f"{cfg.encoders[0]}{stand_in}). ")
    proxy = ("Offline there is no human MOS: the known leakage and distortion levels are the "
             "proxy; the paper's column is its Pearson correlation with human MOS on SEBASS, "
             "a different quantity, labelled as the paper's. Higher-is-better measures "
             "correlate negatively with a degradation level.")
    write_table(main_table(corr, cfg.datasets, seeds, measures, reported), out / "tables",
                "main", "Correlation of every measure with the leakage and distortion levels "
                + cap + proxy)
    write_table(selectivity_table(corr, cfg.datasets, seeds, measures), out / "tables",
                "selectivity", "Selectivity: PS should move with leakage and not distortion, "
                "PM the reverse " + cap)
    write_table(ranking_table(corr, cfg.datasets, seeds, measures), out / "tables", "ranking",
                "Rank of PS and PM among all measures by |Spearman| with each axis " + cap
                + "The paper ranks by linear MOS correlation: PS/PM 1st or 2nd in nearly all "
                "conditions.")
    write_table(errors_table(corr, cfg.datasets, seeds, cfg.encoders, reported),
                out / "tables", "errors", "Frame-level deterministic error radius and 95% "
                "half-width of PS and PM, and how far they can move the own-axis |Pearson| "
                + cap + "The paper's numbers are on its human-MOS correlations.")
    write_table(data_table(infos, scores, cfg.datasets, cfg.encoders), out / "tables", "data",
                f"The scored data (scale {a.scale}).")
    write_table(reported_table(reported), out / "tables", "paper_reported",
                "The paper's own numbers (its abstract; never presented as ours).")
    figure(frames, cfg.datasets, out / "figures" / "levels.png")
    (out / "correlations.json").write_text(json.dumps(
        {f"{d}/seed{s}": v for (d, s), v in corr.items()}, indent=1, sort_keys=True))
    write_ledger(out, "pspm", a.scale, raw.get("claims", []), _records(corr, cfg.datasets, seeds))


if __name__ == "__main__":
    main()
