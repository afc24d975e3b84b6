"""mcpmark report: our numbers beside the paper's, a figure, and the claims ledger."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml
from repro.core.io import read_json
from repro.core.plotting import save_figure, subplots
from repro.core.tables import PM, paper_value, pm, reported_table, write_table
from repro.papers.mcpmark.settings import load


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("mcpmark tables, figure and claims ledger")
    ap.add_argument("--evals", nargs="+", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg, reported = load(a.config, a.scale), load_yaml(a.config)["reported"]
    evals = [read_json(p) for p in a.evals]
    records = [{"method": e["method"], "metric": "sq_error", "seed": e["seed"],
                "value": e["sq_error"]} for e in evals]
    errors = {m: [r["value"] for r in records if r["method"] == m] for m in cfg.methods}
    table = pd.DataFrame([{"method": m, f"squared error ({PM} over seeds)": pm(errors[m], 4),
                           "seeds": len(errors[m]),
                           "paper: relative efficiency (not comparable)": paper_value(
                               reported, m, "relative_efficiency")} for m in cfg.methods])
    write_table(table, a.out / "tables", "main",
                f"Squared error of each estimator (scale {a.scale}, sample size "
                f"{cfg.train.sample_size}); the paper's number is labelled as the paper's.")
    write_table(reported_table(reported), a.out / "tables", "paper_reported",
                "The paper's own numbers (never presented as ours).")
    fig, ax = subplots(figsize=(4, 3))
    for i, m in enumerate(cfg.methods):
        ax.plot([i] * len(errors[m]), errors[m], "o", alpha=0.6)
    ax.set_xticks(range(len(cfg.methods)), cfg.methods)
    ax.set_ylabel("squared error (one dot per seed)")
    save_figure(fig, a.out / "figures" / "errors.png")
    write_ledger(a.out, "mcpmark", a.scale, load_yaml(a.config)["claims"], records)


if __name__ == "__main__":
    main()
