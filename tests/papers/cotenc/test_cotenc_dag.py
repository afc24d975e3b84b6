"""The cotenc DAG: plans at every scale, what the tiny run's files hold, a bad config refused
before any job, and the reasoner's generation resuming after SIGTERM with an uninterrupted
run's bytes."""

from __future__ import annotations

import json

import yaml
from conftest import REPO, job_checkout, planned_jobs, snakemake
from test_resume import check_resumes, run

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/cotenc/config.yaml").read_text())
    return resolve_scale(raw, scale)


def test_plans_cover_the_whole_dag_at_every_scale(fresh_repo):
    for scale in ("tiny", "small", "full"):
        n = len(_settings(fresh_repo, scale)["seeds"])
        assert planned_jobs(fresh_repo, "paper_cotenc", scale=scale) == {
            "cotenc_fetch": 1, "cotenc_generate": 1, "cotenc_extract": 2, "cotenc_build": n,
            "cotenc_judge_fixed": 1, "cotenc_judge": n, "cotenc_evaluate": n,
            "cotenc_report": 1, "paper_cotenc": 1}, scale
    small, full = _settings(fresh_repo, "small"), _settings(fresh_repo, "full")
    assert len(small["seeds"]) == 3 and small["analyst"]["ref"] == "local"
    assert small["planted"] == ["direction", "verification", "exploration"]
    assert full["analyst"] == {"ref": "endpoint", "model": "gpt-4o"}
    assert full["reasoner"]["ref"] == "endpoint"
    assert full["embedder"] == "openai:text-embedding-3-large"
    assert full["data"]["steer_families"] == ["gpqa_diamond", "mmlu_redux", "math500"]


def test_tiny_run_scores_every_cot_and_question(tiny_run):
    root = tiny_run("cotenc")
    s = _settings(root)
    out = root / "results/tiny/cotenc"
    data = json.loads((root / "data/cotenc/tiny/data.json").read_text())
    assert len(data["cots"]) == len(s["data"]["families"]) * s["data"]["n_templated"]
    assert all(set(c["labels"]) == set(s["planted"]) for c in data["cots"])
    gens = json.loads((out / "generations.json").read_text())
    n_q = len(s["data"]["steer_families"]) * s["data"]["n_steer"]
    assert len(gens["rows"]) == n_q * (1 + 2 ** len(s["steer"]))
    assert sum(r["encyclopedia"] for r in gens["rows"]) == \
        2 ** len(s["steer"]) * s["generate"]["n_encyclopedia"]
    for seed in s["seeds"]:
        enc = json.loads((out / f"encyclopedia/seed{seed}.json").read_text())
        assert 1 <= enc["k"] <= s["cluster"]["k_max"] and len(enc["rubrics"]) == enc["k"]
        judged = json.loads((out / f"judged/seed{seed}.json").read_text())
        for judge in s["judge"]["judges"]:
            rows = judged["scores"][judge]["bottom_up"]
            assert len(rows) == len(judged["cots"]) and all(len(r) == enc["k"] for r in rows)
        e = json.loads((out / f"eval/seed{seed}.json").read_text())
        got = {(r["method"], r["metric"]) for r in e["records"]}
        for m in ("bottom_up", "bottom_up_extractive", "predefined", "planted"):
            assert (f"{m}/llm", "recovery_mean") in got
        assert ("steer/question_specific", "accuracy") in got
        assert all(0 <= r["value"] <= 1 for r in e["records"]
                   if r["metric"] in ("recovery_mean", "accuracy", "purity"))
        assert "## " in (out / f"reports/seed{seed}.md").read_text()
    claims = {c["id"] for c in load_claims(out / "claims.json")}
    assert claims == {c["id"] for c in yaml.safe_load(
        (root / "src/repro/papers/cotenc/config.yaml").read_text())["claims"]}
    assert "paper:" in (out / "tables/main.md").read_text()


def test_a_config_with_an_unknown_steer_family_is_refused_before_any_job(tmp_path):
    from conftest import copy_repo

    root = copy_repo(tmp_path / "repo")
    p = root / "src/repro/papers/cotenc/config.yaml"
    cfg = yaml.safe_load(p.read_text())
    cfg["defaults"]["data"]["steer_families"] = ["addition", "chess"]
    p.write_text(yaml.safe_dump(cfg))
    r = snakemake(root, "-n", "paper_cotenc", check=False, papers="cotenc")
    assert r.returncode != 0
    assert "chess" in r.stderr + r.stdout
    assert not (root / "data/cotenc").exists() and not (root / "results").exists()


def test_generation_resumes_after_sigterm(tmp_path):
    d = tmp_path
    cfg = yaml.safe_load((REPO / "src/repro/papers/cotenc/config.yaml").read_text())
    cfg["scales"]["tiny"]["generate"]["batch"] = 2
    job = job_checkout(d, "cotenc", cfg)
    run(["repro.papers.cotenc.data", *job, "--out", "data.json"], d)
    _, total = check_resumes(["repro.papers.cotenc.generate", *job, "--data", "data.json"], d,
                             "g_a.json", "g_b.json")
    assert total == 6   # 4 questions x 3 conditions, 2 per batch
