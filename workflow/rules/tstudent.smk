# Transformers as students of teacher models (Zhang, Zhao, Gu & Cao, ICLR 2026): a one-layer
# transformer with position-only attention, zero init, online GD on fresh Gaussian batches,
# learns six teacher settings (conv / GCN with ReLU and LeakyReLU, sparse token selection,
# group-sparse linear) and the first layer of a CNN trained on images (digits; MNIST at full).
# One job per setting x seed and per digits seed; all CPU (full too: the models are tiny).
# fetch (images) -> train (cnn, students) -> report.

localrules: tstudent_fetch, tstudent_report, paper_tstudent  # never via SLURM

TST_CFG, TST = paper_settings("tstudent", SCALE)
TST_OUT = f"{RESULTS}/tstudent"
TST_DATA = f"{DATA}/tstudent/{SCALE}"
TST_LOGS = f"{LOGS}/tstudent"
TST_SETTINGS = list(TST["settings"])
TST_RUNS = [f"{TST_OUT}/runs/{slug(n)}/seed{s}.json" for n in TST_SETTINGS for s in TST["seeds"]]
TST_DIGITS_RUNS = [f"{TST_OUT}/digits/seed{s}.json" for s in TST["seeds"]]
TST_MODEL = src("tstudent", "teachers", "student", "train")


rule tstudent_fetch:
    input:
        code=[*src("tstudent", "digits"), *CORE_JOB],
        config=TST_CFG,
    output:
        images=f"{TST_DATA}/images.npz",
        source=f"{TST_DATA}/source.json",
    params:
        scale=SCALE,
        mirror=MIRROR,
    conda:
        ENV
    log:
        f"{TST_LOGS}/fetch.log",
    message:
        "Transformers-as-students: fetch images ({params.scale}: digits, or MNIST at full)"
    shell:
        "python -m repro.papers.tstudent.digits --stage fetch --config {input.config}"
        " --scale {params.scale} --mirror {params.mirror} --out {output.images} 2> {log}"


rule tstudent_cnn:
    input:
        code=[*src("tstudent", "digits", "teachers"), *CORE_JOB, *core("device")],
        config=TST_CFG,
        images=rules.tstudent_fetch.output.images,
    output:
        cnn=f"{TST_OUT}/digits/cnn.json",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{TST_LOGS}/cnn.log",
    message:
        "Transformers-as-students: train the image CNN teacher (first layer: conv + avg pooling)"
    shell:
        "python -m repro.papers.tstudent.digits --stage cnn --config {input.config}"
        " --scale {params.scale} --data {input.images} --out {output.cnn} 2> {log}"


rule tstudent_train:
    input:
        code=[*TST_MODEL, *CORE_JOB, *core("device")],
        config=TST_CFG,
    output:
        run=f"{TST_OUT}/runs/{{setting}}/seed{{seed}}.json",
    wildcard_constraints:
        setting="|".join(TST_SETTINGS),
        seed=r"\d+",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{TST_LOGS}/train_{{setting}}_seed{{seed}}.log",
    message:
        "Transformers-as-students: student of the {wildcards.setting} teacher, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.tstudent.train --config {input.config} --scale {params.scale}"
        " --setting {wildcards.setting} --seed {wildcards.seed} --out {output.run} 2> {log}"


rule tstudent_digits:
    input:
        code=[*TST_MODEL, *src("tstudent", "digits"), *CORE_JOB, *core("device")],
        config=TST_CFG,
        images=rules.tstudent_fetch.output.images,
        cnn=rules.tstudent_cnn.output.cnn,
    output:
        run=f"{TST_OUT}/digits/seed{{seed}}.json",
    wildcard_constraints:
        seed=r"\d+",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{TST_LOGS}/digits_seed{{seed}}.log",
    message:
        "Transformers-as-students: student of the image CNN's first layer, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.tstudent.digits --stage student --config {input.config}"
        " --scale {params.scale} --data {input.images} --cnn {input.cnn} --seed {wildcards.seed}"
        " --out {output.run} 2> {log}"


TST_TABLES = [
    f"{TST_OUT}/tables/{t}.{ext}"
    for t in ("rates", "recovery", "digits", "paper_reported")
    for ext in ("csv", "md")
]
TST_FIGURES = [f"{TST_OUT}/figures/{f}.png" for f in ("curves", "recovery", "attention", "digits")]


rule tstudent_report:
    input:
        code=[*src("tstudent", "report"), *CORE_JOB, *core("tables", "claims", "plotting")],
        config=TST_CFG,
        runs=TST_RUNS,
        digits=TST_DIGITS_RUNS,
        cnn=rules.tstudent_cnn.output.cnn,
        source=rules.tstudent_fetch.output.source,
    output:
        tables=[report(t, category="TStudent", subcategory="tables") for t in TST_TABLES],
        figures=[report(f, category="TStudent", subcategory="figures") for f in TST_FIGURES],
        claims=report(f"{TST_OUT}/claims.md", category="TStudent", subcategory="claims"),
        claims_json=f"{TST_OUT}/claims.json",
        records=f"{TST_OUT}/records.json",
    params:
        scale=SCALE,
        out=lambda w, output: os.path.dirname(output.claims_json),
    conda:
        ENV
    log:
        f"{TST_LOGS}/report.log",
    message:
        "Transformers-as-students: rate and recovery tables, curves, heatmaps, claims ledger"
    shell:
        "python -m repro.papers.tstudent.report --config {input.config} --scale {params.scale}"
        " --runs {input.runs} --digits {input.digits} --cnn {input.cnn} --source {input.source}"
        " --out {params.out} 2> {log}"


rule paper_tstudent:
    input:
        rules.tstudent_report.output,
    message:
        f"Transformers as students of teacher models reproduced at scale {SCALE}"


PAPERS["tstudent"] = {"claims": rules.tstudent_report.output.claims_json}
