"""The mlc DAG: plans at every scale, what the tiny run's records hold, a bad config refused
before any job, and training and evaluation that resume after SIGTERM with an uninterrupted
run's bytes."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import REPO, job_checkout, planned_jobs, snakemake
from test_resume import check_resumes, run

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/mlc/config.yaml").read_text())
    return resolve_scale(raw, scale)


def test_plans_cover_the_whole_dag_at_every_scale(fresh_repo):
    for scale in ("tiny", "small", "full"):
        s = _settings(fresh_repo, scale)
        n = len(s["methods"]) * len(s["seeds"])
        assert planned_jobs(fresh_repo, "paper_mlc", scale=scale) == {
            "mlc_fetch": 1, "mlc_train": n, "mlc_evaluate": n + 1, "mlc_report": 1,
            "paper_mlc": 1}, scale
    small, full = _settings(fresh_repo, "small"), _settings(fresh_repo, "full")
    assert small["methods"] == {"plain": "none", "pairwise": "pairwise", "mlc": "mlc"}
    assert len(small["seeds"]) == 3 and small["data"]["langs"][0] == "en"
    assert len(small["data"]["langs"]) == 10 and small["train"]["objective"] == "sft"
    assert full["model"]["ref"] == "Qwen/Qwen2.5-7B-Instruct"
    assert full["train"]["objective"] == "dpo"
    assert full["data"]["max_prompt_tokens"] is None


def test_tiny_run_judges_every_response_and_measures_every_prompt(tiny_run):
    root = tiny_run("mlc")
    s = _settings(root)
    out = root / "results/tiny/mlc"
    data = json.loads((root / "data/mlc/tiny/data.json").read_text())
    langs = s["data"]["langs"]
    assert data["langs"] == langs
    assert not {r["id"] for r in data["train"]} & {r["id"] for r in data["test"]}
    assert all(set(r["prompts"]) == set(langs) for r in data["train"] + data["test"])
    runs = [(m, seed) for m in s["methods"] for seed in s["seeds"]] + [("none", s["seeds"][0])]
    for m, seed in runs:
        e = json.loads((out / f"eval/{m}_seed{seed}.json").read_text())
        assert (e["method"], e["seed"]) == (m, seed)
        for g in langs:
            assert [r["id"] for r in e["harmful"][g]] == [r["id"] for r in data["test"]]
            assert len(e["benign"][g]) == s["data"]["n_benign"]
            assert e["refusal"][g] == pytest.approx(
                sum(r["refusal"] for r in e["harmful"][g]) / len(e["harmful"][g]))
        assert len(e["states"]) == s["data"]["n_test"]
        assert all(1 / len(langs) - 1e-6 <= st["collinearity"] <= 1 + 1e-6
                   for st in e["states"])
        assert e["cos_en"]["en"] == pytest.approx(1.0, abs=1e-5)
        if m != "none":
            t = json.loads((out / f"adapters/{m}/seed{seed}/train.json").read_text())
            assert len(t["curves"]["total"]) == s["train"]["steps"]
            computed = [c for c in t["curves"]["consistency"] if c is not None]
            every = s["train"].get("every", 2)
            assert len(computed) == (0 if t["consistency"] == "none"
                                     else len(range(0, s["train"]["steps"], every)))
    claims = {c["id"]: c for c in load_claims(out / "claims.json")}
    assert set(claims) == {c["id"] for c in yaml.safe_load(
        (root / "src/repro/papers/mlc/config.yaml").read_text())["claims"]}
    main = (out / "tables/main.md").read_text()
    assert "paper:" in main and "none (starting model" in main


def test_a_config_without_english_first_is_refused_before_any_job(tmp_path):
    from conftest import copy_repo

    root = copy_repo(tmp_path / "repo")
    p = root / "src/repro/papers/mlc/config.yaml"
    cfg = yaml.safe_load(p.read_text())
    cfg["defaults"]["data"]["langs"] = ["zh", "en"]
    p.write_text(yaml.safe_dump(cfg))
    r = snakemake(root, "-n", "paper_mlc", check=False, papers="mlc")
    assert r.returncode != 0
    assert "langs" in r.stderr + r.stdout
    assert not (root / "data/mlc").exists() and not (root / "results").exists()


@pytest.fixture(scope="module")
def mj(tmp_path_factory):
    """The tiny config with loops long enough to stop mid-way, and its data."""
    d = tmp_path_factory.mktemp("mlc")
    cfg = yaml.safe_load((REPO / "src/repro/papers/mlc/config.yaml").read_text())
    cfg["scales"]["tiny"]["train"].update(steps=6, checkpoint_every=1)
    job = job_checkout(d, "mlc", cfg)
    run(["repro.papers.mlc.data", *job, "--out", "data.json"], d)
    return d, job


def test_training_resumes_after_sigterm(mj):
    d, job = mj
    args = ["repro.papers.mlc.train", *job, "--data", "data.json", "--method", "mlc",
            "--seed", "1"]
    _, total = check_resumes(args, d, "ad_a", "ad_b")
    assert total == 6


def test_evaluation_resumes_after_sigterm(mj):
    d, job = mj
    if not (d / "ad_a").exists():
        run(["repro.papers.mlc.train", *job, "--data", "data.json", "--method", "mlc",
             "--seed", "1", "--out", "ad_a"], d)
    args = ["repro.papers.mlc.evaluate", *job, "--data", "data.json", "--method", "mlc",
            "--seed", "1", "--adapter", "ad_a"]
    _, total = check_resumes(args, d, "e_a.json", "e_b.json",
                             env={"REPRO_CHECKPOINT_MINUTES": "0.0005"})
    s = _settings(d)
    assert total == 2 * len(s["data"]["langs"])   # n_test, n_benign <= eval.batch
