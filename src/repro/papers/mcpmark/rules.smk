# MCPMark (ICLR 2026): agents solve tasks with a curated initial state and a programmatic
# verifier through real MCP servers. db (template databases: Chinook from the mirror; full:
# MCPMark's archives) and templates (the filesystem initial states, rebuilt from a seed) ->
# run (agent x service x run: fresh state per task, the agent loop over server-filesystem or
# postgres-mcp, the verifier) and check (the metric code against known answers) -> report.
# The servers come from scripts/setup.sh; each postgres run job starts its own loopback
# PostgreSQL. SLURM sizes are for full (API models: hours per run over 51 tasks).
from repro.core.workflow import core, paper
from repro.papers.mcpmark.tasks import CHECKOUT_TASKS, select, task_files, template_files

P = paper(config)
S = P.settings
SUITE = S.get("suite", {})
OFFICIAL = SUITE.get("source", "ours") == "official"
if OFFICIAL:
    # MCPMark's own task folders, fetched at the pinned commit (rule suite): the tasks are
    # known only after the fetch, so the services and databases come from the config
    TASKS_ROOT = f"{P.data}/suite/tasks"
    SERVICES = sorted(S["services"])
    DATABASES = sorted(S["databases"]) if "postgres" in SERVICES else []
    TASK_INPUT = {s: [f"{P.data}/suite"] for s in SERVICES}
else:
    TASKS_ROOT = str(CHECKOUT_TASKS)
    SELECTED = select(S["tasks"], S["services"], root=CHECKOUT_TASKS)
    SERVICES = sorted({t.service for t in SELECTED})
    DATABASES = sorted({t.template_db for t in SELECTED if t.template_db})
    TASK_INPUT = {s: task_files(s) for s in ("filesystem", "postgres")}
AGENTS = [a["name"] for a in S["agents"]]
RUNS = {a["name"]: list(range(1, (a.get("runs") or S["runs"]) + 1)) for a in S["agents"]}
RUN_CODE = [
    *P.src("run", "agent", "harness", "tasks", "servers", "postgres"),
    *core("llm", "checkpoint"),
    *P.job,
]
P.phases(
    {
        "fetch": ["db", "templates", *(["suite"] if OFFICIAL else [])],
        "evaluate": ["fs_run", "pg_run", "check"],
        "report": ["report"],
    }
)


wildcard_constraints:
    agent="|".join(AGENTS),
    run=r"\d+",
    db="|".join(DATABASES) if DATABASES else "none",


if OFFICIAL:

    rule suite:
        input:
            code=[*P.src("data"), *P.job],
            config=P.config,
        output:
            folder=directory(f"{P.data}/suite"),
        log:
            f"{P.logs}/suite.log",
        benchmark:
            f"{P.bench}/suite.tsv"
        localrule: True
        conda:
            P.env
        params:
            scale=P.scale,
        message:
            "mcpmark: MCPMark's own task folders at the pinned commit"
        shell:
            "python -m repro.papers.mcpmark.data suite --config {input.config}"
            " --scale {params.scale} --out {output.folder} 2> {log}"


rule db:
    input:
        code=[*P.src("data", "tasks"), *core("fetch"), *P.job],
        config=P.config,
        excerpts=P.excerpts,
    output:
        dump=f"{P.data}/db/{{db}}.dump",
    log:
        f"{P.logs}/db_{{db}}.log",
    benchmark:
        f"{P.bench}/db_{{db}}.tsv"
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        mirror=P.mirror,
    message:
        "mcpmark: template database {wildcards.db}"
    shell:
        "python -m repro.papers.mcpmark.data db --config {input.config} --scale {params.scale}"
        " --name {wildcards.db} --mirror={params.mirror:q} --out {output.dump} 2> {log}"


rule templates:
    input:
        code=[*P.src("data", "tasks"), *template_files(), *P.job],
        config=P.config,
    output:
        folder=directory(f"{P.data}/fs"),
    log:
        f"{P.logs}/templates.log",
    benchmark:
        f"{P.bench}/templates.tsv"
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
    message:
        "mcpmark: rebuild the filesystem templates"
    shell:
        "python -m repro.papers.mcpmark.data templates --config {input.config}"
        " --scale {params.scale} --out {output.folder} 2> {log}"


rule fs_run:
    input:
        code=[*RUN_CODE, *TASK_INPUT.get("filesystem", [])],
        config=P.config,
        templates=rules.templates.output.folder,
    output:
        run=f"{P.out}/runs/{{agent}}/filesystem/run{{run}}.json",
    log:
        f"{P.logs}/run_{{agent}}_filesystem_run{{run}}.log",
    benchmark:
        f"{P.bench}/run_{{agent}}_filesystem_run{{run}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=360, mem_mb=8000, cpus_per_task=4),
    params:
        scale=P.scale,
        tasks=lambda w: TASKS_ROOT,  # the root the task files (inputs) sit under
    message:
        "mcpmark: {wildcards.agent} on the filesystem tasks, run {wildcards.run}"
    shell:
        "python -m repro.papers.mcpmark.run --config {input.config} --scale {params.scale}"
        " --agent {wildcards.agent} --service filesystem --run {wildcards.run}"
        " --tasks {params.tasks} --templates {input.templates} --out {output.run} 2> {log}"


rule pg_run:
    input:
        code=[*RUN_CODE, *TASK_INPUT.get("postgres", [])],
        config=P.config,
        dbs=expand(rules.db.output.dump, db=DATABASES),
    output:
        run=f"{P.out}/runs/{{agent}}/postgres/run{{run}}.json",
    log:
        f"{P.logs}/run_{{agent}}_postgres_run{{run}}.log",
    benchmark:
        f"{P.bench}/run_{{agent}}_postgres_run{{run}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=360, mem_mb=8000, cpus_per_task=4),
    params:
        scale=P.scale,
        tasks=lambda w: TASKS_ROOT,  # the root the task files (inputs) sit under
    message:
        "mcpmark: {wildcards.agent} on the PostgreSQL tasks, run {wildcards.run}"
    shell:
        "python -m repro.papers.mcpmark.run --config {input.config} --scale {params.scale}"
        " --agent {wildcards.agent} --service postgres --run {wildcards.run}"
        " --tasks {params.tasks} --db {input.dbs} --out {output.run} 2> {log}"


rule check:
    input:
        code=[*P.src("check", "metrics"), *P.job],
        config=P.config,
    output:
        check=f"{P.out}/check/metrics.json",
    log:
        f"{P.logs}/check.log",
    benchmark:
        f"{P.bench}/check.tsv"
    localrule: True
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "mcpmark: the metric code against known answers"
    shell:
        "python -m repro.papers.mcpmark.check --config {input.config} --scale {params.scale}"
        " --out {output.check} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("main", "per_task", "metric_check", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/pass_rates.png"]


rule report:
    input:
        code=[
            *P.src("report", "metrics", "tasks"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        runs=[
            f"{P.out}/runs/{a}/{s}/run{r}.json" for a in AGENTS for s in SERVICES for r in RUNS[a]
        ],
        check=rules.check.output.check,
        suite=[f"{P.data}/suite"] if OFFICIAL else [],
    output:
        **P.report_outputs(TABLES, FIGURES, category="mcpmark"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
        tasks=lambda w: TASKS_ROOT,  # the root the task files (inputs) sit under
    message:
        "mcpmark: tables (the paper's leaderboard beside ours), figure and the claims ledger"
    shell:
        "python -m repro.papers.mcpmark.report --config {input.config} --scale {params.scale}"
        " --runs {input.runs} --check {input.check} --tasks {params.tasks} --out {params.out}"
        " 2> {log}"
