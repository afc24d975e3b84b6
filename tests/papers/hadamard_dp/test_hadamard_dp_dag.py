"""The exponential-wrapped mechanisms paper's whole DAG at tiny scale, its outputs, the
full-scale plan (3 metrics x d in {3, 10, 15}, 100 repetitions, OCTMNIST), and edit plans."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import yaml
from conftest import copy_finished, copy_repo, edit, planned_jobs

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale
    raw = yaml.safe_load((root / "src/repro/papers/hadamard_dp/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _n_cells(s):
    return len(s["metrics"]) * len(s["synthetic"]["ms"])


ALL_BUT_GRID = {"hadamard_dp_fetch": 1, "hadamard_dp_realdata": 1, "hadamard_dp_footpoint": 1,
                "hadamard_dp_privacy": 1, "hadamard_dp_report": 1, "paper_hadamard_dp": 1}


def test_fresh_plan_covers_the_whole_hadamard_dp_dag(tmp_path):
    root = copy_repo(tmp_path / "repo")
    jobs = planned_jobs(root, "paper_hadamard_dp")
    assert jobs == {**ALL_BUT_GRID, "hadamard_dp_grid": _n_cells(_settings(root))}


def test_full_plan_is_the_papers_grid(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root, "full")
    syn = s["synthetic"]
    assert syn["n"] == 40 and syn["r"] == 1.5 and syn["reps"] == 100
    assert sorted(m * (m + 1) // 2 for m in syn["ms"]) == [3, 10, 15]
    assert np.allclose(syn["mus"], np.round(np.arange(1, 21) * 0.1, 1))
    assert set(s["metrics"]) == {"affine_invariant", "log_euclidean", "log_cholesky"}
    assert s["real"]["source"] == "octmnist" and s["real"]["reps"] == 100
    jobs = planned_jobs(root, "paper_hadamard_dp", scale="full")
    assert jobs == {**ALL_BUT_GRID, "hadamard_dp_grid": 9}


def test_small_is_the_papers_grid_with_fewer_reps(tmp_path):
    s = _settings(copy_repo(tmp_path / "repo"), "small")
    assert len(s["synthetic"]["mus"]) == 20 and len(s["synthetic"]["ms"]) == 3
    assert s["synthetic"]["reps"] == 20 and s["mcmc"]["n_steps"] == 10000


def test_tiny_dag_outputs(tiny_hadamard_dp):
    out = tiny_hadamard_dp / "results/tiny/hadamard_dp"
    s = _settings(tiny_hadamard_dp)
    claims = load_claims(out / "claims.json")
    verdicts = {c["id"]: c["verdict"] for c in claims}
    for cid in ("privacy_ewl_within_eps", "privacy_ewl_control_violates",
                "privacy_ewg_within_delta", "privacy_ewg_control_violates"):
        assert verdicts[cid] == "holds", (cid, verdicts[cid])
    assert verdicts["ewg_beats_rl_log_euclidean_d15"] == "not testable at this scale"  # m=2 only
    util = pd.read_csv(out / "tables/utility.csv")
    assert set(util["metric"]) == set(s["metrics"])
    assert len(util) == _n_cells(s) * len(s["synthetic"]["mus"])
    rt = pd.read_csv(out / "tables/runtime.csv")
    assert (rt["RL / EWG"] > 1).all()
    cell = json.loads((out / "grid/log_cholesky_m2.json").read_text())
    assert np.array(cell["errors"]["ewg"]).shape == (s["synthetic"]["reps"],
                                                     len(s["synthetic"]["mus"]))
    assert cell["max_radius"] <= s["synthetic"]["r"] + 1e-9
    real = json.loads((out / "realdata.json").read_text())
    assert set(real["classes"]) == {str(c) for c in s["real"]["classes"]}



def test_editing_the_privacy_check_reruns_only_it(tiny_hadamard_dp, tmp_path):
    root = copy_finished(tiny_hadamard_dp, tmp_path / "edit_privacy")
    edit(root / "src/repro/papers/hadamard_dp/privacy_check.py")
    assert planned_jobs(root, "paper_hadamard_dp") == {
        "hadamard_dp_privacy": 1, "hadamard_dp_report": 1, "paper_hadamard_dp": 1}


def test_editing_the_mechanisms_reruns_every_release_not_the_fetch(tiny_hadamard_dp, tmp_path):
    root = copy_finished(tiny_hadamard_dp, tmp_path / "edit_mechanisms")
    edit(root / "src/repro/papers/hadamard_dp/mechanisms.py")
    expected = {**ALL_BUT_GRID, "hadamard_dp_grid": _n_cells(_settings(root))}
    del expected["hadamard_dp_fetch"]  # the descriptors do not depend on the mechanisms
    assert planned_jobs(root, "paper_hadamard_dp") == expected


def test_editing_the_data_code_reruns_fetch_and_real_data_only(tiny_hadamard_dp, tmp_path):
    root = copy_finished(tiny_hadamard_dp, tmp_path / "edit_data")
    edit(root / "src/repro/papers/hadamard_dp/data.py")
    assert planned_jobs(root, "paper_hadamard_dp") == {
        "hadamard_dp_fetch": 1, "hadamard_dp_realdata": 1, "hadamard_dp_report": 1,
        "paper_hadamard_dp": 1}


def test_budget_share_is_per_repetition_over_budgets_where_rl_exists():
    from repro.papers.hadamard_dp.report import budget_share_records

    nan = float("nan")
    cells = [  # 2 repetitions x 3 budgets; RL does not exist at the last budget of cell 1
        {"errors": {"ewg": [[1, 1, 1], [1, 3, 1]], "rl": [[2, 2, nan], [2, 2, nan]]}},
        {"errors": {"ewg": [[1, 5, 5], [5, 5, 5]], "rl": [[2, 2, 2], [2, 2, 2]]}},
        {"errors": {"ewl": [[1, 1, 1], [1, 1, 1]], "rl": [[2, 2, 2], [2, 2, 2]]}},  # no EWG
    ]
    recs = budget_share_records(cells)
    # rep 0 wins 2 of 2 (cell 1) + 1 of 3 (cell 2); rep 1 wins 1 of 2 + 0 of 3
    assert [(r["seed"], r["value"]) for r in recs] == [(0, 3 / 5), (1, 1 / 5)]
    assert {r["metric"] for r in recs} == {"all/frac_budgets_ewg_better"}
    assert budget_share_records(cells[2:]) == []
