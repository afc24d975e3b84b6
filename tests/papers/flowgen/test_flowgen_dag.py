"""The flowgen DAG: plans at every scale, what the tiny run's files hold, a bad config refused
before any job, and the OCR step resuming after SIGTERM with an uninterrupted run's bytes."""

from __future__ import annotations

import json

import yaml
from conftest import job_checkout, needs_programs, planned_jobs, snakemake
from test_resume import check_resumes, run

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/flowgen/config.yaml").read_text())
    return resolve_scale(raw, scale)


def test_plans_cover_the_whole_dag_at_every_scale(fresh_repo):
    for scale in ("tiny", "small", "full"):
        n = len(_settings(fresh_repo, scale)["seeds"])
        sft = {"flowgen_finetune": n} if scale == "full" else {}  # MLLM LoRA runs, full only
        assert planned_jobs(fresh_repo, "paper_flowgen", scale=scale) == {
            "flowgen_fetch": 1, "flowgen_synthesize": 2 * n, "flowgen_check": n,
            "flowgen_read": 2 * n, "flowgen_train": n, "flowgen_evaluate": n,
            "flowgen_report": 1, "paper_flowgen": 1, **sft}, scale
    small, full = _settings(fresh_repo, "small"), _settings(fresh_repo, "full")
    assert len(small["seeds"]) == 3 and small["styles"] == ["clean", "handwritten", "scanned"]
    assert small["train_renderers"] == ["graphviz"] and "matplotlib" in small["renderers"]
    assert {"mllm:Qwen/Qwen2.5-VL-7B-Instruct", "mllm-sft:Qwen/Qwen2.5-VL-7B-Instruct"} <= set(
        full["parser"]["models"])
    assert full["data"] == {"n_test": 360, "n_train": 960}


def test_tiny_run_scores_every_image_with_every_parser(tiny_run):
    root = tiny_run("flowgen")
    s = _settings(root)
    out = root / "results/tiny/flowgen"
    levels = s.get("levels_used") or list(s["levels"])
    for seed in s["seeds"]:
        idx = json.loads((out / f"charts/seed{seed}/test.json").read_text())
        n_img = len(levels) * s["data"]["n_test"] * len(s["renderers"]) * len(s["styles"])
        assert len(idx["images"]) == n_img
        assert all((out / f"charts/seed{seed}/test_images" / r["image"]).exists()
                   for r in idx["images"])
        train = json.loads((out / f"charts/seed{seed}/train.json").read_text())
        assert {r["renderer"] for r in train["images"]} == set(s["train_renderers"])
        checks = json.loads((out / f"checks/seed{seed}.json").read_text())
        assert checks["controls_match"] == 1.0 and not checks["failed"]
        assert set(checks["stats"]) == set(levels)
        ev = json.loads((out / f"eval/seed{seed}.json").read_text())
        assert len(ev["rows"]) == n_img * len(s["parser"]["models"])
        assert all(0 <= r[m] <= 1 for r in ev["rows"]
                   for m in ("f1_strict", "f1_relaxed", "f1_flow", "qa_accuracy"))
        assert all(r["f1_relaxed"] >= r["f1_strict"] - 1e-9 for r in ev["rows"])
        model = json.loads((out / f"models/seed{seed}.json").read_text())
        assert 0 < model["positives"] < model["pairs"]
    claims = {c["id"] for c in load_claims(out / "claims.json")}
    assert claims == {c["id"] for c in yaml.safe_load(
        (root / "src/repro/papers/flowgen/config.yaml").read_text())["claims"]}
    assert "official repo" in (out / "tables/by_style.md").read_text()
    assert (out / "figures/examples.png").stat().st_size > 10_000


def test_a_config_with_an_unknown_renderer_is_refused_before_any_job(tmp_path):
    from conftest import copy_repo

    root = copy_repo(tmp_path / "repo")
    p = root / "src/repro/papers/flowgen/config.yaml"
    cfg = yaml.safe_load(p.read_text())
    cfg["defaults"]["renderers"] = ["graphviz", "plantuml"]
    p.write_text(yaml.safe_dump(cfg))
    r = snakemake(root, "-n", "paper_flowgen", check=False, papers="flowgen")
    assert r.returncode != 0
    assert "plantuml" in r.stderr + r.stdout
    assert not (root / "data/flowgen").exists() and not (root / "results").exists()


@needs_programs("graphviz", "tesseract-ocr-eng", "fonts-urw-base35")
def test_reading_resumes_after_sigterm(tmp_path):
    d = tmp_path
    job = job_checkout(d, "flowgen")
    run(["repro.papers.flowgen.synthesize", *job, "--seed", "0", "--split", "train",
         "--images", "img", "--out", "train.json"], d)
    _, total = check_resumes(["repro.papers.flowgen.read", *job, "--index", "train.json",
                              "--images", "img"], d, "p_a.json", "p_b.json")
    assert total == 4   # easy and hard, one chart each, clean and scanned, graphviz only
