"""The claims ledger: verdicts come from t intervals over seeds, with a minimum of seeds and Holm.

Every interval and p-value is checked against a hand computation (numpy + t quantiles) and,
where scipy has the same test, against scipy."""

import json

import numpy as np
import pytest
from scipy import stats

import repro.core.claims as claims_mod
from repro.core.claims import (
    CONTRADICTED,
    HOLDS,
    INCONCLUSIVE,
    MIN_UNITS,
    UNTESTABLE,
    VERDICTS,
    claims_markdown,
    evaluate_claim,
    evaluate_claims,
    holm,
)
from repro.core.summary import summary_markdown

GT = {"id": "c", "statement": "a beats b", "op": ">",
      "left": {"method": "a", "metric": "m"}, "right": {"method": "b", "metric": "m"}}
T975 = {df: stats.t.ppf(0.975, df) for df in range(1, 1001)}


def recs(method, values, metric="m", seeds=None):
    seeds = range(len(values)) if seeds is None else seeds
    return [{"method": method, "metric": metric, "seed": s, "value": v}
            for s, v in zip(seeds, values, strict=True)]


def hand_t(d):
    """mean, (lo, hi), sd of a one-sample t interval, written out."""
    d = np.asarray(d, float)
    n, mean, sd = len(d), d.mean(), d.std(ddof=1)
    half = T975[n - 1] * sd / np.sqrt(n)
    return mean, (mean - half, mean + half), sd


def test_four_verdicts_and_no_fails():
    assert VERDICTS == (HOLDS, CONTRADICTED, INCONCLUSIVE, UNTESTABLE)
    assert len(set(VERDICTS)) == 4 and MIN_UNITS == 3
    assert not hasattr(claims_mod, "FAILS") and "does not hold" not in VERDICTS


def test_one_seed_never_holds_however_large_the_effect():
    r = evaluate_claim(GT, recs("a", [0.9]) + recs("b", [0.1]))
    assert r["verdict"] == INCONCLUSIVE and r["verdict_holm"] == INCONCLUSIVE
    v = r["values"]
    assert v["reason"] == "n=1 < 3 independent units" == v["method"]
    assert v["diff_ci95"] is None and v["left_std"] is None and r["p_value"] is None
    assert abs(v["diff_mean"] - 0.8) < 1e-12 and v["n_seeds"] == 1
    md = claims_markdown("p", "tiny", [r])
    assert "n=1 < 3 independent units" in md and "(no interval)" in md


def test_two_seeds_are_below_the_default_minimum_but_a_claim_may_lower_it():
    records = recs("a", [0.9, 0.91]) + recs("b", [0.1, 0.12])
    assert evaluate_claim(GT, records)["values"]["reason"] == "n=2 < 3 independent units"
    assert evaluate_claim({**GT, "min_units": 2}, records)["verdict"] == HOLDS
    strict = {**GT, "min_units": 5}
    r = evaluate_claim(strict, recs("a", [0.5, 0.6, 0.55]) + recs("b", [0.3, 0.35, 0.32]))
    assert r["verdict"] == INCONCLUSIVE and r["values"]["reason"] == "n=3 < 5 independent units"
    with pytest.raises(ValueError, match="min_units"):
        evaluate_claim({**GT, "min_units": 1}, records)


def test_clear_win_at_three_seeds_holds_with_the_paired_t_interval():
    a, b = [0.5, 0.6, 0.55], [0.3, 0.35, 0.32]
    r = evaluate_claim(GT, recs("a", a) + recs("b", b))
    assert r["verdict"] == HOLDS == r["verdict_holm"]
    v = r["values"]
    mean, (lo, hi), sd = hand_t(np.subtract(a, b))
    assert abs(v["diff_mean"] - mean) < 1e-12 and abs(mean - (0.55 - 0.97 / 3)) < 1e-12
    assert abs(v["diff_ci95"][0] - lo) < 1e-9 and abs(v["diff_ci95"][1] - hi) < 1e-9
    ci = stats.ttest_rel(a, b).confidence_interval(0.95)
    assert abs(ci.low - lo) < 1e-9 and abs(ci.high - hi) < 1e-9
    assert v["method"] == "paired t" and v["df"] == 2 and v["n_seeds"] == 3
    assert v["unpaired_left"] == [] and v["unpaired_right"] == []
    tstat = mean / (sd / np.sqrt(3))
    assert abs(r["p_value"] - stats.t.sf(tstat, 2)) < 1e-12
    assert abs(r["p_two_sided"] - 2 * stats.t.sf(tstat, 2)) < 1e-12
    assert r["p_holm"] == r["p_two_sided"]  # a family of one
    assert v["n_needed"] is None and v["min_detectable_effect"] is None


def test_clear_effect_the_other_way_is_contradicted():
    a, b = [0.1, 0.12, 0.11], [0.3, 0.31, 0.33]
    r = evaluate_claim(GT, recs("a", a) + recs("b", b))
    assert r["verdict"] == CONTRADICTED == r["verdict_holm"]
    _, (lo, hi), _ = hand_t(np.subtract(a, b))
    assert hi < 0 and abs(r["values"]["diff_ci95"][1] - hi) < 1e-9
    assert r["p_value"] > 0.99  # one-sided in the claimed direction
    assert r["p_two_sided"] < 0.05
    assert evaluate_claim({**GT, "op": "<"}, recs("a", a) + recs("b", b))["verdict"] == HOLDS


def test_noisy_win_is_inconclusive_with_seeds_needed_and_detectable_effect():
    a, b = [0.9, 0.1, 0.5], [0.2, 0.4, 0.5]
    r = evaluate_claim(GT, recs("a", a) + recs("b", b))
    v = r["values"]
    assert v["diff_mean"] > 0 and r["verdict"] == INCONCLUSIVE
    mean, (lo, hi), sd = hand_t(np.subtract(a, b))
    assert lo < 0 < hi
    assert abs(v["min_detectable_effect"] - T975[2] * sd / np.sqrt(3)) < 1e-12
    need = next(n for n in range(3, 1001) if T975[n - 1] * sd / np.sqrt(n) < abs(mean))
    assert v["n_needed"] == need and need > 3
    assert T975[need - 2] * sd / np.sqrt(need - 1) >= abs(mean)  # one fewer is not enough
    md = claims_markdown("p", "tiny", [r])
    assert f"needs n={need}" in md and f"{v['min_detectable_effect']:.3g}" in md


def test_effect_of_zero_reports_effect_about_zero():
    r = evaluate_claim(GT, recs("a", [0.1, 0.3, 0.2]) + recs("b", [0.2, 0.2, 0.2]))
    assert r["verdict"] == INCONCLUSIVE and abs(r["values"]["diff_mean"]) < 1e-12
    assert r["values"]["n_needed"] is None
    assert "effect ~0" in claims_markdown("p", "tiny", [r])


def test_no_shared_seeds_uses_welch_not_cross_differences():
    a, b = [0.5, 0.6, 0.55], [0.3, 0.35, 0.32, 0.45]
    r = evaluate_claim(GT, recs("a", a) + recs("b", b, seeds=[10, 11, 12, 13]))
    v = r["values"]
    assert v["method"] == "Welch t" and v["n_left"] == 3 and v["n_right"] == 4
    va, vb = np.var(a, ddof=1) / 3, np.var(b, ddof=1) / 4
    df = (va + vb) ** 2 / (va**2 / 2 + vb**2 / 3)
    half = stats.t.ppf(0.975, df) * np.sqrt(va + vb)
    mean = np.mean(a) - np.mean(b)
    assert abs(v["df"] - df) < 1e-9 and abs(v["diff_mean"] - mean) < 1e-12
    assert abs(v["diff_ci95"][0] - (mean - half)) < 1e-9
    assert abs(v["diff_ci95"][1] - (mean + half)) < 1e-9
    sp = stats.ttest_ind(a, b, equal_var=False)
    ci = sp.confidence_interval(0.95)
    assert abs(ci.low - v["diff_ci95"][0]) < 1e-9 and abs(ci.high - v["diff_ci95"][1]) < 1e-9
    assert abs(r["p_two_sided"] - sp.pvalue) < 1e-12
    cross = [x - y for x in a for y in b]  # the old, wrong n x m "sample"
    _, (clo, chi), _ = hand_t(cross)
    assert v["diff_ci95"][0] < clo - 1e-3 and v["df"] < len(cross) - 1 and v["n_seeds"] == 3


def test_paired_false_forces_welch_on_shared_seeds():
    a, b = [0.5, 0.6, 0.55], [0.3, 0.35, 0.32]
    r = evaluate_claim({**GT, "paired": False}, recs("a", a) + recs("b", b))
    ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert r["values"]["method"] == "Welch t"
    assert abs(r["values"]["diff_ci95"][0] - ci.low) < 1e-9


def test_partial_overlap_pairs_the_shared_seeds_and_reports_the_rest():
    left = recs("a", [0.9, 0.8, 0.5, 0.6, 0.55], seeds=[0, 1, 2, 3, 4])
    right = recs("b", [0.3, 0.35, 0.32, 0.0, 0.1], seeds=[2, 3, 4, 5, 6])
    r = evaluate_claim(GT, left + right)
    v = r["values"]
    assert v["n_seeds"] == 3 and v["method"] == "paired t"
    assert v["unpaired_left"] == [0, 1] and v["unpaired_right"] == [5, 6]
    mean, (lo, hi), _ = hand_t(np.subtract([0.5, 0.6, 0.55], [0.3, 0.35, 0.32]))
    assert abs(v["diff_mean"] - mean) < 1e-12 and abs(v["diff_ci95"][0] - lo) < 1e-9
    assert abs(v["left_mean"] - 0.55) < 1e-12  # described over the seeds actually used
    md = claims_markdown("p", "tiny", [r])
    assert "unpaired left seeds: 0, 1" in md and "unpaired right seeds: 5, 6" in md


def test_constant_right_side_is_a_one_sample_t_and_ge_accepts_touching():
    claim = {**GT, "op": ">=", "right": {"value": 4}}
    x = [4.5, 4.2, 4.9, 4.4]
    r = evaluate_claim(claim, recs("a", x))
    ci = stats.ttest_1samp(np.subtract(x, 4), 0).confidence_interval(0.95)
    assert r["verdict"] == HOLDS and r["values"]["method"] == "one-sample t"
    assert abs(r["values"]["diff_ci95"][0] - ci.low) < 1e-9
    assert r["values"]["right_mean"] == 4.0 and r["values"]["right_std"] == 0.0
    exact = evaluate_claim(claim, recs("a", [4, 4, 4]))  # every unit on the bound
    assert exact["verdict"] == HOLDS and exact["values"]["diff_ci95"] == [0.0, 0.0]
    assert exact["p_value"] == 0.0
    assert evaluate_claim({**claim, "op": ">"}, recs("a", [4, 4, 4]))["verdict"] == INCONCLUSIVE
    assert evaluate_claim(claim, recs("a", [4, 3, 4]))["verdict"] == INCONCLUSIVE
    assert evaluate_claim(claim, recs("a", [3, 3.1, 2.9]))["verdict"] == CONTRADICTED


def test_holm_downgrades_the_weaker_of_two_raw_wins():
    data = {"x": [1.0, 1.1, 0.9, 1.05], "y": [1.2, 2.0, 2.8, 0.9], "z": [0.5, -0.4, 0.3, -0.2]}
    cl = [{"id": k, "statement": k, "op": ">", "left": {"method": "a", "metric": k},
           "right": {"value": 0}} for k in data]
    records = [r for k, v in data.items() for r in recs("a", v, metric=k)]
    out = evaluate_claims(cl, records)
    p = [stats.ttest_1samp(v, 0).pvalue for v in data.values()]  # two-sided, df = 3
    assert [r["p_two_sided"] for r in out] == pytest.approx(p, abs=1e-12)
    assert p[0] < p[1] < 0.05 < p[2] and 2 * p[1] > 0.05
    by_hand = [3 * p[0], max(3 * p[0], 2 * p[1]), max(3 * p[0], 2 * p[1], p[2])]
    assert [r["p_holm"] for r in out] == pytest.approx(by_hand, abs=1e-12)
    assert [r["verdict"] for r in out] == [HOLDS, HOLDS, INCONCLUSIVE]
    assert [r["verdict_holm"] for r in out] == [HOLDS, INCONCLUSIVE, INCONCLUSIVE]
    one_sided = [stats.ttest_1samp(v, 0, alternative="greater").pvalue for v in data.values()]
    assert [r["p_value"] for r in out] == pytest.approx(one_sided, abs=1e-12)
    md = claims_markdown("p", "tiny", out)
    assert "| **holds** | inconclusive |" in md


def test_holm_adjustment_by_hand_and_family_excludes_untested_claims():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.5]) == [1.0, 1.0] and holm([]) == []
    cl = [GT, {**GT, "id": "u", "left": {"method": "a", "metric": "absent"}},
          {**GT, "id": "n1", "left": {"method": "a", "metric": "one"}}]
    records = (recs("a", [0.5, 0.6, 0.55]) + recs("b", [0.3, 0.35, 0.32])
               + recs("a", [1.0], metric="one"))
    out = evaluate_claims(cl, records)
    assert out[0]["p_holm"] == out[0]["p_two_sided"]  # the other two are not in the family
    assert [r["verdict_holm"] for r in out] == [HOLDS, UNTESTABLE, INCONCLUSIVE]
    assert out[1]["p_holm"] is None and out[2]["p_holm"] is None


def test_missing_metric_is_untestable_with_reason():
    claim = {**GT, "untestable_reason": "no pass@256 at small scale"}
    r = evaluate_claim(claim, recs("a", [1.0]))
    assert r["verdict"] == UNTESTABLE == r["verdict_holm"]
    assert r["values"]["reason"] == "no pass@256 at small scale"
    assert r["p_value"] is None and r["p_holm"] is None
    assert "no pass@256 at small scale" in claims_markdown("p", "tiny", [r])


def test_verdicts_are_deterministic_json_clean_and_rendered():
    records = recs("a", [0.5, 0.52, 0.7]) + recs("b", [0.45, 0.5, 0.4]) + recs("a", [1.0], "o")
    cl = [GT, {**GT, "id": "o", "left": {"method": "a", "metric": "o"}}]
    first, second = evaluate_claims(cl, records), evaluate_claims(cl, records)
    assert first == second
    text = json.dumps(first, sort_keys=True, allow_nan=False)  # no NaN, no numpy scalars
    assert json.loads(text) == first
    md = claims_markdown("p", "tiny", first)
    assert "a beats b" in md and "`a.m > b.m`" in md and "Student t interval" in md
    assert "Holm" in md and "Welch" in md


def test_summary_counts_the_four_verdicts(tmp_path):
    records = recs("a", [0.5, 0.6, 0.55]) + recs("b", [0.3, 0.35, 0.32]) + recs("a", [1.0], "o")
    out = evaluate_claims([GT, {**GT, "id": "o", "left": {"method": "a", "metric": "o"}}],
                          records)
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(out))
    text = summary_markdown("tiny", ["p"], [str(path)])
    assert text.count("| p |") == 2 and "**holds**" in text and "**inconclusive**" in text
    assert ("Totals: holds: 1, contradicted: 0, inconclusive: 1, "
            "not testable at this scale: 0") in text
    assert "n=1 < 3 independent units" in text


def test_the_ledger_carries_its_provenance(tmp_path, monkeypatch):
    """write_ledger: claims.json keeps the verdicts and the run's provenance (settings hash,
    seeds, versions, machine, each job's wall time from its benchmark file), the ledger, the
    tables and the summary end with the same one-line footer, which same-seed comparisons
    strip."""
    from repro.core.claims import load_claims, load_provenance, write_ledger
    from repro.core.provenance import FOOTER, footer_text, settings_hash, strip_footer

    monkeypatch.chdir(tmp_path)
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "train_a_seed0.tsv").write_text("s\th:m:s\tmax_rss\n12.5\t0:00:12\t100\n")
    (bench / "broken.tsv").write_text("nothing useful\n")
    out = tmp_path / "results"
    (out / "tables").mkdir(parents=True)
    (out / "tables" / "t.md").write_text("| a |\n|---|\n| 1 |\n")
    records = recs("a", [0.5, 0.6, 0.55]) + recs("b", [0.3, 0.35, 0.32])
    settings = {"seeds": [0, 1, 2], "lr": 0.1}
    write_ledger(out, "p", "tiny", [GT], records, settings=settings, bench_dir=bench)
    prov = load_provenance(out / "claims.json")
    assert [c["id"] for c in load_claims(out / "claims.json")] == [GT["id"]]
    assert prov["settings_sha256"] == settings_hash({"lr": 0.1, "seeds": [0, 1, 2]})
    assert prov["settings_sha256"] != settings_hash({**settings, "lr": 0.2})
    assert prov["seeds"] == [0, 1, 2] and prov["commit"] is None and prov["dirty"] is None
    assert prov["job_seconds"] == {"train_a_seed0": 12.5} and prov["jobs"] == 1
    line = footer_text(prov)
    assert "settings sha256 " + prov["settings_sha256"][:12] in line and "12.5 s" in line
    for md in (out / "claims.md", out / "tables" / "t.md"):
        text = md.read_text()
        assert text.endswith(f"{FOOTER}\n_{line}_\n") and text.count(FOOTER) == 1
    assert strip_footer((out / "tables" / "t.md").read_text()) == "| a |\n|---|\n| 1 |\n"
    summary = summary_markdown("tiny", ["p"], [str(out / "claims.json")])
    assert f"- {line}" in summary


def test_an_exact_check_holds_on_one_unit_and_one_failing_unit_contradicts_it():
    """`exact: true` (an identity in float64, a worst case with its tolerance): no interval, no
    minimum; every unit must satisfy the bound, and Holm leaves it as it is."""
    claim = {"id": "e", "statement": "identity", "op": "<=", "exact": True,
             "left": {"method": "id", "metric": "err"}, "right": {"value": 1e-10}}
    one = evaluate_claim(claim, recs("id", [3e-16], metric="err"))
    assert one["verdict"] == one["verdict_holm"] == HOLDS and one["p_value"] is None
    assert one["values"]["n_seeds"] == 1 and one["values"]["units_failing"] == 0
    bad = evaluate_claim(claim, recs("id", [3e-16, 2e-9, 0.0], metric="err"))
    assert bad["verdict"] == CONTRADICTED and bad["values"]["units_failing"] == 1
    assert bad["values"]["diff_range"] == [pytest.approx(-1e-10), pytest.approx(2e-9 - 1e-10)]
    # the same single value as a statistical claim is below the minimum: never a decision
    stat = evaluate_claim({**claim, "exact": False}, recs("id", [3e-16], metric="err"))
    assert stat["verdict"] == INCONCLUSIVE
    assert "1 units fail" not in claims_markdown("p", "tiny", [one])
    assert "1 of 3 units fail" in claims_markdown("p", "tiny", [bad])
    apart = {**claim, "right": {"method": "ref", "metric": "err"}}
    none = evaluate_claim(apart, recs("id", [0.0], metric="err") + recs("ref", [0.0], "err", [7]))
    assert none["verdict"] == INCONCLUSIVE and "share no unit" in claims_markdown("p", "t", [none])


def test_a_claim_that_rests_on_our_reading_says_so_in_the_ledger():
    claim = {**GT, "interpretation": "success = the greedy policy reaches a rewarding leaf"}
    r = evaluate_claim(claim, recs("a", [0.5, 0.6, 0.55]) + recs("b", [0.3, 0.35, 0.32]))
    assert r["interpretation"] == claim["interpretation"]
    assert "our reading: success = the greedy policy reaches a rewarding leaf" in (
        claims_markdown("p", "tiny", [r]))
    assert "our reading" not in claims_markdown("p", "tiny", [evaluate_claim(GT, recs(
        "a", [0.5, 0.6, 0.55]) + recs("b", [0.3, 0.35, 0.32]))])


def test_a_pipe_in_a_claim_stays_inside_its_ledger_cell():
    claim = {**GT, "statement": "flat (|slope - 2/3| < 0.1)", "paper": "a | b",
             "paper_diff": -0.1}
    r = evaluate_claim(claim, recs("a", [3.0, 3.1, 3.2]) + recs("b", [1.0, 1.1, 1.0]))
    assert r["paper_diff"] == -0.1  # kept for the claims figure
    row = [ln for ln in claims_markdown("p", "tiny", [r]).splitlines() if "flat (" in ln][0]
    cells = [c for c in row.replace("\\|", "").split("|")[1:-1]]
    assert len(cells) == 10 and "\\|slope - 2/3\\|" in row and "a \\| b" in row
