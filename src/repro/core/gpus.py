"""Local GPU pool: Snakemake caps how many `gpu=1` jobs run at once (the `gpu` resource),
and this launcher gives each running job its own GPU through CUDA_VISIBLE_DEVICES.

    python -m repro.core.gpus --gpus 1 -- python -m repro.papers.rove.train ...

Slots are claimed with exclusive file locks (one lock file per device), held until the job
exits, so two concurrent jobs never share a device. Jobs asking for 0 GPUs, machines without
GPUs, and jobs under a scheduler that already set CUDA_VISIBLE_DEVICES (SLURM) run unchanged.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

LOCK_DIR = Path(".snakemake") / "gpu-locks"


def count_local_gpus() -> int:
    """REPRO_GPUS if set (tests use it to fake a device count), else what nvidia-smi lists."""
    if "REPRO_GPUS" in os.environ:
        return int(os.environ["REPRO_GPUS"])
    if shutil.which("nvidia-smi") is None:
        return 0
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))


def register_gpu_pool(workflow) -> int:
    """Called from the Snakefile: size the `gpu` resource to the local GPUs unless the user
    gave --resources gpu=N. Returns the pool size (0 on CPU-only machines: no cap needed).
    Under a cluster executor the scheduler owns the GPUs: the submitting host's count must
    not cap how many jobs are queued."""
    if getattr(workflow, "non_local_exec", False):
        return 0
    if "gpu" in workflow.global_resources:
        return int(workflow.global_resources["gpu"].value)
    n = count_local_gpus()
    if n > 0:
        workflow.register_resource("gpu", n)
    return n


def claim(n_wanted: int, n_total: int, lock_dir: Path = LOCK_DIR,
          poll_s: float = 0.5) -> tuple[list[int], list[int]]:
    """Lock `n_wanted` free devices of `n_total`; returns (device ids, open lock fds)."""
    if n_wanted > n_total:
        raise SystemExit(f"job wants {n_wanted} GPU(s) but this machine has {n_total}")
    lock_dir.mkdir(parents=True, exist_ok=True)
    while True:
        ids, fds = [], []
        for dev in range(n_total):
            fd = os.open(lock_dir / f"gpu{dev}.lock", os.O_CREAT | os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            ids.append(dev)
            fds.append(fd)
            if len(ids) == n_wanted:
                return ids, fds
        for fd in fds:  # not enough free right now: let go and wait
            os.close(fd)
        time.sleep(poll_s)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpus", type=int, default=0, help="devices this job needs")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- command to run")
    a = ap.parse_args(argv)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command given after --")
    n_total = count_local_gpus()
    scheduled = "SLURM_JOB_ID" in os.environ and "CUDA_VISIBLE_DEVICES" in os.environ
    if a.gpus > 0 and n_total > 0 and not scheduled:
        ids, fds = claim(a.gpus, n_total)
        for fd in fds:  # the command inherits the locks; they are released when it exits
            os.set_inheritable(fd, True)
        os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, ids))
        print(f"gpus: CUDA_VISIBLE_DEVICES={os.environ['CUDA_VISIBLE_DEVICES']}", file=sys.stderr)
    os.execvp(cmd[0], cmd)


if __name__ == "__main__":
    main()
