"""The claims ledger: each paper claim is data (config), evaluated on reproduced numbers.

Results arrive as long records {method, metric, seed, value}. A claim compares a left side
(method, metric) with a right side (another method/metric, or a constant). It `holds` when the
seed-mean difference satisfies the comparison and a bootstrap interval over seeds of that
difference does not cross zero; otherwise `does not hold`. A metric absent at this scale
makes the claim `not testable at this scale`, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

HOLDS = "holds"
FAILS = "does not hold"
UNTESTABLE = "not testable at this scale"
VERDICTS = (HOLDS, FAILS, UNTESTABLE)

OPS = {">", ">=", "<", "<="}


def _values(records: Iterable[Mapping[str, Any]], method: str, metric: str) -> dict[Any, float]:
    return {
        r["seed"]: float(r["value"])
        for r in records
        if r["method"] == method and r["metric"] == metric and r["value"] is not None
    }


def bootstrap_interval(
    diffs: np.ndarray, n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap of the mean of `diffs` (seeded, so verdicts are deterministic)."""
    if len(diffs) == 1:
        return float(diffs[0]), float(diffs[0])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diffs), size=(n_boot, len(diffs)))
    means = diffs[idx].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


def evaluate_claim(claim: Mapping[str, Any], records: list[Mapping[str, Any]]) -> dict[str, Any]:
    op = claim["op"]
    if op not in OPS:
        raise ValueError(f"claim {claim['id']}: op {op!r} not one of {sorted(OPS)}")
    left = _values(records, claim["left"]["method"], claim["left"]["metric"])
    right_spec = claim["right"]
    if "value" in right_spec:
        right = {s: float(right_spec["value"]) for s in left}
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
    }
    if not left or not right:
        missing = left_label if not left else right_label
        out["verdict"] = UNTESTABLE
        out["values"] = {"reason": claim.get("untestable_reason", f"{missing} not produced")}
        return out
    seeds = sorted(set(left) & set(right))
    if seeds:  # paired by seed (same seed = same problems, same base model)
        diffs = np.array([left[s] - right[s] for s in seeds])
    else:  # unpaired: all differences between the two seed sets
        diffs = np.array([a - b for a in left.values() for b in right.values()])
    lo, hi = bootstrap_interval(diffs)
    mean = float(diffs.mean())
    if op == ">":
        ok = mean > 0 and lo > 0
    elif op == ">=":
        ok = mean >= 0 and lo >= 0
    elif op == "<":
        ok = mean < 0 and hi < 0
    else:
        ok = mean <= 0 and hi <= 0
    lv = np.array(list(left.values()))
    rv = np.array(list(right.values()))
    out["verdict"] = HOLDS if ok else FAILS
    out["values"] = {
        "left_mean": float(lv.mean()),
        "left_std": float(lv.std(ddof=1)) if len(lv) > 1 else 0.0,
        "right_mean": float(rv.mean()),
        "right_std": float(rv.std(ddof=1)) if len(rv) > 1 else 0.0,
        "diff_mean": mean,
        "diff_ci95": [lo, hi],
        "n_seeds": len(seeds) if seeds else len(lv),
    }
    return out


def evaluate_claims(
    claims: list[Mapping[str, Any]], records: list[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    return [evaluate_claim(c, records) for c in claims]


def claims_markdown(paper: str, scale: str, results: list[Mapping[str, Any]]) -> str:
    lines = [
        f"# Claims ledger: {paper} (scale `{scale}`)",
        "",
        "Verdicts are computed from the reproduced numbers: `holds` needs the seed-mean",
        "difference to go the claimed way and its 95% bootstrap interval over seeds to",
        "exclude zero.",
        "",
        "| claim | comparison | verdict | ours (mean ± sd) | diff [95% CI] | paper |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        v = r["values"]
        if r["verdict"] == UNTESTABLE:
            ours, diff = "-", v.get("reason", "")
        else:
            ours = (
                f"{v['left_mean']:.3g} ± {v['left_std']:.2g} vs "
                f"{v['right_mean']:.3g} ± {v['right_std']:.2g} (n={v['n_seeds']})"
            )
            lo, hi = v["diff_ci95"]
            diff = f"{v['diff_mean']:+.3g} [{lo:+.3g}, {hi:+.3g}]"
        lines.append(
            f"| {r['claim']} | `{r['comparison']}` | **{r['verdict']}** | {ours} | {diff} "
            f"| {r['paper']} |"
        )
    return "\n".join(lines) + "\n"


def write_ledger(
    out: Path, paper: str, scale: str, claims: list[Mapping[str, Any]],
    records: list[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Evaluate `claims` on `records` and write claims.json, claims.md and records.json."""
    from repro.core.io import write_json, write_text

    results = evaluate_claims(claims, records)
    write_json(out / "claims.json", results)
    write_text(out / "claims.md", claims_markdown(paper, scale, results))
    write_json(out / "records.json", records)
    return results
