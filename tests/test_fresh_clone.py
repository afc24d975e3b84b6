"""A fresh clone needs nothing beside it: no data mirror is configured, the suite cannot read
the sibling `shared/` folder of our own machines (a guard refuses it in every process), no code
or config names it, and at `small` a machine without network gets, for each paper that
downloads, one line naming the file, its URL and where to put it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml
from conftest import REPO, SIBLING, job_checkout

from repro.core.fetch import offline_env
from repro.core.guard import ENV

CODE = ("src", "tests", "config", "workflow", "scripts", "benchmarks", ".ci", "Snakefile",
        "pyproject.toml", "environment.yml")


def test_no_data_mirror_is_configured_by_default():
    assert yaml.safe_load((REPO / "config/config.yaml").read_text())["data_mirror"] == ""


def test_no_code_or_config_names_the_sibling_folder():
    """What the guard cannot see (a C library opening a file, e.g. pyarrow's reader) cannot
    be pointed there either: no tracked code, config or script names the folder."""
    needle = "/".join(("shared", "data"))
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                            *CODE], cwd=REPO, capture_output=True, text=True, check=True
                           ).stdout.split("\0")
    bad = []
    for rel in filter(None, files):
        path = REPO / rel
        if "/results/" in rel or not path.is_file():
            continue  # published results record where an earlier run read its data
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        bad += [f"{rel}:{i}" for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert not bad, bad


def test_the_guard_refuses_reads_of_the_sibling_folder_in_every_process(tmp_path):
    assert os.environ[ENV] == str(SIBLING.resolve())  # set by conftest, inherited by jobs
    forbidden = tmp_path / "shared"
    (forbidden / "data").mkdir(parents=True)
    (forbidden / "data" / "f.csv").write_text("a\n")
    code = ("import repro, subprocess\n"
            "for f in (lambda: open(P + '/data/f.csv'), lambda: __import__('os').listdir(P),\n"
            "          lambda: subprocess.run(['cat', P + '/data/f.csv'])):\n"
            "    try:\n        f(); print('read')\n"
            "    except PermissionError as e:\n        print('refused', str(e).split(':')[0])\n")
    out = subprocess.run([sys.executable, "-c", f"P = {str(forbidden)!r}\n" + code],
                         env={**os.environ, ENV: str(forbidden)}, capture_output=True, text=True,
                         cwd=tmp_path, check=True).stdout.split("\n")
    assert out[:3] == [f"refused {ENV}"] * 3
    ok = subprocess.run([sys.executable, "-c", "import repro; print(open('x').read())"],
                        env={**os.environ, ENV: str(forbidden)}, capture_output=True, text=True,
                        cwd=tmp_path / "shared" / "..", input="", check=False)
    assert "PermissionError" not in ok.stderr  # elsewhere: FileNotFoundError, as usual


# The papers whose `small` scale downloads a public file: the fetch job (module and its own
# arguments), its output, the URL's host and repository, and the first file it asks for.
GITHUB = "https://raw.githubusercontent.com/"
OFFLINE = {
    "cotenc": (["repro.papers.cotenc.data"], "data.json", "yuxiaooye/ROVER/",
               "countdown/test.parquet"),
    "mlc": (["repro.papers.mlc.data"], "data.json", "DAMO-NLP-SG/multilingual-safety-for-LLMs/",
            "multijail/MultiJail.csv"),
    "diffdfl": (["repro.papers.diffdfl.data", "--task", "power"], "power.npz",
                "GT-KOALA/Diffusion_DFL/", "pjm/pjm_load_data_2008-11.txt"),
    "mcpmark": (["repro.papers.mcpmark.data", "db", "--name", "chinook"], "chinook.sql",
                "neondatabase-labs/postgres-sample-dbs/", "chinook/chinook.sql"),
}


@pytest.mark.parametrize("paper", sorted(OFFLINE))
def test_small_without_network_stops_with_one_line(paper, tmp_path):
    """The real fetch job at small, no network (downloads go to a closed loopback port) and no
    data mirror: it fails with one line, the file, its URL and `data_mirror`, and writes
    nothing."""
    (module, *args), out, repo, key = OFFLINE[paper]
    job = job_checkout(tmp_path, paper, scale="small")
    cmd = [sys.executable, "-m", module, *args, *job, "--mirror=", "--out", f"out/{out}"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=offline_env(), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    last = [ln for ln in proc.stderr.splitlines() if ln.strip()
            and not ln.startswith("job finished")][-1]
    assert last.startswith(f"{paper}: could not download data file {key} from {GITHUB}{repo}")
    assert last.endswith(f"put the file at <dir>/{key} and rerun with --config "
                         "data_mirror=<dir> (an optional offline copy of the data)")
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert all(".download" in p.parts for p in written), written  # at most a partial download
