"""mcpmark report: each agent's MCPMark numbers per service and overall, the paper's leaderboard
beside them (labelled as the paper's), per-task outcomes, the metric check, a figure and the
claims ledger."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml
from repro.core.io import read_json
from repro.core.plotting import save_figure, subplots
from repro.core.tables import reported_table, write_table
from repro.papers.mcpmark.metrics import by_service
from repro.papers.mcpmark.settings import load
from repro.papers.mcpmark.tasks import ROOT, select

SCOPES = ("filesystem", "postgres", "overall")
PAPER_MODELS = ("gpt-5-medium", "claude-sonnet-4", "o3", "gpt-oss-120b", "gpt-4-1-nano")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}"


def _num(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("mcpmark tables, figure and claims ledger")
    ap.add_argument("--runs", nargs="+", required=True, type=Path)
    ap.add_argument("--check", required=True, type=Path)
    ap.add_argument("--tasks", type=Path, default=ROOT, help="the task folders' root")
    a = ap.parse_args(argv)
    cfg, raw = load(a.config, a.scale), load_yaml(a.config)
    reported = raw["reported"]
    tasks = select(cfg.tasks, cfg.services, root=a.tasks)
    scope_tasks = {s: [t.id for t in tasks if t.service == s] for s in cfg.services}
    docs = [read_json(p) for p in a.runs]
    recs: dict[str, list[dict]] = defaultdict(list)
    for d in docs:
        for r in d["records"]:
            recs[d["agent"]].append({**r, "task": f"{r['service']}/{r['task']}"})
    scoped = {s: [f"{s}/{t}" for t in ids] for s, ids in scope_tasks.items()}
    summaries = {}
    for agent in cfg.agents:
        runs = range(1, (agent.runs or cfg.runs) + 1)
        summaries[agent.name] = by_service(recs[agent.name], scoped, runs)

    rows = []
    for agent in cfg.agents:
        for scope in SCOPES:
            s = summaries[agent.name].get(scope)
            if s is None:
                continue
            k = s["runs"]
            rows.append({
                "agent": agent.name, "scope": scope, "tasks": s["tasks"], "runs": k,
                "pass@1 % (mean ± sd over runs)": f"{_pct(s['pass@1'])} ± {_pct(s['pass@1_std'])}",
                "pass@k %": _pct(s[f"pass@{k}"]), "pass^k %": _pct(s[f"pass^{k}"]),
                "avg turns": _num(s["avg_turns"]), "avg tool calls": _num(s["avg_tool_calls"]),
                "avg input tokens": _num(s["avg_input_tokens"], 0),
                "avg output tokens": _num(s["avg_output_tokens"], 0)})
    paper = {(r["method"], r["metric"]): r["value"] for r in reported}
    for m in PAPER_MODELS:
        for scope in SCOPES:
            p1 = paper.get((m, f"{scope}_pass@1"))
            if p1 is None:
                continue
            rows.append({
                "agent": f"paper: {m}", "scope": scope,
                "tasks": {"filesystem": 30, "postgres": 21, "overall": 127}[scope], "runs": 4,
                "pass@1 % (mean ± sd over runs)": f"{p1:.2f}",
                "pass@k %": _num(paper.get((m, f"{scope}_pass@4"))),
                "pass^k %": _num(paper.get((m, f"{scope}_pass^4"))),
                "avg turns": _num(paper.get((m, f"{scope}_avg_turns"))),
                "avg tool calls": "-", "avg input tokens": "-", "avg output tokens": "-"})
    rows.append({"agent": "paper: all models (mean)", "scope": "overall", "tasks": 127,
                 "runs": 4, "pass@1 % (mean ± sd over runs)": "-", "pass@k %": "-",
                 "pass^k %": "-", "avg turns": _num(paper.get(("all_models",
                                                               "overall_avg_turns"))),
                 "avg tool calls": _num(paper.get(("all_models", "overall_avg_tool_calls"))),
                 "avg input tokens": "-", "avg output tokens": "-"})
    table = pd.DataFrame(rows).fillna("-")
    origin = ("rebuilt offline" if cfg.suite.source == "ours" else
              f"of MCPMark's own suite ({cfg.suite.repo}@{str(cfg.suite.commit)[:7]})")
    write_table(table, a.out / "tables", "main",
                f"MCPMark per agent and service (scale {a.scale}: "
                f"{len(scope_tasks.get('filesystem', []))} filesystem and "
                f"{len(scope_tasks.get('postgres', []))} PostgreSQL tasks {origin}, "
                f"{cfg.runs} runs; pass@1 is the mean of the per-run pass rates with "
                "their population sd, pass@k: passed in any of the k runs, pass^k: in all of them; "
                "averages per task run). "
                "Rows 'paper: ...' are the paper's leaderboard (eval-sys/mcpmark-experiments "
                "summary.json@8745e03, the paper's 30 + 21 tasks and 127 over five services), "
                "not comparable task for task with ours.")

    per_task = []
    for t in tasks:
        row = {"task": f"{t.service}/{t.id}", "difficulty": t.meta.get("difficulty", "")}
        for agent in cfg.agents:
            got = [r for r in recs[agent.name] if r["task"] == f"{t.service}/{t.id}"]
            row[f"{agent.name} passed/runs"] = f"{sum(r['success'] for r in got)}/{len(got)}"
            row[f"{agent.name} turns"] = _num(np.mean([r["turns"] for r in got]) if got
                                              else None, 1)
        per_task.append(row)
    write_table(pd.DataFrame(per_task), a.out / "tables", "per_task",
                "Each task: runs passed and mean turns per agent.")

    check = read_json(a.check)
    crow = pd.DataFrame(check["rows"])
    write_table(crow, a.out / "tables", "metric_check",
                f"The metric code against known answers ({check['source']}): {check['n']} "
                f"numbers, largest |difference| {check['max_abs_diff']:.2g}.")
    write_table(reported_table(reported), a.out / "tables", "paper_reported",
                "The paper's own numbers (never presented as ours).")

    fig, ax = subplots(figsize=(7, 3.4))
    names = [ag.name for ag in cfg.agents]
    width = 0.8 / len(SCOPES)
    for j, scope in enumerate(SCOPES):
        means = [100 * summaries[n][scope]["pass@1"] if scope in summaries[n] else 0
                 for n in names]
        sds = [100 * summaries[n][scope]["pass@1_std"] if scope in summaries[n] else 0
               for n in names]
        ax.bar(np.arange(len(names)) + j * width, means, width, yerr=sds, capsize=3,
               label=f"ours: {scope}")
    for i, m in enumerate(("gpt-5-medium", "claude-sonnet-4")):
        v = paper.get((m, "overall_pass@1"))
        if v is not None:
            ax.axhline(v, ls="--", lw=1, color=f"C{3 + i}",
                       label=f"paper: {m} overall ({v:.1f}%)")
    ax.set_xticks(np.arange(len(names)) + width, names)
    ax.set_ylabel("pass@1 % (mean ± sd over runs)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=7, loc="upper right")
    save_figure(fig, a.out / "figures" / "pass_rates.png")

    records = [{"method": "metrics", "metric": "max_abs_diff", "seed": 0,
                "value": check["max_abs_diff"]}]
    for agent in cfg.agents:
        for r, rate in enumerate(summaries[agent.name]["overall"]["per_run"], start=1):
            records.append({"method": agent.name, "metric": "pass_rate", "seed": r,
                            "value": rate})
        for scope in SCOPES:
            s = summaries[agent.name].get(scope)
            if s:
                for key in ("avg_turns", "avg_tool_calls", "avg_total_tokens"):
                    records.append({"method": agent.name, "metric": f"{scope}_{key}",
                                    "seed": 0, "value": s[key]})
    write_ledger(a.out, "mcpmark", a.scale, raw["claims"], records)


if __name__ == "__main__":
    main()
