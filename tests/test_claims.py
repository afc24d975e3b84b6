"""The claims ledger: verdicts come from the numbers and their seed spread."""

from repro.core.claims import FAILS, HOLDS, UNTESTABLE, claims_markdown, evaluate_claim

GT = {"id": "c", "statement": "a beats b", "op": ">",
      "left": {"method": "a", "metric": "m"}, "right": {"method": "b", "metric": "m"}}


def recs(method, values, metric="m"):
    return [{"method": method, "metric": metric, "seed": s, "value": v}
            for s, v in enumerate(values)]


def test_clear_win_holds_with_paired_differences():
    r = evaluate_claim(GT, recs("a", [0.5, 0.6, 0.55]) + recs("b", [0.3, 0.35, 0.32]))
    assert r["verdict"] == HOLDS
    assert abs(r["values"]["diff_mean"] - (0.55 - 0.97 / 3)) < 1e-9
    lo, hi = r["values"]["diff_ci95"]
    assert 0 < lo <= r["values"]["diff_mean"] <= hi


def test_mean_win_with_spread_crossing_zero_does_not_hold():
    r = evaluate_claim(GT, recs("a", [0.9, 0.1, 0.5]) + recs("b", [0.2, 0.4, 0.5]))
    assert r["values"]["diff_mean"] > 0
    assert r["verdict"] == FAILS


def test_opposite_direction_does_not_hold():
    r = evaluate_claim(GT, recs("a", [0.1, 0.1]) + recs("b", [0.3, 0.3]))
    assert r["verdict"] == FAILS and r["values"]["diff_mean"] < 0


def test_constant_right_side_and_ge():
    claim = {**GT, "op": ">=", "right": {"value": 4}}
    assert evaluate_claim(claim, recs("a", [4, 4, 4]))["verdict"] == HOLDS
    assert evaluate_claim(claim, recs("a", [4, 3, 4]))["verdict"] == FAILS


def test_missing_metric_is_untestable_with_reason():
    claim = {**GT, "untestable_reason": "no pass@256 at small scale"}
    r = evaluate_claim(claim, recs("a", [1.0]))
    assert r["verdict"] == UNTESTABLE
    assert r["values"]["reason"] == "no pass@256 at small scale"


def test_verdicts_are_deterministic_and_rendered():
    records = recs("a", [0.5, 0.52, 0.7]) + recs("b", [0.45, 0.5, 0.4])
    assert evaluate_claim(GT, records) == evaluate_claim(GT, records)
    md = claims_markdown("p", "tiny", [evaluate_claim(GT, records)])
    assert "a beats b" in md and "`a.m > b.m`" in md
