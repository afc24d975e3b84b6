"""Warm interpreters (repro.core.warmstart): a job forked from the server behaves as the same
`python -m` in a fresh interpreter (arguments, working directory, environment, sys.path,
stdin/stdout/stderr, exit status, tracebacks, exec, signals), and anything it cannot serve runs
in the real interpreter."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from repro.core.warmstart import shim_path

PROBE = '''
import json, os, sys, time
what = sys.argv[1]
if what == "report":
    print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "path0": sys.path[:2],
                      "x": os.environ.get("PROBE_X"), "stdin": sys.stdin.read(),
                      "name": __name__, "torch": "torch" in sys.modules,
                      "ppid": os.getppid()}))
    print("to stderr", file=sys.stderr)
    sys.exit(int(sys.argv[2]))
if what == "raise":
    raise ValueError("probe failed")
if what == "exec":
    os.execvp("sh", ["sh", "-c", "echo from-exec; exit 7"])
if what == "sleep":
    open(sys.argv[2] + ".tmp", "w").write(str(os.getpid()))
    os.replace(sys.argv[2] + ".tmp", sys.argv[2])  # whole, or not there yet
    time.sleep(60)
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server preloading json only (the suite's own server preloads torch & co.), and a
    source tree with a module repro/probe.py that only exists there."""
    base = tmp_path_factory.mktemp("warm")
    src = base / "src" / "repro"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "probe.py").write_text(PROBE)
    sock = base / "s" / "sock"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("REPRO_WARMSTART", None)
    proc = subprocess.Popen([sys.executable, "-m", "repro.core.warmstart", "serve", "--socket",
                             str(sock), "--preload", "json"], env=env)
    shim = shim_path(sock)
    deadline = time.monotonic() + 60
    while not (shim.exists() and sock.exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert shim.exists(), "the server did not start"
    yield shim, sock, base, proc.pid
    proc.terminate()
    proc.wait(timeout=20)
    assert not shim.exists() and not sock.exists()  # it cleans up after itself


def _run(python, base, sock, *args, stdin="", warm=True, **kw):
    env = {**os.environ, "PYTHONHASHSEED": "0", "PROBE_X": "42",
           "PYTHONPATH": str(base / "src")}
    env.pop("REPRO_WARMSTART", None)
    if warm:
        env["REPRO_WARMSTART"] = str(sock)
    return subprocess.run([str(python), "-m", "repro.probe", *args], cwd=base, env=env,
                          input=stdin, capture_output=True, text=True, timeout=60, **kw)


def test_a_forked_job_behaves_as_a_fresh_interpreter(server):
    shim, sock, base, server_pid = server
    warm = _run(shim, base, sock, "report", "3", stdin="some input")
    cold = _run(sys.executable, base, sock, "report", "3", stdin="some input", warm=False)
    assert warm.returncode == cold.returncode == 3
    w, c = json.loads(warm.stdout), json.loads(cold.stdout)
    assert w.pop("ppid") == server_pid and c.pop("ppid") == os.getpid()  # forked vs started
    # the module exists only in this tree: the fork imported it fresh, as python would
    assert w == c == {
        "argv": ["report", "3"], "cwd": str(base), "path0": [str(base), str(base / "src")],
        "x": "42", "stdin": "some input", "name": "__main__", "torch": False}
    assert warm.stderr == cold.stderr == "to stderr\n"


def test_cancelling_the_caller_stops_the_job(server, tmp_path):
    shim, sock, base, _ = server
    proc = subprocess.Popen([str(shim), "-m", "repro.probe", "sleep", str(tmp_path / "pid")],
                            cwd=base, env={**os.environ, "PYTHONHASHSEED": "0",
                                           "PYTHONPATH": str(base / "src"),
                                           "REPRO_WARMSTART": str(sock)})
    deadline = time.monotonic() + 30
    while not (tmp_path / "pid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    job = int((tmp_path / "pid").read_text())
    assert job != proc.pid  # a fork of the server, not the caller
    proc.send_signal(signal.SIGTERM)  # as Snakemake cancels a job
    assert proc.wait(timeout=20) != 0
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and os.path.exists(f"/proc/{job}"):
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{job}"), "the job outlived its cancelled caller"


def test_tracebacks_and_exec_give_the_statuses_python_would(server):
    shim, sock, base, _ = server
    failed = _run(shim, base, sock, "raise")
    assert failed.returncode == 1
    assert "ValueError: probe failed" in failed.stderr and "Traceback" in failed.stderr
    execd = _run(shim, base, sock, "exec")
    assert (execd.returncode, execd.stdout) == (7, "from-exec\n")


def test_what_it_cannot_serve_runs_in_the_real_interpreter(server):
    shim, sock, base, _ = server
    env = {**os.environ, "REPRO_WARMSTART": str(sock), "PYTHONHASHSEED": "0"}
    c = subprocess.run([str(shim), "-c", "import os; print(os.getppid())"], env=env,
                       capture_output=True, text=True, check=True)
    assert int(c.stdout) == os.getpid()  # not `-m repro.*`: the real interpreter, exec'd
    # another hash seed, another server's socket (or none), or no server: real interpreter
    for extra in ({"PYTHONHASHSEED": "1"}, {"REPRO_WARMSTART": str(Path(sock).with_name("x"))},
                  {"REPRO_WARMSTART": ""}):
        env = {**os.environ, "PYTHONHASHSEED": "0", "REPRO_WARMSTART": str(sock),
               "PYTHONPATH": str(base / "src"), **extra}
        r = subprocess.run([str(shim), "-m", "repro.probe", "report", "0"], cwd=base, env=env,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and json.loads(r.stdout)["ppid"] == os.getpid(), extra
