# STOD (ICLR 2026): spiking networks (LIF, surrogate gradients) with direct, rate and STOD
# input encodings (per-time-step orthogonal input kernels with a cross-time orthogonality
# regulariser; and the kernels without it, an ablation), attacked white-box by FGSM and PGD,
# with gradient temporal collinearity (GTC) per layer and time step. fetch (per data set) ->
# train (data set x method x seed) -> evaluate (the same: clean, FGSM, PGD, GTC) -> report.
# At full (CIFAR-10/100, VGG-11, adversarial training) train and evaluate ask for a GPU.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
DATASETS = S["datasets"]
METHODS = S["methods"]
MODEL = [*P.src("model"), *P.job]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["train"],
        "evaluate": ["evaluate"],
        "report": ["report"],
    }
)


wildcard_constraints:
    dataset="|".join(DATASETS),
    method="|".join(METHODS),
    seed=r"\d+",


rule fetch:
    input:
        code=[*P.src("data"), *P.job],
        config=P.config,
    output:
        data=f"{P.data}/{{dataset}}.npz",
        source=f"{P.data}/{{dataset}}_source.json",
    log:
        f"{P.logs}/fetch_{{dataset}}.log",
    benchmark:
        f"{P.bench}/fetch_{{dataset}}.tsv"
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        mirror=P.mirror,
    message:
        "STOD: {wildcards.dataset} images (scale {params.scale})"
    shell:
        "python -m repro.papers.stod.data --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.dataset} --mirror={params.mirror:q} --out {output.data}"
        " --source {output.source} 2> {log}"


rule train:
    input:
        code=[*P.src("train", "attacks", "data"), *MODEL, *core("checkpoint", "device")],
        config=P.config,
        data=rules.fetch.output.data,
    output:
        model=f"{P.out}/runs/{{dataset}}/{{method}}/seed{{seed}}.pt",
    log:
        f"{P.logs}/train_{{dataset}}_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{dataset}}_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=720, mem_mb=16000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "STOD: train {wildcards.method} on {wildcards.dataset}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.stod.train --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.dataset} --method {wildcards.method} --seed {wildcards.seed}"
        " --data {input.data} --out {output.model} 2> {log}"


rule evaluate:
    input:
        code=[
            *P.src("evaluate", "attacks", "gtc", "train", "data"),
            *MODEL,
            *core("checkpoint", "device"),
        ],
        config=P.config,
        data=rules.fetch.output.data,
        model=rules.train.output.model,
    output:
        metrics=f"{P.out}/eval/{{dataset}}/{{method}}/seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_{{dataset}}_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_{{dataset}}_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=120, mem_mb=16000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "STOD: clean, FGSM, PGD accuracy and GTC of {wildcards.method} on"
        " {wildcards.dataset}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.stod.evaluate --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.dataset} --data {input.data} --model {input.model}"
        " --out {output.metrics} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("robustness", "gtc_layers", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("accuracy_vs_eps", "gtc")]


rule report:
    input:
        code=[*P.src("report"), *P.job, *core("tables", "claims", "provenance", "plotting")],
        config=P.config,
        evals=expand(rules.evaluate.output.metrics, dataset=DATASETS, method=METHODS, seed=SEEDS),
    output:
        **P.report_outputs(TABLES, FIGURES, category="STOD"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "STOD: robustness and GTC tables beside the paper's, figures, claims ledger"
    shell:
        "python -m repro.papers.stod.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --out {params.out} 2> {log}"
