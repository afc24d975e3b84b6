"""Job logs: progress as one line with rate and ETA every few seconds (not a redrawn bar), and
the last line of every job's log, its wall time and peak memory, also when the job fails."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from conftest import REPO

LOOP = """
import time
from repro.core.progress import progress
for i in progress(range(12), desc="steps", total=12):
    time.sleep(0.05)
"""


def _run(args, tmp_path, **env):
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def test_progress_in_a_log_file_is_whole_lines_with_rate_and_eta(tmp_path):
    proc = _run(["-c", LOOP], tmp_path, REPRO_PROGRESS_EVERY="0.1")
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr
    lines = proc.stderr.splitlines()
    pat = re.compile(r"steps: (\d+)/12 \(\d+%\), [\d.?]+it/s, elapsed \d\d:\d\d, ETA [\d:?]+")
    done = [int(m.group(1)) for m in map(pat.fullmatch, lines) if m]
    assert len(done) == len(lines) >= 3, lines  # several updates, nothing else
    assert done == sorted(done) and done[-1] == 12 and done.count(12) <= 2  # close redraws
    assert not proc.stdout
    # not a job (python -c): no footer
    assert not any(line.startswith("job finished") for line in lines)


def _claims(tmp_path):
    p = tmp_path / "claims.json"
    p.write_text(json.dumps({"paper": "x", "scale": "tiny", "claims": [], "provenance": {}}))
    return p


def test_a_job_log_ends_with_wall_time_and_peak_memory(tmp_path):
    out = tmp_path / "summary.md"
    ok = _run(["-m", "repro.core.summary", "--scale", "tiny", "--papers", "x", "--claims",
               str(_claims(tmp_path)), "--out", str(out)], tmp_path)
    assert ok.returncode == 0, ok.stderr and out.exists()
    last = ok.stderr.strip().splitlines()[-1]
    m = re.fullmatch(r"job finished: wall time (\d+\.\d) s, peak memory (\d+) MB.*", last)
    assert m, last
    assert 0 < float(m.group(1)) < 120 and 10 < int(m.group(2)) < 4000
    bad = _run(["-m", "repro.core.summary", "--scale", "tiny", "--papers", "x", "--claims",
                str(tmp_path / "missing.json"), "--out", str(out)], tmp_path)
    assert bad.returncode != 0
    tail = bad.stderr.strip().splitlines()
    assert "FileNotFoundError" in bad.stderr and tail[-1].startswith("job finished (failed):")
