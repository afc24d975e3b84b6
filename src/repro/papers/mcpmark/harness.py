"""One task run, as MCPMark does it: set up a fresh initial state, run the agent over the task's
MCP server, run the verifier (always, even after an agent error), tear the state down.

filesystem: the category's template folder is copied to a new sandbox; the server may touch the
sandbox only; the verifier gets FILESYSTEM_TEST_DIR (and MCPMARK_INITIAL_STATE, the pristine
template, read-only, for verifiers that recompute the answer from the initial files).
postgres: a new database cloned from the category's template database (or an empty one where
the server has no such template, as in MCPMark); the verifier gets POSTGRES_* (and
MCPMARK_TEMPLATE_DATABASE, the untouched template on the same server); the database is dropped
afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from repro.papers.mcpmark import servers
from repro.papers.mcpmark.agent import Episode, Limits, Policy, run_episode
from repro.papers.mcpmark.postgres import Cluster
from repro.papers.mcpmark.tasks import Task

VERIFY_TIMEOUT = 300.0


@dataclass
class State:
    """A task run's live initial state: the server to launch, the verifier's environment, and
    what the oracle may read to plan its calls."""

    params: object
    verify_env: dict[str, str]
    oracle_view: dict


@contextmanager
def filesystem_state(task: Task, templates: Path, work: Path | None = None) -> Iterator[State]:
    template = (templates / task.category).resolve()
    if not template.is_dir():
        raise FileNotFoundError(f"no filesystem template {template} for {task.id}")
    box = Path(tempfile.mkdtemp(prefix=f"mcpmark-{task.name}-", dir=work))
    root = box / task.category
    try:
        shutil.copytree(template, root, copy_function=shutil.copy2)  # keeps the mtimes
        yield State(servers.filesystem(root),
                    {"FILESYSTEM_TEST_DIR": str(root), "MCPMARK_INITIAL_STATE": str(template)},
                    {"root": root, "template": template})
    finally:
        shutil.rmtree(box, ignore_errors=True)


@contextmanager
def postgres_state(task: Task, pg: Cluster) -> Iterator[State]:
    # as MCPMark: cloned from the category's database where the server has it, else empty
    template = task.template_db if task.template_db in pg.templates else None
    with pg.fresh(template or None, prefix=f"mcpmark_{task.name}"[:40]) as db:
        prepare = task.folder / "prepare_environment.py"
        if prepare.exists():  # MCPMark's tasks without a template database set themselves up
            r = subprocess.run([sys.executable, str(prepare)], cwd=task.folder,
                               env={**_clean_env(), **pg.env(db)}, capture_output=True,
                               text=True, timeout=VERIFY_TIMEOUT)
            if r.returncode:
                raise RuntimeError(f"State Duplication Error: {prepare.name}: "
                                   f"{r.stderr.strip()[-1000:]}")
        env = {**pg.env(db), "MCPMARK_TEMPLATE_DATABASE": template or ""}
        yield State(servers.postgres(pg.dsn(db)), env,
                    {"dsn": pg.dsn(db), "db": db, "template_dsn": pg.dsn(template)
                     if template else None})


def _clean_env() -> dict[str, str]:
    """The verifier's base environment: no LLM credentials."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("REPRO_LLM_", "OPENAI_", "ANTHROPIC_"))}


def verify(task: Task, env: dict[str, str]) -> tuple[bool, str]:
    """MCPMark's verdict: the verifier's exit code (0 = pass); its output kept for the record."""
    try:
        r = subprocess.run([sys.executable, str(task.verifier)], env={**_clean_env(), **env},
                           cwd=task.folder, capture_output=True, text=True,
                           timeout=VERIFY_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, f"verifier timed out after {VERIFY_TIMEOUT:g} s"
    out = (r.stdout + ("\n" + r.stderr if r.stderr.strip() else "")).strip()
    return r.returncode == 0, out[-4000:]


def run_task(task: Task, make_policy: Callable[[Task, State], Policy], limits: Limits, *,
             templates: Path | None = None, pg: Cluster | None = None,
             work: Path | None = None, errlog: TextIO | None = None) -> tuple[dict, Episode]:
    """Set up, run the agent, verify, clean up. Returns the run's record and its episode."""
    t0 = time.monotonic()
    if task.service == "filesystem":
        if templates is None:
            raise ValueError("filesystem tasks need the templates folder")
        ctx = filesystem_state(task, templates, work)
    else:
        if pg is None:
            raise ValueError("postgres tasks need a running cluster")
        ctx = postgres_state(task, pg)
    with ctx as state:
        policy = make_policy(task, state)
        ep = run_episode(policy, task.instruction(), state.params, limits, errlog=errlog)
        passed, output = verify(task, state.verify_env)
    record = {"task": task.id, "service": task.service, "category": task.category,
              "success": passed, **ep.summary(), "verification_output": output,
              "seconds": round(time.monotonic() - t0, 3)}
    return record, ep
