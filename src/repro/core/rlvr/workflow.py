"""Parse-time helpers for the papers that use the shared RLVR rules (workflow/modules/rlvr.smk):
what their report reads. Light on purpose (no torch): the Snakefile imports it."""

from __future__ import annotations

from typing import Any

from snakemake.io import expand


def report_inputs(rules: Any, settings: dict[str, Any]) -> dict[str, list[str]]:
    """Every evaluation (base policy included) and trained run of both tasks, per seed."""
    seeds = settings["seeds"]
    out: dict[str, list[str]] = {"math_evals": [], "math_runs": []}
    for task, prefix in (("countdown", ""), ("math", "math_")):
        if task == "math" and not settings["math"]["enabled"]:
            continue
        methods = settings[task]["methods"]
        evaluate, train = getattr(rules, f"{prefix}evaluate"), getattr(rules, f"{prefix}train")
        out[f"{prefix}evals"] = expand(evaluate.output.metrics, evalmethod=["base", *methods],
                                       seed=seeds)
        out[f"{prefix}runs"] = expand(train.output.run, method=methods, seed=seeds)
    return out


def math_flags(wildcards: Any, input: Any) -> str:
    """The report's math arguments, where the math task runs at this scale."""
    if not input.math_evals:
        return ""
    return (f"--math-evals {' '.join(input.math_evals)}"
            f" --math-train-runs {' '.join(input.math_runs)}")
