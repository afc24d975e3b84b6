"""MCPMark's aggregation: hand-derived cases, a brute-force cross-check on random result sets,
the completeness rule, and the published-results check on a results folder in the layout of
eval-sys/mcpmark-experiments (summary.json + model_results/<model>/<task>.json)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from repro.papers.mcpmark.check import CASES, constructed_rows
from repro.papers.mcpmark.metrics import (
    Incomplete,
    aggregate,
    by_service,
    load_experiments,
    published_check,
)


def _records(ok, turns=None, service="s"):
    return [{"task": f"t{t}", "run": r + 1, "service": service, "success": bool(ok[t][r]),
             "turns": (turns or ok)[t][r] if turns else 1}
            for t in range(len(ok)) for r in range(len(ok[0]))]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hand_derived_cases(case):
    name, ok, turns, want = case
    got = aggregate(_records(ok, turns))
    for metric, value in want.items():
        assert got[metric] == pytest.approx(value, abs=1e-12), (name, metric)


def test_the_check_job_rows_are_exact():
    rows = constructed_rows()
    assert len(rows) == sum(len(c[3]) for c in CASES)
    assert max(r["abs_diff"] for r in rows) < 1e-12


def test_random_result_sets_against_a_brute_force_count():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n, k = int(rng.integers(1, 9)), int(rng.integers(1, 6))
        ok = rng.random((n, k)) < rng.random()
        turns = rng.integers(1, 30, (n, k))
        got = aggregate(_records(ok.tolist(), turns.tolist()))
        rates = [sum(ok[t][r] for t in range(n)) / n for r in range(k)]
        mean = sum(rates) / k
        assert got["pass@1"] == pytest.approx(mean)
        assert got["pass@1_std"] == pytest.approx(math.sqrt(sum((x - mean) ** 2 for x in rates)
                                                            / k))
        assert got[f"pass@{k}"] == pytest.approx(sum(any(row) for row in ok) / n)
        assert got[f"pass^{k}"] == pytest.approx(sum(all(row) for row in ok) / n)
        assert got["avg_turns"] == pytest.approx(turns.sum() / (n * k))
        assert got["pass@1"] == pytest.approx(ok.mean())  # the same as the per-task average


def test_incomplete_or_duplicated_sets_are_refused():
    recs = _records([[1, 0], [1, 1]])
    with pytest.raises(Incomplete, match="missing"):
        aggregate(recs[:-1], tasks=["t0", "t1"], runs=[1, 2])
    with pytest.raises(ValueError, match="two records"):
        aggregate(recs + recs[:1])
    with pytest.raises(Incomplete):
        aggregate(recs, tasks=["t0", "t1", "t2"])


def test_by_service_and_overall():
    a = _records([[1, 1], [0, 0]], service="filesystem")
    b = [{**r, "task": "p" + r["task"]} for r in _records([[1, 0]], service="postgres")]
    s = by_service(a + b, {"filesystem": ["t0", "t1"], "postgres": ["pt0"]}, [1, 2])
    assert s["filesystem"]["pass@1"] == 0.5 and s["postgres"]["pass@1"] == 0.5
    assert s["overall"]["tasks"] == 3 and s["overall"]["pass@2"] == pytest.approx(2 / 3)
    assert s["overall"]["pass^2"] == pytest.approx(1 / 3)


def test_the_published_check_on_a_results_folder(tmp_path):
    """A folder shaped like eval-sys/mcpmark-experiments; the summary's values written from the
    definitions by hand (2 tasks x 4 runs per service)."""
    runs = {"filesystem": {"a__x": [1, 1, 1, 1], "a__y": [0, 1, 0, 0]},
            "postgres": {"b__z": [1, 0, 1, 0], "b__w": [0, 0, 0, 0]}}
    folder = tmp_path / "model_results" / "m1"
    folder.mkdir(parents=True)
    for service, tasks in runs.items():
        for task, ok in tasks.items():
            doc = {"model": "m1", "service": service, "task": task, "runs": {
                f"run-{i + 1}": {"success": bool(s), "turn_count": 3 + i,
                                 "token_usage": {"input_tokens": 10, "output_tokens": 2,
                                                 "total_tokens": 12}}
                for i, s in enumerate(ok)}}
            (folder / f"{task}.json").write_text(json.dumps(doc))
    # filesystem per-run rates 1/2, 1, 1/2, 1/2: mean 5/8, sd sqrt(3/64); any 1, all 1/2
    # postgres rates 1/2, 0, 1/2, 0: mean 1/4, sd 1/4; any 1/2, all 0; turns (3+4+5+6)/4 = 4.5
    summary = {"k": 4,
               "filesystem": {"m1": {"total_tasks": 2, "pass@1": {"avg": 0.625, "std": 0.2165},
                                     "pass@4": 1.0, "pass^4": 0.5, "avg_turns": 4.5}},
               "postgres": {"m1": {"total_tasks": 2, "pass@1": {"avg": 0.25, "std": 0.25},
                                   "pass@4": 0.5, "pass^4": 0.0, "avg_turns": 4.5}},
               "overall": {"m1": {"total_tasks": 4, "pass@1": {"avg": 0.4375, "std": 0.1083},
                                  "pass@4": 0.75, "pass^4": 0.25, "avg_turns": 4.5}}}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    s, files = load_experiments(str(tmp_path), ["m1"])
    rows = published_check(s, files["m1"], "m1", ["filesystem", "postgres", "overall"])
    assert len(rows) == 15 and max(r["abs_diff"] for r in rows) < 1e-4
    summary["postgres"]["m1"]["pass^4"] = 0.25  # a wrong published number is caught
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    s, _ = load_experiments(str(tmp_path), [])
    worst = max(published_check(s, files["m1"], "m1", ["postgres"]), key=lambda r: r["abs_diff"])
    assert worst["metric"] == "pass^4" and worst["abs_diff"] == pytest.approx(0.25)


def test_pass_at_k_is_the_plain_any_rate_not_the_unbiased_estimator():
    """MCPMark's pass@4 with 4 runs is 'any of the 4', which the unbiased estimator of Chen et
    al. (n = k = 4) also gives; they differ for k < n, which MCPMark never uses."""
    for ok in itertools.product([0, 1], repeat=4):
        got = aggregate(_records([list(ok)]))
        assert got["pass@4"] == float(any(ok)) and got["pass^4"] == float(all(ok))
