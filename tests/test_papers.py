"""What every registered paper owes, checked over the registry (src/repro/papers/*/config.yaml):
its tiny DAG's outputs, that a finished DAG plans nothing, that edits rerun exactly what they
should, that the same seeds give byte-identical tables, that its full-scale plan builds, and
that every rule has a phase and lists the code its jobs import. Paper test files (tests/papers/
<id>/) keep only what is specific to their paper."""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import (
    PAPERS,
    REPO,
    copy_finished,
    edit,
    plan,
    planned_jobs,
    same_result,
    snakemake,
)

from repro.core.claims import load_claims

VERDICTS = {"holds", "contradicted", "inconclusive", "not testable at this scale"}
PNG = b"\x89PNG\r\n\x1a\n"

pytestmark = pytest.mark.parametrize("pid", PAPERS)
_PLANS: dict[tuple[str, str], list[dict]] = {}


def _full_plan(root, pid, scale="tiny") -> list[dict]:
    """Every job of the paper's DAG (forceall): the same in any copy of the repo, so planned
    once per paper and scale."""
    if (pid, scale) not in _PLANS:
        _PLANS[pid, scale] = plan(root, f"paper_{pid}", scale=scale, forceall=True)
    return _PLANS[pid, scale]


def _cfg(root, pid):
    return yaml.safe_load((root / f"src/repro/papers/{pid}/config.yaml").read_text())


def _report_outputs(root, pid) -> list[str]:
    (report,) = [j for j in _full_plan(root, pid) if j["rule"] == f"{pid}_report"]
    return report["outputs"]


def test_tiny_dag_outputs(pid, tiny_run):
    root = tiny_run(pid)
    out = root / f"results/tiny/{pid}"
    cfg = _cfg(root, pid)
    claims = load_claims(out / "claims.json")
    assert [c["id"] for c in claims] == [c["id"] for c in cfg["claims"]]
    for c in claims:
        assert c["verdict"] in VERDICTS, c
        assert c["claim"] and isinstance(c["values"], dict)
    assert pid in (out / "claims.md").read_text()
    records = json.loads((out / "records.json").read_text())
    assert isinstance(records, list) and records
    outputs = _report_outputs(root, pid)
    tables = [o for o in outputs if "/tables/" in o]
    assert tables and {o.rsplit(".", 1)[0] for o in tables if o.endswith(".csv")} == {
        o.rsplit(".", 1)[0] for o in tables if o.endswith(".md")}
    for t in tables:
        assert (root / t).stat().st_size > 0, t
    assert f"results/tiny/{pid}/tables/paper_reported.csv" in tables  # the paper's numbers
    figures = [o for o in outputs if o.endswith(".png")]
    assert figures
    for f in figures:
        assert (root / f).read_bytes()[:8] == PNG, f
    logs = list((root / f"logs/tiny/{pid}").glob("*.log"))
    assert logs
    # every job's log ends with its wall time and peak memory (repro.core.progress.job_footer)
    for log in logs:
        last = log.read_text().rstrip("\n").rsplit("\n", 1)[-1]
        assert re.match(r"job finished: wall time \d+\.\d s, peak memory \d+ MB", last), (log, last)


def test_every_result_carries_its_provenance(pid, tiny_run):
    """claims.json, the ledger's and every table's footer, every figure's caption: where the
    numbers come from (a repo copy is no git checkout; its commit says so)."""
    from PIL import Image

    from repro.core.claims import load_provenance
    from repro.core.config import load_settings
    from repro.core.provenance import FOOTER, footer_text, settings_hash

    root = tiny_run(pid)
    out = root / f"results/tiny/{pid}"
    prov = load_provenance(out / "claims.json")
    assert prov["paper"] == pid and prov["scale"] == "tiny"
    assert prov["commit"] is None and "no git checkout" in footer_text(prov)
    settings = load_settings(root / f"src/repro/papers/{pid}/config.yaml", "tiny")
    assert prov["settings_sha256"] == settings_hash(settings)
    assert prov["seeds"] and prov["python"] and prov["cpu"] and "numpy" in prov["packages"]
    # one benchmark per job that ran, but the report's own (it is still running)
    ran = [j for j in _full_plan(root, pid) if j["outputs"] and j["rule"] != f"{pid}_report"]
    assert prov["jobs"] == len(ran) and all(s >= 0 for s in prov["job_seconds"].values())
    line = footer_text(prov)
    for md in [out / "claims.md", *(out / "tables").glob("*.md")]:
        assert md.read_text().endswith(f"{FOOTER}\n_{line}_\n"), md
    for png in out.rglob("*.png"):
        with Image.open(png) as im:
            assert im.text["Description"] == line, png


def test_finished_dag_plans_nothing(pid, tiny_run):
    assert planned_jobs(tiny_run(pid), f"paper_{pid}") == {}


def test_editing_the_report_module_reruns_only_the_report(pid, tiny_run, tmp_path):
    root = copy_finished(tiny_run(pid), tmp_path / "edit_report")
    edit(root / f"src/repro/papers/{pid}/report.py")
    assert planned_jobs(root, f"paper_{pid}") == {f"{pid}_report": 1, f"paper_{pid}": 1}


def test_editing_the_config_reruns_what_reads_it(pid, tiny_run, tmp_path):
    root = copy_finished(tiny_run(pid), tmp_path / "edit_config")
    jobs = _full_plan(root, pid)
    config = f"src/repro/papers/{pid}/config.yaml"
    made_by = {o: j for j in jobs for o in j["outputs"]}
    stale: set[int] = set()

    def reads_config(j) -> bool:  # directly or through anything upstream
        if id(j) not in stale and (config in j["inputs"] or any(
                reads_config(made_by[i]) for i in j["inputs"] if i in made_by)):
            stale.add(id(j))
        return id(j) in stale

    want = Counter(j["rule"] for j in jobs if reads_config(j) or not j["outputs"])
    assert want[f"{pid}_report"] == 1
    edit(root / config)
    assert planned_jobs(root, f"paper_{pid}") == dict(want)


def test_same_seeds_give_byte_identical_tables(pid, tiny_run, tmp_path):
    """Rerun, with the same seeds, one job of every rule that trains or evaluates (the one with
    the fewest jobs downstream, which rerun too) in a copy of the finished run, then the report:
    every table and the ledger must come out byte-identical. A rule whose every job feeds more
    than a few others (an SFT warm-up all runs start from) is left to the jobs downstream of it;
    outputs that measure wall time (the config's `timing_outputs`) are the only ones exempt.
    (A few jobs per paper, not its whole DAG: the suite stays fast.)"""
    first = tiny_run(pid)
    jobs = [j for j in _full_plan(first, pid) if j["phase"] in ("train", "evaluate")]

    def downstream(k: int) -> set[int]:
        out, todo = set(), [k]
        while todo:
            outs = set(jobs[todo.pop()]["outputs"])
            for m, j in enumerate(jobs):
                if m not in out and outs & set(j["inputs"]):
                    out.add(m)
                    todo.append(m)
        return out

    rerun: set[int] = set()
    for rule in sorted({j["rule"] for j in jobs}):
        mine = sorted((k for k, j in enumerate(jobs) if j["rule"] == rule),
                      key=lambda k: jobs[k]["outputs"])
        best = min(mine, key=lambda k: len(downstream(k)))
        if len(downstream(best)) <= 3:
            rerun |= {best, *downstream(best)}
    assert rerun, f"{pid}: no job to rerun"
    targets = sorted(o for k in rerun for o in jobs[k]["outputs"])
    again = copy_finished(first, tmp_path / "again")
    # one run: the chosen jobs are forced, what reads their outputs (the report too) follows
    snakemake(again, f"paper_{pid}", "--forcerun", *targets, "--cores", "2", papers=pid)
    exempt = {f"results/tiny/{pid}/{o}" for o in _cfg(first, pid).get("timing_outputs", [])}
    compared = 0
    for o in _report_outputs(first, pid):
        if o.endswith((".csv", ".md", ".json")) and o not in exempt:
            assert same_result(again / o, first / o), o
            compared += 1
    assert compared and (again / f"results/tiny/{pid}/claims.md").stat().st_mtime > (
        first / f"results/tiny/{pid}/claims.md").stat().st_mtime  # the report did rerun


def test_full_scale_plan_builds(pid, fresh_repo):
    jobs = _full_plan(fresh_repo, pid, "full")
    rules = Counter(j["rule"] for j in jobs)
    assert rules[f"{pid}_report"] == 1 and rules[f"paper_{pid}"] == 1
    assert all(j["phase"] for j in jobs if j["outputs"]), "a rule without a phase"
    # SLURM sizes come from the rules: every job that trains or evaluates declares them
    for j in jobs:
        if j["phase"] in ("train", "evaluate"):
            assert {"runtime", "mem_mb", "cpus_per_task"} <= set(j["resources"]), j["rule"]


def test_every_report_output_has_its_caption(pid, fresh_repo):
    """Each table and figure the report flags for the HTML report has its caption
    (the paper's captions/{tables,figures}/<stem>.rst, repro.core.workflow.caption_path), at
    every scale (some outputs are named by the scale's settings: curves_<env>.png)."""
    from repro.core.workflow import caption_path

    missing = []
    for scale in ("tiny", "small", "full"):
        (report,) = [j for j in _full_plan(fresh_repo, pid, scale) if j["rule"] == f"{pid}_report"]
        for o in map(Path, report["outputs"]):
            kind = o.parent.name
            if kind in ("tables", "figures") and o.stem != "claims":
                if not caption_path(pid, kind, o.stem).exists():
                    missing.append(f"{scale}: {kind}/{o.stem}")
    assert not missing, (f"{pid}: no caption in src/repro/papers/{pid}/captions/ for "
                         + ", ".join(missing))


def test_every_rule_belongs_to_a_phase(pid, fresh_repo):
    for scale in ("tiny", "small"):
        jobs = _full_plan(fresh_repo, pid, scale)
        orphans = {j["rule"] for j in jobs if j["outputs"] and not j["phase"]}
        assert not orphans, f"{pid} at {scale}: no phase for {sorted(orphans)}"
        assert {j["paper"] for j in jobs if j["outputs"]} == {pid}


def _module_imports(path: Path) -> set[Path]:
    """The repro source files a module imports when it is loaded (module-level imports; a
    function's lazy import is conditional, e.g. the math task's code for math jobs only)."""
    out = set()
    for node in ast.parse(path.read_text()).body:
        names = []
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("repro"):
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("repro")]
        for name in names:
            f = REPO / "src" / (name.replace(".", "/") + ".py")
            if f.exists():
                out.add(f.relative_to(REPO))
    return out


def test_rules_list_the_code_their_jobs_import(pid, fresh_repo):
    """Honest inputs: a rule lists every module its code imports, transitively, so editing any
    of them reruns the job (and only the jobs that import it)."""
    for j in _full_plan(fresh_repo, pid):
        listed = {Path(i) for i in j["inputs"] if i.startswith("src/") and i.endswith(".py")}
        seen, todo = set(), list(listed)
        while todo:
            f = todo.pop()
            if f not in seen:
                seen.add(f)
                todo += _module_imports(REPO / f)
        assert seen <= listed, f"{j['rule']} does not list {sorted(map(str, seen - listed))}"
