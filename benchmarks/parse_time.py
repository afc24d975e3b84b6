"""How much our Snakefile adds to parsing and to a dry run, against a trivial Snakefile.

Target: at most 1.5x. Run: .venv/bin/python benchmarks/parse_time.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
TRIVIAL = (
    'rule all:\n    input: "a.txt"\n\n'
    'rule a:\n    output: "a.txt"\n    shell: "touch {output}"\n'
)


# parse only (every rule defined, no DAG), and a dry run of everything (parse + the DAG of
# every paper's jobs at the default scale)
RUNS = {"parse": ["--list-rules"], "dry run": ["-n", "all"]}


def time_dry_run(workdir: Path, args: list[str], repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds (user + sys of the child: robust on a shared machine)."""
    walls, cpus = [], []
    for _ in range(repeats):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([SNAKEMAKE, *args], cwd=workdir, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        Path(d, "Snakefile").write_text(TRIVIAL)
        trivial = {what: time_dry_run(Path(d), args, a.repeats) for what, args in RUNS.items()}
    for what, args in RUNS.items():
        ours = time_dry_run(REPO, args, a.repeats)
        ratio = ours[1] / trivial[what][1]
        print(f"snakemake {' '.join(args)} ({what}): ours {ours[0]:.2f}s wall / {ours[1]:.2f}s "
              f"CPU, trivial Snakefile {trivial[what][0]:.2f}s / {trivial[what][1]:.2f}s; CPU "
              f"ratio {ratio:.2f}x (target <= 1.5x) -> {'OK' if ratio <= 1.5 else 'TOO SLOW'}")


if __name__ == "__main__":
    main()
