"""Fixtures that build a temporary copy of the repo and run the real pipeline in it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from repro.core.workflow import registered_papers

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
MIRROR = (REPO.parent / "shared" / "data").resolve()
PAPERS = registered_papers(REPO)


def copy_repo(dest: Path) -> Path:
    """What a clean clone would hold: tracked and not-ignored files (no .venv, results, ...)."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout.split("\0")
    for rel in filter(None, files):
        src, dst = REPO / rel, dest / rel
        if not (src.exists() or src.is_symlink()):
            continue  # deleted in the work tree, not yet committed
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
    return dest


def snakemake(workdir: Path, *args: str, check: bool = True, scale: str = "tiny",
              **config: str) -> subprocess.CompletedProcess:
    overrides = {"scale": scale, "data_mirror": str(MIRROR), **config}
    cmd = [SNAKEMAKE, *args, "--config", *(f"{k}={v}" for k, v in overrides.items())]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def plan(workdir: Path, target: str, scale: str = "tiny", forceall: bool = False,
         **config: str) -> list[dict]:
    """The jobs Snakemake would run for `target` now (every job with forceall), from the
    workflow's own planner (repro.dag, Snakemake's public API; what `python -m repro plan
    --json` prints), run in this process: a plan costs its parse, not a new interpreter.
    A paper's target loads only that paper's module (`papers=<id>`): the same plan, cheaper."""
    from repro.dag import PlanError
    from repro.dag import plan as dag_plan

    if target.startswith("paper_"):
        config.setdefault("papers", target.removeprefix("paper_"))
    overrides = {"scale": scale, "data_mirror": str(MIRROR), **config}
    try:
        jobs = dag_plan(workdir, target, overrides, forceall)
    except PlanError as err:
        raise AssertionError(f"planning {target} failed:\n{err}") from err
    return [json.loads(json.dumps(j.to_dict())) for j in jobs]  # as `--json` gives them


def planned_jobs(workdir: Path, target: str, scale: str = "tiny") -> dict[str, int]:
    """The jobs Snakemake would run for `target` now: rule -> count."""
    return dict(Counter(j["rule"] for j in plan(workdir, target, scale)))


def edit(path: Path) -> None:
    """A real edit: new content and a strictly newer mtime (Snakemake ignores a bare touch
    whose content checksum it has on record)."""
    with open(path, "a") as f:
        f.write("# an edit\n")
    t = time.time() + 5
    os.utime(path, (t, t))


def finished_tiny_dag(tmp_path_factory, pid: str) -> Path:
    """A repo copy in which `snakemake paper_<pid> --config scale=tiny` has run to completion."""
    t0 = time.monotonic()
    root = copy_repo(tmp_path_factory.mktemp(f"{pid}_tiny") / "repo")
    snakemake(root, f"paper_{pid}", "--cores", "2", papers=pid)
    _TINY_RUNS.append((pid, time.monotonic() - t0))
    return root


def _tiny_dag_fixture(pid: str):
    """A session fixture: a repo copy in which `snakemake paper_<pid> --config scale=tiny` has
    run to completion (one per paper, shared by its DAG tests)."""

    @pytest.fixture(scope="session")
    def fixture(tmp_path_factory) -> Path:
        return finished_tiny_dag(tmp_path_factory, pid)

    return fixture


# tiny_<id>: one finished tiny run per registered paper, shared by every test that needs it
for _pid in PAPERS:
    globals()[f"tiny_{_pid}"] = _tiny_dag_fixture(_pid)


@pytest.fixture(scope="session")
def fresh_repo(tmp_path_factory) -> Path:
    """One clean copy of the repo for tests that only plan (never run) jobs in it."""
    return copy_repo(tmp_path_factory.mktemp("fresh") / "repo")


@pytest.fixture(scope="session")
def tiny_run(request):
    """tiny_run(pid): the finished tiny run of a paper (the same one tiny_<pid> gives)."""
    return lambda pid: request.getfixturevalue(f"tiny_{pid}")


def copy_finished(src: Path, dest: Path) -> Path:
    """Copy a finished run (mtimes and Snakemake metadata kept) to try an edit on it."""
    shutil.copytree(src, dest, symlinks=True, copy_function=shutil.copy2)
    return dest


SLURM_SCRIPT = REPO / "scripts" / "slurm_local.sh"


@pytest.fixture(scope="session")
def slurm_cluster():
    """A running local SLURM cluster: started here (and stopped after) unless already up."""
    if subprocess.run(["bash", str(SLURM_SCRIPT), "status"], capture_output=True).returncode == 0:
        yield
        return
    proc = subprocess.run(["bash", str(SLURM_SCRIPT), "start"], capture_output=True, text=True,
                          timeout=1200)
    reason = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
    if proc.returncode == 3:
        pytest.skip(reason)
    assert proc.returncode == 0, f"local SLURM cluster failed to start:\n{proc.stderr}"
    yield
    subprocess.run(["bash", str(SLURM_SCRIPT), "stop"], capture_output=True)


@pytest.fixture(scope="session", autouse=True)
def _slurm_probe_stays_fast(request):
    """The SLURM executor plugin runs `scontrol show config` whenever snakemake starts; where
    slurm is installed but no controller runs, that waits ~9 s every time. Where it is
    installed, keep the local cluster up for the session so each snakemake call stays fast."""
    if shutil.which("scontrol"):
        try:
            request.getfixturevalue("slurm_cluster")
        except pytest.skip.Exception:
            pass


# ---------------------------------------------------------------- what the suite's time goes to
# Every test phase's seconds go to the paper it is about (its `pid` parameter, or its file
# tests/test_<id>_*.py), else to the shared infrastructure; a paper's tiny DAG goes to that paper
# whichever test first needed it. Printed at the end of every run with the projection to the
# nineteen papers the project will have (issue 17: at most 15 minutes on 2 idle cores).
PLANNED_PAPERS = 19
_COST: dict[str, float] = defaultdict(float)
_TINY_RUNS: list[tuple[str, float]] = []


def _owner(item) -> str:
    pid = getattr(getattr(item, "callspec", None), "params", {}).get("pid")
    if pid:
        return pid
    name = Path(str(item.fspath)).name
    hits = [p for p in PAPERS if name.startswith(f"test_{p}_")]
    return max(hits, key=len) if hits else "(shared)"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    seconds = call.stop - call.start
    while _TINY_RUNS:  # tiny DAGs this phase built: their paper's, not this test's
        pid, s = _TINY_RUNS.pop()
        _COST[pid] += s
        seconds -= s
    _COST[_owner(item)] += seconds


def pytest_terminal_summary(terminalreporter):
    papers = {p: _COST[p] for p in PAPERS if p in _COST}
    if not papers:
        return
    shared = _COST.get("(shared)", 0.0)
    mean = sum(papers.values()) / len(papers)
    w = terminalreporter.write_line
    w("suite time by paper (tiny DAG, plans, determinism rerun, its own tests), seconds: "
      + ", ".join(f"{p} {s:.0f}" for p, s in sorted(papers.items(), key=lambda kv: -kv[1])))
    w(f"suite time shared (core, DVC, SLURM, scaffold, summary): {shared:.0f} s; "
      f"papers: {sum(papers.values()):.0f} s ({len(papers)} papers, {mean:.0f} s each on average)")
    if len(papers) == len(PAPERS):
        w(f"suite time projected at {PLANNED_PAPERS} papers (shared + {PLANNED_PAPERS} x the "
          f"mean paper): {shared + PLANNED_PAPERS * mean:.0f} s")
