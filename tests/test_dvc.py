"""DVC end to end with real git and dvc: push, fresh clone, restore, plans, corruption, S3."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import _WARM, PAPERS, REPO, copy_finished, planned_jobs, snakemake

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "DVC_NO_ANALYTICS": "1"}
BIN = str(Path(sys.executable).parent)
# train.py serves the Countdown and (at tiny) the math experiments: its edit reruns both.
TRAIN_EDIT_RERUNS = {"rove_train", "rove_evaluate", "rove_math_train", "rove_math_evaluate",
                     "rove_report", "paper_rove"}
TABLES = ["tables/countdown.csv", "tables/toy.csv", "tables/theorem.csv", "claims.json"]


def run(cwd: Path, *cmd: str, check: bool = True, env: dict | None = None):
    full_env = {**os.environ, **GIT_ENV, "PATH": BIN + os.pathsep + os.environ["PATH"],
                **(env or {})}
    proc = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, env=full_env)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def repro(cwd: Path, *args: str, check: bool = True, env: dict | None = None):
    return run(cwd, sys.executable, "-m", "repro", *args, check=check, env=env)


def clone(src: Path, dest: Path) -> Path:
    run(src.parent, "git", "clone", "-q", str(src), str(dest))
    return dest


@pytest.fixture(scope="module")
def producer(tiny_rove, tmp_path_factory) -> tuple[Path, Path]:
    """A git repo whose tiny ROVER run was pushed to a local DVC remote, its dvc.lock (in its
    folder, beside its dvc.yaml) committed."""
    base = tmp_path_factory.mktemp("dvc")
    root = copy_finished(tiny_rove, base / "producer")
    remote = base / "remote"
    run(root, "git", "init", "-q")
    run(root, "dvc", "remote", "modify", "local", "url", str(remote))
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-qm", "code")
    out = repro(root, "push", "rove", "--scale", "tiny").stdout
    assert "pushed src/repro/papers/rove/dvc.yaml:rove_fetch_tiny" in out
    run(root, "git", "add", "src/repro/papers/rove/dvc.lock")
    run(root, "git", "commit", "-qm", "artifacts: rove tiny")
    return root, remote


def test_committed_dvc_yaml_is_what_the_workflow_generates():
    proc = repro(REPO, "dvc-yaml", "--check", check=False)
    assert proc.returncode == 0, proc.stderr


def test_each_paper_has_its_own_dvc_yaml_with_a_stage_per_phase_and_snakemake_targets():
    import yaml

    assert not (REPO / "dvc.yaml").exists()  # no shared file: each paper's is in its folder
    assert sorted(p.parent.name for p in (REPO / "src/repro/papers").glob("*/dvc.yaml")) == PAPERS
    stages = yaml.safe_load((REPO / "src/repro/papers/rove/dvc.yaml").read_text())["stages"]
    assert all(n.startswith("rove_") for n in stages)
    for scale in ("tiny", "small", "full"):
        for phase in ("fetch", "train", "evaluate", "report"):
            st = stages[f"rove_{phase}_{scale}"]
            assert st["cmd"].startswith("snakemake paper_rove") and st["wdir"] == "../../../.."
            assert f"scale={scale}" in st["cmd"]
            assert "src/repro/papers/rove/config.yaml" in st["deps"]
    assert "src/repro/papers/rove/train.py" in stages["rove_train_small"]["deps"]
    assert "src/repro/papers/rove/plots.py" in stages["rove_report_small"]["deps"]
    assert "src/repro/papers/rove/plots.py" not in stages["rove_train_small"]["deps"]


def test_restore_in_fresh_clone_plans_nothing_with_identical_tables(producer, tmp_path):
    root, _ = producer
    fresh = clone(root, tmp_path / "fresh")
    assert not (fresh / "results").exists()
    repro(fresh, "restore", "rove", "--scale", "tiny")
    assert planned_jobs(fresh, "paper_rove") == {}
    for t in TABLES:
        rel = f"results/tiny/rove/{t}"
        assert (fresh / rel).read_bytes() == (root / rel).read_bytes(), rel
    # the HTML report is made from the restored artifacts alone: nothing recomputed or touched
    before = {p: p.stat().st_mtime_ns for p in (fresh / "results").rglob("*") if p.is_file()}
    snakemake(fresh, "paper_rove", "--report", "report.html")
    html = (fresh / "report.html").read_text(errors="replace")
    assert "results/tiny/rove/figures/claims.png" in html and "the claims ledger" in html
    assert before == {p: p.stat().st_mtime_ns for p in (fresh / "results").rglob("*")
                      if p.is_file()}
    # a later code edit still reruns exactly what it should
    with open(fresh / "src/repro/papers/rove/train.py", "a") as f:
        f.write("# an edit\n")
    jobs = planned_jobs(fresh, "paper_rove")
    assert set(jobs) == TRAIN_EDIT_RERUNS


def test_restore_after_code_change_leaves_those_rules_to_snakemake(producer, tmp_path):
    root, _ = producer
    fresh = clone(root, tmp_path / "changed")
    with open(fresh / "src/repro/papers/rove/train.py", "a") as f:
        f.write("# changed before restore\n")
    proc = repro(fresh, "restore", "rove", "--scale", "tiny")
    assert "src/repro/papers/rove/train.py changed" in proc.stderr
    assert "rove_train" in proc.stderr
    jobs = planned_jobs(fresh, "paper_rove")
    assert set(jobs) == TRAIN_EDIT_RERUNS
    assert "rove_sft" not in jobs and "rove_toy" not in jobs


def corrupt_remote(producer, dest: Path) -> Path:
    """A copy of the producer's remote with one object's content damaged."""
    _, remote = producer
    shutil.copytree(remote, dest)
    victim = sorted(p for p in (dest / "files").rglob("*") if p.is_file()
                    and not p.name.endswith(".dir"))[0]
    victim.write_bytes(victim.read_bytes() + b"corrupted")
    return dest


def work_tree(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (None) of a work tree, outside .git and .dvc."""
    return {str(p.relative_to(root)): None if p.is_dir() else p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.relative_to(root).parts[0] not in (".git", ".dvc")}


def failed_restore(fresh: Path, remote: Path) -> None:
    """`restore` from a remote with a corrupt object: one clear error line, exit status 2."""
    run(fresh, "dvc", "remote", "modify", "--local", "local", "url", str(remote))
    proc = repro(fresh, "restore", "rove", "--scale", "tiny", check=False)
    assert proc.returncode == 2
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "corrupt" in errors[0] and "push again" in errors[0]


def test_corrupt_remote_object_fails_clearly_and_leaves_nothing(producer, tmp_path):
    """Not one file or directory more than the clone had: no empty results/ or data/ tree."""
    fresh = clone(producer[0], tmp_path / "corrupt")
    before = work_tree(fresh)
    failed_restore(fresh, corrupt_remote(producer, tmp_path / "bad_remote"))
    assert work_tree(fresh) == before
    assert not (fresh / "results").exists() and not (fresh / "data").exists()


def test_failed_restore_puts_back_what_was_there(producer, tmp_path):
    """A work tree that already holds some outputs (an earlier run's table, the data of the
    fetch stage): after a failed restore each is back byte for byte and nothing else was added,
    not even an empty directory."""
    root, _ = producer
    fresh = clone(root, tmp_path / "partial")
    table = "results/tiny/rove/tables/toy.csv"
    (fresh / table).parent.mkdir(parents=True)
    (fresh / table).write_text("an earlier run's table\n")
    shutil.copytree(root / "data", fresh / "data", copy_function=shutil.copy2)
    before = work_tree(fresh)
    failed_restore(fresh, corrupt_remote(producer, tmp_path / "bad_remote"))
    assert work_tree(fresh) == before


# Credentials come from the environment (or .dvc/config.local) and must stay there. The fake
# ones are drawn per run (written nowhere, this file included), in each key's usual shape.
SECRET_SHAPES = {"OPENAI_API_KEY": "sk-proj-{}", "AWS_ACCESS_KEY_ID": "AKIA{}",
                 "AWS_SECRET_ACCESS_KEY": "{}/fake+aws", "HF_TOKEN": "hf_{}",
                 "HUGGING_FACE_HUB_TOKEN": "hf_{}", "WANDB_API_KEY": "{}"}


def fake_secrets() -> dict[str, str]:
    import secrets

    return {k: shape.format(secrets.token_hex(16)) for k, shape in SECRET_SHAPES.items()}


def leaks(values: dict[str, str], *roots: Path) -> list[str]:
    """`file: VARIABLE` for each value found (byte for byte) in a file under the roots."""
    found = []
    for top in roots:
        for p in sorted(top.rglob("*")):
            if p.is_file() and not p.is_symlink():
                data = p.read_bytes()
                found += [f"{p}: {k}" for k, v in values.items() if v.encode() in data]
    return found


def test_secrets_in_the_environment_reach_no_log_result_or_artifact(producer, tmp_path,
                                                                     monkeypatch):
    """With fake API keys and cloud credentials in the environment, a paper's jobs rerun
    (ROVER's toy experiment and its report: their logs, benchmarks, results, claims with
    provenance) and a DVC push to a local remote leave no trace of them: not in logs/,
    results/, data/, .snakemake/ (metadata, Snakemake's log), the DVC cache and config, git, the
    remote, or the warm interpreters' server log."""
    root, _ = producer
    work = copy_finished(root, tmp_path / "work")
    remote = tmp_path / "remote"
    fake = fake_secrets()
    probe = tmp_path / "probe"  # the search finds a value where one is
    probe.mkdir()
    (probe / "x.log").write_text(f"token={fake['HF_TOKEN']}\n")
    assert leaks(fake, probe) == [f"{probe / 'x.log'}: HF_TOKEN"]
    for k, v in fake.items():
        monkeypatch.setenv(k, v)
    proc = snakemake(work, "paper_rove", "--cores", "2", "--forcerun", "rove_toy", papers="rove")
    log = proc.stdout + proc.stderr
    for rule in ("rove_toy", "rove_report"):  # the jobs ran, with the keys in their environment
        assert re.search(rf"Finished jobid: \d+ \(Rule: {rule}\)", log), log
    run(work, "dvc", "remote", "modify", "--local", "local", "url", str(remote))
    repro(work, "push", "rove", "--scale", "tiny")
    assert any(remote.rglob("*"))
    assert {"logs", "results", ".snakemake", ".dvc"} <= {p.name for p in work.iterdir()}
    assert any((work / ".dvc" / "cache").rglob("*")) and (work / ".dvc/config.local").exists()
    assert leaks(fake, work, remote, *([_WARM[1]] if _WARM else [])) == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_s3_remote_through_a_local_moto_server(producer, tmp_path):
    boto3 = pytest.importorskip("boto3")
    moto_server = pytest.importorskip("moto.server")
    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    creds = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
             "AWS_DEFAULT_REGION": "us-east-1"}
    endpoint = f"http://127.0.0.1:{port}"
    try:
        boto3.client("s3", endpoint_url=endpoint, **{
            "aws_access_key_id": "testing", "aws_secret_access_key": "testing",
            "region_name": "us-east-1"}).create_bucket(Bucket="artifacts")
        root, _ = producer
        prod = clone(root, tmp_path / "s3_producer")
        # the producer's work tree with its results, pushed to S3 this time
        shutil.copytree(root / "results", prod / "results", copy_function=shutil.copy2)
        shutil.copytree(root / "data", prod / "data", copy_function=shutil.copy2)
        for cmd in (["remote", "add", "s3", "s3://artifacts/papers-repro"],
                    ["remote", "modify", "s3", "endpointurl", endpoint]):
            run(prod, "dvc", *cmd)
        repro(prod, "push", "rove", "--scale", "tiny", "--remote", "s3", env=creds)
        objects = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing",
                               aws_secret_access_key="testing", region_name="us-east-1"
                               ).list_objects_v2(Bucket="artifacts")
        assert objects["KeyCount"] > 0
        run(prod, "git", "add", "-A")
        run(prod, "git", "commit", "-qm", "s3 remote")
        fresh = clone(prod, tmp_path / "s3_consumer")
        repro(fresh, "restore", "rove", "--scale", "tiny", "--remote", "s3", env=creds)
        assert planned_jobs(fresh, "paper_rove") == {}
        for t in TABLES:
            rel = f"results/tiny/rove/{t}"
            assert (fresh / rel).read_bytes() == (root / rel).read_bytes(), rel
    finally:
        server.stop()
