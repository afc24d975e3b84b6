# FS-DFM: few-step discrete flow matching (ICLR 2026; apple/ml-fs-dfm). fetch (the data: a random
# order-2 chain below full, FineWeb-Edu / WikiText-103 at full) -> dfm (the 1,024-step DFM, per
# seed) -> fsdfm (the step-aware student finetuned from it with an EMA RK-4 shortcut teacher, per
# update rule and seed) -> evaluate (a model + update rule sampled at every NFE, per seed) ->
# report (Table 1 in miniature, perplexity vs NFE, the speed-up, the claims ledger).
# This file is the paper's own Snakemake module: rule names are plain (`dfm` becomes `fsdfm_dfm`).
# SLURM sizes (P.cluster) are for `full` (0.17B on one GPU); below it the profile's defaults.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
SYSTEMS = S["systems"]
# the model directory each system samples: the DFM, or the student trained with its rule
MODEL_OF = {s: ("dfm" if s.startswith("dfm_") else s) for s in SYSTEMS}
STUDENT_RULES = sorted({s.removeprefix("fsdfm_") for s in SYSTEMS if s.startswith("fsdfm_")})
TRAIN_CODE = [
    *P.src("train", "model", "flow", "data"),
    *P.job,
    *core("checkpoint", "device", "gpus"),
]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["dfm", "fsdfm"],
        "evaluate": ["evaluate"],
        "report": ["report"],
    }
)


wildcard_constraints:
    seed=r"\d+",
    rule="|".join(STUDENT_RULES) or "none",
    system="|".join(SYSTEMS),


rule fetch:
    input:
        code=[*P.src("data"), *P.job],
        config=P.config,
    output:
        data=f"{P.data}/data.npz",
        source=f"{P.data}/source.json",
    log:
        f"{P.logs}/fetch.log",
    benchmark:
        f"{P.bench}/fetch.tsv"
    # full: the text corpora come from the Hugging Face hub (internet: the login node)
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
    message:
        "FS-DFM: the data (scale {params.scale})"
    shell:
        "python -m repro.papers.fsdfm.data --config {input.config} --scale {params.scale}"
        " --out {output.data} 2> {log}"


rule dfm:
    input:
        code=TRAIN_CODE,
        config=P.config,
        data=rules.fetch.output.data,
    output:
        model=f"{P.out}/models/dfm/seed{{seed}}/model.pt",
        run=f"{P.out}/models/dfm/seed{{seed}}/run.json",
    log:
        f"{P.logs}/dfm_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/dfm_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        # the paper's DFM pre-training (1M steps of 128 x 1,024 tokens) is days on one GPU;
        # the job resumes (requeue / retries) where a time limit stops it
        **P.cluster(runtime=2880, mem_mb=64000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.model),
    message:
        "FS-DFM: the DFM (t-conditioned, generalized KL), seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.fsdfm.train"
        " --config {input.config} --scale {params.scale} --stage dfm --seed {wildcards.seed}"
        " --data {input.data} --out {params.out} 2> {log}"


rule fsdfm:
    input:
        code=TRAIN_CODE,
        config=P.config,
        data=rules.fetch.output.data,
        init=rules.dfm.output.model,
    output:
        model=f"{P.out}/models/fsdfm_{{rule}}/seed{{seed}}/model.pt",
        ema=f"{P.out}/models/fsdfm_{{rule}}/seed{{seed}}/ema.pt",
        run=f"{P.out}/models/fsdfm_{{rule}}/seed{{seed}}/run.json",
    log:
        f"{P.logs}/fsdfm_{{rule}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/fsdfm_{{rule}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=2880, mem_mb=64000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.model),
        init=lambda w, input: os.path.dirname(input.init),
    message:
        "FS-DFM: the step-aware student ({wildcards.rule} rule in the teacher), seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.fsdfm.train"
        " --config {input.config} --scale {params.scale} --stage fsdfm --rule {wildcards.rule}"
        " --seed {wildcards.seed} --init {params.init} --data {input.data}"
        " --out {params.out} 2> {log}"


rule evaluate:
    input:
        code=[*P.src("evaluate", "judge", "metrics"), *TRAIN_CODE],
        config=P.config,
        data=rules.fetch.output.data,
        model=lambda w: f"{P.out}/models/{MODEL_OF[w.system]}/seed{w.seed}/model.pt",
    output:
        metrics=f"{P.out}/eval/{{system}}_seed{{seed}}.json",
        samples=f"{P.out}/eval/{{system}}_seed{{seed}}.npz",
    log:
        f"{P.logs}/evaluate_{{system}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_{{system}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=720, mem_mb=32000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
        model=lambda w, input: os.path.dirname(input.model),
    message:
        "FS-DFM: sample {wildcards.system} at every NFE, seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.fsdfm.evaluate"
        " --config {input.config} --scale {params.scale} --system {wildcards.system}"
        " --seed {wildcards.seed} --model {params.model} --data {input.data}"
        " --samples {output.samples} --out {output.metrics} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("main", "entropy", "speed", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("perplexity_vs_nfe", "entropy_vs_nfe")]


rule report:
    input:
        code=[
            *P.src("report", "metrics", "data"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        source=rules.fetch.output.source,
        data=rules.fetch.output.data,
        evals=expand(rules.evaluate.output.metrics, system=SYSTEMS, seed=SEEDS),
        runs=[
            *expand(rules.dfm.output.run, seed=SEEDS),
            *expand(rules.fsdfm.output.run, rule=STUDENT_RULES, seed=SEEDS),
        ],
    output:
        **P.report_outputs(TABLES, FIGURES, category="fsdfm"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "FS-DFM: Table 1 in miniature (the paper's numbers beside ours), figures, claims ledger"
    shell:
        "python -m repro.papers.fsdfm.report --config {input.config} --scale {params.scale}"
        " --source {input.source} --data {input.data} --evals {input.evals}"
        " --runs {input.runs}"
        " --out {params.out} 2> {log}"
