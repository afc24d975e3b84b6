"""Contextual Stackelberg's whole DAG at tiny scale, its outputs, the full-scale plan, bad config,
and edit plans (an edit reruns exactly the jobs that depend on it)."""

from __future__ import annotations

import json

import pandas as pd
import yaml
from conftest import copy_finished, copy_repo, edit, planned_jobs, snakemake

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/stackelberg/config.yaml").read_text())

    return resolve_scale(raw, scale)


def _n_runs(s):
    return sum(len(spec.get("seeds", s["seeds"])) for spec in s["environments"].values())


def _plan(s):
    """Every job of a fresh DAG: runs, tuning runs, tuned runs (one per main seed of the
    ablation's environment), the report."""
    ab = s["ablation"]
    return {"stackelberg_run": _n_runs(s), "stackelberg_tune": len(ab["tuning_seeds"]),
            "stackelberg_tuned": len(s["environments"][ab["env"]].get("seeds", s["seeds"])),
            "stackelberg_report": 1, "paper_stackelberg": 1}


def test_fresh_plan_covers_the_whole_stackelberg_dag(tmp_path):
    root = copy_repo(tmp_path / "repo")
    s = _settings(root)
    assert planned_jobs(root, "paper_stackelberg") == _plan(s)
    assert set(s["ablation"]["tuning_seeds"]).isdisjoint(s["seeds"])
    full = _settings(root, "full")
    paper = full["environments"]["paper"]
    assert (paper["follower_types"], paper["leader_actions"], paper["follower_actions"],
            paper["context_dim"]) == (4, 4, 4, 2)
    assert len(full["seeds"]) >= 10 and max(full["horizons"]) >= 20000
    assert planned_jobs(root, "paper_stackelberg", scale="full") == _plan(full)
    assert set(full["ablation"]["tuning_seeds"]).isdisjoint(full["seeds"])


def test_a_wrong_algorithm_is_rejected_before_any_job(tmp_path):
    root = copy_repo(tmp_path / "repo")
    cfg = root / "src/repro/papers/stackelberg/config.yaml"
    cfg.write_text(cfg.read_text().replace("algorithms: [oful, logdet_ftrl, harris_etc,",
                                           "algorithms: [ucb, logdet_ftrl, harris_etc,", 1))
    proc = snakemake(root, "-n", "paper_stackelberg", check=False)
    assert proc.returncode != 0
    assert "environments.paper.algorithms.0" in proc.stderr and "'oful'" in proc.stderr


def test_tiny_dag_outputs(tiny_stackelberg):
    out = tiny_stackelberg / "results/tiny/stackelberg"
    s = _settings(tiny_stackelberg)
    claims = load_claims(out / "claims.json")
    # claim ids, verdicts, tables and figures: tests/test_papers.py
    assert all(c["verdict"] != "not testable at this scale" for c in claims)
    regret = pd.read_csv(out / "tables/regret.csv")
    assert [f"R({T})" for T in s["horizons"]] == [c for c in regret.columns if c.startswith("R(")]
    rows = {(e, a) for e, a in zip(regret["environment"], regret["algorithm"], strict=True)}
    assert ("paper", "Harris et al. (2024)") in rows and ("auction", "reduction + OFUL") in rows
    assert ("contextual", "Harris et al. (2024)") not in rows  # not defined there
    assert ("adversarial", "reduction + logdet-FTRL") in rows
    assert ("adversarial", "oracle (benchmark)") not in rows  # no type distribution to know
    assert ("adversarial_oful", "reduction + logdet-FTRL") in rows
    assert ("adversarial_oful", "Harris et al. (2024)") in rows
    assert ("adversarial_oful", "oracle (benchmark)") not in rows
    adv = json.loads((out / "runs/adversarial_oful/seed0.json").read_text())
    assert adv["instance"]["p"] is None and adv["instance"]["type_adversary"]["against"] == "oful"
    assert abs(sum(adv["adversary"]["type_frequencies"]) - 1.0) < 1e-9
    assert adv["adversary"]["switches"] > 0
    tuned = pd.read_csv(out / "tables/tuned.csv")
    assert list(tuned["algorithm"]) == ["reduction + OFUL", "reduction + logdet-FTRL",
                                        "Harris et al. (2024)"]
    assert set(tuned["chosen"]) <= {f"c={c:g}" + sfx for c in s["ablation"]["multipliers"]
                                    for sfx in ("", ", no log")}
    paper_rate = dict(zip(regret["algorithm"], regret["exponent (paper)"], strict=False))
    assert paper_rate["reduction + OFUL"] == 0.5 and round(paper_rate["Harris et al. (2024)"],
                                                          2) == 0.67
    run = json.loads((out / "runs/paper/seed0.json").read_text())
    assert run["instance"]["n_arms"] > 4 and run["instance"]["p"] == [0.25] * 4
    assert set(run["regret"]) == {"oful", "logdet_ftrl", "harris_etc", "full_info", "random",
                                  "oracle"}
    assert all(set(v) == {str(T) for T in s["horizons"]} for v in run["regret"].values())
    assert set(run["regret"]["oracle"].values()) == {0.0}
    c = run["curves"]["oful"]
    assert c["t"][-1] == max(s["horizons"]) and len(c["t"]) == len(c["regret"]) > 3
    # the wide-horizon environment: its own horizons, its own table, not in the main one
    wide_T = s["environments"]["wide"]["horizons"]
    assert wide_T != s["horizons"] and "wide" not in set(regret["environment"])
    wide = json.loads((out / "runs/wide/seed0.json").read_text())
    assert set(wide["regret"]) == {"oful", "harris_etc"}
    assert all(set(v) == {str(T) for T in wide_T} for v in wide["regret"].values())
    table = pd.read_csv(out / "tables/regret_wide.csv")
    assert [f"R({T})" for T in wide_T] == [c for c in table.columns if c.startswith("R(")]
    assert set(table["environment"]) == {"wide"}
    records = {(r["method"], r["metric"]): r["value"]
               for r in json.loads((out / "records.json").read_text())
               if r["method"].startswith("wide/")}
    slope = records[("wide/harris_etc", "slope")]
    assert abs(records[("wide/harris_etc", "growth_over_sqrt")] - (slope - 0.5)) < 1e-12
    assert abs(records[("wide/harris_etc", "growth_over_two_thirds")] - (slope - 2 / 3)) < 1e-12


def test_editing_an_algorithm_reruns_every_run_and_the_report(tiny_stackelberg, tmp_path):
    root = copy_finished(tiny_stackelberg, tmp_path / "edit_algorithms")
    edit(root / "src/repro/papers/stackelberg/algorithms.py")
    assert planned_jobs(root, "paper_stackelberg") == _plan(_settings(root))
