"""STOD's whole DAG at tiny scale and its outputs, the full-scale plan, a bad config, edit plans
(an edit reruns exactly the jobs that depend on it), and training (standard and adversarial)
that resumes after SIGTERM with an uninterrupted run's bytes."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import torch
import yaml
from conftest import REPO, copy_finished, copy_repo, edit, job_checkout, planned_jobs, snakemake
from test_resume import check_resumes, run

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/stod/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _plan(s):
    n = len(s["seeds"]) * len(s["datasets"]) * len(s["methods"])
    return {"stod_fetch": len(s["datasets"]), "stod_train": n, "stod_evaluate": n,
            "stod_report": 1, "paper_stod": 1}


def test_fresh_plan_covers_the_whole_stod_dag(fresh_repo):
    assert planned_jobs(fresh_repo, "paper_stod") == _plan(_settings(fresh_repo))
    assert planned_jobs(fresh_repo, "paper_stod", scale="small") == _plan(
        _settings(fresh_repo, "small"))
    full = _settings(fresh_repo, "full")
    assert planned_jobs(fresh_repo, "paper_stod", scale="full") == _plan(full)
    # the paper's setting: CIFAR-10/100, VGG-11, T = 4, 8/255, adversarial training
    assert full["datasets"] == ["cifar10", "cifar100"] and full["snn"]["T"] == 4
    assert full["arch"]["cifar10"]["channels"].count("M") == 5
    assert full["train"]["adv"]["attack"] == "fgsm"


def test_a_wrong_method_is_rejected_before_any_job(tmp_path):
    root = copy_repo(tmp_path / "repo")
    cfg = root / "src/repro/papers/stod/config.yaml"
    cfg.write_text(cfg.read_text().replace("methods: [direct,", "methods: [latency,", 1))
    proc = snakemake(root, "-n", "paper_stod", check=False)
    assert proc.returncode != 0
    assert "methods.0" in proc.stderr and "'direct'" in proc.stderr


def test_tiny_dag_outputs(tiny_stod):
    out = tiny_stod / "results/tiny/stod"
    s = _settings(tiny_stod)
    table = pd.read_csv(out / "tables/robustness.csv")
    assert len(table) == len(s["datasets"]) * len(s["methods"])
    stod = table[table["encoding"].str.startswith("STOD")].iloc[0]
    assert stod["paper FGSM % (CIFAR-10, 8/255)"] == 55.8  # the paper's, labelled as such
    ev = json.loads((out / "eval/digits/stod/seed0.json").read_text())
    assert {(a["attack"], a["eps"]) for a in ev["attacks"]} == {
        (k, e) for k in ("fgsm", "pgd") for e in s["attack"]["digits"]["eps"]}
    assert list(ev["gtc"])[0] == "1 input" and ev["test_images"] == s["data"]["test_max"]
    for g in ev["gtc"].values():
        assert len(g["matrix"]) == s["snn"]["T"] and len(g["per_step"]) == s["snn"]["T"]
    meta = torch.load(out / "runs/digits/stod/seed0.pt", weights_only=False)["meta"]
    assert len(meta["curve"]) == s["train"]["epochs"]
    assert meta["curve"][-1]["temporal_overlap"] is not None
    layers = pd.read_csv(out / "tables/gtc_layers.csv")
    assert set(layers["encoding"]) == set(s["methods"])
    ids = {c["id"] for c in load_claims(out / "claims.json")}
    assert {"digits_stod_lowers_gtc", "mnist5k_stod_pgd_above_direct"} <= ids


def test_editing_the_gtc_code_reruns_only_evaluation_and_report(tiny_stod, tmp_path):
    root = copy_finished(tiny_stod, tmp_path / "edit_gtc")
    edit(root / "src/repro/papers/stod/gtc.py")
    plan = _plan(_settings(root))
    plan.pop("stod_fetch")
    plan.pop("stod_train")
    assert planned_jobs(root, "paper_stod") == plan


def test_editing_the_model_reruns_training_evaluation_and_report(tiny_stod, tmp_path):
    root = copy_finished(tiny_stod, tmp_path / "edit_model")
    edit(root / "src/repro/papers/stod/model.py")
    plan = _plan(_settings(root))
    plan.pop("stod_fetch")
    assert planned_jobs(root, "paper_stod") == plan


def test_editing_the_report_reruns_only_the_report(tiny_stod, tmp_path):
    root = copy_finished(tiny_stod, tmp_path / "edit_report")
    edit(root / "src/repro/papers/stod/report.py")
    assert planned_jobs(root, "paper_stod") == {"stod_report": 1, "paper_stod": 1}


@pytest.fixture(scope="module")
def sd(tmp_path_factory):
    """stod's tiny config with a training loop long enough to stop, and the digits data."""
    d = tmp_path_factory.mktemp("stod")
    cfg = yaml.safe_load((REPO / "src/repro/papers/stod/config.yaml").read_text())
    cfg["scales"]["tiny"]["train"] = {"epochs": 3, "batch": 8}
    job = job_checkout(d, "stod", cfg)
    run(["repro.papers.stod.data", *job, "--dataset", "digits", "--out", "digits.npz",
         "--source", "digits.json"], d)
    return d, job


TIME_SAVES = {"REPRO_CHECKPOINT_MINUTES": "0.0005"}  # a state every 30 ms of wall time


def test_stod_training_resumes_after_sigterm(sd):
    d, job = sd
    args = ["repro.papers.stod.train", *job, "--dataset", "digits", "--method", "stod",
            "--seed", "0", "--data", "digits.npz"]
    step, total = check_resumes(args, d, "a.pt", "b.pt", env=TIME_SAVES)
    assert total == 3 * 25  # 200 training images in batches of 8, 3 epochs


def test_adversarial_rate_training_resumes_after_sigterm(sd):
    """Rate encoding's draws and the attacks' generator continue exactly where they stopped."""
    d, job = sd
    cfg_path = d / "src/repro/papers/stod/config.yaml"
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["scales"]["tiny"]["train"]["adv"] = {"attack": "pgd", "eps": 0.1, "steps": 2}
    (d / "adv.yaml").write_text(yaml.safe_dump(cfg))
    args = ["repro.papers.stod.train", "--config", "adv.yaml", "--scale", "tiny", "--dataset",
            "digits", "--method", "rate", "--seed", "1", "--data", "digits.npz"]
    check_resumes(args, d, "r_a.pt", "r_b.pt", env=TIME_SAVES)


def test_evaluation_resumes_after_sigterm(sd):
    """A stopped evaluation keeps its finished (attack, eps) items and ends with the bytes of
    an uninterrupted one."""
    d, job = sd
    run(["repro.papers.stod.train", *job, "--dataset", "digits", "--method", "direct",
         "--seed", "2", "--data", "digits.npz", "--out", "m.pt"], d)
    args = ["repro.papers.stod.evaluate", *job, "--dataset", "digits", "--model", "m.pt",
            "--data", "digits.npz"]
    step, total = check_resumes(args, d, "e_a.json", "e_b.json", env=TIME_SAVES)
    assert total == 1 + 2 * 2 + 1  # clean, FGSM and PGD at tiny's two eps, GTC
