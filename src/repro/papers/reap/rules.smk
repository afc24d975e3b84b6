# REAP (ICLR 2026, CerebrasResearch/reap): one-shot MoE expert compression. REAP pruning against
# frequency / EAN pruning and M-SMoE / HC-SMoE merging, at 25% and 50% of each layer's experts.
# tiny/small: a Qwen3-MoE trained here on the CPython stdlib + reference-manual prose; full: the
# paper's Qwen/Qwen3-30B-A3B, evol-codealpaca calibration, EvalPlus + LiveCodeBench.
# fetch -> train (the model, cached) -> observe (calibration per seed) -> evaluate -> report.
# Resources are sized for full: Qwen3-30B-A3B in bf16 (~61 GB of weights) on one 80-141 GB GPU;
# calibration runs all 128 experts densely on 1,024 x 2,048 tokens; each evaluation
# prunes/merges, saves the checkpoint and runs EvalPlus and LiveCodeBench (<= 16k tokens).
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
MODELS = S["models"]  # training seeds: one trained model each (the claims' unit when > 1)
SEEDS = S["seeds"]  # calibration seeds, per model
METHODS = S["methods"]
RATIOS = S["ratios"]
GPU = S["gpus"]  # 0 at tiny/small; the hub model's jobs at full
REF_SEED = SEEDS[0]  # the unpruned model needs no calibration; its seed seeds nothing
MODEL_DIR = f"{P.out}/models/seed{{model}}"
# The modules each job imports (their edits rerun exactly the jobs that run them).
JOB_CODE = [*P.src("model", "data"), *P.job, *core("tokenizers", "device")]
# training and calibration save resumable state (repro.core.checkpoint)
RESUMABLE_CODE = core("checkpoint")
EVAL_CODE = [*P.src("evaluate", "benchmarks", "prune", "merge"), *JOB_CODE]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["train", "observe"],
        "evaluate": ["reference", "evaluate"],
        "report": ["report"],
    }
)


rule fetch:
    input:
        code=[*P.src("data"), *P.job, *core("tokenizers")],
        config=P.config,
    output:
        docs=f"{P.data}/docs.jsonl",
        prefixes=f"{P.data}/prefixes.jsonl",
        calibration=f"{P.data}/calibration.jsonl",
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
        mirror=P.mirror,
        out=lambda w, output: os.path.dirname(output.docs),
    message:
        "REAP: stdlib code + reference-manual prose, splits and function prefixes"
        " (scale {params.scale})"
    shell:
        "python -m repro.papers.reap.data --config {input.config} --scale {params.scale}"
        " --mirror={params.mirror:q} --out {params.out} 2> {log}"


rule train:
    input:
        code=[*P.src("train"), *JOB_CODE, *RESUMABLE_CODE],
        config=P.config,
        docs=rules.fetch.output.docs,
    output:
        # weights + config + model.json, and train_log.json (loss, router entropy, usage)
        model=directory(MODEL_DIR),
    log:
        f"{P.logs}/train_model{{model}}.log",
    benchmark:
        f"{P.bench}/train_model{{model}}.tsv"
    conda:
        P.env
    threads: S["train"]["threads"] if S["model"]["kind"] == "scratch" else 1
    resources:
        # at full only a pointer to the hub checkpoint
        **P.cluster(runtime=10, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
        data=lambda w, input: os.path.dirname(input.docs),
    message:
        "REAP: train the Qwen3-MoE until its router specialises, training seed {wildcards.model}"
        " (full: point at the hub model)"
    shell:
        "python -m repro.papers.reap.train --config {input.config} --scale {params.scale}"
        " --data {params.data} --seed {wildcards.model} --out {output.model} 2> {log}"


rule observe:
    input:
        code=[*P.src("observe"), *JOB_CODE, *RESUMABLE_CODE],
        config=P.config,
        docs=rules.fetch.output.docs,
        calibration=rules.fetch.output.calibration,
        model=rules.train.output.model,
    output:
        obs=f"{P.out}/observe/model{{model}}_seed{{seed}}.pt",
        summary=f"{P.out}/observe/model{{model}}_seed{{seed}}.json",
    log:
        f"{P.logs}/observe_model{{model}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/observe_model{{model}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=240, mem_mb=128000, cpus_per_task=8),
        gpu=GPU,
    params:
        scale=P.scale,
        data=lambda w, input: os.path.dirname(input.docs),
    message:
        "REAP: calibration statistics (frequency, EAN, REAP, merging criteria),"
        " model {wildcards.model}, calibration seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} --"
        " python -m repro.papers.reap.observe --config {input.config} --scale {params.scale}"
        " --seed {wildcards.seed} --model {input.model} --data {params.data}"
        " --out {output.obs} --summary {output.summary} 2> {log}"


rule reference:
    input:
        code=EVAL_CODE,
        config=P.config,
        docs=rules.fetch.output.docs,
        prefixes=rules.fetch.output.prefixes,
        model=rules.train.output.model,
    output:
        metrics=f"{P.out}/eval/model{{model}}/unpruned.json",
    log:
        f"{P.logs}/evaluate_model{{model}}_unpruned.log",
    benchmark:
        f"{P.bench}/evaluate_model{{model}}_unpruned.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=1440, mem_mb=128000, cpus_per_task=16),
        gpu=GPU,
    params:
        scale=P.scale,
        seed=REF_SEED,
        data=lambda w, input: os.path.dirname(input.docs),
    message:
        "REAP: evaluate unpruned model {wildcards.model} (the reference continuations)"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} --"
        " python -m repro.papers.reap.evaluate --config {input.config} --scale {params.scale}"
        " --method unpruned --seed {params.seed} --model {input.model} --data {params.data}"
        " --out {output.metrics} 2> {log}"


rule evaluate:
    input:
        code=EVAL_CODE,
        config=P.config,
        docs=rules.fetch.output.docs,
        prefixes=rules.fetch.output.prefixes,
        model=rules.train.output.model,
        obs=rules.observe.output.obs,
        reference=rules.reference.output.metrics,
    output:
        metrics=f"{P.out}/eval/model{{model}}/{{method}}_r{{ratio}}_seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_model{{model}}_{{method}}_r{{ratio}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_model{{model}}_{{method}}_r{{ratio}}_seed{{seed}}.tsv"
    wildcard_constraints:
        model="|".join(map(str, MODELS)),
        method="|".join(METHODS),
        ratio="|".join(map(str, RATIOS)),
    conda:
        P.env
    resources:
        **P.cluster(runtime=1440, mem_mb=128000, cpus_per_task=16),
        gpu=GPU,
    params:
        scale=P.scale,
        data=lambda w, input: os.path.dirname(input.docs),
    message:
        "REAP: {wildcards.method} at {wildcards.ratio}% (model {wildcards.model}, calibration"
        " seed {wildcards.seed}), then evaluate"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} --"
        " python -m repro.papers.reap.evaluate --config {input.config} --scale {params.scale}"
        " --method {wildcards.method} --ratio {wildcards.ratio} --seed {wildcards.seed}"
        " --model {input.model} --data {params.data} --obs {input.obs}"
        " --reference {input.reference} --out {output.metrics} 2> {log}"


EVALS = [
    *expand(rules.reference.output.metrics, model=MODELS),
    *expand(rules.evaluate.output.metrics, model=MODELS, method=METHODS, ratio=RATIOS, seed=SEEDS),
]
TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in (
        "compression",
        "per_model",
        "paper_comparison",
        "router",
        "merging_gap",
        "paper_reported",
    )
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("compression", "router")]


rule report:
    input:
        code=[
            *P.src("report"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        models=expand(rules.train.output.model, model=MODELS),
        observations=expand(rules.observe.output.summary, model=MODELS, seed=SEEDS),
        evals=EVALS,
    output:
        **P.report_outputs(TABLES, FIGURES, category="REAP"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "REAP: compression tables beside the paper's, router statistics, figures, claims ledger"
    shell:
        "python -m repro.papers.reap.report --config {input.config} --scale {params.scale}"
        " --models {input.models} --observations {input.observations}"
        " --evals {input.evals} --out {params.out} 2> {log}"
