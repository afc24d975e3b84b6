"""Warm interpreters for jobs: most of a tiny job's time is importing torch, transformers,
scipy and matplotlib (7-9 CPU-s against well under a second of work), so a long series of
short jobs (the test suite, a tiny run) can start each one as a fork of a process that has
already imported them.

    python -m repro.core.warmstart serve --socket DIR/sock   # preload, then serve forks
    REPRO_WARMSTART=DIR/sock snakemake paper_rove ...         # jobs start from the server

With REPRO_WARMSTART set, the Snakefile puts `DIR/bin` first on the jobs' PATH, where the server
wrote a `python` that hands `python -m repro.<module> ...` to the server: the fork takes the
job's stdin/stdout/stderr, working directory, environment, sys.path (as a fresh
`python -m` would build it: the working directory, PYTHONPATH, the interpreter's own paths)
and arguments, runs the module as __main__ and reports its exit status; signals sent to the
job (Snakemake cancelling it) reach the fork, and a fork whose caller is gone stops.
Everything else, and any job when the server is not there, is not ready, or runs under another
PYTHONHASHSEED, runs in the real interpreter, exactly as without it. Only libraries are
preloaded, never the project's code, so edits to `src/` take effect as usual. Opt-in; the
tests use it (tests/conftest.py).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import signal
import socket
import struct
import sys
import threading
import traceback
from pathlib import Path

from repro.core.warmstart_client import recv_exact

ENV = "REPRO_WARMSTART"
# imported once by the server; a job imports its own modules (and anything else) as usual
PRELOAD = ("numpy", "scipy.stats", "pandas", "matplotlib.pyplot", "yaml", "jsonschema",
           "torch", "transformers", "transformers.models.llama.modeling_llama",
           "sklearn", "pyriemann", "gymnasium")

SHIM_HEAD = "#!{python} -SE\n# written by repro.core.warmstart (from warmstart_client.py)\n"
SHIM_CALL = "\nmain({python!r}, {sock!r}, {hashseed!r})\n"


def shim_path(sock: str | Path) -> Path:
    """The server's `python` (its directory goes first on the jobs' PATH); it exists only
    while the server accepts jobs."""
    return Path(sock).parent / "bin" / "python"


# ----------------------------------------------------------------------------- the server
def _preload(modules: tuple[str, ...]) -> list[str]:
    import importlib

    os.environ.setdefault("MPLBACKEND", "Agg")
    missing = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    data = recv_exact(conn, n)
    if data is None:
        raise ConnectionError("caller went away")
    return data


def _exec_as_child(file: str, args: list[str], env: dict | None = None) -> None:
    """os.exec* in a fork: the caller waits for this process's status on the socket, which an
    exec would close; so run the program as a child, forward signals, exit with its status."""
    import subprocess

    proc = subprocess.Popen([file, *list(args)[1:]], env=env)

    def forward(sig: int, _frame: object) -> None:
        proc.send_signal(sig)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    code = proc.wait()
    raise SystemExit(code if code >= 0 else 128 - code)


def _run_job(conn: socket.socket, base_path: list[str]) -> int:
    """In the fork: become the caller's `python -m <module> ...` and run it."""
    _, fds, _, _ = socket.recv_fds(conn, 1, 3)
    (size,) = struct.unpack("!I", _recv_exact(conn, 4))
    req = json.loads(_recv_exact(conn, size))
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    extra = [p for p in req["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [os.getcwd(), *extra, *base_path]
    for name in [m for m in sys.modules if m == "repro" or m.startswith("repro.")]:
        del sys.modules[name]  # the server's own package: the job imports the job's tree
    import importlib

    importlib.invalidate_caches()
    conn.sendall(struct.pack("!q", os.getpid()))

    def caller_gone() -> None:  # the caller was killed: stop the job as well
        try:
            conn.recv(1)
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=caller_gone, daemon=True).start()
    os.execv = os.execvp = lambda f, a: _exec_as_child(f, a)  # type: ignore[assignment]
    os.execve = os.execvpe = lambda f, a, e: _exec_as_child(f, a, e)  # type: ignore[assignment]
    import runpy

    module, *args = req["argv"]
    sys.argv = [module, *args]
    code = 0
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, int | None):
            print(e.code, file=sys.stderr)
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # noqa: BLE001 - as the interpreter would: traceback, status 1
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    try:
        conn.sendall(struct.pack("!i", code))
    except OSError:
        pass
    return code


def serve(sock: Path, preload: tuple[str, ...] = PRELOAD) -> None:
    """Preload, write the `python` shim, then fork a job per connection until terminated."""
    missing = _preload(preload)
    base_path = [p for p in sys.path[1:] if p not in
                 os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    sock.parent.mkdir(parents=True, exist_ok=True)
    if sock.exists():
        sock.unlink()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(sock))
    server.listen(64)
    # the shim last: once it exists (what the Snakefile and the tests look for), jobs are served
    shim = shim_path(sock)
    shim.parent.mkdir(exist_ok=True)
    client = Path(__file__).with_name("warmstart_client.py").read_text()
    shim.write_text(SHIM_HEAD.format(python=sys.executable) + client + SHIM_CALL.format(
        python=sys.executable, sock=str(sock), hashseed=os.environ.get("PYTHONHASHSEED")))
    shim.chmod(0o755)

    def reap(*_: object) -> None:
        while True:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return

    def stop(*_: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGCHLD, reap)
    signal.signal(signal.SIGTERM, stop)
    print(f"warmstart: serving {sock} (python {sys.executable}; not preloaded: "
          f"{', '.join(missing) or 'none'})", file=sys.stderr, flush=True)
    try:
        while True:
            try:
                conn, _ = server.accept()
            except InterruptedError:
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # the job
                server.close()
                for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT):
                    signal.signal(sig, signal.SIG_DFL)
                try:
                    code = _run_job(conn, base_path)
                except BaseException:  # noqa: BLE001 - never return into the server's loop
                    traceback.print_exc()
                    code = 1
                os._exit(code)
            conn.close()
    finally:
        server.close()
        sock.unlink(missing_ok=True)
        shim.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m repro.core.warmstart",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="preload the libraries and serve forks on a socket")
    s.add_argument("--socket", required=True, type=Path)
    s.add_argument("--preload", default=",".join(PRELOAD),
                   help="comma-separated modules to import before serving (default: %(default)s)")
    a = ap.parse_args(argv)
    serve(a.socket.resolve(), tuple(filter(None, a.preload.split(","))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
