"""Fixtures that build a temporary copy of the repo and run the real pipeline in it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
MIRROR = (REPO.parent / "shared" / "data").resolve()


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


def planned_jobs(workdir: Path, target: str, scale: str = "tiny") -> dict[str, int]:
    """The jobs Snakemake would run for `target` now: rule -> count (from the dry-run stats)."""
    out = snakemake(workdir, "-n", target, scale=scale).stdout
    if "Nothing to be done" in out:
        return {}
    stats = out.split("Job stats:")[1].split("\n\n")[0]
    jobs = {}
    for line in stats.splitlines():
        m = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if m and m.group(1) != "total":
            jobs[m.group(1)] = int(m.group(2))
    return jobs


def finished_tiny_dag(tmp_path_factory, pid: str) -> Path:
    """A repo copy in which `snakemake paper_<pid> --config scale=tiny` has run to completion."""
    root = copy_repo(tmp_path_factory.mktemp(f"{pid}_tiny") / "repo")
    snakemake(root, f"paper_{pid}", "--cores", "2")
    return root


def _tiny_dag_fixture(pid: str):
    """A session fixture: a repo copy in which `snakemake paper_<pid> --config scale=tiny` has
    run to completion (one per paper, shared by its DAG tests)."""

    @pytest.fixture(scope="session")
    def fixture(tmp_path_factory) -> Path:
        return finished_tiny_dag(tmp_path_factory, pid)

    return fixture


tiny_rove = _tiny_dag_fixture("rove")
tiny_nft = _tiny_dag_fixture("nft")
tiny_relval = _tiny_dag_fixture("relval")
tiny_hadamard_dp = _tiny_dag_fixture("hadamard_dp")
tiny_reap = _tiny_dag_fixture("reap")
tiny_tstudent = _tiny_dag_fixture("tstudent")
tiny_vaecf = _tiny_dag_fixture("vaecf")
tiny_stackelberg = _tiny_dag_fixture("stackelberg")


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
