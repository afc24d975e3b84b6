"""The official-suite path (full scale): MCPMark's own task folders fetched from a tarball, its
filesystem zips unpacked with their files' modification times, a database run with no template
on the server starting empty (then filled by the task's prepare_environment.py), and the oracle
agent refused where tasks carry no scripted solution. All on constructed archives, offline."""

from __future__ import annotations

import io
import json
import os
import struct
import tarfile
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import REPO

from repro.papers.mcpmark import run as run_job
from repro.papers.mcpmark.data import fetch_suite, unzip, zip_mtime
from repro.papers.mcpmark.settings import load
from repro.papers.mcpmark.tasks import Task, discover

CONFIG = REPO / "src/repro/papers/mcpmark/config.yaml"
COMMIT = load(CONFIG, "full").suite.commit


def _ut(seconds: int) -> bytes:
    """An extended-timestamp extra field (0x5455) holding the modification time."""
    return struct.pack("<HHBi", 0x5455, 5, 1, seconds)


def test_unzip_keeps_the_archives_times_and_drops_macos_metadata(tmp_path):
    z = tmp_path / "cat.zip"
    with zipfile.ZipFile(z, "w") as zf:
        d = zipfile.ZipInfo("cat/", date_time=(2020, 1, 2, 3, 4, 6))
        d.extra = _ut(1_600_000_000)
        zf.writestr(d, b"")
        a = zipfile.ZipInfo("cat/a.txt", date_time=(2021, 5, 6, 7, 8, 10))
        a.extra = _ut(1_500_000_000)
        zf.writestr(a, b"alpha")
        b = zipfile.ZipInfo("cat/sub/b.txt", date_time=(2019, 3, 4, 5, 6, 8))  # DOS time only
        zf.writestr(b, b"beta")
        zf.writestr("__MACOSX/cat/._a.txt", b"resource fork")
    with zipfile.ZipFile(z) as zf:
        assert zip_mtime(zf.getinfo("cat/a.txt")) == 1_500_000_000
        assert zip_mtime(zf.getinfo("cat/sub/b.txt")) == time.mktime((2019, 3, 4, 5, 6, 8, 0, 0,
                                                                       -1))
    out = tmp_path / "out"
    assert unzip(z, out) == ["cat"]
    assert not (out / "__MACOSX").exists()
    assert (out / "cat/a.txt").read_text() == "alpha"
    assert os.stat(out / "cat/a.txt").st_mtime == 1_500_000_000
    assert os.stat(out / "cat/sub/b.txt").st_mtime == time.mktime((2019, 3, 4, 5, 6, 8, 0, 0, -1))
    # a folder's time is set after its children were written
    assert os.stat(out / "cat").st_mtime == 1_600_000_000


def _task_files(tf: tarfile.TarFile, prefix: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        data = text.encode()
        info = tarfile.TarInfo(f"{prefix}/{name}")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))


def _suite_tarball(path: Path, services: list[str]) -> Path:
    top = f"mcpmark-{COMMIT}"
    with tarfile.open(path, "w:gz") as tf:
        _task_files(tf, top, {"README.md": "not a task"})
        for service in services:
            for cat, name in (("cat_a", "one"), ("cat_a", "two"), ("cat_b", "three")):
                _task_files(tf, f"{top}/tasks/{service}/{cat}/{name}", {
                    "description.md": f"do {name}",
                    "verify.py": "import sys; sys.exit(1)",
                    "meta.json": json.dumps({"task_id": name, "category_id": cat,
                                             "service": service})})
        _task_files(tf, f"{top}/src", {"agent.py": "# not copied"})
    return path


def test_the_suite_is_fetched_into_our_task_layout(tmp_path):
    url = _suite_tarball(tmp_path / "suite.tar.gz", ["filesystem", "postgres"]).as_uri()
    suite = replace(load(CONFIG, "full").suite, url=url)
    out = tmp_path / "suite"
    counts = fetch_suite(suite, ["filesystem", "postgres"], out, CONFIG)
    assert counts == {"filesystem": 3, "postgres": 3}
    info = json.loads((out / "suite.json").read_text())
    assert info["commit"] == COMMIT and info["tarball"]["url"] == url
    assert info["tarball"]["size"] == (tmp_path / "suite.tar.gz").stat().st_size
    assert not (out / "src").exists() and not (out / "README.md").exists()
    tasks = discover(["filesystem", "postgres"], out / "tasks")
    assert [t.id for t in tasks if t.service == "postgres"] == ["cat_a__one", "cat_a__two",
                                                               "cat_b__three"]
    assert {t.template_db for t in tasks if t.service == "postgres"} == {"cat_a", "cat_b"}


def test_a_suite_without_the_service_is_an_error_and_leaves_nothing(tmp_path):
    url = _suite_tarball(tmp_path / "suite.tar.gz", ["filesystem"]).as_uri()
    suite = replace(load(CONFIG, "full").suite, url=url)
    with pytest.raises(SystemExit, match="no tasks/postgres/"):
        fetch_suite(suite, ["filesystem", "postgres"], tmp_path / "suite", CONFIG)
    assert not (tmp_path / "suite").exists()


def _official_task(root: Path, category: str, name: str, meta_extra: dict) -> Task:
    """A task in MCPMark's shape with no template database: prepare_environment.py creates its
    one table; the verifier passes only if that table is the database's only one."""
    d = root / "postgres" / category / name
    d.mkdir(parents=True)
    (d / "description.md").write_text("Look at the database.")
    (d / "meta.json").write_text(json.dumps({"task_id": name, "category_id": category,
                                             **meta_extra}))
    connect = ("import os, psycopg\n"
               "c = psycopg.connect(host=os.environ['POSTGRES_HOST'], "
               "port=os.environ['POSTGRES_PORT'], user=os.environ['POSTGRES_USERNAME'], "
               "password=os.environ['POSTGRES_PASSWORD'], dbname=os.environ['POSTGRES_DATABASE'],"
               " autocommit=True)\n")
    (d / "prepare_environment.py").write_text(
        connect + "c.execute('CREATE TABLE audit_log (id int)')\n")
    (d / "verify.py").write_text(
        connect + "import sys\n"
        "names = [r[0] for r in c.execute(\"SELECT tablename FROM pg_tables WHERE schemaname "
        "NOT IN ('pg_catalog', 'information_schema')\")]\n"
        "print(names, repr(os.environ['MCPMARK_TEMPLATE_DATABASE']))\n"
        "sys.exit(0 if names == ['audit_log'] and not os.environ['MCPMARK_TEMPLATE_DATABASE'] "
        "else 1)\n")
    return next(t for t in discover(["postgres"], root) if t.name == name)


def test_a_task_without_a_template_on_the_server_starts_from_an_empty_database(tmp_path):
    from test_mcpmark_tasks import MISSING

    if MISSING["postgres"]:
        pytest.skip(MISSING["postgres"])
    from repro.core.fetch import excerpt
    from repro.papers.mcpmark.agent import Limits, NullPolicy
    from repro.papers.mcpmark.harness import run_task
    from repro.papers.mcpmark.postgres import cluster

    root = tmp_path / "tasks"
    security = _official_task(root, "security", "audit", {})  # no database named security
    chinook_null = _official_task(root, "chinook", "blank", {"template_db": None})
    assert security.template_db == "security" and chinook_null.template_db is None
    with cluster({"chinook": excerpt("mcpmark", "chinook/chinook.sql")}) as pg:
        assert pg.templates == {"chinook"}
        for task in (security, chinook_null):
            rec, _ = run_task(task, lambda t, s: NullPolicy(), Limits(max_turns=3), pg=pg)
            assert rec["success"], rec["verification_output"]


def test_the_oracle_is_refused_on_tasks_without_a_scripted_solution(tmp_path):
    cfg = load(CONFIG, "tiny")
    for task in cfg.tasks:  # the tiny config's tasks, as folders without oracle.py
        d = tmp_path / "tasks" / task
        d.mkdir(parents=True)
        for name in ("description.md", "verify.py"):
            (d / name).write_text("")
    with pytest.raises(SystemExit, match="oracle.py"):
        run_job.main(["--config", str(CONFIG), "--scale", "tiny", "--agent", "oracle",
                      "--service", "postgres", "--run", "1", "--tasks", str(tmp_path / "tasks"),
                      "--out", str(tmp_path / "run1.json")])
    assert not (tmp_path / "run1.json").exists()
