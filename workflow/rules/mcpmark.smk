# MCPMark: a benchmark for stress-testing realistic and comprehensive MCP use: a skeleton written by `python -m repro new-paper mcpmark`.
# fetch -> train (method x seed) -> evaluate (method x seed) -> report. This file is the paper's
# own Snakemake module: rule names are plain (`train` becomes `mcpmark_train`), globals and
# wildcards are its own. SLURM sizes (P.cluster) are for `full`; below it the profile's defaults.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
METHODS = S["methods"]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["train"],
        "evaluate": ["evaluate"],
        "report": ["report"],
    }
)


wildcard_constraints:
    method="|".join(METHODS),
    seed=r"\d+",


rule fetch:
    input:
        code=[*P.src("data"), *P.job],
        config=P.config,
    output:
        data=f"{P.data}/data.npz",
        source=f"{P.data}/source.json",
    log:
        f"{P.logs}/fetch.log",
    benchmark:
        f"{P.bench}/fetch.tsv"
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
    message:
        "mcpmark: draw the data set (scale {params.scale})"
    shell:
        "python -m repro.papers.mcpmark.data --config {input.config} --scale {params.scale}"
        " --out {output.data} 2> {log}"


rule train:
    input:
        code=[*P.src("method", "train"), *P.job],
        config=P.config,
        data=rules.fetch.output.data,
    output:
        run=f"{P.out}/runs/{{method}}/seed{{seed}}.json",
    log:
        f"{P.logs}/train_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=2000, cpus_per_task=1),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "mcpmark: {wildcards.method}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.mcpmark.train --config {input.config} --scale {params.scale}"
        " --method {wildcards.method} --seed {wildcards.seed} --data {input.data}"
        " --out {output.run} 2> {log}"


rule evaluate:
    input:
        code=[*P.src("evaluate"), *P.job],
        config=P.config,
        run=rules.train.output.run,
    output:
        metrics=f"{P.out}/eval/{{method}}_seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "mcpmark: evaluate {wildcards.method}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.mcpmark.evaluate --config {input.config} --scale {params.scale}"
        " --run {input.run} --out {output.metrics} 2> {log}"


TABLES = [f"{P.out}/tables/{t}.{ext}" for t in ("main", "paper_reported") for ext in ("csv", "md")]
FIGURES = [f"{P.out}/figures/errors.png"]


rule report:
    input:
        code=[
            *P.src("report"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        evals=expand(rules.evaluate.output.metrics, method=METHODS, seed=SEEDS),
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
        "mcpmark: tables (the paper's numbers beside ours), figure and the claims ledger"
    shell:
        "python -m repro.papers.mcpmark.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --out {params.out} 2> {log}"
