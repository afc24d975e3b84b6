"""VAE-CF's whole DAG at tiny scale (ML-100k's stand-in from the seeded generator: nothing is
downloaded), its outputs, the full-scale plan (ML-20M / Netflix / MSD x variants x 5 seeds, GPU
runs), and edit plans."""

from __future__ import annotations

import json
import re

import pandas as pd
import yaml
from conftest import copy_finished, copy_repo, edit, plan, planned_jobs

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale
    raw = yaml.safe_load((root / "src/repro/papers/vaecf/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _n_runs(s):
    return len(s["datasets"]) * sum(len(s["variant_seeds"].get(v, s["seeds"]))
                                    for v in s["run_variants"])


def _splits(s):
    """The data splits the runs read: seed k -> split k with vary_split, else split 0."""
    seeds = {k for v in s["run_variants"] for k in s["variant_seeds"].get(v, s["seeds"])}
    return sorted(seeds) if s["data_protocol"]["vary_split"] else [0]


def _n_prox(s):
    return len([d for d in s["proximity"]["datasets"] if d in s["datasets"]]) * len(
        [v for v in s["proximity"]["variants"] if v in s["run_variants"]])


def test_fresh_plan_covers_the_whole_vaecf_dag(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root)
    assert planned_jobs(root, "paper_vaecf") == {
        "vaecf_fetch": 1, "vaecf_prepare": len(_splits(s)), "vaecf_train": _n_runs(s),
        "vaecf_proximity": _n_prox(s), "vaecf_report": 1, "paper_vaecf": 1}


def test_full_plan_is_the_papers_three_datasets(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root, "full")
    assert s["datasets"] == ["ml-20m", "netflix", "msd"] and len(s["seeds"]) == 5
    t = s["train"]
    assert (t["epochs"], t["batch_size"], t["lr"], t["anneal_cap"], t["total_anneal_steps"]) == (
        200, 500, 1e-3, 0.2, 200000)
    assert (s["model"]["hidden"], s["model"]["latent"]) == (600, 200)
    assert s["variants"]["masking"]["dropout"] == 0.5 and s["variants"]["clean"]["dropout"] == 0
    assert s["data"]["msd"] == {"threshold": None, "min_uc": 20, "min_sc": 200,
                                "n_heldout": 50000}
    assert {d: s["data"][d]["n_heldout"] for d in ("ml-20m", "netflix")} == {
        "ml-20m": 10000, "netflix": 40000}
    jobs = planned_jobs(root, "paper_vaecf", scale="full")
    # Liang et al.'s one fixed split at full: one prepare job per data set, every run reads it
    assert s["data_protocol"]["vary_split"] is False and _splits(s) == [0]
    assert jobs["vaecf_fetch"] == jobs["vaecf_prepare"] == 3
    assert jobs["vaecf_train"] == _n_runs(s) == 3 * len(s["run_variants"]) * 5
    assert jobs["vaecf_proximity"] == _n_prox(s) > 0
    for j in plan(root, "paper_vaecf", scale="full", forceall=True):
        if j["rule"] in ("vaecf_train", "vaecf_proximity"):
            assert {f.rsplit("/", 2)[1] for f in _split_files(j)} == {"split0"}


def _split_files(job) -> set[str]:
    return {f for f in job["inputs"] if f.endswith("prepared.npz")}


def _run_seeds(paths) -> list[int]:
    """The seeds of the run directories among `paths`."""
    return [int(m[1]) for f in paths if (m := re.search(r"/runs/.*/seed(\d+)$", f))]


def test_small_plan_has_one_split_per_seed_and_runs_read_their_own(tmp_path):
    """vary_split: one prepare job per (dataset, split); seed k's runs (every variant) and the
    proximity jobs read split k, so paired claims compare methods on the same held-out users."""
    root = copy_repo(tmp_path / "repo")
    s = _settings(root, "small")
    assert s["data_protocol"]["vary_split"] and len(_splits(s)) == len(s["seeds"]) >= 5
    jobs = plan(root, "paper_vaecf", scale="small", forceall=True)
    prepared = sorted(f for j in jobs if j["rule"] == "vaecf_prepare" for f in _split_files(
        {"inputs": j["outputs"]}))
    assert prepared == [f"data/vaecf/small/ml-100k/split{k}/prepared.npz" for k in _splits(s)]
    for j in jobs:
        if j["rule"] == "vaecf_train":
            (seed,) = _run_seeds(j["outputs"])
            assert _split_files(j) == {f"data/vaecf/small/ml-100k/split{seed}/prepared.npz"}
        if j["rule"] == "vaecf_proximity":
            seeds = _run_seeds(j["inputs"])
            assert len(seeds) == len(s["seeds"])
            assert _split_files(j) == {f"data/vaecf/small/ml-100k/split{k}/prepared.npz"
                                       for k in seeds}


def test_tiny_dag_outputs(tiny_vaecf):
    out = tiny_vaecf / "results/tiny/vaecf"
    s = _settings(tiny_vaecf)
    claims = load_claims(out / "claims.json")
    verdicts = {c["id"]: c["verdict"] for c in claims}
    assert verdicts["anchor_beats_masking_ml20m"] == "not testable at this scale"
    assert verdicts["masking_beats_clean"] in ("holds", "contradicted", "inconclusive")
    main = pd.read_csv(out / "tables/main.csv")
    assert {"clean", "masking", "masking_anchor"} <= set(main["method"])
    assert (main["seeds"] == len(s["seeds"])).all()
    # the paper's numbers sit beside ours, labelled with their setting
    row = main[main["method"] == "masking_anchor"].iloc[0]
    assert row["ndcg@100 (paper)"] == 0.437 and "ML-20M" in row["paper setting"]
    assert "not comparable" in row["paper setting"]
    for name in ("ablation", "grids", "selection", "activity", "proximity", "data"):
        assert len(pd.read_csv(out / f"tables/{name}.csv")) > 0, name
    src = json.loads((tiny_vaecf / "data/vaecf/tiny/ml-100k/source.json").read_text())
    assert src["source"] == "generator" and src["parameters"] == s["generator"]
    assert src["rows"] == len(pd.read_parquet(tiny_vaecf / "data/vaecf/tiny/ml-100k/"
                                              "interactions.parquet"))
    assert pd.read_csv(out / "tables/data.csv")["source"].iloc[0] == src["source"]
    run = json.loads((out / "runs/ml-100k/masking/seed0/run.json").read_text())
    assert run["variant"] == "masking" and run["curve"] and len(run["per_user"]["ndcg@100"]) == \
        s["data"]["ml-100k"]["n_heldout"]
    # each record names its unit: the seed and the data split it was trained and scored on
    assert run["split"] == 0 and run["split_seed"] == s["data_protocol"]["split_seed"]
    assert all(r["seed"] == 0 and r["split"] == 0 for r in run["records"])
    assert pd.read_csv(out / "tables/data.csv")["split"].tolist() == [0]
    assert (main["splits"] == 1).all()
    # only the runs the proximity analysis reads keep their weights
    assert (out / "runs/ml-100k/masking/seed0/model.pt").exists()
    assert not (out / "runs/ml-100k/clean/seed0/model.pt").exists()


def test_editing_proximity_reruns_only_the_analysis(tiny_vaecf, tmp_path):
    root = copy_finished(tiny_vaecf, tmp_path / "edit_prox")
    edit(root / "src/repro/papers/vaecf/proximity.py")
    s = _settings(root)
    assert planned_jobs(root, "paper_vaecf") == {
        "vaecf_proximity": _n_prox(s), "vaecf_report": 1, "paper_vaecf": 1}


def test_editing_the_model_reruns_training_not_the_data(tiny_vaecf, tmp_path):
    root = copy_finished(tiny_vaecf, tmp_path / "edit_model")
    edit(root / "src/repro/papers/vaecf/model.py")
    s = _settings(root)
    assert planned_jobs(root, "paper_vaecf") == {
        "vaecf_train": _n_runs(s), "vaecf_proximity": _n_prox(s), "vaecf_report": 1,
        "paper_vaecf": 1}
