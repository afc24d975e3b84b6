"""One agent's run r over one service's tasks: MCPMark's `run-<r>` folder for that model.

    python -m repro.papers.mcpmark.run --config src/repro/papers/mcpmark/config.yaml --scale small \
        --agent oracle --service postgres --run 1 --templates data/mcpmark/small/fs \
        --db data/mcpmark/small/db/chinook.dump \
        --out results/small/mcpmark/runs/oracle/postgres/run1.json

Every task gets a fresh initial state (a sandbox copy of its template, or a database cloned from
its template on this job's own loopback PostgreSQL), the agent's episode over the task's real
MCP server, and its verifier. Resumable per task: a stopped job restarts after the last task it
finished. Records: success (the verifier's exit code), turns, tool calls, tokens, agent error.
Trajectories (the messages) go beside the output; neither holds a key or the database password.

Agents: null and oracle need no model; local serves SmolLM2-135M-Instruct (repro.core.llm) on a
loopback OpenAI-compatible endpoint for this job and talks to it with the same client an API
model gets; api reads REPRO_LLM_BASE_URL / REPRO_LLM_API_KEY (or OPENAI_API_KEY) from the
environment and the model name from the config.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import write_json
from repro.papers.mcpmark import servers
from repro.papers.mcpmark.agent import ChatPolicy, Limits, NullPolicy, OraclePolicy
from repro.papers.mcpmark.harness import run_task
from repro.papers.mcpmark.settings import Agent, Settings, load
from repro.papers.mcpmark.tasks import ROOT, select


def limits_for(cfg: Settings, agent: Agent) -> Limits:
    return Limits(max_turns=agent.max_turns or cfg.limits.max_turns,
                  tool_timeout=cfg.limits.tool_timeout, task_timeout=cfg.limits.task_timeout)


@contextlib.contextmanager
def policy_factory(cfg: Settings, agent: Agent, run: int):
    """A function (task, state) -> a fresh policy for that task run, with what it needs open."""
    if agent.kind == "null":
        yield lambda task, state: NullPolicy()
    elif agent.kind == "oracle":
        yield lambda task, state: OraclePolicy(task.oracle().solve(state.oracle_view))
    else:
        from repro.core.llm import LOCAL_MODEL, ChatClient, LocalModel, local_endpoint

        with contextlib.ExitStack() as stack:
            if agent.kind == "local":
                url = stack.enter_context(local_endpoint(LocalModel(threads=cfg.local.threads)))
                model = agent.model or LOCAL_MODEL
                client = ChatClient(url, model)
            else:
                client = ChatClient.from_env(model=agent.model)
                model = client.model
            counter = iter(range(10**9))

            def make(task, state):
                # a seed per (run, task run) so the k runs sample independently, reproducibly
                return ChatPolicy(client, model, max_tokens=agent.max_tokens,
                                  temperature=agent.temperature,
                                  seed=1_000_003 * run + 1_009 * next(counter), **agent.extra)
            yield make


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("one MCPMark run of one agent over one service's tasks")
    ap.add_argument("--agent", required=True)
    ap.add_argument("--service", required=True, choices=["filesystem", "postgres"])
    ap.add_argument("--run", required=True, type=int)
    ap.add_argument("--templates", type=Path, default=None)
    ap.add_argument("--tasks", type=Path, default=ROOT,
                    help="the task folders' root (ours, or the fetched official suite's tasks/)")
    ap.add_argument("--db", type=Path, nargs="*", default=[],
                    help="template database dumps: <name>.sql or <name>.backup")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    agent = cfg.agent(a.agent)
    todo = [t for t in select(cfg.tasks, cfg.services, root=a.tasks) if t.service == a.service]
    if not todo:
        raise SystemExit(f"mcpmark: no {a.service} tasks selected in {a.config}")
    if agent.kind == "oracle" and (lacking := [t.id for t in todo
                                               if not (t.folder / "oracle.py").exists()]):
        raise SystemExit(f"mcpmark: the oracle agent needs each task's oracle.py (our tasks have "
                         f"one; the official suite has none): missing for {lacking[:5]}")
    if a.service == "filesystem" and a.templates is None:
        raise SystemExit("mcpmark: filesystem runs need --templates")
    traj = a.out.with_suffix("")  # run1.json -> run1/ (one messages file per task)
    traj.mkdir(parents=True, exist_ok=True)
    limits = limits_for(cfg, agent)
    key = {"settings": settings_key(cfg), "agent": a.agent, "service": a.service, "run": a.run}
    what = f"mcpmark {a.agent}/{a.service}/run{a.run}"
    with contextlib.ExitStack() as stack:
        pg = None
        if a.service == "postgres":
            from repro.papers.mcpmark.postgres import cluster

            pg = stack.enter_context(cluster({p.name.split(".")[0]: p for p in a.db}))
        errlog = stack.enter_context(open(traj / "servers.log", "a"))
        make = stack.enter_context(policy_factory(cfg, agent, a.run))
        ck = stack.enter_context(Resumable(a.out, key, every=1, total=len(todo),
                                           inputs=[*a.db] + ([a.templates] if a.templates
                                                             else []), what=what))

        def one(task):
            t0 = time.monotonic()
            rec, ep = run_task(task, make, limits, templates=a.templates, pg=pg, errlog=errlog)
            write_json(traj / f"{task.id}.json", {"task": task.id, "messages": ep.messages,
                                                  "tools": ep.tools})
            print(f"{what}: {task.id}: {'pass' if rec['success'] else 'fail'}, "
                  f"{rec['turns']} turns, {rec['tool_calls']} tool calls, "
                  f"{time.monotonic() - t0:.1f} s"
                  + (f" ({rec['agent_error']})" if rec["agent_error"] else ""),
                  file=sys.stderr, flush=True)
            return {**rec, "run": a.run, "agent": a.agent}

        records = ck.map(one, todo)
    write_json(a.out, {"agent": a.agent, "kind": agent.kind, "model": agent.model,
                       "service": a.service, "run": a.run, "limits": vars(limits),
                       "servers": servers.versions(),
                       "postgres": pg.version if pg else None, "records": records})


if __name__ == "__main__":
    main()
