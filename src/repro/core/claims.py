"""The claims ledger: each paper claim is data (config), evaluated on reproduced numbers.

Results arrive as long records {method, metric, seed, value}. A claim compares a left side
(method, metric) with a right side (another method/metric, or a constant) under `op`; the null is
a difference of 0. The test is a Student t interval (95%, two-sided), never a bootstrap, so it
stays valid at a handful of seeds: paired t on per-seed differences when the sides share seeds
(seeds only on one side are reported, not used), one-sample t on left - x for a constant right
side, Welch t when they share none or the claim says `paired: false`. Four verdicts:

- `holds`: the interval excludes 0 on the claimed side (`>=`/`<=` also accept it touching 0);
- `contradicted`: it excludes 0 on the other side;
- `inconclusive`: it crosses 0 (the ledger gives the seeds the observed effect would need and the
  smallest effect detectable now), or fewer than `min_units` (default MIN_UNITS) units exist;
- `not testable at this scale`: a metric is not produced, with the reason.
A claim marked `exact: true` is a deterministic check (an identity in float64, a worst case
over enumerated cases): every unit must satisfy it to hold, one that fails contradicts it.

Across a paper's claims Holm-Bonferroni (family-wise 0.05) on the two-sided p-values gives
`verdict_holm`, which can only downgrade a verdict to `inconclusive`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

HOLDS = "holds"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
UNTESTABLE = "not testable at this scale"
VERDICTS = (HOLDS, CONTRADICTED, INCONCLUSIVE, UNTESTABLE)

OPS = {">", ">=", "<", "<="}
LEVEL = 0.95  # two-sided interval level; a claim's test is the matching two-sided t test
ALPHA = 0.05  # family-wise error rate of the Holm step across one paper's claims
MIN_UNITS = 3  # fewer independent units (seeds) than this: inconclusive, never a decision
N_NEEDED_MAX = 1000  # n_needed beyond this is reported as None ("effect ~0")

METHOD_NOTE = (
    "Each claim is a t test of the difference against 0: a Student t interval (95%, two-sided) "
    "on the per-seed paired differences (seeds present on one side only are listed, not used); "
    "a one-sample t interval on left - x for a constant right side; Welch's t interval "
    "(Welch-Satterthwaite df) for the difference of means when the sides share no seeds or the "
    "claim says `paired: false`."
)


def _values(records: Iterable[Mapping[str, Any]], method: str, metric: str) -> dict[Any, float]:
    return {
        r["seed"]: float(r["value"])
        for r in records
        if r["method"] == method and r["metric"] == metric and r["value"] is not None
    }


def _seed_order(seed: Any) -> tuple[str, Any]:
    """Sort key that tolerates int and str seeds together (deterministic output)."""
    return (type(seed).__name__, seed)


def _sd(x: np.ndarray) -> float | None:
    """Sample sd; None (not NaN) where it is undefined, so the JSON stays valid."""
    return float(x.std(ddof=1)) if len(x) > 1 else None


def _mean(x: np.ndarray) -> float | None:
    return float(x.mean()) if len(x) else None


def _ordered(values: dict[Any, float], seeds: Iterable[Any] | None = None) -> np.ndarray:
    """The values of `seeds` (default: all, in seed order) as an array."""
    return np.array([values[s] for s in (sorted(values, key=_seed_order) if seeds is None
                                          else seeds)])


def _describe(lv: np.ndarray, rv: np.ndarray) -> dict[str, float | None]:
    """Each side's mean and sd, as every verdict's values report them."""
    return {"left_mean": _mean(lv), "left_std": _sd(lv), "right_mean": _mean(rv),
            "right_std": _sd(rv)}


@dataclass(frozen=True)
class TTest:
    """One claim's t test: the mean difference, its standard error and degrees of freedom.

    `se_at(N)`/`df_at(N)` give the same spread at N units (per side for Welch), which is what
    `n_needed` scans."""

    method: str
    mean: float
    se: float
    df: float | None  # None only for Welch with zero spread on both sides (0/0)
    start_n: int
    se_at: Callable[[int], float]
    df_at: Callable[[int], float]

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        half = self.half_width(level)
        return self.mean - half, self.mean + half

    def half_width(self, level: float = LEVEL) -> float:
        if self.se == 0:
            return 0.0
        return float(stats.t.ppf(1 - (1 - level) / 2, self.df) * self.se)

    def p_greater_less(self, op: str) -> tuple[float, float]:
        """One-sided p-values for diff > 0 and diff < 0. With zero spread every unit gives the
        same difference, so its sign is certain (p 0 or 1); all units exactly at 0 count as
        evidence for `>=`/`<=` (consistent with their interval touching 0)."""
        if self.se > 0:
            tstat = self.mean / self.se
            return float(stats.t.sf(tstat, self.df)), float(stats.t.cdf(tstat, self.df))
        if self.mean > 0:
            return 0.0, 1.0
        if self.mean < 0:
            return 1.0, 0.0
        return (0.0, 1.0) if op == ">=" else (1.0, 0.0) if op == "<=" else (1.0, 1.0)

    def n_needed(self, level: float = LEVEL, cap: int = N_NEEDED_MAX) -> int | None:
        """Smallest N >= start_n at which this mean and spread give an interval excluding 0;
        None when even `cap` units would not (effect ~0)."""
        if self.mean == 0:
            return None
        ns = np.arange(max(self.start_n, 2), cap + 1)
        if len(ns) == 0:
            return None
        dfs = np.array([self.df_at(int(n)) for n in ns])
        ses = np.array([self.se_at(int(n)) for n in ns])
        half = stats.t.ppf(1 - (1 - level) / 2, dfs) * ses
        ok = np.flatnonzero(half < abs(self.mean))
        return int(ns[ok[0]]) if len(ok) else None


def one_sample_t(d: np.ndarray, method: str = "paired t") -> TTest:
    """t test of mean(d) = 0 (paired differences, or left values minus a constant)."""
    n = len(d)
    sd = float(d.std(ddof=1))
    return TTest(method, float(d.mean()), float(sd / np.sqrt(n)), n - 1, n,
                 lambda k: sd / np.sqrt(k), lambda k: k - 1)


def welch_df(v1: float, n1: int, v2: float, n2: int) -> float | None:
    """Welch-Satterthwaite df from the two sample variances; None when both are 0."""
    a, b = v1 / n1, v2 / n2
    den = a * a / (n1 - 1) + b * b / (n2 - 1)
    return float((a + b) ** 2 / den) if den > 0 else None


def welch_t(a: np.ndarray, b: np.ndarray) -> TTest:
    """Welch t test of mean(a) - mean(b) = 0: independent samples, unequal variances."""
    n1, n2 = len(a), len(b)
    v1, v2 = float(a.var(ddof=1)), float(b.var(ddof=1))
    se = float(np.sqrt(v1 / n1 + v2 / n2))
    return TTest(
        "Welch t", float(a.mean() - b.mean()), se, welch_df(v1, n1, v2, n2), max(n1, n2),
        lambda k: float(np.sqrt((v1 + v2) / k)),
        lambda k: welch_df(v1, k, v2, k) or float(k - 1),
    )


def holm(p: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (monotone, capped at 1), in the input order."""
    m = len(p)
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda j: (p[j], j))):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def _decide(op: str, lo: float, hi: float) -> str:
    """Verdict from the interval: on the claimed side of 0 (touching allowed for >=, <=)."""
    if op in (">", ">="):
        holds, contradicted = lo > 0 or (op == ">=" and lo >= 0), hi < 0
    else:
        holds, contradicted = hi < 0 or (op == "<=" and hi <= 0), lo > 0
    return HOLDS if holds else CONTRADICTED if contradicted else INCONCLUSIVE


def _min_units(claim: Mapping[str, Any]) -> int:
    k = int(claim.get("min_units", MIN_UNITS))
    if k < 2:
        raise ValueError(f"claim {claim['id']}: min_units {k} < 2 (a t interval needs 2 units)")
    return k


def _test(
    claim: Mapping[str, Any], left: dict[Any, float], right: dict[Any, float] | float
) -> tuple[TTest | None, int, dict[str, Any]]:
    """Choose and run the test. Returns it (None below 2 units), the unit count that the
    minimum applies to, and the descriptive values of the units it used."""
    if not isinstance(right, dict):  # constant right side: one-sample t on left - x
        lv = _ordered(left)
        desc = {"left_mean": _mean(lv), "left_std": _sd(lv), "right_mean": right,
                "right_std": 0.0, "diff_mean": float(lv.mean() - right), "n_seeds": len(lv)}
        test = one_sample_t(lv - right, "one-sample t") if len(lv) >= 2 else None
        return test, len(lv), desc
    shared = sorted(set(left) & set(right), key=_seed_order)
    paired = claim.get("paired")
    if paired is None:
        paired = bool(shared)
    if not paired:
        lv, rv = _ordered(left), _ordered(right)
        n = min(len(lv), len(rv))
        desc = {**_describe(lv, rv), "diff_mean": float(lv.mean() - rv.mean()),
                "n_seeds": n, "n_left": len(lv), "n_right": len(rv)}
        return (welch_t(lv, rv) if n >= 2 else None), n, desc
    lv, rv = _ordered(left, shared), _ordered(right, shared)
    desc = {
        **_describe(lv, rv), "diff_mean": _mean(lv - rv), "n_seeds": len(shared),
        "unpaired_left": sorted(set(left) - set(shared), key=_seed_order),
        "unpaired_right": sorted(set(right) - set(shared), key=_seed_order),
    }
    return (one_sample_t(lv - rv) if len(shared) >= 2 else None), len(shared), desc


def _exact(op: str, left: dict[Any, float], right: dict[Any, float] | float
           ) -> tuple[str, dict[str, Any]]:
    """A claim marked `exact: true` is a deterministic check (an identity computed in float64, a
    worst case over enumerated cases, a bound with its sampling tolerance built in): there is no
    sampling variation to put an interval on, so it holds when every unit satisfies the
    comparison and is contradicted by any unit that does not. No p-value, so Holm leaves it."""
    seeds = sorted(left if not isinstance(right, dict) else set(left) & set(right),
                   key=_seed_order)
    lv = _ordered(left, seeds)
    rv = np.full(len(lv), right) if not isinstance(right, dict) else _ordered(right, seeds)
    d = lv - rv
    if not seeds:
        reason = "exact check: the two sides share no unit"
        return INCONCLUSIVE, {**_describe(lv, rv), "method": reason, "reason": reason,
                              "n_seeds": 0, "diff_mean": None, "diff_ci95": None, "df": None}
    sat = {">": d > 0, ">=": d >= 0, "<": d < 0, "<=": d <= 0}[op]
    values = {**_describe(lv, rv), "diff_mean": _mean(d), "n_seeds": len(seeds),
              "method": "exact: every unit checked", "diff_range": [float(d.min()), float(d.max())],
              "diff_ci95": None, "df": None, "units_failing": int((~sat).sum())}
    return (HOLDS if sat.all() else CONTRADICTED), values


def _evaluate(claim: Mapping[str, Any], records: list[Mapping[str, Any]]) -> dict[str, Any]:
    """One claim's raw verdict, values and p-values (Holm is applied over the paper after)."""
    op = claim["op"]
    if op not in OPS:
        raise ValueError(f"claim {claim['id']}: op {op!r} not one of {sorted(OPS)}")
    min_units = _min_units(claim)
    left = _values(records, claim["left"]["method"], claim["left"]["metric"])
    right_spec = claim["right"]
    right: dict[Any, float] | float
    if "value" in right_spec:
        right = float(right_spec["value"])
        right_label = str(right_spec["value"])
    else:
        right = _values(records, right_spec["method"], right_spec["metric"])
        right_label = f"{right_spec['method']}.{right_spec['metric']}"
    left_label = f"{claim['left']['method']}.{claim['left']['metric']}"
    out: dict[str, Any] = {
        "id": claim["id"],
        "claim": claim["statement"],
        "paper": claim.get("paper", ""),
        "comparison": f"{left_label} {op} {right_label}",
        **({"interpretation": claim["interpretation"]} if claim.get("interpretation") else {}),
        **({"paper_diff": float(claim["paper_diff"])} if "paper_diff" in claim else {}),
        "p_value": None,
        "p_two_sided": None,
    }
    if not left or (isinstance(right, dict) and not right):
        missing = left_label if not left else right_label
        out["verdict"] = UNTESTABLE
        out["values"] = {"reason": claim.get("untestable_reason", f"{missing} not produced")}
        return out
    if claim.get("exact"):
        out["verdict"], out["values"] = _exact(op, left, right)
        return out
    test, n, values = _test(claim, left, right)
    values.update({"min_units": min_units, "diff_ci95": None, "df": None,
                   "n_needed": None, "min_detectable_effect": None})
    if test is None or n < min_units:
        reason = f"n={n} < {min_units} independent units"
        values.update({"method": reason, "reason": reason})
        out["verdict"] = INCONCLUSIVE
        out["values"] = values
        return out
    lo, hi = test.interval()
    out["verdict"] = _decide(op, lo, hi)
    p_gt, p_lt = test.p_greater_less(op)
    out["p_value"] = p_gt if op in (">", ">=") else p_lt
    out["p_two_sided"] = min(1.0, 2 * min(p_gt, p_lt))
    values.update({"method": test.method, "diff_mean": test.mean, "diff_ci95": [lo, hi],
                   "df": None if test.df is None else float(test.df)})
    if out["verdict"] == INCONCLUSIVE:
        values["n_needed"] = test.n_needed()
        values["min_detectable_effect"] = test.half_width()
    out["values"] = values
    return out


def apply_holm(results: list[dict[str, Any]], alpha: float = ALPHA) -> list[dict[str, Any]]:
    """Add `p_holm` and `verdict_holm`: Holm over the claims that got a t test (a claim below
    its minimum never rejects, so it needs no share of alpha). A decision survives only if its
    adjusted two-sided p is below alpha; the direction is the raw verdict's."""
    family = [r for r in results if r.get("p_two_sided") is not None]
    for r, p in zip(family, holm([r["p_two_sided"] for r in family]), strict=True):
        r["p_holm"] = p
        decided = r["verdict"] in (HOLDS, CONTRADICTED) and p < alpha
        r["verdict_holm"] = r["verdict"] if decided else INCONCLUSIVE
    for r in results:
        if r.get("p_two_sided") is None:
            r["p_holm"] = None
            r["verdict_holm"] = r["verdict"]
    return results


def evaluate_claim(claim: Mapping[str, Any], records: list[Mapping[str, Any]]) -> dict[str, Any]:
    """One claim on its own (a Holm family of one, so `verdict_holm` equals `verdict`)."""
    return apply_holm([_evaluate(claim, records)])[0]


def evaluate_claims(
    claims: list[Mapping[str, Any]], records: list[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """All of one paper's claims, with Holm across them."""
    return apply_holm([_evaluate(c, records) for c in claims])


def _g(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def diff_text(v: Mapping[str, Any]) -> str | None:
    """The difference as the ledger and the summary print it: with its 95% interval, or for an
    exact check with the range every unit fell in; None when the claim has neither."""
    if v.get("diff_ci95") is not None:
        lo, hi = v["diff_ci95"]
        return f"{v['diff_mean']:+.3g} [{lo:+.3g}, {hi:+.3g}]"
    if v.get("diff_range") is not None:
        lo, hi = v["diff_range"]
        return f"{v['diff_mean']:+.3g} (exact: every unit in [{lo:+.3g}, {hi:+.3g}])"
    return None


def _notes(v: Mapping[str, Any]) -> str:
    """Method, and what an undecided claim would need; seeds left out of the pairing."""
    notes = [v["method"] + (f", df={v['df']:.3g}" if v.get("df") is not None else "")]
    if v.get("min_detectable_effect") is not None:
        need = v["n_needed"]
        per_side = " per side" if v["method"] == "Welch t" else ""
        notes.append(f"needs n={need}{per_side}" if need is not None
                     else f"effect ~0 (not reached by n={N_NEEDED_MAX})")
        notes.append(f"detectable now: diff beyond ±{v['min_detectable_effect']:.3g}")
    if v.get("units_failing"):
        notes.append(f"{v['units_failing']} of {v['n_seeds']} units fail")
    for side in ("left", "right"):
        if v.get(f"unpaired_{side}"):
            seeds = ", ".join(str(s) for s in v[f"unpaired_{side}"])
            notes.append(f"unpaired {side} seeds: {seeds}")
    return "; ".join(notes)


def claims_markdown(paper: str, scale: str, results: list[Mapping[str, Any]]) -> str:
    """The human-readable ledger: verdict and Holm verdict side by side, with the method."""
    lines = [
        f"# Claims ledger: {paper} (scale `{scale}`)",
        "",
        "Verdicts are computed from the reproduced numbers. " + METHOD_NOTE,
        "`holds`: the interval excludes 0 on the claimed side (`>=`/`<=` also accept it "
        "touching 0); `contradicted`: it excludes 0 on the other side; `inconclusive`: it "
        f"crosses 0, or a claim has fewer than its minimum of independent units (default "
        f"{MIN_UNITS}); `{UNTESTABLE}`: a metric is not produced at this scale. p is one-sided "
        "in the claimed direction; the Holm column applies Holm-Bonferroni at family-wise "
        f"{ALPHA} to the two-sided p-values of this paper's tested claims (p Holm).",
        "",
        "| claim | comparison | verdict | Holm | ours (mean ± sd) | diff [95% CI] | p | p Holm "
        "| method, notes | paper |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        v = r["values"]
        if r["verdict"] == UNTESTABLE:
            ours, diff, notes = "-", "-", v.get("reason", "")
        else:
            ours = (
                f"{_g(v['left_mean'], '.3g')} ± {_g(v['left_std'], '.2g')} vs "
                f"{_g(v['right_mean'], '.3g')} ± {_g(v['right_std'], '.2g')} (n={v['n_seeds']})"
            )
            diff = diff_text(v) or f"{_g(v['diff_mean'], '+.3g')} (no interval)"
            notes = _notes(v)
        if r.get("interpretation"):
            notes = f"{notes}; our reading: {r['interpretation']}" if notes else (
                f"our reading: {r['interpretation']}")
        cells = [r["claim"], f"`{r['comparison']}`", f"**{r['verdict']}**", r["verdict_holm"],
                 ours, diff, _g(r["p_value"], ".2g"), _g(r["p_holm"], ".2g"), notes, r["paper"]]
        # a | inside a cell (|slope - 2/3|) would end it: escaped, as Markdown tables want
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def write_ledger(
    out: Path, paper: str, scale: str, claims: list[Mapping[str, Any]],
    records: list[Mapping[str, Any]], settings: Mapping[str, Any] | None = None,
    bench_dir: Path | None = None,
) -> list[dict[str, Any]]:
    """Evaluate `claims` on `records`; write claims.json (the verdicts and the run's provenance),
    claims.md, records.json and the claims figure (figures/claims.png); stamp the provenance
    on every table and figure under `out`.
    The last step of every report. `settings` default to the paper's resolved config at
    `scale`, `bench_dir` to logs/<scale>/<paper>/benchmarks (the jobs' wall times)."""
    from repro.core import provenance
    from repro.core.config import load_settings
    from repro.core.io import write_json, write_text

    out = Path(out)
    results = evaluate_claims(claims, records)
    if settings is None:
        settings = load_settings(f"src/repro/papers/{paper}/config.yaml", scale)
    seeds = [r.get("seed") for r in records if isinstance(r.get("seed"), int | str)]
    prov = provenance.collect(
        paper, scale, settings, seeds or settings.get("seeds", []),
        bench_dir if bench_dir is not None else Path("logs") / scale / paper / "benchmarks")
    write_json(out / "claims.json", {"paper": paper, "scale": scale, "claims": results,
                                     "provenance": prov})
    write_text(out / "claims.md", claims_markdown(paper, scale, results) + provenance.footer(prov))
    write_json(out / "records.json", records)
    from repro.core.forest import plot_claims

    plot_claims(results, out / "figures" / "claims.png", paper, scale)
    provenance.stamp_outputs(out, prov)
    return results


def read_claims(path: str | Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """A claims.json's verdicts and its provenance (None in files written before it)."""
    import json

    data = json.loads(Path(path).read_text())
    return (data["claims"], data.get("provenance")) if isinstance(data, dict) else (data, None)


def load_claims(path: str | Path) -> list[dict[str, Any]]:
    """The verdicts of a claims.json."""
    return read_claims(path)[0]


def load_provenance(path: str | Path) -> dict[str, Any] | None:
    return read_claims(path)[1]
