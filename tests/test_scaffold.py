"""`python -m repro new-paper`: the skeleton is the whole of adding a paper, and it works at once.

In a temporary copy of the repo (a git repo, so `git status` shows what the command touched):
the command adds exactly the paper's folder (package, config, schema, rule file, captions) and
its test folder, and writes its dvc.yaml; then the generic per-paper tests (tests/test_papers.py)
and the skeleton's own test pass for the new paper, and `snakemake all` includes it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml
from conftest import copy_repo, plan

pytestmark = pytest.mark.slow
PID = "demo_paper"
GIT = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t"}


def _run(cwd, *cmd, check=True):
    env = {**os.environ, **GIT, "PYTHONPATH": str(cwd / "src")}
    proc = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory):
    root = copy_repo(tmp_path_factory.mktemp("scaffold") / "repo")
    _run(root, "git", "init", "-q")
    _run(root, "git", "add", "-A")
    _run(root, "git", "commit", "-qm", "base")
    _run(root, sys.executable, "-m", "repro", "new-paper", PID, "--title", "A demo paper")
    return root


def test_the_scaffold_touches_only_the_papers_own_files(scaffolded):
    status = _run(scaffolded, "git", "status", "--porcelain", "--untracked-files=all").stdout
    touched = sorted(line[3:] for line in status.splitlines())
    pkg = f"src/repro/papers/{PID}/"
    assert touched == sorted([
        f"tests/papers/{PID}/test_{PID}_method.py",
        *(f"{pkg}captions/{f}.rst" for f in ("tables/main", "tables/paper_reported",
                                              "figures/errors")),
        *(pkg + f for f in ("README.md", "__init__.py", "config.yaml", "data.py", "dvc.yaml",
                            "evaluate.py", "method.py", "report.py", "rules.smk", "schema.yaml",
                            "settings.py", "train.py")),
    ])
    # its dvc.yaml is generated from the workflow; no other paper's changes
    stages = yaml.safe_load((scaffolded / pkg / "dvc.yaml").read_text())["stages"]
    for phase in ("fetch", "train", "evaluate", "report"):
        assert f"{PID}_{phase}_small" in stages


def test_the_new_paper_passes_the_generic_tests_at_once(scaffolded):
    proc = _run(scaffolded, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "tests/test_papers.py", "-k", PID, f"tests/papers/{PID}/test_{PID}_method.py",
                check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and " failed" not in proc.stdout


def test_the_skeleton_passes_the_format_checks_ci_runs(scaffolded):
    bin_ = os.path.dirname(sys.executable)
    _run(scaffolded, f"{bin_}/snakefmt", "--check", f"src/repro/papers/{PID}/rules.smk")
    _run(scaffolded, f"{bin_}/ruff", "check", f"src/repro/papers/{PID}",
         f"tests/papers/{PID}")


def test_all_and_the_summary_include_the_new_paper(scaffolded):
    rules = {j["rule"] for j in plan(scaffolded, "all", forceall=True)}
    assert {f"{PID}_fetch", f"{PID}_train", f"{PID}_evaluate", f"{PID}_report"} <= rules


def test_an_existing_or_invalid_id_is_refused(scaffolded):
    for pid, why in ((PID, "exists already"), ("Bad-Id", "must match")):
        proc = _run(scaffolded, sys.executable, "-m", "repro", "new-paper", pid, "--title", "x",
                    check=False)
        assert proc.returncode == 2 and why in proc.stderr
