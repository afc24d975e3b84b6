# The CoT Encyclopedia (ICLR 2026): a bottom-up taxonomy of reasoning strategies.
# fetch (problems, planted-strategy CoTs, steer questions) -> generate (the reasoner's CoTs,
# unguided and steered) -> extract (the analyst's criteria, per CoT source) -> build (per seed:
# embed, cluster, rubrics) -> judge (the predefined list and the true rubrics once; each seed's
# bottom-up rubrics) -> evaluate (per seed: recovery, predictor, steering, reports) -> report.
# SLURM sizes are for full, where both LLMs are endpoints (a vLLM server for the reasoner, an
# API for the analyst): the jobs themselves only wait on the network.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
SOURCES = ["templated", "model"]
LLM_CODE = [*P.src("backends", "settings"), *core("checkpoint", "device", "llm")]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["generate", "extract", "build"],
        "evaluate": ["judge_fixed", "judge", "evaluate"],
        "report": ["report"],
    }
)


wildcard_constraints:
    source="|".join(SOURCES),
    seed=r"\d+",


rule fetch:
    input:
        code=[*P.src("data", "problems", "settings"), *core("fetch"), *P.job],
        config=P.config,
        excerpts=P.excerpts,
    output:
        data=f"{P.data}/data.json",
        source=f"{P.data}/source.json",
    log:
        f"{P.logs}/fetch.log",
    benchmark:
        f"{P.bench}/fetch.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=60, mem_mb=8000, cpus_per_task=2),
    params:
        scale=P.scale,
        mirror=P.mirror,
    message:
        "cotenc: problems, planted-strategy CoTs and steer questions (scale {params.scale})"
    shell:
        "python -m repro.papers.cotenc.data --config {input.config} --scale {params.scale}"
        " --mirror={params.mirror:q} --out {output.data} 2> {log}"


rule generate:
    input:
        code=[*P.src("generate", "problems"), *LLM_CODE, *P.job],
        config=P.config,
        data=rules.fetch.output.data,
    output:
        gens=f"{P.out}/generations.json",
    log:
        f"{P.logs}/generate.log",
    benchmark:
        f"{P.bench}/generate.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=1440, mem_mb=8000, cpus_per_task=2),
    params:
        scale=P.scale,
    message:
        "cotenc: the reasoner's CoTs, unguided and under every steering combination"
    shell:
        "python -m repro.papers.cotenc.generate --config {input.config} --scale {params.scale}"
        " --data {input.data} --out {output.gens} 2> {log}"


rule extract:
    input:
        code=[*P.src("encyclopedia"), *LLM_CODE, *P.job],
        config=P.config,
        data=rules.fetch.output.data,
        gens=lambda w: rules.generate.output.gens if w.source == "model" else [],
    output:
        criteria=f"{P.out}/criteria/{{source}}.json",
    log:
        f"{P.logs}/extract_{{source}}.log",
    benchmark:
        f"{P.bench}/extract_{{source}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=720, mem_mb=8000, cpus_per_task=2),
    params:
        scale=P.scale,
        gens=lambda w, input: f"--generations {input.gens}" if input.gens else "",
    message:
        "cotenc: the analyst's reasoning criteria of the {wildcards.source} CoTs"
    shell:
        "python -m repro.papers.cotenc.encyclopedia extract --config {input.config}"
        " --scale {params.scale} --data {input.data} {params.gens}"
        " --source {wildcards.source} --out {output.criteria} 2> {log}"


rule build:
    input:
        code=[*P.src("encyclopedia", "judge"), *LLM_CODE, *P.job],
        config=P.config,
        criteria=expand(rules.extract.output.criteria, source=SOURCES),
        data=rules.fetch.output.data,
        gens=rules.generate.output.gens,
    output:
        enc=f"{P.out}/encyclopedia/seed{{seed}}.json",
    log:
        f"{P.logs}/build_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/build_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=120, mem_mb=8000, cpus_per_task=2),
    params:
        scale=P.scale,
    message:
        "cotenc: cluster the criteria and write the rubrics, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.cotenc.encyclopedia build --config {input.config}"
        " --scale {params.scale} --criteria {input.criteria} --seed {wildcards.seed}"
        " --data {input.data} --generations {input.gens}"
        " --out {output.enc} 2> {log}"


JUDGE_INPUTS = dict(
    code=[*P.src("judge", "encyclopedia"), *LLM_CODE, *P.job],
    config=P.config,
    data=rules.fetch.output.data,
    gens=rules.generate.output.gens,
)


rule judge_fixed:
    input:
        **JUDGE_INPUTS,
    output:
        judged=f"{P.out}/judged/fixed.json",
    log:
        f"{P.logs}/judge_fixed.log",
    benchmark:
        f"{P.bench}/judge_fixed.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=1440, mem_mb=8000, cpus_per_task=2),
    params:
        scale=P.scale,
    message:
        "cotenc: classify every CoT by the predefined list and the planted axes' rubrics"
    shell:
        "python -m repro.papers.cotenc.judge --config {input.config} --scale {params.scale}"
        " --data {input.data} --generations {input.gens} --rubrics fixed"
        " --out {output.judged} 2> {log}"


rule judge:
    input:
        **JUDGE_INPUTS,
        enc=rules.build.output.enc,
    output:
        judged=f"{P.out}/judged/seed{{seed}}.json",
    log:
        f"{P.logs}/judge_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/judge_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=1440, mem_mb=8000, cpus_per_task=2),
    params:
        scale=P.scale,
    message:
        "cotenc: classify every CoT by the bottom-up rubrics of seed {wildcards.seed}"
    shell:
        "python -m repro.papers.cotenc.judge --config {input.config} --scale {params.scale}"
        " --data {input.data} --generations {input.gens} --rubrics {input.enc}"
        " --out {output.judged} 2> {log}"


rule evaluate:
    input:
        code=[
            *P.src("evaluate", "judge", "encyclopedia", "generate", "problems"),
            *LLM_CODE,
            *P.job,
        ],
        config=P.config,
        data=rules.fetch.output.data,
        gens=rules.generate.output.gens,
        fixed=rules.judge_fixed.output.judged,
        judged=rules.judge.output.judged,
        enc=rules.build.output.enc,
    output:
        metrics=f"{P.out}/eval/seed{{seed}}.json",
        reports=f"{P.out}/reports/seed{{seed}}.md",
    log:
        f"{P.logs}/evaluate_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=60, mem_mb=8000, cpus_per_task=2),
    params:
        scale=P.scale,
    message:
        "cotenc: recovery, predictor, steering and reports, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.cotenc.evaluate --config {input.config} --scale {params.scale}"
        " --seed {wildcards.seed} --data {input.data} --generations {input.gens}"
        " --fixed {input.fixed} --judged {input.judged} --encyclopedia {input.enc}"
        " --reports {output.reports} --out {output.metrics} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("main", "axes", "steering", "encyclopedia", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("recovery", "steering")]


rule report:
    input:
        code=[
            *P.src("report", "settings"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        evals=expand(rules.evaluate.output.metrics, seed=SEEDS),
        encs=expand(rules.build.output.enc, seed=SEEDS),
        gens=rules.generate.output.gens,
    output:
        **P.report_outputs(TABLES, FIGURES, category="cotenc"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "cotenc: tables (the paper's numbers beside ours), figures and the claims ledger"
    shell:
        "python -m repro.papers.cotenc.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --encyclopedias {input.encs} --generations {input.gens}"
        " --out {params.out} 2> {log}"
