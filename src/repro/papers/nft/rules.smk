# NFT (arXiv 2505.18116): Prop. 4.2 on real gradients, and RFT / NFT / GRPO / Dr.GRPO /
# DAPO-lite on the shared Countdown setting; at full, the paper's Qwen2.5-Math-7B on
# DAPO-Math-17k. Countdown and math come from the shared RLVR workflow
# (workflow/modules/rlvr.smk); NFT brings its objectives (train.py, algos.py).
# fetch -> train (sft warm-up, gradient check, RL per method x seed) -> evaluate -> report.
from repro.core.rlvr.workflow import math_flags, report_inputs
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
MATH_ON = bool(S["math"]["enabled"])
P.phases({"train": ["equivalence"], "report": ["report"]})


module rlvr:
    snakefile:
        "../../../../workflow/modules/rlvr.smk"
    config:
        {
            **config,
            "rlvr": {
                "label": "NFT",
                # sized for full: the Countdown comparison keeps its small scratch model (one
                # GPU, short); math is the paper's Qwen2.5-Math-7B (train_7B.sh) on one GPU:
                # fp32 master weights + AdamW states + grads of 7B are ~112 GB (H200-class).
                "resources": {
                    "sft": dict(runtime=60, mem_mb=8000, cpus_per_task=2),
                    "train": dict(runtime=240, mem_mb=16000, cpus_per_task=4),
                    "evaluate": dict(runtime=60, mem_mb=8000, cpus_per_task=2),
                    "math_base": dict(runtime=60, mem_mb=64000, cpus_per_task=8),
                    "math_train": dict(runtime=10080, mem_mb=192000, cpus_per_task=16),
                    "math_evaluate": dict(runtime=2880, mem_mb=128000, cpus_per_task=16),
                },
            },
        }


use rule * from rlvr


rule equivalence:
    input:
        code=[
            *P.src("equivalence", "algos"),
            *core("rlvr/trainer", "rlvr/objectives", "rlvr/countdown", "rlvr/tasks"),
            *core("rlvr/policy", "tokenizers", "device"),
            *P.job,
        ],
        config=P.config,
        train=rules.fetch.output.train,
        base=rules.sft.output.base,
    output:
        result=f"{P.out}/equivalence.json",
    log:
        f"{P.logs}/equivalence.log",
    benchmark:
        f"{P.bench}/equivalence.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=4000, cpus_per_task=1),
    params:
        scale=P.scale,
        data=lambda w, input: os.path.dirname(input.train),
    message:
        "NFT: NFT vs GRPO / Dr.GRPO gradients on on-policy and off-policy batches (Prop. 4.2)"
    shell:
        "python -m repro.papers.nft.equivalence --config {input.config} --scale {params.scale}"
        " --data {params.data} --base {input.base} --out {output.result} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in (
        "equivalence",
        "countdown",
        "paper_table1",
        "paper_reported",
        *(["math"] if MATH_ON else []),
    )
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("equivalence", "passk", "entropy")]


rule report:
    input:
        **report_inputs(rules, S),
        code=[
            *P.src("report"),
            *P.job,
            *core(
                "tables", "claims", "forest", "provenance", "plotting", "metrics", "rlvr/reporting"
            ),
        ],
        config=P.config,
        equivalence=rules.equivalence.output.result,
    output:
        **P.report_outputs(TABLES, FIGURES, category="NFT"),
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
        "NFT: tables, figures and the claims ledger"
    shell:
        "python -m repro.papers.nft.report --config {input.config} --scale {params.scale}"
        " --equivalence {input.equivalence} --evals {input.evals} --train-runs {input.runs}"
        " {params.math} --out {params.out} 2> {log}"
