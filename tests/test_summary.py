"""`snakemake all`: every paper's DAG plus the cross-paper claims summary.

Built from the per-paper tiny runs the DAG tests share (each already ran its whole DAG), laid
over one repo copy: Snakemake must then see every paper as complete and run only the summary.
(Running `all` from scratch here would repeat those eight DAGs on one core: ~5 minutes.)
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import REPO, copy_finished, planned_jobs, snakemake

pytestmark = pytest.mark.slow
RUN_PRODUCTS = ("data", "results", "logs", ".snakemake/metadata")

PAPERS = sorted(re.findall(r'^PAPERS\["(\w+)"\]', "".join(
    p.read_text() for p in (REPO / "workflow/rules").glob("*.smk")), re.M))


def test_every_paper_is_registered():
    assert set(PAPERS) == {"rove", "nft", "relval", "hadamard_dp", "reap", "tstudent", "vaecf",
                           "stackelberg"}


def test_all_runs_only_the_summary_over_finished_papers(request, tmp_path):
    runs = [request.getfixturevalue(f"tiny_{pid}") for pid in PAPERS]
    root = copy_finished(runs[0], tmp_path / "all")
    for run in runs[1:]:  # the sources are the same files (same mtimes): add what each ran
        for d in RUN_PRODUCTS:
            if (run / d).is_dir():
                shutil.copytree(run / d, root / d, symlinks=True, copy_function=shutil.copy2,
                                dirs_exist_ok=True)
    assert planned_jobs(root, "all") == {"all": 1, "summary": 1}
    snakemake(root, "all", "--cores", "1")
    text = (root / "results/tiny/summary.md").read_text()
    for pid in PAPERS:
        claims = json.loads((root / f"results/tiny/{pid}/claims.json").read_text())
        assert claims and text.count(f"| {pid} |") == len(claims), pid
        for c in claims:
            assert f"**{c['verdict']}**" in text
    assert planned_jobs(root, "all") == {}
