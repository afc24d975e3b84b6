# Transformers as students of teacher models (Zhang, Zhao, Gu & Cao, ICLR 2026): a one-layer
# transformer with position-only attention, zero init, online GD on fresh Gaussian batches,
# learns six teacher settings (conv / GCN with ReLU and LeakyReLU, sparse token selection,
# group-sparse linear) and the first layer of a CNN trained on images (digits; MNIST at full).
# One job per setting x seed and per digits seed; all CPU, one thread (full too: the models
# are tiny; 10^5 online GD steps take a few minutes). fetch (images) -> train -> report.
from repro.core.workflow import core, paper, slug

P = paper(config)
S = P.settings
SETTINGS = list(S["settings"])
RUNS = [f"{P.out}/runs/{slug(n)}/seed{s}.json" for n in SETTINGS for s in S["seeds"]]
DIGITS_RUNS = [f"{P.out}/digits/seed{s}.json" for s in S["seeds"]]
# train.py (and digits.py) save resumable state (repro.core.checkpoint)
MODEL = [*P.src("teachers", "student", "train"), *core("checkpoint")]
P.phases({"fetch": ["fetch"], "train": ["cnn", "train", "digits"], "report": ["report"]})


wildcard_constraints:
    seed=r"\d+",


rule fetch:
    input:
        code=[*P.src("digits"), *P.job],
        config=P.config,
    output:
        images=f"{P.data}/images.npz",
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
    message:
        "Transformers-as-students: fetch images ({params.scale}: digits, or MNIST at full)"
    shell:
        "python -m repro.papers.tstudent.digits --stage fetch --config {input.config}"
        " --scale {params.scale} --mirror={params.mirror:q} --out {output.images} 2> {log}"


rule cnn:
    input:
        code=[*P.src("digits", "teachers"), *P.job, *core("device", "checkpoint")],
        config=P.config,
        images=rules.fetch.output.images,
    output:
        cnn=f"{P.out}/digits/cnn.json",
    log:
        f"{P.logs}/cnn.log",
    benchmark:
        f"{P.bench}/cnn.tsv"
    conda:
        P.env
    resources:
        # the image CNN teacher on MNIST at full (60k images, 5 epochs)
        **P.cluster(runtime=60, mem_mb=8000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Transformers-as-students: train the image CNN teacher (first layer: conv + avg pooling)"
    shell:
        "python -m repro.papers.tstudent.digits --stage cnn --config {input.config}"
        " --scale {params.scale} --data {input.images} --out {output.cnn} 2> {log}"


rule train:
    input:
        code=[*MODEL, *P.job, *core("device")],
        config=P.config,
    output:
        run=f"{P.out}/runs/{{setting}}/seed{{seed}}.json",
    log:
        f"{P.logs}/train_{{setting}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{setting}}_seed{{seed}}.tsv"
    wildcard_constraints:
        setting="|".join(SETTINGS),
    conda:
        P.env
    resources:
        **P.cluster(runtime=60, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Transformers-as-students: student of the {wildcards.setting} teacher,"
        " seed {wildcards.seed}"
    shell:
        "python -m repro.papers.tstudent.train --config {input.config} --scale {params.scale}"
        " --setting {wildcards.setting} --seed {wildcards.seed} --out {output.run} 2> {log}"


rule digits:
    input:
        code=[*MODEL, *P.src("digits"), *P.job, *core("device")],
        config=P.config,
        images=rules.fetch.output.images,
        cnn=rules.cnn.output.cnn,
    output:
        run=f"{P.out}/digits/seed{{seed}}.json",
    log:
        f"{P.logs}/digits_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/digits_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        # the student of the CNN's first layer, evaluated on MNIST's test set at full
        **P.cluster(runtime=120, mem_mb=4000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Transformers-as-students: student of the image CNN's first layer, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.tstudent.digits --stage student --config {input.config}"
        " --scale {params.scale} --data {input.images} --cnn {input.cnn} --seed {wildcards.seed}"
        " --out {output.run} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("rates", "recovery", "digits", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("curves", "recovery", "attention", "digits")]


rule report:
    input:
        code=[
            *P.src("report"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        runs=RUNS,
        digits=DIGITS_RUNS,
        cnn=rules.cnn.output.cnn,
        source=rules.fetch.output.source,
    output:
        **P.report_outputs(TABLES, FIGURES, category="TStudent"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "Transformers-as-students: rate and recovery tables, curves, heatmaps, claims ledger"
    shell:
        "python -m repro.papers.tstudent.report --config {input.config} --scale {params.scale}"
        " --runs {input.runs} --digits {input.digits} --cnn {input.cnn} --source {input.source}"
        " --out {params.out} 2> {log}"
