"""Transformers-as-students' training jobs resume after SIGTERM / SIGINT
(repro.core.checkpoint) and end with an uninterrupted run's bytes: a student of a teacher
setting and the image CNN's student (online GD steps, saved by wall time), and the image CNN
(its epochs). Each runs uninterrupted, then stopped mid-way and rerun (tests/test_resume.py's
helpers), on a tiny config long enough to stop.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
import yaml
from conftest import REPO, job_checkout
from test_resume import check_resumes, run

TIME_SAVES = {"REPRO_CHECKPOINT_MINUTES": "0.0005"}  # a state every 30 ms of wall time
JOB = ["--config", "src/repro/papers/tstudent/config.yaml", "--scale", "tiny"]


@pytest.fixture(scope="module")
def ts(tmp_path_factory) -> Path:
    """tstudent's tiny config with more steps and epochs, the digits images and their CNN."""
    d = tmp_path_factory.mktemp("tstudent")
    cfg = yaml.safe_load((REPO / "src/repro/papers/tstudent/config.yaml").read_text())
    tiny = cfg["scales"]["tiny"]
    tiny["iterations"] = 1500
    tiny["digits"]["cnn"]["epochs"] = 12
    tiny["digits"]["student"]["iterations"] = 1000
    # a checkout's layout: the fetch checks its files against the manifest beside the config
    job_checkout(d, "tstudent", cfg)
    run(["repro.papers.tstudent.digits", "--stage", "fetch", *JOB, "--mirror",
         str(d / "no-mirror"), "--out", "data/images.npz"], d)
    return d


def test_student_resumes_after_sigterm(ts):
    args = ["repro.papers.tstudent.train", *JOB, "--setting", "gcn_leaky", "--seed", "0"]
    step, total = check_resumes(args, ts, "a.json", "b.json", env=TIME_SAVES)
    assert total == 1500


def test_cnn_resumes_after_sigint(ts):
    args = ["repro.papers.tstudent.digits", "--stage", "cnn", *JOB, "--data", "data/images.npz"]
    step, total = check_resumes(args, ts, "cnn.json", "cnn_b.json", signal.SIGINT)
    assert total == 12


def test_image_student_resumes_after_sigterm(ts):
    if not (ts / "cnn.json").exists():
        run(["repro.papers.tstudent.digits", "--stage", "cnn", *JOB, "--data", "data/images.npz",
             "--out", "cnn.json"], ts)
    args = ["repro.papers.tstudent.digits", "--stage", "student", *JOB, "--data",
            "data/images.npz", "--cnn", "cnn.json", "--seed", "1"]
    step, total = check_resumes(args, ts, "d.json", "d_b.json", env=TIME_SAVES)
    assert total == 1000
