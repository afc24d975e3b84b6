"""Our MCPMark aggregation (repro.papers.mcpmark.metrics) on the paper's own per-run results:
every model of eval-sys/mcpmark-experiments at the paper's commit (8745e03, "mcpmark-release"),
pass@1 (mean, population sd), pass@4, pass^4 and average turns per service and overall, beside
the published summary.json. Prints the largest difference per model and over all numbers (the
summary rounds to 4 decimals, so agreement means |diff| <= 1e-4).

Run: .venv/bin/python benchmarks/mcpmark_published_aggregation.py --experiments github
     .venv/bin/python benchmarks/mcpmark_published_aggregation.py --experiments <checkout>
(a checkout of the results repository at that commit: summary.json and model_results/)
"""

from __future__ import annotations

import argparse

from repro.papers.mcpmark.check import PUBLISHED_SERVICES
from repro.papers.mcpmark.metrics import load_experiments, published_check


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiments", default="github")
    a = ap.parse_args()
    summary, _ = load_experiments(a.experiments, [])
    models = sorted(summary["overall"])
    summary, files = load_experiments(a.experiments, models)
    rows = []
    for m in models:
        mine = published_check(summary, files[m], m, PUBLISHED_SERVICES)
        rows += mine
        worst = max(mine, key=lambda r: r["abs_diff"])
        print(f"{m:28s} {len(mine):3d} numbers, largest |diff| {worst['abs_diff']:.2e} "
              f"({worst['service']} {worst['metric']})")
    worst = max(rows, key=lambda r: r["abs_diff"])
    print(f"{len(models)} models, {len(rows)} numbers: largest |diff| {worst['abs_diff']:.2e} "
          f"({worst['model']} {worst['service']} {worst['metric']}: ours {worst['ours']:.6f}, "
          f"published {worst['published']})")


if __name__ == "__main__":
    main()
