"""Transformers-as-students' whole DAG at tiny scale, its outputs, the full-scale plan, bad
config, and edit plans (an edit reruns exactly the jobs that depend on it)."""

from __future__ import annotations

import json

import pandas as pd
import yaml
from conftest import copy_finished, copy_repo, edit, planned_jobs, snakemake

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale
    raw = yaml.safe_load((root / "src/repro/papers/tstudent/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _n(s):
    return len(s["settings"]) * len(s["seeds"]), len(s["seeds"])


def test_fresh_plan_covers_the_whole_tstudent_dag(tmp_path):
    root = copy_repo(tmp_path / "repo")
    n_train, n_digits = _n(_settings(root))
    assert planned_jobs(root, "paper_tstudent") == {
        "tstudent_fetch": 1, "tstudent_cnn": 1, "tstudent_train": n_train,
        "tstudent_digits": n_digits, "tstudent_report": 1, "paper_tstudent": 1}


def test_full_plan_is_the_six_settings_with_mnist(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root, "full")
    assert s["digits"]["source"] == "mnist" and len(s["seeds"]) >= 3
    assert s["iterations"] >= 10 * _settings(root, "small")["iterations"]
    assert {(v["teacher"], v["D"], v["K"], v["act"]) for v in s["settings"].values()} == {
        ("conv", 36, 4, "relu"), ("conv", 36, 4, "leaky_relu"), ("gcn", 20, 3, "relu"),
        ("gcn", 20, 3, "leaky_relu"), ("sparse_token", 20, 4, "linear"),
        ("group_sparse", 20, 1, "linear")}
    n_train, n_digits = _n(s)
    jobs = planned_jobs(root, "paper_tstudent", scale="full")
    assert jobs["tstudent_train"] == n_train and jobs["tstudent_digits"] == n_digits


def test_a_wrong_setting_is_rejected_before_any_job(tmp_path):
    root = copy_repo(tmp_path / "repo")
    cfg = root / "src/repro/papers/tstudent/config.yaml"
    cfg.write_text(cfg.read_text().replace("{teacher: gcn, D: 20, K: 3, act: relu}",
                                           "{teacher: gcn, D: 20, K: 3, act: tanh}"))
    proc = snakemake(root, "-n", "paper_tstudent", check=False)
    assert proc.returncode != 0
    assert "settings.gcn_relu.act" in proc.stderr and "'leaky_relu'" in proc.stderr


def test_tiny_dag_outputs(tiny_tstudent):
    out = tiny_tstudent / "results/tiny/tstudent"
    s = _settings(tiny_tstudent)
    claims = load_claims(out / "claims.json")
    # claim ids, verdicts, tables and figures: tests/test_papers.py
    assert all(c["verdict"] != "not testable at this scale" for c in claims)
    rates = pd.read_csv(out / "tables/rates.csv")
    assert list(rates["setting"]) == list(s["settings"])
    assert set(rates["train-loss slope (paper)"]) == {-1.0}
    assert set(rates["OOD-loss slope (paper)"]) == {-0.5}
    assert "sklearn" in (out / "tables/digits.md").read_text()
    run = json.loads((out / "runs/conv_relu/seed0.json").read_text())
    assert run["D"] == 36 and run["K"] == 4 and len(run["attention"]) == 36
    assert len(run["curve"]["t"]) == len(run["curve"]["train_excess"]) > 2
    dig = json.loads((out / "digits/seed0.json").read_text())
    assert {"real_excess", "accuracy", "accuracy_ratio"} <= set(dig["final"])



def test_editing_the_student_reruns_the_students_not_data_or_cnn(tiny_tstudent, tmp_path):
    root = copy_finished(tiny_tstudent, tmp_path / "edit_student")
    edit(root / "src/repro/papers/tstudent/student.py")
    n_train, n_digits = _n(_settings(root))
    assert planned_jobs(root, "paper_tstudent") == {
        "tstudent_train": n_train, "tstudent_digits": n_digits, "tstudent_report": 1,
        "paper_tstudent": 1}


def test_editing_the_image_code_reruns_only_the_image_case(tiny_tstudent, tmp_path):
    root = copy_finished(tiny_tstudent, tmp_path / "edit_digits")
    edit(root / "src/repro/papers/tstudent/digits.py")
    _, n_digits = _n(_settings(root))
    assert planned_jobs(root, "paper_tstudent") == {
        "tstudent_fetch": 1, "tstudent_cnn": 1, "tstudent_digits": n_digits,
        "tstudent_report": 1, "paper_tstudent": 1}
