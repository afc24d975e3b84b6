"""`snakemake all`: every paper's DAG plus the cross-paper claims summary.

Built from the per-paper tiny runs the DAG tests share (each already ran its whole DAG), laid
over one repo copy: Snakemake must then see every paper as complete and run only the summary.
(Running `all` from scratch here would repeat those eight DAGs on one core: ~5 minutes.)
"""

from __future__ import annotations

import shutil

import pytest
from conftest import PAPERS, REPO, copy_finished, copy_repo, planned_jobs, snakemake

from repro.core.claims import load_claims

pytestmark = pytest.mark.slow
RUN_PRODUCTS = ("data", "results", "logs", ".snakemake/metadata")


def test_the_registry_is_the_paper_configs():
    assert PAPERS == sorted(p.stem for p in (REPO / "config/papers").glob("*.yaml"))
    assert {"rove", "nft", "relval", "hadamard_dp", "reap", "tstudent", "vaecf",
            "stackelberg"} <= set(PAPERS)


def test_a_paper_without_its_rule_file_stops_the_parse_with_one_line(tmp_path):
    root = copy_repo(tmp_path / "repo")
    (root / "workflow/rules/relval.smk").unlink()
    proc = snakemake(root, "-n", "all", check=False)
    assert proc.returncode != 0
    assert "paper 'relval' (config/papers/relval.yaml) has no workflow/rules/relval.smk" in (
        proc.stderr)


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
        claims = load_claims(root / f"results/tiny/{pid}/claims.json")
        assert claims and text.count(f"| {pid} |") == len(claims), pid
        for c in claims:
            assert f"**{c['verdict']}**" in text
    # the figure: claims per paper by verdict
    assert (root / "results/tiny/summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert planned_jobs(root, "all") == {}
