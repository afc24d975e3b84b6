# ROVER (arXiv 2509.24981): Fig. 5 toy, the uniform-Q theorem, Countdown RL, math RL.
# fetch -> train (toy, theorem, sft warm-up, RL per method x seed) -> evaluate -> report.
# Countdown and math (DeepScaleR; `math.enabled` at tiny and full) come from the shared RLVR
# workflow (workflow/modules/rlvr.smk); ROVER brings its objective (train.py, algos.py).
from repro.core.rlvr.workflow import math_flags, report_inputs
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
MATH_ON = bool(S["math"]["enabled"])
P.phases({"train": ["toy", "theorem"], "report": ["report"]})


module rlvr:
    snakefile:
        "../../../../workflow/modules/rlvr.smk"
    config:
        {
            **config,
            "rlvr": {
                "label": "ROVER",
                # sized for full: Qwen2.5-3B on Countdown, Qwen3-8B-Base on math, 80 GB GPUs
                "resources": {
                    "sft": dict(runtime=360, mem_mb=64000, cpus_per_task=8),
                    "train": dict(runtime=2880, mem_mb=128000, cpus_per_task=16),
                    "evaluate": dict(runtime=480, mem_mb=64000, cpus_per_task=8),
                    "math_base": dict(runtime=60, mem_mb=64000, cpus_per_task=8),
                    "math_train": dict(runtime=10080, mem_mb=192000, cpus_per_task=16),
                    "math_evaluate": dict(runtime=2880, mem_mb=128000, cpus_per_task=16),
                },
            },
        }


use rule * from rlvr


rule toy:
    input:
        code=[*P.src("toy"), *P.job],
        config=P.config,
    output:
        metrics=f"{P.out}/toy/metrics.json",
    log:
        f"{P.logs}/toy.log",
    benchmark:
        f"{P.bench}/toy.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "ROVER: Fig. 5 toy, Q-learning vs ROVER over seeds"
    shell:
        "python -m repro.papers.rove.toy --config {input.config} --scale {params.scale}"
        " --out {output.metrics} 2> {log}"


rule theorem:
    input:
        code=[*P.src("theorem"), *P.job],
        config=P.config,
    output:
        result=f"{P.out}/theorem.json",
    log:
        f"{P.logs}/theorem.log",
    benchmark:
        f"{P.bench}/theorem.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "ROVER: check greedy-on-uniform-Q optimality on random tree MDPs"
    shell:
        "python -m repro.papers.rove.theorem --config {input.config} --scale {params.scale}"
        " --out {output.result} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("toy", "theorem", "countdown", "paper_reported", *(["math"] if MATH_ON else []))
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("toy_policies", "passk", "entropy")]


rule report:
    input:
        **report_inputs(rules, S),
        code=[
            *P.src("report", "plots"),
            *P.job,
            *core(
                "tables", "claims", "forest", "provenance", "plotting", "metrics", "rlvr/reporting"
            ),
        ],
        config=P.config,
        toy=rules.toy.output.metrics,
        theorem=rules.theorem.output.result,
    output:
        **P.report_outputs(TABLES, FIGURES, category="ROVER"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
        math=math_flags,
    message:
        "ROVER: tables, figures and the claims ledger"
    shell:
        "python -m repro.papers.rove.report --config {input.config} --scale {params.scale}"
        " --toy {input.toy} --theorem {input.theorem} --evals {input.evals}"
        " --train-runs {input.runs} {params.math} --out {params.out} 2> {log}"
