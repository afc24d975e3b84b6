"""The metric check: our aggregation (metrics.py) against answers it did not compute.

`published: github` (full) or a folder: MCPMark's per-run results for the paper's models
(eval-sys/mcpmark-experiments at the paper's commit), aggregated by our code, beside the
published summary, per service and overall. `published: constructed` (offline): small result
sets whose answers are derived by hand below, as fractions.
"""

from __future__ import annotations

import math

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.papers.mcpmark.metrics import aggregate, load_experiments, published_check
from repro.papers.mcpmark.settings import load

PUBLISHED_MODELS = ("gpt-5-medium", "gpt-5-high", "gpt-5-low", "claude-sonnet-4", "o3",
                    "grok-4", "kimi-k2-0905", "qwen-3-coder-plus", "gpt-4-1", "gpt-4-1-nano",
                    "gpt-oss-120b", "gemini-2-5-pro")
PUBLISHED_SERVICES = ("overall", "filesystem", "postgres", "github", "notion", "playwright")

# (name, success matrix tasks x runs, turns matrix, expected) with the expected values worked
# out by hand from the definitions in metrics.py's docstring.
CASES = [
    ("mixed 3x4", [[1, 1, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0]], [[2, 3, 4, 5], [1, 1, 1, 1],
                                                             [10, 10, 10, 10]],
     # per-run rates 2/3, 1/3, 1/3, 1/3: mean 5/12; deviations 1/4, -1/12 x3 -> variance
     # (1/16 + 3/144) / 4 = 1/48; any: tasks 1, 2 -> 2/3; all: task 1 -> 1/3; turns
     # (14 + 4 + 40) / 12 = 29/6
     {"pass@1": 5 / 12, "pass@1_std": math.sqrt(1 / 48), "pass@4": 2 / 3, "pass^4": 1 / 3,
      "avg_turns": 29 / 6}),
    ("all pass", [[1, 1, 1, 1]] * 2, [[1, 1, 1, 1]] * 2,
     {"pass@1": 1.0, "pass@1_std": 0.0, "pass@4": 1.0, "pass^4": 1.0, "avg_turns": 1.0}),
    ("none pass", [[0, 0, 0, 0]] * 5, [[3, 3, 3, 3]] * 5,
     {"pass@1": 0.0, "pass@1_std": 0.0, "pass@4": 0.0, "pass^4": 0.0, "avg_turns": 3.0}),
    # each run passes a different one of 4 tasks: every per-run rate 1/4, sd 0; any = 1, all = 0
    ("rotating 4x4", [[int(r == t) for r in range(4)] for t in range(4)], [[2] * 4] * 4,
     {"pass@1": 0.25, "pass@1_std": 0.0, "pass@4": 1.0, "pass^4": 0.0, "avg_turns": 2.0}),
    # 2 tasks, runs pass 2, 1, 1, 0 tasks: rates 1, .5, .5, 0: mean .5, variance (.25+0+0+.25)/4
    ("spread 2x4", [[1, 1, 0, 0], [1, 0, 1, 0]], [[1, 2, 3, 4], [5, 6, 7, 8]],
     {"pass@1": 0.5, "pass@1_std": math.sqrt(0.125), "pass@4": 1.0, "pass^4": 0.0,
      "avg_turns": 4.5}),
]


def constructed_rows() -> list[dict]:
    rows = []
    for name, ok, turns, want in CASES:
        recs = [{"task": f"t{t}", "run": r + 1, "service": "x", "success": bool(ok[t][r]),
                 "turns": turns[t][r]} for t in range(len(ok)) for r in range(len(ok[0]))]
        got = aggregate(recs)
        for metric, value in want.items():
            rows.append({"case": name, "metric": metric, "ours": got[metric],
                         "expected": value, "abs_diff": abs(got[metric] - value)})
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("the metric check (constructed cases, or MCPMark's published runs)")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if cfg.published == "constructed":
        rows, source = constructed_rows(), "constructed cases with hand-derived answers"
    else:
        summary, files = load_experiments(cfg.published, PUBLISHED_MODELS)
        rows = [r for m in PUBLISHED_MODELS
                for r in published_check(summary, files[m], m, PUBLISHED_SERVICES)]
        source = f"MCPMark's published per-run results ({cfg.published})"
    write_json(a.out, {"source": source, "rows": rows,
                       "max_abs_diff": max(r["abs_diff"] for r in rows), "n": len(rows)})


if __name__ == "__main__":
    main()
