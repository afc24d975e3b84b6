"""MCPMark's aggregation (src/aggregators/aggregate_results.py), written to its definitions.

Over the N tasks in scope (a service's, or all) and k runs:
- pass@1 = the mean over runs of (tasks passed in the run / N), with the population standard
  deviation (divide by k) of the k per-run rates;
- pass@k = the share of tasks passed in at least one run (the plain "any" rate, not Chen et
  al.'s unbiased estimator); pass^k = the share passed in every run;
- averages (turns, tool calls, tokens) = the total over all (task, run) pairs / (N x runs).
A model enters a table only when every task has a result in every run (the aggregator's
completeness rule); `aggregate` refuses an incomplete set rather than average over less.

`published_check` recomputes the published summary (eval-sys/mcpmark-experiments, the paper's
"mcpmark-release" at commit 8745e03) from its per-run files, so the same code that scores our
agents is shown to give the paper's numbers from the paper's runs.
"""

from __future__ import annotations

import json
import urllib.request
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

AVERAGED = ("turns", "tool_calls", "input_tokens", "output_tokens", "total_tokens")
EXPERIMENTS = "eval-sys/mcpmark-experiments"
EXPERIMENTS_COMMIT = "8745e03ebcbb6abda4d29b11ed45be0d2a1c5133"


class Incomplete(ValueError):
    pass


def aggregate(records: Iterable[Mapping[str, Any]], tasks: Iterable[str] | None = None,
              runs: Iterable[int] | None = None) -> dict[str, Any]:
    """One agent's records ({task, run, success, turns, ...}) -> MCPMark's summary numbers.
    `tasks`/`runs`: the scope that must be complete (default: those the records name)."""
    by: dict[tuple[str, int], Mapping[str, Any]] = {}
    for r in records:
        k = (str(r["task"]), int(r["run"]))
        if k in by:
            raise ValueError(f"two records for task {k[0]} run {k[1]}")
        by[k] = r
    task_ids = sorted(set(tasks) if tasks is not None else {t for t, _ in by})
    run_ids = sorted(set(runs) if runs is not None else {r for _, r in by})
    missing = [(t, r) for t in task_ids for r in run_ids if (t, r) not in by]
    if missing:
        raise Incomplete(f"{len(missing)} (task, run) results missing, e.g. {missing[:3]}")
    if not task_ids or not run_ids:
        raise Incomplete("no tasks or no runs")
    n, k = len(task_ids), len(run_ids)
    ok = np.array([[bool(by[t, r]["success"]) for r in run_ids] for t in task_ids])
    rates = ok.mean(axis=0)
    out: dict[str, Any] = {
        "tasks": n, "runs": k,
        "pass@1": float(rates.mean()), "pass@1_std": float(rates.std(ddof=0)),
        "per_run": [float(x) for x in rates],
        f"pass@{k}": float(ok.any(axis=1).mean()), f"pass^{k}": float(ok.all(axis=1).mean()),
    }
    for field in AVERAGED:
        vals = [by[t, r].get(field) for t in task_ids for r in run_ids]
        out[f"avg_{field}"] = (None if any(v is None for v in vals)
                               else float(sum(vals)) / (n * k))
    return out


def by_service(records: list[Mapping[str, Any]], tasks: Mapping[str, list[str]],
               runs: Iterable[int]) -> dict[str, dict[str, Any]]:
    """{service: summary} and "overall" over the union, for one agent."""
    runs = list(runs)
    out = {s: aggregate([r for r in records if r["service"] == s], ids, runs)
           for s, ids in tasks.items() if ids}
    out["overall"] = aggregate(records, [t for ids in tasks.values() for t in ids], runs)
    return out


# ----------------------------------------------------------------------- the published runs


def _published_records(model_files: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """model_results/<model>/<task>.json contents -> our record shape."""
    out = []
    for doc in model_files.values():
        for name, r in doc["runs"].items():
            usage = r.get("token_usage") or {}
            out.append({"task": f"{doc['service']}/{doc['task']}", "service": doc["service"],
                        "run": int(name.split("-")[1]), "success": bool(r["success"]),
                        "turns": r.get("turn_count"),
                        "input_tokens": usage.get("input_tokens"),
                        "output_tokens": usage.get("output_tokens"),
                        "total_tokens": usage.get("total_tokens")})
    return out


def published_check(summary: Mapping[str, Any], model_files: Mapping[str, Mapping[str, Any]],
                    model: str, services: Iterable[str]) -> list[dict[str, Any]]:
    """Our aggregation of one model's published per-run results beside the published summary,
    per service ("overall": all of them): rows of {service, metric, ours, published,
    abs_diff}."""
    recs = _published_records(model_files)
    k = int(summary.get("k", 4))
    rows = []
    for s in services:
        pub = summary[s][model]
        mine = recs if s == "overall" else [r for r in recs if r["service"] == s]
        runs = sorted({r["run"] for r in mine})
        ours = aggregate(mine, runs=runs)
        pairs = [("pass@1", ours["pass@1"], pub["pass@1"]["avg"]),
                 ("pass@1_std", ours["pass@1_std"], pub["pass@1"]["std"]),
                 ("avg_turns", ours["avg_turns"], pub["avg_turns"])]
        if len(runs) == k:
            pairs += [(f"pass@{k}", ours[f"pass@{k}"], pub[f"pass@{k}"]),
                      (f"pass^{k}", ours[f"pass^{k}"], pub[f"pass^{k}"])]
        if ours["tasks"] != pub["total_tasks"]:
            raise Incomplete(f"{model}/{s}: {ours['tasks']} tasks in the per-run files, "
                             f"{pub['total_tasks']} in the summary")
        for metric, a, b in pairs:
            rows.append({"model": model, "service": s, "metric": metric, "ours": a,
                         "published": b, "abs_diff": abs(a - b), "tasks": ours["tasks"],
                         "runs": len(runs)})
    return rows


def load_experiments(source: str, models: Iterable[str], commit: str = EXPERIMENTS_COMMIT
                     ) -> tuple[dict[str, Any], dict[str, dict[str, dict[str, Any]]]]:
    """summary.json and model_results/<model>/*.json of the results repository: from a local
    checkout (a folder) or GitHub (source "github": raw files at `commit`)."""
    models = list(models)
    if source != "github":
        root = Path(source)
        summary = json.loads((root / "summary.json").read_text())
        files = {m: {p.stem: json.loads(p.read_text())
                     for p in sorted((root / "model_results" / m).glob("*.json"))}
                 for m in models}
        return summary, files
    base = f"https://raw.githubusercontent.com/{EXPERIMENTS}/{commit}"

    def get(path: str) -> Any:
        with urllib.request.urlopen(f"{base}/{path}", timeout=60) as r:
            return json.loads(r.read())
    summary = get("summary.json")
    api = f"https://api.github.com/repos/{EXPERIMENTS}/git/trees/{commit}?recursive=1"
    with urllib.request.urlopen(api, timeout=60) as r:
        tree = [e["path"] for e in json.loads(r.read())["tree"]]
    files: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for m in models:
        for p in tree:
            if p.startswith(f"model_results/{m}/") and p.endswith(".json"):
                files[m][Path(p).stem] = get(p)
    return summary, dict(files)
