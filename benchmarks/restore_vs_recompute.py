"""Rebuilding a paper's tables from restored DVC artifacts vs recomputing them.

Needs a finished run of the paper at the chosen scale in this checkout (e.g. `snakemake
paper_rove`). In a temporary directory it makes a producer repo holding those artifacts, pushes
them to a local DVC remote, clones a consumer, then times (a) `python -m repro restore` plus a
report-only rebuild and (b) recomputing the whole DAG (`--forceall`), and prints both and the
ratio. Run: .venv/bin/python benchmarks/restore_vs_recompute.py [--paper rove] [--scale small]
(`--recompute-seconds S` skips (b) and uses a time you measured).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "GIT_AUTHOR_NAME": "b",
       "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}


def sh(cwd: Path, *cmd: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=ENV, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paper", default="rove")
    ap.add_argument("--scale", default="small")
    ap.add_argument("--recompute-seconds", type=float, default=None)
    a = ap.parse_args()
    results = REPO / "results" / a.scale / a.paper
    if not (results / "claims.json").exists():
        sys.exit(f"no finished run in {results}: run `snakemake paper_{a.paper}` first")
    mirror = str((REPO.parent / "shared" / "data").resolve())
    cfg = ["--config", f"scale={a.scale}", f"data_mirror={mirror}"]
    with tempfile.TemporaryDirectory() as d:
        prod, cons, remote = Path(d, "producer"), Path(d, "consumer"), Path(d, "remote")
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.split("\0")
        for rel in filter(None, files):
            if (REPO / rel).exists() or (REPO / rel).is_symlink():
                (prod / rel).parent.mkdir(parents=True, exist_ok=True)
                if (REPO / rel).is_symlink():
                    os.symlink(os.readlink(REPO / rel), prod / rel)
                else:
                    shutil.copy2(REPO / rel, prod / rel)
        for sub in (f"results/{a.scale}/{a.paper}", f"data/{a.paper}/{a.scale}",
                    ".snakemake/metadata"):
            if (REPO / sub).exists():
                shutil.copytree(REPO / sub, prod / sub, symlinks=True)
        sh(prod, "git", "init", "-q")
        sh(prod, "dvc", "remote", "modify", "local", "url", str(remote))
        sh(prod, "git", "add", "-A")
        sh(prod, "git", "commit", "-qm", "code")
        sh(prod, sys.executable, "-m", "repro", "push", a.paper, "--scale", a.scale)
        sh(prod, "git", "add", "dvc.lock")
        sh(prod, "git", "commit", "-qm", "artifacts")
        sh(Path(d), "git", "clone", "-q", str(prod), str(cons))
        restore = sh(cons, sys.executable, "-m", "repro", "restore", a.paper, "--scale", a.scale)
        rebuild = sh(cons, str(BIN / "snakemake"), f"paper_{a.paper}", "--forcerun",
                     f"{a.paper}_report", *cfg)
        if a.recompute_seconds is None:
            recompute = sh(cons, str(BIN / "snakemake"), f"paper_{a.paper}", "--forceall", *cfg)
        else:
            recompute = a.recompute_seconds
    reuse = restore + rebuild
    print(f"{a.paper} ({a.scale}): restore {restore:.1f}s + rebuild tables {rebuild:.1f}s = "
          f"{reuse:.1f}s; recompute {recompute:.1f}s; recompute/restore = {recompute / reuse:.1f}x")


if __name__ == "__main__":
    main()
