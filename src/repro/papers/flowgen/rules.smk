# FlowGen (ICLR 2026): a controllable flowchart synthesizer and its parsing / QA evaluation.
# fetch (tools; MLLMs at full) -> synthesize (per seed and split: charts, ground truth, two
# renderers x three styles) -> check (controls against the graph and the renderer's layout) and
# read (OCR and segmentation, per split) -> train (the trained parser, on graphviz charts only)
# -> evaluate (every parser on the test split) -> report. SLURM sizes are for full, where the
# MLLMs run in evaluate on one GPU.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
SPLITS = ["train", "test"]
# MLLMs fine-tuned on the training split (full): `mllm-sft:<hub id>` in parser.models, by index
SFT = [m.split(":", 1)[1] for m in S["parser"]["models"] if m.startswith("mllm-sft:")]
GEN = ["synth", "render"]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["synthesize", "check", "read", "train", "finetune"],
        "evaluate": ["evaluate"],
        "report": ["report"],
    }
)


wildcard_constraints:
    split="|".join(SPLITS),
    seed=r"\d+",
    k=r"\d+",


rule fetch:
    input:
        code=[*P.src("data", "parse", "score", *GEN), *P.job],
        config=P.config,
    output:
        source=f"{P.data}/source.json",
    log:
        f"{P.logs}/fetch.log",
    benchmark:
        f"{P.bench}/fetch.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=120, mem_mb=16000, cpus_per_task=2),
    params:
        scale=P.scale,
    message:
        "flowgen: check graphviz, tesseract and fonts; fetch the MLLMs at full (scale {params.scale})"
    shell:
        "python -m repro.papers.flowgen.data --config {input.config} --scale {params.scale}"
        " --out {output.source} 2> {log}"


rule synthesize:
    input:
        code=[*P.src("synthesize", *GEN), *P.job, *core("checkpoint")],
        config=P.config,
        source=rules.fetch.output.source,
    output:
        index=f"{P.out}/charts/seed{{seed}}/{{split}}.json",
        images=directory(f"{P.out}/charts/seed{{seed}}/{{split}}_images"),
    log:
        f"{P.logs}/synthesize_{{split}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/synthesize_{{split}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=240, mem_mb=8000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "flowgen: synthesize the {wildcards.split} charts of seed {wildcards.seed}"
    shell:
        "python -m repro.papers.flowgen.synthesize --config {input.config} --scale {params.scale}"
        " --seed {wildcards.seed} --split {wildcards.split} --images {output.images}"
        " --out {output.index} 2> {log}"


rule check:
    input:
        code=[*P.src("check", *GEN), *P.job],
        config=P.config,
        index=f"{P.out}/charts/seed{{seed}}/test.json",
    output:
        checks=f"{P.out}/checks/seed{{seed}}.json",
    log:
        f"{P.logs}/check_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/check_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=4000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "flowgen: check seed {wildcards.seed}'s charts against their controls"
    shell:
        "python -m repro.papers.flowgen.check --config {input.config} --scale {params.scale}"
        " --index {input.index} --out {output.checks} 2> {log}"


rule read:
    input:
        code=[*P.src("read", "parse", "score", "synth"), *P.job, *core("checkpoint")],
        config=P.config,
        index=rules.synthesize.output.index,
        images=rules.synthesize.output.images,
    output:
        pages=f"{P.out}/pages/seed{{seed}}/{{split}}.json",
    log:
        f"{P.logs}/read_{{split}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/read_{{split}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=1440, mem_mb=8000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "flowgen: OCR and segment the {wildcards.split} images of seed {wildcards.seed}"
    shell:
        "python -m repro.papers.flowgen.read --config {input.config} --scale {params.scale}"
        " --index {input.index} --images {input.images} --out {output.pages} 2> {log}"


rule train:
    input:
        code=[*P.src("train", "parse", "score", "synth"), *P.job],
        config=P.config,
        index=f"{P.out}/charts/seed{{seed}}/train.json",
        pages=f"{P.out}/pages/seed{{seed}}/train.json",
    output:
        model=f"{P.out}/models/seed{{seed}}.pkl",
        summary=f"{P.out}/models/seed{{seed}}.json",
    log:
        f"{P.logs}/train_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=120, mem_mb=16000, cpus_per_task=4),
    params:
        scale=P.scale,
    message:
        "flowgen: train the parser on seed {wildcards.seed}'s graphviz training charts"
    shell:
        "python -m repro.papers.flowgen.train --config {input.config} --scale {params.scale}"
        " --seed {wildcards.seed} --index {input.index} --pages {input.pages}"
        " --summary {output.summary} --out {output.model} 2> {log}"


rule finetune:
    input:
        code=[*P.src("finetune", "mllm"), *P.job, *core("checkpoint")],
        config=P.config,
        index=f"{P.out}/charts/seed{{seed}}/train.json",
        images=f"{P.out}/charts/seed{{seed}}/train_images",
    output:
        adapter=directory(f"{P.out}/sft/seed{{seed}}/m{{k}}"),
    log:
        f"{P.logs}/finetune_seed{{seed}}_m{{k}}.log",
    benchmark:
        f"{P.bench}/finetune_seed{{seed}}_m{{k}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=1440, mem_mb=128000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
        model=lambda w: SFT[int(w.k)],
    message:
        "flowgen: LoRA-fine-tune {params.model} on seed {wildcards.seed}'s training charts"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.flowgen.finetune"
        " --config {input.config} --scale {params.scale} --seed {wildcards.seed}"
        " --model {params.model} --index {input.index} --images {input.images}"
        " --out {output.adapter} 2> {log}"


rule evaluate:
    input:
        code=[
            *P.src("evaluate", "parse", "score", "synth", "mllm"),
            *P.job,
            *core("checkpoint"),
        ],
        config=P.config,
        index=f"{P.out}/charts/seed{{seed}}/test.json",
        images=f"{P.out}/charts/seed{{seed}}/test_images",
        pages=f"{P.out}/pages/seed{{seed}}/test.json",
        model=rules.train.output.model,
        adapters=lambda w: [f"{P.out}/sft/seed{w.seed}/m{k}" for k in range(len(SFT))],
    output:
        scores=f"{P.out}/eval/seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=2880, mem_mb=64000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "flowgen: score every parser on seed {wildcards.seed}'s test charts"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.flowgen.evaluate"
        " --config {input.config} --scale {params.scale} --seed {wildcards.seed}"
        " --index {input.index} --pages {input.pages} --model {input.model}"
        " --images {input.images} --adapters {input.adapters} --out {output.scores} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("main", "by_style", "data_stats", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("difficulty", "examples")]


rule report:
    input:
        code=[
            *P.src("report", "synth"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        evals=expand(rules.evaluate.output.scores, seed=SEEDS),
        checks=expand(rules.check.output.checks, seed=SEEDS),
        index=f"{P.out}/charts/seed{SEEDS[0]}/test.json",
        images=f"{P.out}/charts/seed{SEEDS[0]}/test_images",
    output:
        **P.report_outputs(TABLES, FIGURES, category="flowgen"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "flowgen: tables (the paper's numbers beside ours), figures and the claims ledger"
    shell:
        "python -m repro.papers.flowgen.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --checks {input.checks} --index {input.index}"
        " --images {input.images} --out {params.out} 2> {log}"
