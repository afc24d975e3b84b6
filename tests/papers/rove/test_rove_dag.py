"""ROVER's whole DAG at tiny scale, and the plans Snakemake makes after edits."""

from __future__ import annotations

import pandas as pd
import yaml
from conftest import copy_finished, copy_repo, edit, planned_jobs, snakemake

from repro.core.claims import load_claims

ROVE_RULES = {"rove_fetch", "rove_toy", "rove_theorem", "rove_sft", "rove_train", "rove_evaluate",
              "rove_math_fetch", "rove_math_base", "rove_math_train", "rove_math_evaluate",
              "rove_report", "paper_rove"}


def _settings(root):
    from repro.core.config import resolve_scale
    raw = yaml.safe_load((root / "src/repro/papers/rove/config.yaml").read_text())
    return resolve_scale(raw, "tiny")



def test_fresh_plan_covers_the_whole_rove_dag(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root)
    n_runs = len(s["countdown"]["methods"]) * len(s["seeds"])
    jobs = planned_jobs(root, "paper_rove")
    assert set(jobs) == ROVE_RULES
    assert jobs["rove_train"] == n_runs
    assert jobs["rove_evaluate"] == n_runs + len(s["seeds"])  # + the base policy per seed
    assert jobs["rove_sft"] == jobs["rove_fetch"] == 1
    n_math = len(s["math"]["methods"]) * len(s["seeds"])
    assert s["math"]["enabled"] and jobs["rove_math_train"] == n_math
    assert jobs["rove_math_evaluate"] == n_math + len(s["seeds"])
    assert jobs["rove_math_fetch"] == jobs["rove_math_base"] == 1
    all_jobs = planned_jobs(root, "all")
    assert all_jobs.get("summary") == 1
    assert ROVE_RULES - {"paper_rove"} <= set(all_jobs)  # `all` needs every paper's report


def test_tiny_dag_outputs(tiny_rove):
    out = tiny_rove / "results/tiny/rove"
    claims = load_claims(out / "claims.json")
    cfg = yaml.safe_load((tiny_rove / "src/repro/papers/rove/config.yaml").read_text())
    assert [c["id"] for c in claims] == [c["id"] for c in cfg["claims"]]
    for c in claims:
        assert c["verdict"] in {"holds", "contradicted", "inconclusive",
                                "not testable at this scale"}
        assert c["claim"] and isinstance(c["values"], dict)
    cd = pd.read_csv(out / "tables/countdown.csv")
    assert list(cd["method"]) == ["base", *_settings(tiny_rove)["countdown"]["methods"]]
    assert any("paper" in col for col in cd.columns)
    assert "0.7" in (out / "tables/countdown.md").read_text()  # the paper's avg@64, labelled
    math = pd.read_csv(out / "tables/math.csv")
    assert list(math["method"]) == ["base", *_settings(tiny_rove)["math"]["methods"],
                                    "best_baseline"]
    assert "math_pass@1 (ours)" in math.columns
    assert "72" in (out / "tables/math.md").read_text()  # the paper's Fig. 1 pass@256, labelled
    toy = pd.read_csv(out / "tables/toy.csv")
    assert set(toy["method"]) == set(_settings(tiny_rove)["toy"]["methods"])
    for fig in ("toy_policies", "passk", "entropy"):
        assert (out / f"figures/{fig}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "rove" in (tiny_rove / "results/tiny/rove/claims.md").read_text()
    assert list((tiny_rove / "logs/tiny/rove").glob("train_*.log"))



def test_editing_train_code_reruns_only_rove_train_evaluate_report(tiny_rove, tmp_path):
    root = copy_finished(tiny_rove, tmp_path / "edit_train")
    edit(root / "src/repro/papers/rove/train.py")
    s = _settings(root)
    n_runs = len(s["countdown"]["methods"]) * len(s["seeds"])
    n_math = len(s["math"]["methods"]) * len(s["seeds"])
    jobs = planned_jobs(root, "paper_rove")
    assert jobs == {"rove_train": n_runs, "rove_evaluate": n_runs, "rove_math_train": n_math,
                    "rove_math_evaluate": n_math, "rove_report": 1, "paper_rove": 1}


def test_editing_math_task_code_reruns_only_the_math_jobs(tiny_rove, tmp_path):
    root = copy_finished(tiny_rove, tmp_path / "edit_math")
    edit(root / "src/repro/core/rlvr/math_task.py")
    s = _settings(root)
    n_math = len(s["math"]["methods"]) * len(s["seeds"])
    jobs = planned_jobs(root, "paper_rove")
    assert jobs == {"rove_math_fetch": 1, "rove_math_base": 1, "rove_math_train": n_math,
                    "rove_math_evaluate": n_math + len(s["seeds"]), "rove_report": 1,
                    "paper_rove": 1}


def test_editing_plot_code_reruns_only_the_report(tiny_rove, tmp_path):
    root = copy_finished(tiny_rove, tmp_path / "edit_plots")
    edit(root / "src/repro/papers/rove/plots.py")
    assert planned_jobs(root, "paper_rove") == {"rove_report": 1, "paper_rove": 1}


def test_html_report_shows_tables_and_figures(tiny_rove, tmp_path):
    root = copy_finished(tiny_rove, tmp_path / "report")
    snakemake(root, "paper_rove", "--report", "report.html")
    html = (root / "report.html").read_text(errors="replace")
    for name in ("countdown.md", "toy_policies.png", "passk.png", "claims.md"):
        assert name in html


def test_bad_config_fails_before_any_job_with_one_line(tmp_path):
    root = copy_repo(tmp_path / "repo")
    proc = snakemake(root, "-n", "paper_rove", scale="huge", check=False)
    assert proc.returncode != 0
    line = [ln for ln in proc.stderr.splitlines() if "config error" in ln]
    assert len(line) == 1 and "'huge'" in line[0] and "'tiny', 'small', 'full'" in line[0]
    assert not (root / "results").exists()


def test_workflow_is_lint_clean(tmp_path):
    root = copy_repo(tmp_path / "repo")
    proc = snakemake(root, "--lint")
    assert "Congratulations, your workflow is in a good condition!" in proc.stdout + proc.stderr
