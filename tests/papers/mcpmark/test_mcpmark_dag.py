"""MCPMark's whole DAG at tiny scale and its outputs, the plans at every scale, a bad config,
edit plans (an edit reruns exactly the jobs that depend on it), and a run job that is stopped
mid-way and resumes after the last finished task."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from conftest import (
    REPO,
    copy_finished,
    copy_repo,
    edit,
    needs_programs,
    planned_jobs,
    snakemake,
)

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/mcpmark/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _plan(s):
    runs = sum(a.get("runs") or s["runs"] for a in s["agents"])
    dbs = len(s["databases"]) if s.get("suite", {}).get("source") == "official" else 1
    plan = {"mcpmark_db": dbs, "mcpmark_templates": 1, "mcpmark_fs_run": runs,
            "mcpmark_pg_run": runs, "mcpmark_check": 1, "mcpmark_report": 1, "paper_mcpmark": 1}
    if s.get("suite", {}).get("source") == "official":
        plan["mcpmark_suite"] = 1  # MCPMark's own task folders, fetched at the pinned commit
    return plan


def test_plans_cover_the_whole_dag_at_every_scale(fresh_repo):
    for scale in ("tiny", "small", "full"):
        assert planned_jobs(fresh_repo, "paper_mcpmark", scale=scale) == _plan(
            _settings(fresh_repo, scale))
    small, full = _settings(fresh_repo, "small"), _settings(fresh_repo, "full")
    assert small["runs"] == full["runs"] == 4  # MCPMark's k
    assert small["tasks"] == ["filesystem/*", "postgres/*"]
    assert [a["kind"] for a in small["agents"]] == ["null", "oracle", "local"]
    assert {"gpt-5-medium", "claude-sonnet-4"} <= {a["name"] for a in full["agents"]}
    assert full["limits"] == {"max_turns": 100, "tool_timeout": 60, "task_timeout": 3600}
    assert full["published"] == "github" and small["published"] == "constructed"
    # full runs the benchmark's own tasks and verifiers, which have no scripted oracle
    assert full["suite"]["source"] == "official" and len(full["suite"]["commit"]) == 40
    assert "oracle" not in [a["kind"] for a in full["agents"]]
    assert small.get("suite", {}).get("source", "ours") == "ours"


def test_a_wrong_agent_kind_is_rejected_before_any_job(tmp_path):
    root = copy_repo(tmp_path / "repo")
    cfg = root / "src/repro/papers/mcpmark/config.yaml"
    cfg.write_text(cfg.read_text().replace("{name: oracle, kind: oracle}",
                                           "{name: oracle, kind: wizard}", 1))
    proc = snakemake(root, "-n", "paper_mcpmark", check=False, papers="mcpmark")
    assert proc.returncode != 0 and "wizard" in proc.stderr


def test_an_unknown_task_is_rejected_before_any_job(tmp_path):
    root = copy_repo(tmp_path / "repo")
    cfg = root / "src/repro/papers/mcpmark/config.yaml"
    cfg.write_text(cfg.read_text().replace("postgres/chinook/update_employee_info",
                                           "postgres/chinook/no_such_task", 1))
    proc = snakemake(root, "-n", "paper_mcpmark", check=False, papers="mcpmark")
    assert proc.returncode != 0 and "no_such_task" in proc.stdout + proc.stderr


def test_tiny_dag_outputs(tiny_mcpmark):
    out = tiny_mcpmark / "results/tiny/mcpmark"
    main = pd.read_csv(out / "tables/main.csv", dtype=str, keep_default_na=False)
    ours = main[~main["agent"].str.startswith("paper")]
    assert set(ours["agent"]) == {"null", "oracle"}
    assert set(ours["scope"]) == {"filesystem", "postgres", "overall"}
    oracle = ours[ours["agent"] == "oracle"]
    assert (oracle["pass@1 % (mean ± sd over runs)"] == "100.00 ± 0.00").all()
    assert (ours[ours["agent"] == "null"]["pass^k %"] == "0.00").all()
    assert (ours[ours["agent"] == "null"]["avg turns"] == "1.00").all()
    assert (oracle["avg tool calls"].astype(float) > 0).all()
    paper = main[main["agent"] == "paper: gpt-5-medium"].set_index("scope")
    assert paper.loc["overall", "pass@1 % (mean ± sd over runs)"] == "52.56"  # labelled
    assert paper.loc["overall", "pass^k %"] == "33.86"
    run = json.loads((out / "runs/oracle/postgres/run1.json").read_text())
    assert run["servers"]["postgres-mcp"] == "0.3.0" and "PostgreSQL" in run["postgres"]
    (rec,) = run["records"]
    assert rec["success"] and rec["verification_output"].startswith("PASS")
    traj = json.loads((out / "runs/oracle/postgres/run1" / f"{rec['task']}.json").read_text())
    assert "execute_sql" in traj["tools"] and traj["messages"][2]["tool_calls"]
    claims = {c["id"]: c for c in load_claims(out / "claims.json")}
    assert claims["oracle_solves_every_task"]["verdict"] == "holds"
    assert claims["null_fails_every_task"]["verdict"] == "holds"
    assert claims["metric_code_reproduces_aggregation"]["verdict"] == "holds"
    assert claims["gpt5_pass1"]["verdict"] == "not testable at this scale"
    check = pd.read_csv(out / "tables/metric_check.csv")
    assert len(check) >= 20 and check["abs_diff"].max() < 1e-12
    assert (out / "figures/pass_rates.png").stat().st_size > 10_000


@pytest.mark.parametrize("path, rerun", [
    ("src/repro/papers/mcpmark/tasks/filesystem/file_property/size_classification/verify.py",
     ("mcpmark_fs_run",)),
    ("src/repro/papers/mcpmark/tasks/postgres/chinook/update_employee_info/oracle.py",
     ("mcpmark_pg_run",)),
    ("src/repro/papers/mcpmark/templates/file_property.py", ("mcpmark_templates",
                                                             "mcpmark_fs_run")),
    ("src/repro/papers/mcpmark/metrics.py", ("mcpmark_check",)),
    ("src/repro/papers/mcpmark/agent.py", ("mcpmark_fs_run", "mcpmark_pg_run")),
])
def test_an_edit_reruns_exactly_what_depends_on_it(tiny_mcpmark, tmp_path, path, rerun):
    root = copy_finished(tiny_mcpmark, tmp_path / "edit")
    edit(root / path)
    full = _plan(_settings(root))
    want = {k: full[k] for k in rerun} | {"mcpmark_report": 1, "paper_mcpmark": 1}
    assert planned_jobs(root, "paper_mcpmark") == want


@needs_programs("server-filesystem")
def test_a_stopped_run_resumes_after_its_last_finished_task(tmp_path):
    """SIGTERM once the first of four tasks is done: the job saves the finished tasks and exits
    143; the rerun does only the rest, and the records match an uninterrupted run's."""
    cfg = yaml.safe_load((REPO / "src/repro/papers/mcpmark/config.yaml").read_text())
    names = ["filesystem/file_property/size_classification",
             "filesystem/file_context/file_merging", "filesystem/file_context/uppercase",
             "filesystem/student_database/duplicate_name"]
    cfg["scales"]["tiny"]["tasks"] = names
    (tmp_path / "src/repro/papers/mcpmark").mkdir(parents=True, exist_ok=True)
    path = tmp_path / "src/repro/papers/mcpmark/config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "REPRO_STOP_GRACE_S": "60"}
    subprocess.run([sys.executable, "-m", "repro.papers.mcpmark.data", "templates",
                    "--config", str(path), "--scale", "tiny", "--out", str(tmp_path / "fs")],
                   env=env, check=True, capture_output=True)

    def cmd(out):
        return [sys.executable, "-m", "repro.papers.mcpmark.run", "--config", str(path),
                "--scale", "tiny", "--agent", "oracle", "--service", "filesystem", "--run", "1",
                "--templates", str(tmp_path / "fs"), "--out", str(out)]
    stopped = tmp_path / "a/run1.json"
    proc = subprocess.Popen(cmd(stopped), env=env, stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if ": pass," in line or ": fail," in line:
            proc.send_signal(signal.SIGTERM)
            break
    rest = proc.stderr.read()
    assert proc.wait(120) == 143, "".join(seen) + rest
    assert not stopped.exists()
    again = subprocess.run(cmd(stopped), env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    done_again = [x for x in again.stderr.splitlines() if ": pass," in x or ": fail," in x]
    assert 1 <= len(done_again) <= 3  # only what had not finished
    whole = tmp_path / "b/run1.json"
    subprocess.run(cmd(whole), env=env, check=True, capture_output=True)

    def outcome(p):
        return [(r["task"], r["success"], r["turns"], r["tool_calls"])
                for r in json.loads(p.read_text())["records"]]
    assert outcome(stopped) == outcome(whole) and len(outcome(whole)) == 4
    assert all(ok for _, ok, _, _ in outcome(whole))
