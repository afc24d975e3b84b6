# MCPMark (ICLR 2026): agents solve tasks with a curated initial state and a programmatic
# verifier through real MCP servers. db (template databases: Chinook from the mirror; full:
# MCPMark's archives) and templates (the filesystem initial states, rebuilt from a seed) ->
# run (agent x service x run: fresh state per task, the agent loop over server-filesystem or
# postgres-mcp, the verifier) and check (the metric code against known answers) -> report.
# The servers come from scripts/mcp_servers.sh; each postgres run job starts its own loopback
# PostgreSQL. SLURM sizes are for full (API models: hours per run over 51 tasks).
from repro.core.workflow import core, paper
from repro.papers.mcpmark.tasks import CHECKOUT_TASKS, select, task_files, template_files

P = paper(config)
S = P.settings
SELECTED = select(S["tasks"], S["services"], root=CHECKOUT_TASKS)
SERVICES = sorted({t.service for t in SELECTED})
DATABASES = sorted(
    {
        t.meta.get("template_db", t.category)
        for t in SELECTED
        if t.service == "postgres" and t.meta.get("template_db", t.category)
    }
)
AGENTS = [a["name"] for a in S["agents"]]
RUNS = {a["name"]: list(range(1, (a.get("runs") or S["runs"]) + 1)) for a in S["agents"]}
RUN_CODE = [
    *P.src("run", "agent", "harness", "tasks", "servers", "postgres"),
    *core("llm", "checkpoint"),
    *P.job,
]
P.phases(
    {
        "fetch": ["db", "templates"],
        "evaluate": ["fs_run", "pg_run", "check"],
        "report": ["report"],
    }
)


wildcard_constraints:
    agent="|".join(AGENTS),
    run=r"\d+",
    db="|".join(DATABASES) if DATABASES else "none",


rule db:
    input:
        code=[*P.src("data", "tasks"), *P.job],
        config=P.config,
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
        " --name {wildcards.db} --mirror {params.mirror} --out {output.dump} 2> {log}"


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
        code=[*RUN_CODE, *task_files("filesystem")],
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
    message:
        "mcpmark: {wildcards.agent} on the filesystem tasks, run {wildcards.run}"
    shell:
        "python -m repro.papers.mcpmark.run --config {input.config} --scale {params.scale}"
        " --agent {wildcards.agent} --service filesystem --run {wildcards.run}"
        " --templates {input.templates} --out {output.run} 2> {log}"


rule pg_run:
    input:
        code=[*RUN_CODE, *task_files("postgres")],
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
    message:
        "mcpmark: {wildcards.agent} on the PostgreSQL tasks, run {wildcards.run}"
    shell:
        "python -m repro.papers.mcpmark.run --config {input.config} --scale {params.scale}"
        " --agent {wildcards.agent} --service postgres --run {wildcards.run}"
        " --db {input.dbs} --out {output.run} 2> {log}"


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
    message:
        "mcpmark: tables (the paper's leaderboard beside ours), figure and the claims ledger"
    shell:
        "python -m repro.papers.mcpmark.report --config {input.config} --scale {params.scale}"
        " --runs {input.runs} --check {input.check} --out {params.out} 2> {log}"
