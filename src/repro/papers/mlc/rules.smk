# Align Once, Benefit Multilingually: the Multi-Lingual Consistency (MLC) loss for safety alignment
# (ICLR 2026). fetch (MultiJail split by prompt, English refusals, the retain and benign sets) ->
# train (method x seed: a LoRA adapter aligned on English supervision, plus the method's
# consistency term over every language's prompt) -> evaluate (method x seed, and the starting
# model once) -> report. SLURM sizes are for full (an 8B model, LoRA, one 80 GB GPU).
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
METHODS = list(S["methods"])
REFERENCE = "none"
MODEL_CODE = [
    *P.src("model", "method", "settings", "benign"),
    *core("checkpoint", "device", "llm"),
    *P.job,
]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["train"],
        "evaluate": ["evaluate"],
        "report": ["report"],
    }
)


wildcard_constraints:
    method="|".join([*METHODS, REFERENCE]),
    seed=r"\d+",


rule fetch:
    input:
        code=[*P.src("data"), *core("fetch"), *MODEL_CODE],
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
        **P.cluster(runtime=60, mem_mb=64000, cpus_per_task=4),
        gpu=P.gpu,
    params:
        scale=P.scale,
        mirror=P.mirror,
    message:
        "mlc: MultiJail split by prompt, English refusals, retain and benign sets (scale {params.scale})"
    shell:
        "python -m repro.papers.mlc.data --config {input.config} --scale {params.scale}"
        " --mirror={params.mirror:q} --out {output.data} 2> {log}"


rule train:
    input:
        code=[*P.src("train", "data", "judge"), *MODEL_CODE],
        config=P.config,
        data=rules.fetch.output.data,
    output:
        adapter=directory(f"{P.out}/adapters/{{method}}/seed{{seed}}"),
    log:
        f"{P.logs}/train_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=600, mem_mb=96000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "mlc: align with {wildcards.method}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.mlc.train --config {input.config} --scale {params.scale}"
        " --data {input.data} --method {wildcards.method} --seed {wildcards.seed}"
        " --out {output.adapter} 2> {log}"


rule evaluate:
    input:
        code=[*P.src("evaluate", "train", "data", "judge"), *MODEL_CODE],
        config=P.config,
        data=rules.fetch.output.data,
        adapter=lambda w: (
            []
            if w.method == REFERENCE
            else expand(rules.train.output.adapter, method=w.method, seed=w.seed)
        ),
    output:
        metrics=f"{P.out}/eval/{{method}}_seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=240, mem_mb=96000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
        adapter=lambda w, input: f"--adapter {input.adapter}" if input.adapter else "",
    message:
        "mlc: evaluate {wildcards.method}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.mlc.evaluate --config {input.config} --scale {params.scale}"
        " --data {input.data} --method {wildcards.method} --seed {wildcards.seed}"
        " {params.adapter} --out {output.metrics} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("main", "languages", "collinearity", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("refusal_by_language", "training")]


rule report:
    input:
        code=[
            *P.src("report", "settings", "benign", "method"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        evals=[
            *expand(rules.evaluate.output.metrics, method=METHODS, seed=SEEDS),
            expand(rules.evaluate.output.metrics, method=REFERENCE, seed=SEEDS[0]),
        ],
        adapters=expand(rules.train.output.adapter, method=METHODS, seed=SEEDS),
    output:
        **P.report_outputs(TABLES, FIGURES, category="mlc"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "mlc: tables (the paper's numbers beside ours), figures and the claims ledger"
    shell:
        "python -m repro.papers.mlc.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --adapters {input.adapters} --out {params.out} 2> {log}"
