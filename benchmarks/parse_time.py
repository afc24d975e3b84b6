"""How much our Snakefile adds to a dry run: `snakemake -n all` here vs a trivial Snakefile.

Target: at most 1.5x. Run: .venv/bin/python benchmarks/parse_time.py [--repeats 5]
"""

from __future__ import annotations

import argparse
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


def time_dry_run(workdir: Path, args: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([SNAKEMAKE, "-n", *args], cwd=workdir, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        Path(d, "Snakefile").write_text(TRIVIAL)
        trivial = time_dry_run(Path(d), ["all"], a.repeats)
    ours = time_dry_run(REPO, ["all"], a.repeats)
    ratio = ours / trivial
    print(f"snakemake -n all: ours {ours:.2f}s, trivial Snakefile {trivial:.2f}s, "
          f"ratio {ratio:.2f}x (target <= 1.5x) -> {'OK' if ratio <= 1.5 else 'TOO SLOW'}")


if __name__ == "__main__":
    main()
