"""NFT's whole DAG at tiny scale, its outputs, and the plans Snakemake makes after edits."""

from __future__ import annotations

import json

import pandas as pd
import yaml
from conftest import copy_finished, copy_repo, edit, plan, planned_jobs

from repro.core.claims import load_claims

NFT_RULES = {"nft_fetch", "nft_sft", "nft_equivalence", "nft_train", "nft_evaluate",
             "nft_report", "paper_nft"}


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale
    raw = yaml.safe_load((root / "src/repro/papers/nft/config.yaml").read_text())
    return resolve_scale(raw, scale)


def test_fresh_plan_covers_the_whole_nft_dag(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root)
    n_runs = len(s["countdown"]["methods"]) * len(s["seeds"])
    jobs = planned_jobs(root, "paper_nft")
    assert set(jobs) == NFT_RULES
    assert jobs["nft_train"] == n_runs
    assert len(_settings(root, "full")["countdown"]["methods"]) == 5  # the paper's five
    assert jobs["nft_evaluate"] == n_runs + len(s["seeds"])  # + the base policy per seed
    assert jobs["nft_sft"] == jobs["nft_fetch"] == jobs["nft_equivalence"] == 1


def test_full_plan_adds_the_papers_7b_math_runs(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root, "full")
    assert s["math"]["model"]["model_id"] == "Qwen/Qwen2.5-Math-7B"
    rl = s["math"]["rl"]
    assert (rl["prompts_per_step"], rl["group_size"], rl["lr"], rl["temperature"]) == (
        512, 16, 1e-6, 1.0)
    assert "nft_math_train" not in planned_jobs(root, "paper_nft")  # tiny: Countdown only
    counts = planned_jobs(root, "paper_nft", scale="full")
    n_math = len(s["math"]["methods"]) * len(s["seeds"])
    assert counts["nft_math_train"] == n_math
    assert counts["nft_math_evaluate"] == n_math + len(s["seeds"])
    assert counts["nft_math_fetch"] == counts["nft_math_base"] == 1


def test_tiny_dag_outputs(tiny_nft):
    out = tiny_nft / "results/tiny/nft"
    s = _settings(tiny_nft)
    claims = load_claims(out / "claims.json")
    cfg = yaml.safe_load((tiny_nft / "src/repro/papers/nft/config.yaml").read_text())
    assert [c["id"] for c in claims] == [c["id"] for c in cfg["claims"]]
    by_id = {c["id"]: c for c in claims}
    # the gradient identity holds at any scale: it is arithmetic, checked in float64
    for cid in ("equivalence_nft_norm2_grpo", "equivalence_nft_norm1_dr_grpo",
                "equivalence_breaks_off_policy", "equivalence_control_not_collinear"):
        assert by_id[cid]["verdict"] == "holds", by_id[cid]
    cd = pd.read_csv(out / "tables/countdown.csv")
    assert list(cd["method"]) == ["base", *s["countdown"]["methods"]]
    assert any("paper" in col for col in cd.columns)
    assert "51.7" in (out / "tables/countdown.md").read_text()  # the paper's NFT 7B average
    t1 = pd.read_csv(out / "tables/paper_table1.csv")
    assert len(t1) == 7 + 4 and t1["average"].notna().all()
    eqt = pd.read_csv(out / "tables/equivalence.csv")
    assert len(eqt) == 4
    for fig in ("equivalence", "passk", "entropy"):
        assert (out / f"figures/{fig}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    logs = [json.loads((out / f"countdown/{m}/seed0/train_log.json").read_text())
            for m in s["countdown"]["methods"]]
    for log in logs:  # every step records the policy's entropy and what it sampled
        assert all("entropy" in st and st["rollouts_sampled"] > 0 for st in log["steps"])
    by_m = {log["method"]: log for log in logs}
    assert by_m["nft"]["config"]["objective"]["neg_weight"] == 1.0
    assert by_m["rft"]["config"]["objective"]["neg_weight"] == 0.0
    assert by_m["dapo_lite"]["config"]["objective"]["neg_weight"] == -1.0
    assert by_m["grpo"]["steps"][0]["rollouts_sampled"] == (
        s["countdown"]["rl"]["prompts_per_step"] * s["countdown"]["rl"]["group_size"])



def test_editing_the_nft_objective_reruns_training_not_sft(tiny_nft, tmp_path):
    root = copy_finished(tiny_nft, tmp_path / "edit_algos")
    edit(root / "src/repro/papers/nft/algos.py")
    s = _settings(root)
    n_runs = len(s["countdown"]["methods"]) * len(s["seeds"])
    assert planned_jobs(root, "paper_nft") == {
        "nft_equivalence": 1, "nft_train": n_runs, "nft_evaluate": n_runs, "nft_report": 1,
        "paper_nft": 1}


def test_editing_the_shared_trainer_reruns_both_papers_training(tiny_nft, tmp_path):
    root = copy_finished(tiny_nft, tmp_path / "edit_trainer")
    edit(root / "src/repro/core/rlvr/trainer.py")
    jobs = planned_jobs(root, "paper_nft")
    assert "nft_sft" not in jobs and jobs["nft_train"] > 0 and jobs["nft_equivalence"] == 1
    # rove shares the loop: its RL runs read the trainer too (its SFT does not)
    rove = {j["rule"]: j["inputs"] for j in plan(root, "paper_rove", forceall=True)}
    assert "src/repro/core/rlvr/trainer.py" in rove["rove_train"]
    assert "src/repro/core/rlvr/trainer.py" not in rove["rove_sft"]
