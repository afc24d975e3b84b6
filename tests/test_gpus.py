"""Local GPU pool: at most N gpu jobs at once, each on its own device (faked device count)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from repro.core.gpus import claim, count_local_gpus

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
SRC = str(Path(__file__).resolve().parents[1] / "src")


def test_claims_hand_out_distinct_devices_and_free_them_on_close(tmp_path):
    held = [claim(1, 3, tmp_path) for _ in range(3)]
    assert sorted(ids[0] for ids, _ in held) == [0, 1, 2]
    freed_ids, freed_fds = held[1]
    for fd in freed_fds:
        os.close(fd)
    again, _ = claim(1, 3, tmp_path, poll_s=0.01)
    assert again == freed_ids


def test_fake_device_count_from_env(monkeypatch):
    monkeypatch.setenv("REPRO_GPUS", "3")
    assert count_local_gpus() == 3
    monkeypatch.setenv("REPRO_GPUS", "0")
    assert count_local_gpus() == 0


SNAKEFILE = r'''
import sys
sys.path.insert(0, SRC)
from repro.core.gpus import register_gpu_pool
register_gpu_pool(workflow)

rule all:
    input: expand("job{i}.txt", i=range(6))

rule gpu_job:
    output: "job{i}.txt"
    resources: gpu=1
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- sh -c "
        "'echo ${{CUDA_VISIBLE_DEVICES:-unset}} $(date +%s.%N) > {output}; sleep 1.5; "
        "date +%s.%N >> {output}'"
'''


def _run_pool(tmp_path: Path, n_gpus: int) -> list[tuple[str, float, float]]:
    (tmp_path / "Snakefile").write_text(f"SRC = {SRC!r}\n" + SNAKEFILE)
    env = {**os.environ, "REPRO_GPUS": str(n_gpus), "PYTHONPATH": SRC,
           "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    subprocess.run([SNAKEMAKE, "--cores", "6", "-q"], cwd=tmp_path, env=env, check=True,
                   capture_output=True)
    jobs = []
    for f in sorted(tmp_path.glob("job*.txt")):
        first, end = f.read_text().split("\n")[:2]
        dev, start = first.split()
        jobs.append((dev, float(start), float(end)))
    return jobs


def test_snakemake_runs_at_most_n_gpu_jobs_each_on_its_own_device(tmp_path):
    jobs = _run_pool(tmp_path, n_gpus=2)
    assert len(jobs) == 6
    assert {d for d, _, _ in jobs} <= {"0", "1"}
    for dev, s, _ in jobs:  # when a job starts: at most 2 running, none other on its device
        running = [d for d, s2, e2 in jobs if s2 <= s < e2]
        assert len(running) <= 2
        assert running.count(dev) == 1


def test_cpu_only_machine_runs_gpu_jobs_unchanged(tmp_path):
    jobs = _run_pool(tmp_path, n_gpus=0)
    assert [d for d, _, _ in jobs] == ["unset"] * 6
