"""When Snakemake is told to stop, its running jobs stop too, within seconds.

Snakemake 9.27 runs each local job as `/bin/sh -c <command>` (its own process, in Snakemake's
process group) and on a stop signal sent to Snakemake alone does not signal them:

- SIGTERM (`kill <pid>`, a SLURM time limit, a batch system ending the job) is "graceful":
  Snakemake starts no new job but waits for the running ones to finish (hours, for a training
  job);
- SIGINT (`kill -INT <pid>`) raises KeyboardInterrupt, and Snakemake then waits for its job
  threads, i.e. again for the running jobs to finish. (Ctrl-C in a terminal is different: the
  terminal sends SIGINT to the whole foreground process group, jobs included.)

Measured with a 40 s job (tests/test_resume.py shows it on every run): after `kill -TERM` or
`kill -INT` to Snakemake, the job ran on for the remaining ~39 s and Snakemake waited for it.

`guard_signals()`, called from the Snakefile at parse time (workflow/rules/common.smk), makes
both signals stop the run: SIGTERM is sent to every process below the job shells Snakemake
started (the shells themselves are left to report their job's exit status), then Snakemake
cancels the run as on Ctrl-C (under the SLURM executor that cancels the submitted jobs with
`scancel`, which sends them SIGTERM in turn). The project's long jobs save their state on
SIGTERM and exit (repro.core.checkpoint), so a rerun resumes them. Jobs forked from a warm
interpreter (repro.core.warmstart) get the signal through the `python` shim Snakemake started,
which forwards it to the fork.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections import defaultdict

_MARK = "_repro_stop_guard"


def _children_map() -> dict[int, list[int]]:
    """parent pid -> child pids, for every process visible in /proc (or `ps` without one)."""
    kids: dict[int, list[int]] = defaultdict(list)
    try:
        entries = os.listdir("/proc")
    except OSError:
        entries = None
    if entries is not None:
        for name in entries:
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read().decode(errors="replace")
            except OSError:
                continue
            # pid (comm) state ppid ...: comm may hold spaces and parentheses
            fields = stat[stat.rfind(")") + 2:].split()
            if len(fields) > 1:
                kids[int(fields[1])].append(int(name))
        return kids
    out = subprocess.run(["ps", "-A", "-o", "pid=,ppid="], capture_output=True, text=True,
                         check=False).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
            kids[int(parts[1])].append(int(parts[0]))
    return kids


def _below(pid: int, kids: dict[int, list[int]]) -> list[int]:
    out, todo = [], list(kids.get(pid, []))
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def stop_jobs(sig: int = signal.SIGTERM, parent: int | None = None) -> list[int]:
    """Send `sig` to the jobs of the Snakemake process `parent` (default: this one): every
    process below each of its children (the job shells), or the child itself where it has
    none (a shell that exec'd its command). Returns the pids signalled."""
    parent = os.getpid() if parent is None else parent
    kids = _children_map()
    targets = []
    for child in kids.get(parent, []):
        below = _below(child, kids)
        targets.extend(below or [child])
    for pid in targets:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    return targets


def _stop_now(self, *args) -> None:
    """JobScheduler's SIGTERM handler: stop the running jobs, then cancel the run."""
    stop_jobs()
    raise KeyboardInterrupt


def guard_signals() -> None:
    """Make SIGTERM and SIGINT sent to this Snakemake process stop its running jobs (see the
    module docstring). Idempotent; a no-op outside the main thread."""
    from snakemake.scheduling import job_scheduler

    cls = job_scheduler.JobScheduler
    if getattr(cls, _MARK, False):
        return
    # Snakemake installs `self.exit_gracefully` as its SIGTERM handler when the scheduler starts
    # (after the Snakefile is read), so the method is what to replace.
    cls.exit_gracefully = _stop_now
    setattr(cls, _MARK, True)
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGINT)

    def on_sigint(signum, frame):
        stop_jobs()
        if callable(previous):
            previous(signum, frame)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
