# Diffusion-DFL (ICLR 2026): a conditional diffusion model of y | x trained end to end through
# the sample-average stochastic program its draws define, by reparameterisation and by the
# paper's score-function estimator, against two-stage fits, deterministic and Gaussian DFL, on
# the paper's synthetic task and PJM power scheduling. fetch (per task) -> train (task x
# method x seed; a DFL method starts from its two-stage model) -> evaluate (task x seed, every
# method on the test set) and memory (reparameterisation vs score function per sampling
# steps) -> report. At full the diffusion DFL jobs ask for a GPU (1000 DDIM steps, width 1024).
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
TASKS = S["tasks"]
METHODS = S["methods"]
# the two-stage model each DFL method starts from (models.INIT_OF)
INIT = {
    "dfl_deterministic": "two_stage_mlp",
    "dfl_gaussian": "two_stage_gaussian",
    "dfl_diffusion_rp": "two_stage_diffusion",
    "dfl_diffusion_sf": "two_stage_diffusion",
}
MODEL = [*P.src("models", "problems", "method"), *P.job]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["train"],
        "evaluate": ["evaluate", "memory"],
        "report": ["report"],
    }
)


wildcard_constraints:
    task="|".join(TASKS),
    method="|".join(METHODS),
    seed=r"\d+",


rule fetch:
    input:
        code=[*P.src("data"), *core("fetch"), *P.job],
        config=P.config,
        excerpts=P.excerpts,
    output:
        data=f"{P.data}/{{task}}.npz",
        source=f"{P.data}/{{task}}_source.json",
    log:
        f"{P.logs}/fetch_{{task}}.log",
    benchmark:
        f"{P.bench}/fetch_{{task}}.tsv"
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        mirror=P.mirror,
    message:
        "Diffusion-DFL: {wildcards.task} data (scale {params.scale})"
    shell:
        "python -m repro.papers.diffdfl.data --config {input.config} --scale {params.scale}"
        " --task {wildcards.task} --mirror={params.mirror:q} --out {output.data} 2> {log}"


rule train:
    input:
        code=[*P.src("train"), *MODEL, *core("checkpoint", "device")],
        config=P.config,
        data=rules.fetch.output.data,
        # a DFL method starts from its two-stage model; a two-stage method from nothing
        init=lambda w: (
            f"{P.out}/runs/{w.task}/{INIT[w.method]}/seed{w.seed}.pt" if w.method in INIT else []
        ),
    output:
        model=f"{P.out}/runs/{{task}}/{{method}}/seed{{seed}}.pt",
    log:
        f"{P.logs}/train_{{task}}_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{task}}_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=240, mem_mb=16000, cpus_per_task=4),
        gpu=lambda w: P.gpu if w.method in ("dfl_diffusion_rp", "dfl_diffusion_sf") else 0,
    params:
        scale=P.scale,
        init=lambda w, input: f"--init {input.init}" if input.init else "",
    message:
        "Diffusion-DFL: train {wildcards.method} on {wildcards.task}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.diffdfl.train --config {input.config} --scale {params.scale}"
        " --task {wildcards.task} --method {wildcards.method} --seed {wildcards.seed}"
        " --data {input.data} {params.init} --out {output.model} 2> {log}"


rule evaluate:
    input:
        code=[*P.src("evaluate", "train", "data"), *MODEL, *core("checkpoint", "device")],
        config=P.config,
        data=rules.fetch.output.data,
        runs=expand(f"{P.out}/runs/{{{{task}}}}/{{method}}/seed{{{{seed}}}}.pt", method=METHODS),
    output:
        metrics=f"{P.out}/eval/{{task}}_seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_{{task}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_{{task}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=120, mem_mb=16000, cpus_per_task=4),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "Diffusion-DFL: every method on the {wildcards.task} test set, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.diffdfl.evaluate --config {input.config} --scale {params.scale}"
        " --task {wildcards.task} --seed {wildcards.seed} --data {input.data}"
        " --runs {input.runs} --out {output.metrics} 2> {log}"


rule memory:
    input:
        code=[*P.src("memory"), *MODEL, *core("device")],
        config=P.config,
        data=f"{P.data}/{S['memory']['task']}.npz",
    output:
        memory=f"{P.out}/memory.json",
    log:
        f"{P.logs}/memory.log",
    benchmark:
        f"{P.bench}/memory.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=120, mem_mb=64000, cpus_per_task=4),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "Diffusion-DFL: memory and time of a training step, reparameterisation vs score"
        " function, per number of diffusion steps"
    shell:
        "python -m repro.papers.diffdfl.memory --config {input.config} --scale {params.scale}"
        " --data {input.data} --out {output.memory} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("task_loss", "memory", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("task_loss", "memory", "dfl_curves")]


rule report:
    input:
        code=[
            *P.src("report"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        evals=expand(rules.evaluate.output.metrics, task=TASKS, seed=SEEDS),
        memory=rules.memory.output.memory,
        runs=expand(
            f"{P.out}/runs/{{task}}/{{method}}/seed{{seed}}.pt",
            task=TASKS,
            method=[m for m in METHODS if m in INIT],
            seed=SEEDS,
        ),
    output:
        **P.report_outputs(TABLES, FIGURES, category="Diffusion-DFL"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "Diffusion-DFL: task-loss and memory tables beside the paper's, figures, claims ledger"
    shell:
        "python -m repro.papers.diffdfl.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --memory {input.memory} --runs {input.runs}"
        " --out {params.out} 2> {log}"
