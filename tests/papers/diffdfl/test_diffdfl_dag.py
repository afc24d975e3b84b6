"""Diffusion-DFL's whole DAG at tiny scale and its outputs, the full-scale plan, bad config,
edit plans (an edit reruns exactly the jobs that depend on it), and a training job that
resumes after SIGTERM with an uninterrupted run's bytes."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import torch
import yaml
from conftest import REPO, copy_finished, copy_repo, edit, job_checkout, planned_jobs, snakemake
from test_resume import check_resumes, run

from repro.core.claims import load_claims

INIT = {"dfl_deterministic", "dfl_gaussian", "dfl_diffusion_rp", "dfl_diffusion_sf"}


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/diffdfl/config.yaml").read_text())

    return resolve_scale(raw, scale)


def _plan(s):
    n = len(s["seeds"]) * len(s["tasks"])
    return {"diffdfl_fetch": len(s["tasks"]), "diffdfl_train": n * len(s["methods"]),
            "diffdfl_evaluate": n, "diffdfl_memory": 1, "diffdfl_report": 1, "paper_diffdfl": 1}


def test_fresh_plan_covers_the_whole_diffdfl_dag(fresh_repo):
    assert planned_jobs(fresh_repo, "paper_diffdfl") == _plan(_settings(fresh_repo))
    full = _settings(fresh_repo, "full")
    assert planned_jobs(fresh_repo, "paper_diffdfl", scale="full") == _plan(full)
    # the paper's setting at full: official widths, 1000 DDIM steps, 10 runs, x in R^20
    assert full["models"]["diffusion"]["hidden"] == 1024
    assert full["models"]["diffusion"]["sample_steps"] == 1000
    assert len(full["seeds"]) == 10 and full["synthetic"]["x_dim"] == 20
    assert max(full["memory"]["sample_steps"]) == 1000


def test_a_wrong_method_is_rejected_before_any_job(tmp_path):
    root = copy_repo(tmp_path / "repo")
    cfg = root / "src/repro/papers/diffdfl/config.yaml"
    cfg.write_text(cfg.read_text().replace("methods: [two_stage_mlp,", "methods: [two_stage_lstm,",
                                           1))
    proc = snakemake(root, "-n", "paper_diffdfl", check=False)
    assert proc.returncode != 0
    assert "methods.0" in proc.stderr and "'two_stage_mlp'" in proc.stderr


def test_tiny_dag_outputs(tiny_diffdfl):
    out = tiny_diffdfl / "results/tiny/diffdfl"
    s = _settings(tiny_diffdfl)
    table = pd.read_csv(out / "tables/task_loss.csv")
    assert set(table["task"]) == set(s["tasks"])
    # every method on every task, the paper's number beside each diffusion-DFL row
    paper = dict(zip(zip(table["task"], table["method"], strict=True), table["paper task loss"],
                     strict=True))
    assert paper[("synthetic", "diffusion DFL, score function")] == 0.362
    assert paper[("power", "diffusion DFL, reparam.")] == 3.152
    assert (table["method"] == "Bayes-optimal decision, true law (reference)").sum() == 1
    ev = json.loads((out / "eval/power_seed0.json").read_text())
    assert set(ev["methods"]) == set(s["methods"])
    assert ev["oracle"]["task_loss"] <= min(v["task_loss"] for v in ev["methods"].values())
    for v in ev["methods"].values():
        assert v["regret"] == pytest.approx(v["task_loss"] - ev["oracle"]["task_loss"])
    mem = pd.read_csv(out / "tables/memory.csv")
    assert list(mem["diffusion steps"]) == s["memory"]["sample_steps"]
    rp = mem["reparam. autograd (MiB)"].to_numpy()
    assert (rp[1:] > rp[:-1]).all()  # backpropagation through more sampling steps keeps more
    # a DFL model starts from its two-stage model and keeps its best hold-out state
    meta = torch.load(out / "runs/power/dfl_diffusion_sf/seed0.pt", weights_only=False)["meta"]
    assert meta["init"].endswith("runs/power/two_stage_diffusion/seed0.pt")
    assert meta["hist"]["step"][0] == 0 and meta["best_step"] in meta["hist"]["step"]
    assert meta["best_hold"] == min(meta["hist"]["hold"])
    ids = {c["id"] for c in load_claims(out / "claims.json")}
    assert {"power_sf_beats_two_stage", "sf_memory_flat", "rp_memory_grows"} <= ids


def test_editing_the_solvers_reruns_training_evaluation_memory_and_report(tiny_diffdfl,
                                                                          tmp_path):
    root = copy_finished(tiny_diffdfl, tmp_path / "edit_problems")
    edit(root / "src/repro/papers/diffdfl/problems.py")
    plan = _plan(_settings(root))
    plan.pop("diffdfl_fetch")
    assert planned_jobs(root, "paper_diffdfl") == plan


def test_editing_the_report_reruns_only_the_report(tiny_diffdfl, tmp_path):
    root = copy_finished(tiny_diffdfl, tmp_path / "edit_report")
    edit(root / "src/repro/papers/diffdfl/report.py")
    assert planned_jobs(root, "paper_diffdfl") == {"diffdfl_report": 1, "paper_diffdfl": 1}


@pytest.fixture(scope="module")
def dd(tmp_path_factory):
    """diffdfl's tiny config with loops long enough to stop, its power data and a two-stage
    diffusion model to fine-tune."""
    d = tmp_path_factory.mktemp("diffdfl")
    cfg = yaml.safe_load((REPO / "src/repro/papers/diffdfl/config.yaml").read_text())
    cfg["scales"]["tiny"]["pretrain"]["steps"] = 400
    cfg["scales"]["tiny"]["dfl"].update(steps=60, eval_every=20)
    job = job_checkout(d, "diffdfl", cfg)
    run(["repro.papers.diffdfl.data", *job, "--task", "power", "--out", "power.npz"], d)
    run(["repro.papers.diffdfl.train", *job, "--task", "power", "--method",
         "two_stage_diffusion", "--seed", "0", "--data", "power.npz", "--out", "ts.pt"], d)
    return d, job


TIME_SAVES = {"REPRO_CHECKPOINT_MINUTES": "0.0005"}  # a state every 30 ms of wall time


def test_score_function_fine_tuning_resumes_after_sigterm(dd):
    d, job = dd
    args = ["repro.papers.diffdfl.train", *job, "--task", "power", "--method",
            "dfl_diffusion_sf", "--seed", "0", "--data", "power.npz", "--init", "ts.pt"]
    step, total = check_resumes(args, d, "a.pt", "b.pt", env=TIME_SAVES)
    assert total == 60


def test_two_stage_fit_resumes_after_sigterm(dd):
    d, job = dd
    args = ["repro.papers.diffdfl.train", *job, "--task", "power", "--method",
            "two_stage_gaussian", "--seed", "1", "--data", "power.npz"]
    step, total = check_resumes(args, d, "g_a.pt", "g_b.pt", env=TIME_SAVES)
    assert total == 400
