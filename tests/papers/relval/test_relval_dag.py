"""Relative Value Learning's whole DAG at tiny scale, its outputs, the full-scale plan (49 games
x 10 seeds x 2 agents, GPU runs, a SLURM array), and edit plans."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import yaml
from conftest import copy_finished, copy_repo, edit, planned_jobs

from repro.core.claims import load_claims
from repro.papers.relval.report import atari_aggregate, iqm


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale
    raw = yaml.safe_load((root / "src/repro/papers/relval/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _n_runs(s):
    seeds = {**{e: s["seeds"] for e in s["classic"]}, **{e: s["atari_seeds"] for e in s["atari"]}}
    ablation_runs = sum(len(seeds[e]) for ab in s.get("ablations", {}).values() for e in ab["envs"])
    return len(s["agents"]) * sum(map(len, seeds.values())) + ablation_runs


def test_fresh_plan_covers_the_whole_relval_dag(tmp_path):
    root = copy_repo(tmp_path / "repo")
    jobs = planned_jobs(root, "paper_relval")
    assert jobs == {"relval_theory": 1, "relval_train": _n_runs(_settings(root)),
                    "relval_report": 1, "paper_relval": 1}


def test_full_plan_is_the_papers_49_games_x_10_seeds(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root, "full")
    assert len(s["atari"]) == 49 and set(s["atari"]) == set(s["atari_scores"])
    assert len(s["atari_seeds"]) == 10 and s["ppo"]["total_steps"] == 10_000_000
    assert all(s["envs"].get(g, {}).get("total_steps", 10_000_000) == 10_000_000
               for g in s["atari"])
    jobs = planned_jobs(root, "paper_relval", scale="full")
    # the two agents everywhere, the terminal-state ablation on the two classic envs
    assert jobs["relval_train"] == _n_runs(s) == 2 * (49 * 10 + 2 * 10) + 2 * 10
    prof = yaml.safe_load((root / "workflow/profiles/slurm/config.yaml").read_text())
    assert "relval_train" in prof["slurm-array-jobs"]  # one array, not 1,000 sbatch calls


def test_tiny_dag_outputs(tiny_relval):
    out = tiny_relval / "results/tiny/relval"
    s = _settings(tiny_relval)
    claims = load_claims(out / "claims.json")
    cfg = yaml.safe_load((tiny_relval / "src/repro/papers/relval/config.yaml").read_text())
    assert [c["id"] for c in claims] == [c["id"] for c in cfg["claims"]]
    theory = {c["id"]: c["verdict"] for c in claims if c["id"].startswith("theory_")}
    assert set(theory.values()) == {"holds"}, theory  # exact arithmetic holds at any scale
    ret = pd.read_csv(out / "tables/returns.csv")
    assert set(ret["env"]) == {*s["classic"], *s["atari"]}
    labels = {a.split(" ")[0]: a for a in ret["agent"]}
    assert set(labels) == {*s["agents"], *s["ablations"]}
    assert labels["ppo_rv_state"] == "ppo_rv_state (ablation, ours: rv.terminal=state)"
    assert set(ret[ret["agent"] == labels["ppo_rv_state"]]["env"]) == {"CartPole-v1"}
    assert "16.8" in (out / "tables/returns.md").read_text() or not any(
        "Pong" in e for e in s["atari"])
    for env in (*s["classic"], *s["atari"]):
        png = out / f"figures/curves_{env.replace('/', '_')}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    run = json.loads((out / "runs/CartPole-v1/ppo_rv/seed0.json").read_text())
    assert run["env"] == "CartPole-v1" and run["agent"] == "ppo_rv" and run["curve"]
    assert run["settings"]["rv"]["terminal"] == "case_split" and not run["ablation"]
    run = json.loads((out / "runs/CartPole-v1/ppo_rv_state/seed0.json").read_text())
    assert run["settings"]["rv"]["terminal"] == "state" and run["ablation"]



def test_editing_the_agent_reruns_the_runs_not_the_theory(tiny_relval, tmp_path):
    root = copy_finished(tiny_relval, tmp_path / "edit_ppo")
    edit(root / "src/repro/papers/relval/ppo.py")
    assert planned_jobs(root, "paper_relval") == {
        "relval_train": _n_runs(_settings(root)), "relval_report": 1, "paper_relval": 1}


def test_human_normalised_aggregates():
    scores = {"G1": {"random": 0.0, "human": 10.0}, "G2": {"random": -20.0, "human": 20.0}}
    runs = [{"env": "G1", "agent": "ppo", "final_return": 5.0},
            {"env": "G1", "agent": "ppo_rv", "final_return": 10.0},
            {"env": "G2", "agent": "ppo", "final_return": 20.0},
            {"env": "G2", "agent": "ppo_rv", "final_return": 0.0}]
    df, recs = atari_aggregate(runs, scores, n_paper_games=2)
    by = {(r["method"], r["metric"]): r["value"] for r in recs}
    assert by[("ppo", "atari/hns_mean")] == np.mean([0.5, 1.0])
    assert by[("ppo_rv", "atari/hns_median")] == np.median([1.0, 0.5])
    assert by[("ppo_rv", "wins_vs_ppo_of_2")] == 1.0  # wins G1, loses G2
    assert iqm(np.arange(8.0)) == np.mean([2.0, 3.0, 4.0, 5.0])
