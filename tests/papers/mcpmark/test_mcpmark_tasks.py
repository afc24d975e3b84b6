"""Every MCPMark task's verifier, proven through the real harness: the real MCP servers
(server-filesystem over a fresh sandbox, postgres-mcp over a fresh database cloned from the
template on a throwaway PostgreSQL), the agent loop, the verifier script. The scripted oracle
passes; the null agent (untouched initial state) fails; the oracle with its last call left out
fails too, so a verifier checks the whole job and not its first step. Filesystem tasks run on
templates built from two seeds: their verifiers recompute the answer instead of hard-coding it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from repro.core.fetch import excerpt
from repro.papers.mcpmark import servers, tasks, templates
from repro.papers.mcpmark.agent import Limits, NullPolicy, OraclePolicy
from repro.papers.mcpmark.harness import run_task

ALL = tasks.discover()
FS = [t for t in ALL if t.service == "filesystem"]
PG = [t for t in ALL if t.service == "postgres"]


def _missing(service: str) -> str | None:
    try:
        if service == "filesystem":
            servers.filesystem_entry()
            if shutil.which("node") is None:
                return "no node on PATH"
        else:
            from repro.papers.mcpmark.postgres import bindir

            servers.postgres_entry()
            bindir()
    except Exception as e:  # noqa: BLE001
        return str(e)
    return None


MISSING = {s: _missing(s) for s in ("filesystem", "postgres")}


def _cases():
    return [pytest.param(t, id=f"{t.service}-{t.id}", marks=pytest.mark.skipif(
        MISSING[t.service] is not None, reason=str(MISSING[t.service]))) for t in ALL]


@pytest.fixture(scope="module")
def fs_templates(tmp_path_factory) -> dict[int, Path]:
    out = {}
    for seed in (0, 1):
        d = tmp_path_factory.mktemp(f"fs_seed{seed}")
        for cat in sorted({t.category for t in FS}):
            templates.build(cat, d, seed)
        out[seed] = d
    return out


@pytest.fixture(scope="module")
def pg():
    from repro.papers.mcpmark.postgres import cluster

    if MISSING["postgres"]:
        yield None
        return
    with cluster({"chinook": excerpt("mcpmark", "chinook/chinook.sql")}) as c:
        yield c


def _oracle(drop_last: bool = False):
    def make(task, state):
        calls = task.oracle().solve(state.oracle_view)
        return OraclePolicy(calls[:-1] if drop_last else calls)
    return make


def _run(task, make, fs_templates, pg, seed=0):
    kw = {"templates": fs_templates[seed]} if task.service == "filesystem" else {"pg": pg}
    # the benchmark's turn cap: an oracle that needs more calls fails like a model would
    return run_task(task, make, Limits(max_turns=100, tool_timeout=60, task_timeout=600), **kw)


def test_the_tasks_are_there():
    assert len(FS) >= 1 and len(PG) >= 1
    for t in ALL:
        assert t.meta["service"] == t.service
        assert t.meta["category_id"] == t.category and t.meta["task_id"] == t.name
        assert (t.folder / "oracle.py").exists(), t.id
        if t.service == "filesystem":
            assert t.category in templates.categories(), t.id


@pytest.mark.parametrize("task", _cases())
def test_null_agent_fails(task, fs_templates, pg):
    rec, ep = _run(task, lambda t, s: NullPolicy(), fs_templates, pg)
    assert ep.error is None and rec["turns"] == 1 and rec["tool_calls"] == 0
    assert rec["success"] is False, rec["verification_output"]


@pytest.mark.parametrize("task", _cases())
def test_oracle_passes(task, fs_templates, pg):
    for seed in (0, 1) if task.service == "filesystem" else (0,):
        rec, ep = _run(task, _oracle(), fs_templates, pg, seed)
        assert ep.error is None, ep.error
        errors = [m["content"] for m in ep.messages if m["role"] == "tool"
                  and ('"isError": true' in m["content"] or m["content"].startswith("Error"))]
        assert not errors, errors[:3]
        assert rec["success"] is True, (seed, rec["verification_output"])
        assert rec["tool_calls"] == rec["turns"] - 1 >= 1


@pytest.mark.parametrize("task", _cases())
def test_oracle_without_its_last_call_fails(task, fs_templates, pg):
    rec, ep = _run(task, _oracle(drop_last=True), fs_templates, pg)
    assert rec["success"] is False, rec["verification_output"]


def test_fs_templates_are_reproducible_and_seeded(tmp_path):
    for cat in templates.categories():
        a = templates.build(cat, tmp_path / "a", 0)
        b = templates.build(cat, tmp_path / "b", 0)
        c = templates.build(cat, tmp_path / "c", 1)

        def listing(root):
            return sorted((str(p.relative_to(root)), p.read_bytes() if p.is_file() else b"",
                           int(p.stat().st_mtime)) for p in root.rglob("*"))
        assert listing(a) == listing(b), cat
        assert listing(a) != listing(c), cat
