"""Does our harness speak MCPMark's own verifier protocol? The full scale runs the benchmark's
task folders (the official suite) with its own verify.py and prepare_environment.py; this runs
them through our harness on the databases we can build offline (Chinook from the mirror, and
the categories that set themselves up), with the null agent (must fail every task) and, where
one of our tasks has the same id, our scripted oracle (should pass the official verifier too).

    python benchmarks/mcpmark_official_verifiers.py --suite-url file:///tmp/mcpmark-suite.tar.gz

Offline, build the tarball from a fetched snapshot of eval-sys/mcpmark:
    git --git-dir <mirror> archive --format=tar.gz --prefix=mcpmark-<commit>/ \
        -o /tmp/mcpmark-suite.tar.gz <commit> tasks
The official verifiers import psycopg2 (pip install psycopg2-binary).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from repro.papers.mcpmark.agent import Limits, NullPolicy, OraclePolicy
from repro.papers.mcpmark.data import fetch_suite
from repro.papers.mcpmark.harness import run_task
from repro.papers.mcpmark.postgres import cluster
from repro.papers.mcpmark.settings import load
from repro.papers.mcpmark.tasks import discover

CONFIG = Path("src/repro/papers/mcpmark/config.yaml")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite-url", help="the suite tarball (default: the full config's GitHub URL)")
    ap.add_argument("--chinook", type=Path, default=Path("data/mcpmark/small/db/chinook.sql"),
                    help="Chinook's plain-SQL dump (default: what `snakemake paper_mcpmark` "
                    "fetched)")
    ap.add_argument("--categories", nargs="+", default=["chinook", "security"])
    a = ap.parse_args()
    suite = load(CONFIG, "full").suite
    if a.suite_url:
        suite = replace(suite, url=a.suite_url)
    ours = {t.id: t for t in discover(["postgres"])}
    with tempfile.TemporaryDirectory() as tmp:
        counts = fetch_suite(suite, ["postgres"], Path(tmp) / "suite", CONFIG)
        print(f"official suite {suite.repo}@{suite.commit[:7]}: {counts} verifiers")
        tasks = [t for t in discover(["postgres"], Path(tmp) / "suite" / "tasks")
                 if t.category in a.categories]
        rows, bad = [], 0
        with cluster({"chinook": a.chinook}) as pg:
            for t in tasks:
                if t.template_db and t.template_db not in pg.templates | {"security"}:
                    continue  # a database we cannot build offline
                null, _ = run_task(t, lambda task, state: NullPolicy(), Limits(), pg=pg)
                orc = "-"
                if t.id in ours and (ours[t.id].folder / "oracle.py").exists():
                    mine = ours[t.id]
                    rec, _ = run_task(t, lambda task, state, m=mine: OraclePolicy(
                        m.oracle().solve(state.oracle_view)), Limits(), pg=pg)
                    orc = "pass" if rec["success"] else "FAIL"
                    if not rec["success"]:
                        print(f"  {t.id}: our oracle vs the official verifier:\n    "
                              + rec["verification_output"][-600:].replace("\n", "\n    "))
                bad += null["success"]
                rows.append((t.id, "pass" if null["success"] else "fail", orc))
    print(f"\n{'official task':48s} {'null':6s} our oracle")
    for r in rows:
        print(f"{r[0]:48s} {r[1]:6s} {r[2]}")
    print(f"\nnull passed {bad} of {len(rows)} official tasks (must be 0)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
