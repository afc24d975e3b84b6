# LFST + STEE (ICLR 2026): learnable fractional superlets for speech emotion recognition.
# synth (the espeak-ng corpus, below full) -> prepare (per condition: a channel over the corpus,
# or the paper's corpora at full) -> train (condition x front-end x fold x seed) -> evaluate
# (the same, on the held-out speakers / group) -> report. At full (EMO-DB, IEMOCAP by
# leave-one-group-out) train and evaluate ask for a GPU.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
METHODS = S["methods"]
CONDITIONS = S["conditions"]
DATASETS = S["datasets"]
SYNTHESISED = [c for c in CONDITIONS if DATASETS[c]["kind"] == "synth"]
FOLDS = {c: range(DATASETS[c].get("folds", 1)) for c in CONDITIONS}
RUN = "{condition}/{method}/fold{fold}_seed{seed}"
RUNS = [
    RUN.format(condition=c, method=m, fold=f, seed=s)
    for c in CONDITIONS
    for m in METHODS
    for f in FOLDS[c]
    for s in SEEDS
]
MODEL = [
    *P.src("model", "frontends", "transform", "leaf", "stee", "train", "settings", "corpora"),
    *P.job,
]
P.phases(
    {
        "fetch": ["synth", "prepare"],
        "train": ["train"],
        "evaluate": ["evaluate"],
        "report": ["report"],
    }
)


wildcard_constraints:
    condition="|".join(CONDITIONS),
    method="|".join(METHODS),
    fold=r"\d+",
    seed=r"\d+",


rule synth:
    input:
        code=[*P.src("data", "synth", "settings"), *P.job, *core("speech")],
        config=P.config,
    output:
        corpus=f"{P.data}/synth.npz",
        info=f"{P.data}/synth.json",
    log:
        f"{P.logs}/synth.log",
    benchmark:
        f"{P.bench}/synth.tsv"
    localrule: True
    conda:
        P.env
    threads: 2
    params:
        scale=P.scale,
    message:
        "LFST: synthesise the speech-emotion corpus with espeak-ng (scale {params.scale})"
    shell:
        "python -m repro.papers.lfst.data synth --config {input.config} --scale {params.scale}"
        " --processes {threads} --out {output.corpus} 2> {log}"


rule prepare:
    input:
        code=[*P.src("data", "corpora", "settings"), *P.job, *core("speech")],
        config=P.config,
        synth=lambda w: rules.synth.output.corpus if w.condition in SYNTHESISED else [],
    output:
        data=f"{P.data}/{{condition}}.npz",
        info=f"{P.data}/{{condition}}.json",
    log:
        f"{P.logs}/prepare_{{condition}}.log",
    benchmark:
        f"{P.bench}/prepare_{{condition}}.tsv"
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        synth=lambda w, input: f"--synth {input.synth}" if input.synth else "",
        mirror=P.mirror,
    message:
        "LFST: the {wildcards.condition} condition's clips"
    shell:
        "python -m repro.papers.lfst.data prepare --config {input.config} --scale {params.scale}"
        " --condition {wildcards.condition} {params.synth} --mirror={params.mirror:q}"
        " --out {output.data} 2> {log}"


rule train:
    input:
        code=[*MODEL, *core("checkpoint", "device")],
        config=P.config,
        data=f"{P.data}/{{condition}}.npz",
    output:
        model=f"{P.out}/runs/{RUN}.pt",
    log:
        f"{P.logs}/train_{{condition}}_{{method}}_fold{{fold}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{condition}}_{{method}}_fold{{fold}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=360, mem_mb=32000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "LFST: train {wildcards.method} + STEE on {wildcards.condition}, fold {wildcards.fold},"
        " seed {wildcards.seed}"
    shell:
        "python -m repro.papers.lfst.train --config {input.config} --scale {params.scale}"
        " --method {wildcards.method} --condition {wildcards.condition} --fold {wildcards.fold}"
        " --seed {wildcards.seed} --data {input.data} --out {output.model} 2> {log}"


rule evaluate:
    input:
        code=[*P.src("evaluate"), *MODEL, *core("checkpoint", "device")],
        config=P.config,
        data=f"{P.data}/{{condition}}.npz",
        model=rules.train.output.model,
    output:
        metrics=f"{P.out}/eval/{RUN}.json",
    log:
        f"{P.logs}/evaluate_{{condition}}_{{method}}_fold{{fold}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_{{condition}}_{{method}}_fold{{fold}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=16000, cpus_per_task=4),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "LFST: score {wildcards.method} on {wildcards.condition}'s held-out speakers, fold"
        " {wildcards.fold}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.lfst.evaluate --config {input.config} --scale {params.scale}"
        " --model {input.model} --data {input.data} --out {output.metrics} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("main", "per_condition", "ablation", "corpus", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("accuracy", "learned")]


rule report:
    input:
        code=[
            *P.src("report", "settings"),
            *P.job,
            *core("tables", "claims", "provenance", "plotting"),
        ],
        config=P.config,
        evals=[f"{P.out}/eval/{r}.json" for r in RUNS],
        infos=expand(f"{P.data}/{{condition}}.json", condition=CONDITIONS),
        synth=rules.synth.output.info if SYNTHESISED else [],
    output:
        **P.report_outputs(TABLES, FIGURES, category="LFST"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
        synth=lambda w, input: f"--synth {input.synth}" if input.synth else "",
    message:
        "LFST: accuracy, UA and macro-F1 beside the paper's, ablations, claims ledger"
    shell:
        "python -m repro.papers.lfst.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --infos {input.infos} {params.synth} --out {params.out}"
        " 2> {log}"
