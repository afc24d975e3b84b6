"""The exponential-wrapped mechanisms paper's long jobs resume after SIGTERM / SIGINT
(repro.core.checkpoint) and end with an uninterrupted run's bytes: a grid cell (its MCMC chunks
are the steps) and the real-data job (its classes, and within a class its chunks, a nested
block). Each runs uninterrupted, then stopped mid-way and rerun (tests/test_resume.py's helpers),
on a tiny config whose chains come in many small chunks.
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import pytest
import yaml
from conftest import REPO, job_checkout
from test_resume import resumed_at, run, run_stopped

from repro.core.checkpoint import resume_dir

JOB = ["--config", "src/repro/papers/hadamard_dp/config.yaml", "--scale", "tiny"]


@pytest.fixture(scope="module")
def hdp(tmp_path_factory) -> Path:
    """hadamard_dp's tiny config with chains in chunks of 2 (many steps to stop between), and
    the real-data descriptors (sklearn's digits: no download)."""
    d = tmp_path_factory.mktemp("hadamard_dp")
    cfg = yaml.safe_load((REPO / "src/repro/papers/hadamard_dp/config.yaml").read_text())
    tiny = cfg["scales"]["tiny"]
    tiny["synthetic"].update(reps=8)  # x 2 budgets: 16 chains, 8 chunks
    tiny["mcmc"] = {"n_steps": 1000, "chunk": 2}
    tiny["real"].update(classes=[0, 1, 2], reps=6)  # 3 classes of 6 chains, 3 chunks each
    # a checkout's layout: the fetch checks its files against the manifest beside the config
    job_checkout(d, "hadamard_dp", cfg)
    run(["repro.papers.hadamard_dp.data", *JOB, "--mirror", str(d / "no-mirror"),
         "--out", "data/descriptors.npz"], d)
    return d


def test_grid_cell_resumes_after_sigterm(hdp):
    args = ["repro.papers.hadamard_dp.experiment", *JOB, "--metric", "affine_invariant",
            "--m", "2"]
    run([*args, "--out", "cell_a.json"], hdp)
    run_stopped([*args, "--out", "cell_b.json"], hdp, Path("cell_b.json"))
    step, total = resumed_at(run([*args, "--out", "cell_b.json"], hdp))
    a, b = (json.loads((hdp / f).read_text()) for f in ("cell_a.json", "cell_b.json"))
    chains = 8 * sum(a["rl_proper"])  # 8 repetitions x the budgets where RL is proper
    assert 0 < step < total == chains // 2 and a["rl_proposals"] == chains * 1000
    for r in (a, b):  # seconds per release: measures of the machine
        assert all(t > 0 for ts in r.pop("timing_s").values() for t in ts)
    # the rest byte for byte (as written: sorted keys, NaN where RL is improper)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert not resume_dir(hdp / "cell_b.json").exists()


def test_realdata_resumes_after_sigint(hdp):
    """The stop lands in a class after the first: the rerun skips the finished classes and
    goes on within the class where it stopped (its own nested state, inside the job's)."""
    args = ["repro.papers.hadamard_dp.realdata", *JOB, "--data", "data/descriptors.npz"]
    run([*args, "--out", "real_a.json"], hdp)
    run_stopped([*args, "--out", "real_b.json"], hdp, Path("real_b.json"), signal.SIGINT)
    rerun = run([*args, "--out", "real_b.json"], hdp)
    step, total = resumed_at(rerun)
    assert 0 < step < total == 3
    inner = re.search(r"realdata class (\d): resuming at step (\d+) of (\d+)", rerun)
    if inner:  # stopped mid-class (not just after one): that class went on from its chunk
        assert inner.group(1) == str(step) and 0 < int(inner.group(2)) < int(inner.group(3))
    assert (hdp / "real_b.json").read_bytes() == (hdp / "real_a.json").read_bytes()
    assert not resume_dir(hdp / "real_b.json").exists()

