"""Spectrum's DAG: the plans at every scale, what the tiny run's records hold, a config that
reads a checkpoint nobody has refused before any job, and training and evaluation that resume
after SIGTERM with an uninterrupted run's bytes."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from conftest import REPO, job_checkout, planned_jobs, snakemake
from test_resume import check_resumes, run

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/spectrum/config.yaml").read_text())

    return resolve_scale(raw, scale)


def _plan(s):
    tuned = any(m["checkpoint"] == "tuned" for m in s["models"].values())
    return {"spectrum_suite": 1, "spectrum_train": len(s["seeds"]) if tuned else 0,
            "spectrum_evaluate": len(s["models"]) * len(s["seeds"]), "spectrum_report": 1,
            "paper_spectrum": 1}


def test_plans_cover_the_whole_dag_at_every_scale(fresh_repo):
    for scale in ("tiny", "small", "full"):
        want = {k: v for k, v in _plan(_settings(fresh_repo, scale)).items() if v}
        assert planned_jobs(fresh_repo, "paper_spectrum", scale=scale) == want, scale
    small, full = _settings(fresh_repo, "small"), _settings(fresh_repo, "full")
    assert len(small["seeds"]) == 3 and small["model"]["base"] is None
    assert {m["checkpoint"] for m in small["models"].values()} == {"instruct", "tuned"}
    # full: the paper's Qwen3-14B triple and its released Spectrum-tuned checkpoint
    assert (full["model"]["base"], full["model"]["instruct"]) == ("Qwen/Qwen3-14B-Base",
                                                                  "Qwen/Qwen3-14B")
    assert full["model"]["released"] == "tsor13/spectrum-Qwen3-14B-v0"
    assert {m: v["format"] for m, v in full["models"].items()} == {
        "base": "colon", "instruct": "chat", "instruct_spectrum_format": "spectrum",
        "spectrum": "spectrum", "released": "spectrum"}
    assert full["train"]["max_tokens"] == 1024 and full["eval"]["coverage_samples"] == 100


def test_tiny_run_scores_every_output_of_every_context(tiny_run):
    root = tiny_run("spectrum")
    s = _settings(root)
    out = root / "results/tiny/spectrum"
    suite = json.loads((root / "data/spectrum/tiny/suite.json").read_text())
    for m, spec in s["models"].items():
        for seed in s["seeds"]:
            e = json.loads((out / f"eval/{m}_seed{seed}.json").read_text())
            assert (e["model"], e["seed"], e["format"]) == (m, seed, spec["format"])
            contexts = suite["eval"][str(seed)]["steer"]
            assert len(e["steer"]) == len(contexts)
            for c, r in zip(contexts, e["steer"], strict=True):
                # eval.max_tokens leaves every later output scored, in every format
                first = 0 if c["description"] or spec["format"] == "colon" else 1
                assert sorted(map(int, r["losses"])) == list(range(first, len(c["samples"])))
                assert all(v > 0 for v in r["losses"].values())
            for d in e["dist"]:
                assert 0 < d["coverage"] <= 1 + 1e-6 and sum(d["q"]) == pytest.approx(1)
            assert [len(c["samples"]) for c in e["coverage"]] == [
                s["eval"]["coverage_samples"]] * len(s["suite"]["coverage_tasks"])
    for seed in s["seeds"]:
        t = json.loads((out / f"adapters/seed{seed}/train.json").read_text())
        assert len(t["loss"]) == s["train"]["steps"] and t["trainable_params"] > 0
        assert (out / f"adapters/seed{seed}/adapter_model.safetensors").exists()
    claims = {c["id"]: c for c in load_claims(out / "claims.json")}
    assert claims["instruct_loses_steerability"]["verdict"] == "not testable at this scale"
    assert "base SmolLM2" in claims["instruct_loses_steerability"]["values"]["reason"]
    dice = (out / "tables/readme_dice.md").read_text()
    assert "the paper's README" in dice and "0.98" in dice


def test_a_model_reading_a_missing_checkpoint_is_refused_before_any_job(tmp_path):
    from conftest import copy_repo

    root = copy_repo(tmp_path / "repo")
    p = root / "src/repro/papers/spectrum/config.yaml"
    cfg = yaml.safe_load(p.read_text())
    cfg["defaults"]["models"]["base"] = {"checkpoint": "base", "format": "colon"}
    p.write_text(yaml.safe_dump(cfg))
    r = snakemake(root, "-n", "paper_spectrum", check=False, papers="spectrum")
    assert r.returncode != 0
    assert "models.base reads the base checkpoint, but model.base is null" in r.stderr + r.stdout
    assert not (root / "data/spectrum").exists() and not (root / "results").exists()


@pytest.fixture(scope="module")
def sp(tmp_path_factory):
    """The tiny config with loops long enough to stop mid-way, and its suite."""
    d = tmp_path_factory.mktemp("spectrum")
    cfg = yaml.safe_load((REPO / "src/repro/papers/spectrum/config.yaml").read_text())
    cfg["scales"]["tiny"]["train"].update(steps=6, checkpoint_every=1)
    job = job_checkout(d, "spectrum", cfg)
    run(["repro.papers.spectrum.data", *job, "--out", "suite.json"], d)
    return d, job


def test_training_resumes_after_sigterm(sp):
    d, job = sp
    args = ["repro.papers.spectrum.train", *job, "--suite", "suite.json", "--seed", "1"]
    step, total = check_resumes(args, d, "ad_a", "ad_b")
    assert total == 6


def test_evaluation_resumes_after_sigterm(sp):
    d, job = sp
    if not (d / "ad_a").exists():
        run(["repro.papers.spectrum.train", *job, "--suite", "suite.json", "--seed", "1",
             "--out", "ad_a"], d)
    args = ["repro.papers.spectrum.evaluate", *job, "--suite", "suite.json", "--model",
            "spectrum", "--seed", "1", "--adapter", "ad_a"]
    step, total = check_resumes(args, d, "e_a.json", "e_b.json",
                                env={"REPRO_CHECKPOINT_MINUTES": "0.0005"})
    s = _settings(d)
    assert total == len(s["suite"]["heldout_families"]) * s["suite"]["steer_contexts"] + (
        len(s["suite"]["dist_tasks"]) * s["suite"]["dist_items"] + 1) + len(
        s["suite"]["coverage_tasks"]) * len(s["eval"]["components"])
    shutil.rmtree(d / "ad_a", ignore_errors=True)
