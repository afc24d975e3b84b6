# OWLEYE (ICLR 2026): zero-shot graph anomaly detection across domains. fetch (per domain: the
# graph and its anomaly labels) -> align (every domain's features to the shared space, OWLEYE's
# normalisation against the training domains) -> train (method x seed: OWLEYE, -N, -S, -T, ARC
# on the labelled training domains) -> evaluate (the same: the unseen domains zero-shot and
# 10-shot, OWLEYE's dictionary-growth curve) and baseline (DOMINANT, IsolationForest, LOF per
# unseen graph x seed) -> report. At full (ARC's graphs) train and evaluate ask for a GPU.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
METHODS = S["methods"]
BASELINES = S["baselines"]
DOMAINS = [*S["domains"]["train"], *S["domains"]["aux"], *S["domains"]["test"]]
TESTS = S["domains"]["test"]
GRAPH = f"{P.data}/graphs/{{domain}}.npz"
MODEL = [*P.src("model", "arc", "align", "graphs"), *P.job]
P.phases(
    {
        "fetch": ["fetch", "align"],
        "train": ["train"],
        "evaluate": ["evaluate", "baseline"],
        "report": ["report"],
    }
)


wildcard_constraints:
    domain="|".join(DOMAINS),
    method="|".join(METHODS),
    baseline="|".join(BASELINES) or "(?!)",
    seed=r"\d+",


rule fetch:
    input:
        code=[*P.src("data", "graphs"), *P.job],
        config=P.config,
    output:
        graph=GRAPH,
        source=f"{P.data}/graphs/{{domain}}.json",
    log:
        f"{P.logs}/fetch_{{domain}}.log",
    benchmark:
        f"{P.bench}/fetch_{{domain}}.tsv"
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        mirror=P.mirror,
    message:
        "OWLEYE: the {wildcards.domain} graph and its anomalies (scale {params.scale})"
    shell:
        "python -m repro.papers.owleye.data fetch --config {input.config} --scale {params.scale}"
        " --domain {wildcards.domain} --mirror={params.mirror:q} --out {output.graph}"
        " --source {output.source} 2> {log}"


rule align:
    input:
        code=[*P.src("data", "graphs", "align"), *P.job],
        config=P.config,
        graphs=expand(GRAPH, domain=DOMAINS),
    output:
        aligned=f"{P.data}/aligned.npz",
        info=f"{P.data}/align.json",
    log:
        f"{P.logs}/align.log",
    benchmark:
        f"{P.bench}/align.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=60, mem_mb=32000, cpus_per_task=4),
    params:
        scale=P.scale,
    message:
        "OWLEYE: align every domain's features to the shared space"
    shell:
        "python -m repro.papers.owleye.data align --config {input.config} --scale {params.scale}"
        " --graphs {input.graphs} --out {output.aligned} --info {output.info} 2> {log}"


rule train:
    input:
        code=[*P.src("train"), *MODEL, *core("checkpoint", "device")],
        config=P.config,
        aligned=rules.align.output.aligned,
    output:
        model=f"{P.out}/runs/{{method}}/seed{{seed}}.pt",
    log:
        f"{P.logs}/train_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=240, mem_mb=32000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "OWLEYE: train {wildcards.method} on the training domains, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.owleye.train --config {input.config} --scale {params.scale}"
        " --method {wildcards.method} --seed {wildcards.seed} --aligned {input.aligned}"
        " --out {output.model} 2> {log}"


rule evaluate:
    input:
        code=[
            *P.src("evaluate", "train", "baselines"),
            *MODEL,
            *core("checkpoint", "device"),
        ],
        config=P.config,
        aligned=rules.align.output.aligned,
        model=rules.train.output.model,
    output:
        metrics=f"{P.out}/eval/{{method}}/seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=60, mem_mb=32000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "OWLEYE: {wildcards.method} on the unseen domains, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.owleye.evaluate --config {input.config} --scale {params.scale}"
        " --model {input.model} --aligned {input.aligned} --out {output.metrics} 2> {log}"


rule baseline:
    input:
        code=[
            *P.src("evaluate", "baselines", "dominant", "data", "graphs"),
            *P.job,
            *core("checkpoint", "device"),
        ],
        config=P.config,
        graphs=expand(GRAPH, domain=TESTS),
    output:
        metrics=f"{P.out}/eval/{{baseline}}/seed{{seed}}.json",
    log:
        f"{P.logs}/baseline_{{baseline}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/baseline_{{baseline}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=120, mem_mb=32000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "OWLEYE: {wildcards.baseline} fitted on each unseen graph, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.owleye.evaluate --config {input.config} --scale {params.scale}"
        " --baseline {wildcards.baseline} --seed {wildcards.seed} --graphs {input.graphs}"
        " --out {output.metrics} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("main", "per_domain", "ablation", "growth", "domains", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("auprc", "growth")]


rule report:
    input:
        code=[*P.src("report"), *P.job, *core("tables", "claims", "provenance", "plotting")],
        config=P.config,
        evals=expand(
            f"{P.out}/eval/{{method}}/seed{{seed}}.json",
            method=[*METHODS, *BASELINES],
            seed=SEEDS,
        ),
        sources=expand(f"{P.data}/graphs/{{domain}}.json", domain=DOMAINS),
    output:
        **P.report_outputs(TABLES, FIGURES, category="OWLEYE"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "OWLEYE: AUROC/AUPRC tables beside the paper's, ablations, growth curve, claims ledger"
    shell:
        "python -m repro.papers.owleye.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --sources {input.sources} --out {params.out} 2> {log}"
