"""spectrum report: each model's three desiderata per held-out family, the paper's numbers beside
ours, the loss-vs-examples figure, the training curves and the claims ledger.

Per (model, seed) the ledger reads: `steer_loss` (the mean over held-out families of each
family's mean loss on outputs 1..k, nats per output: the paper's `loss_geq_1`, families
weighted equally), `js` and `kl` (mean over the zero-shot distribution items), `valid_mass`
(mean probability on the valid options), `valid_pct`, `unique_pct`, `yield` (unweighted means
over coverage tasks, the paper's aggregate). A seed is one unit: for the tuned model one
adapter and one draw of the held-out sets, for the untuned ones the same draw, so comparisons
are paired by seed.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml
from repro.core.io import read_json
from repro.core.plotting import save_figure, subplots
from repro.core.tables import PM, pm, reported_table, write_table
from repro.papers.spectrum.settings import load

DIRECTION = {  # the abstract's statements, per checkpoint (no table of the paper was reachable)
    "base": "PT steers better than IT (abstract)",
    "instruct": "IT: worst steerability, coverage, alignment (abstract)",
    "tuned": "often beats PT and IT on all three (abstract)",
    "released": "often beats PT and IT on all three (abstract)",
}


def steer_by_output(e: dict) -> dict[str, dict[int, list[float]]]:
    """family -> output index -> the losses of that output over the family's contexts."""
    out: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for c in e["steer"]:
        for j, v in c["losses"].items():
            if int(j) >= 1:
                out[c["family"]][int(j)].append(v)
    return out


def family_losses(e: dict) -> dict[str, float]:
    """The paper's loss_geq_1 per family: the mean over every (context, output >= 1)."""
    return {f: float(np.mean([v for vs in by.values() for v in vs]))
            for f, by in steer_by_output(e).items()}


def records_of(e: dict) -> list[dict]:
    m, s = e["model"], e["seed"]
    fam = family_losses(e)
    dist = [d for d in e["dist"] if d["task"] != "readme_dice"]
    vals = {"steer_loss": float(np.mean(list(fam.values()))) if fam else None,
            "js": float(np.mean([d["js"] for d in dist])) if dist else None,
            "kl": float(np.mean([d["kl"] for d in dist])) if dist else None,
            "valid_mass": float(np.mean([d["coverage"] for d in dist])) if dist else None,
            "valid_pct": float(np.mean([c["valid_pct"] for c in e["coverage"]])),
            "unique_pct": float(np.mean([c["unique_pct"] for c in e["coverage"]])),
            "yield": float(np.mean([c["yield"] for c in e["coverage"]]))}
    vals.update({f"steer_loss_{f}": v for f, v in fam.items()})
    for task in sorted({d["task"] for d in dist}):
        vals[f"js_{task}"] = float(np.mean([d["js"] for d in dist if d["task"] == task]))
    return [{"method": m, "metric": k, "seed": s, "value": v} for k, v in vals.items()]


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("spectrum tables, figures and claims ledger")
    ap.add_argument("--evals", nargs="+", required=True, type=Path)
    ap.add_argument("--adapters", nargs="*", default=[], type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    raw = load_yaml(a.config)
    reported = raw["reported"]
    evals = [read_json(p) for p in a.evals]
    records = [r for e in evals for r in records_of(e)]
    names = list(cfg.models)

    def vals(model: str, metric: str) -> list[float]:
        return [r["value"] for r in records if r["method"] == model and r["metric"] == metric
                and r["value"] is not None]

    setting = (f"scale {a.scale}: {cfg.model.family} ({cfg.model.instruct}), "
               f"{len(cfg.seeds)} seeds; held-out families "
               f"{', '.join(cfg.heldout)}")
    main_rows = []
    for m in names:
        spec = cfg.models[m]
        main_rows.append({
            "model": m, "checkpoint": spec.checkpoint, "format": spec.format,
            f"held-out loss, nats/output ({PM})": pm(vals(m, "steer_loss")),
            f"JS to target, nats ({PM})": pm(vals(m, "js"), 4),
            f"valid mass ({PM})": pm(vals(m, "valid_mass")),
            f"% valid ({PM})": pm(vals(m, "valid_pct"), 1),
            f"% unique ({PM})": pm(vals(m, "unique_pct"), 1),
            f"yield ({PM})": pm(vals(m, "yield"), 2),
            "seeds": len(vals(m, "yield")),
            "the paper (direction only; its tables were not reachable)":
                DIRECTION[spec.checkpoint]})
    write_table(pd.DataFrame(main_rows), a.out / "tables", "main",
                f"The three desiderata per model ({setting}). Held-out loss: the paper's "
                "loss_geq_1, mean NLL of outputs 1..k given the earlier ones, families weighted "
                "equally (lower is better); JS/valid mass: zero-shot exact option probabilities "
                f"on {', '.join(cfg.suite.dist_tasks)}; % valid / % unique / yield: "
                f"{cfg.eval.coverage_samples} samples at T={cfg.eval.temperature} per coverage "
                "task. The paper's column is the abstract's direction, labelled as the paper's.")

    fam_rows = []
    for m in names:
        for f in cfg.heldout:
            fam_rows.append({"model": m, "kind": "steerability", "family or task": f,
                             f"value ({PM})": pm(vals(m, f"steer_loss_{f}")),
                             "metric": "loss on outputs 1..k (nats/output)"})
        for t in cfg.suite.dist_tasks:
            fam_rows.append({"model": m, "kind": "alignment", "family or task": t,
                             f"value ({PM})": pm(vals(m, f"js_{t}"), 4),
                             "metric": "JS divergence (nats)"})
    write_table(pd.DataFrame(fam_rows), a.out / "tables", "families",
                f"Per held-out family and distribution task ({setting}); the paper reports "
                "per-dataset results for its own held-out sources only (not reachable).")

    cov = defaultdict(list)
    for e in evals:
        for c in e["coverage"]:
            cov[e["model"], c["task"], c["component"]].append(c)
    cov_rows = [{"model": m, "task": t, "prompt": comp,
                 f"% valid ({PM})": pm([c["valid_pct"] for c in cs], 1),
                 f"% unique ({PM})": pm([c["unique_pct"] for c in cs], 1),
                 f"yield ({PM})": pm([c["yield"] for c in cs], 2)}
                for (m, t, comp), cs in sorted(cov.items())]
    write_table(pd.DataFrame(cov_rows), a.out / "tables", "coverage",
                f"Valid output coverage per task ({cfg.eval.coverage_samples} samples, "
                f"T={cfg.eval.temperature}, {setting}).")

    readme = {(r["metric"]): r["value"] for r in reported if r["metric"].startswith("readme")}
    dice_rows = []
    for m in names:
        ds = [d for e in evals if e["model"] == m for d in e["dist"]
              if d["task"] == "readme_dice"]
        dice_rows.append({"model": m, f"valid mass ({PM})": pm([d["coverage"] for d in ds]),
                          f"P(2) ({PM})": pm([d["q"][0] for d in ds]),
                          f"P(7) ({PM})": pm([d["q"][5] for d in ds]),
                          f"JS to the true sums ({PM})": pm([d["js"] for d in ds], 4)})
    dice_rows.append({"model": "the paper's README: released Spectrum Gemma-3-12B",
                      f"valid mass ({PM})": readme.get("readme_dice_valid_mass"),
                      f"P(2) ({PM})": readme.get("readme_dice_p2"),
                      f"P(7) ({PM})": readme.get("readme_dice_p7"),
                      f"JS to the true sums ({PM})": None})
    write_table(pd.DataFrame(dice_rows), a.out / "tables", "readme_dice",
                "The official README's two-dice demo ('Roll two six-sided dice. What is the sum "
                "of their values?', zero-shot, exact probabilities of 2..12): ours per model, "
                "and the README's released 12B model (labelled; a different model and size, "
                "true P(7) = 0.1667, P(2) = 0.0278).")
    write_table(reported_table(reported), a.out / "tables", "paper_reported",
                "The paper's own numbers that could be reached (abstract, official code and "
                "README), never presented as ours.")

    # figure: loss on output j given j earlier outputs, per model (mean over contexts and seeds)
    fams = cfg.heldout
    fig, axes = subplots(1, len(fams) + 1, figsize=(3.2 * (len(fams) + 1), 3), squeeze=False)
    for m in names:
        per_seed: dict[str, list[dict[int, float]]] = defaultdict(list)
        for e in (e for e in evals if e["model"] == m):
            by = steer_by_output(e)
            for f in fams:
                per_seed[f].append({j: float(np.mean(v)) for j, v in by.get(f, {}).items()})
            per_seed["all held-out"].append({j: float(np.mean([np.mean(by[f][j]) for f in by
                                                               if j in by[f]]))
                                             for j in sorted({j for f in by for j in by[f]})})
        for ax, f in zip(axes[0], [*fams, "all held-out"], strict=True):
            js = sorted({j for d in per_seed[f] for j in d})
            mean = np.array([np.mean([d[j] for d in per_seed[f] if j in d]) for j in js])
            sd = np.array([np.std([d[j] for d in per_seed[f] if j in d]) for j in js])
            line, = ax.plot(js, mean, marker="o", ms=3, label=m)
            ax.fill_between(js, mean - sd, mean + sd, alpha=0.15, color=line.get_color())
            ax.set_title(f)
            ax.set_xlabel("in-context examples before the output")
    axes[0][0].set_ylabel("loss of the output (nats)")
    axes[0][-1].legend(fontsize=7)
    save_figure(fig, a.out / "figures" / "steerability.png")

    fig, ax = subplots(figsize=(4.5, 3))
    for p in a.adapters:
        t = read_json(p / "train.json")
        loss = np.array(t["loss"])
        w = max(1, len(loss) // 10)
        smooth = np.convolve(loss, np.ones(w) / w, mode="valid")
        ax.plot(np.arange(len(smooth)) + w, smooth, label=f"seed {t['seed']}")
    ax.set_xlabel("step")
    ax.set_ylabel("output loss (nats, moving mean)")
    if a.adapters:
        ax.legend(fontsize=7)
    else:
        ax.text(0.5, 0.5, "no tuned model at this scale", ha="center", transform=ax.transAxes)
    save_figure(fig, a.out / "figures" / "training.png")
    write_ledger(a.out, "spectrum", a.scale, raw["claims"], records)


if __name__ == "__main__":
    main()
