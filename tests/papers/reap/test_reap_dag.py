"""REAP's whole DAG at tiny scale, its outputs, the full-scale plan (Qwen3-30B-A3B, 5 methods x
2 ratios x 3 calibration seeds on GPUs), and edit plans (pruning code reruns the evaluations,
not the training or the calibration)."""

from __future__ import annotations

import json

import pandas as pd
import yaml
from conftest import copy_finished, copy_repo, edit, planned_jobs

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale
    raw = yaml.safe_load((root / "src/repro/papers/reap/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _n_evals(s):
    return len(s["methods"]) * len(s["ratios"]) * len(s["seeds"]) * len(s["models"])


def test_fresh_plan_covers_the_whole_reap_dag(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root)
    assert planned_jobs(root, "paper_reap") == {
        "reap_fetch": 1, "reap_train": len(s["models"]),
        "reap_observe": len(s["seeds"]) * len(s["models"]), "reap_reference": len(s["models"]),
        "reap_evaluate": _n_evals(s), "reap_report": 1, "paper_reap": 1}


def test_full_plan_is_the_papers_setting(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root, "full")
    assert s["model"]["model_id"] == "Qwen/Qwen3-30B-A3B" and s["model"]["kind"] == "pretrained"
    assert s["calibration"]["dataset"] == "theblackcat102/evol-codealpaca-v1"
    assert s["calibration"]["n_samples"] == 1024 and s["calibration"]["seq_len"] == 2048
    assert set(s["eval"]["benchmarks"]) == {"humaneval", "mbpp", "livecodebench"}
    assert s["ratios"] == [25, 50] and len(s["methods"]) == 5 and s["gpus"] >= 1
    jobs = planned_jobs(root, "paper_reap", scale="full")
    assert jobs["reap_evaluate"] == _n_evals(s) == 5 * 2 * 3
    assert jobs["reap_observe"] == 3 and jobs["reap_train"] == 1  # one released checkpoint
    small = _settings(root, "small")
    assert len(small["models"]) >= 3  # small: the unit is the trained model


def test_tiny_dag_outputs(tiny_reap):
    out = tiny_reap / "results/tiny/reap"
    s = _settings(tiny_reap)
    claims = load_claims(out / "claims.json")
    cfg = yaml.safe_load((tiny_reap / "src/repro/papers/reap/config.yaml").read_text())
    assert [c["id"] for c in claims] == [c["id"] for c in cfg["claims"]]
    assert all(c["verdict"] in ("holds", "contradicted", "inconclusive",
                                "not testable at this scale")
               for c in claims)
    comp = pd.read_csv(out / "tables/compression.csv")
    assert len(comp) == 1 + len(s["methods"]) * len(s["ratios"])
    assert {"code_nll", "prose_nll", "parse_rate", "next_line_em", "gen_agreement",
            "gen_score"} <= set(comp.columns)
    paper = (out / "tables/paper_comparison.md").read_text()
    assert "0.541" in paper and "Qwen3-30B-A3B" in paper  # the paper's REAP number, labelled
    router = pd.read_csv(out / "tables/router.csv")
    assert len(router) == s["model"]["num_layers"]
    for png in ("compression", "router"):
        assert (out / f"figures/{png}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    n = s["model"]["num_experts"]
    per_model = pd.read_csv(out / "tables/per_model.csv")
    assert [c for c in per_model.columns if c.startswith("model ")] == [
        f"model {m}" for m in s["models"]]
    recs = [r for r in json.loads((out / "records.json").read_text()) if r["method"] == "reap"]
    assert recs and all(r["seed"] == r["model"] for r in recs)  # the unit: the trained model
    assert len({(r["metric"], r["seed"]) for r in recs}) == len(recs)
    model0 = f"eval/model{s['models'][0]}"
    for m in s["methods"]:
        e = json.loads((out / f"{model0}/{m}_r50_seed{s['seeds'][0]}.json").read_text())
        want = n // 2 if m in ("frequency", "ean", "reap") else n  # pruned models are smaller
        assert e["num_experts_config"] == want, m
        assert e["compression"]["unique_experts"] == s["model"]["num_layers"] * (n // 2)
        assert len(e["generations"]) == s["eval"]["prefixes"]["n"]
    assert e["model"] == s["models"][0]
    ref = json.loads((out / f"{model0}/unpruned.json").read_text())
    assert ref["metrics"]["gen_agreement"] == 1.0
    obs = json.loads((out / f"observe/model{s['models'][0]}_seed{s['seeds'][0]}.json").read_text())
    assert 0 < obs["router_entropy_mean"] <= 1 and 0 < obs["usage_balance_mean"] <= 1
    for m in s["models"]:
        train_log = json.loads((out / f"models/seed{m}/train_log.json").read_text())
        assert len(train_log["steps"]) == s["train"]["steps"]
    a, b = (json.loads((out / f"models/seed{m}/train_log.json").read_text())["steps"]
            for m in s["models"][:2])
    assert a[0]["lm_loss"] != b[0]["lm_loss"]  # different training seeds, different models



def test_editing_pruning_code_reruns_evaluation_not_training(tiny_reap, tmp_path):
    root = copy_finished(tiny_reap, tmp_path / "edit_prune")
    edit(root / "src/repro/papers/reap/prune.py")
    s = _settings(root)
    assert planned_jobs(root, "paper_reap") == {
        "reap_reference": len(s["models"]), "reap_evaluate": _n_evals(s), "reap_report": 1,
        "paper_reap": 1}
