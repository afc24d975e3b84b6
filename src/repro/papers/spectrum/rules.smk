# Spectrum Suite / Spectrum Tuning (ICLR 2026): post-training on many distribution-matching tasks
# (a description, then several i.i.d. outputs, loss on the outputs only) against the instruction-
# tuned model it starts from. suite (the training pool and every seed's held-out sets, generated
# offline) -> train (Spectrum Tuning, a LoRA adapter per seed) -> evaluate (model x seed:
# in-context steerability, distributional alignment, valid output coverage) -> report.
# SLURM sizes are for full (Qwen3-14B: LoRA on one 80 GB GPU; evaluation of four checkpoints).
from repro.core.workflow import core, fail, paper

P = paper(config)
S = P.settings
for _name, _spec in S["models"].items():
    if _spec["checkpoint"] in ("base", "released") and not S["model"].get(_spec["checkpoint"]):
        fail(
            ValueError(
                f"config error in {P.config} (scale {P.scale}): models.{_name} reads the "
                f"{_spec['checkpoint']} checkpoint, but model.{_spec['checkpoint']} is null "
                "(no source for it at this scale)"
            )
        )
SEEDS = S["seeds"]
MODELS = list(S["models"])
TUNED = {m: s["checkpoint"] == "tuned" for m, s in S["models"].items()}
SUITE_CODE = [*P.src("suite", "formats", "sources"), *P.job]
MODEL_CODE = [
    *P.src("models", "formats", "suite", "sources"),
    *core("checkpoint", "device", "llm"),
    *P.job,
]
P.phases(
    {
        "fetch": ["suite"],
        "train": ["train"],
        "evaluate": ["evaluate"],
        "report": ["report"],
    }
)


wildcard_constraints:
    model="|".join(MODELS),
    seed=r"\d+",


rule suite:
    input:
        code=[*P.src("data"), *SUITE_CODE],
        config=P.config,
    output:
        suite=f"{P.data}/suite.json",
    log:
        f"{P.logs}/suite.log",
    benchmark:
        f"{P.bench}/suite.tsv"
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        cache=f"{P.data}/sources",
    message:
        "spectrum: draw the suite's training pool and held-out sets (scale {params.scale})"
    shell:
        "python -m repro.papers.spectrum.data --config {input.config} --scale {params.scale}"
        " --cache {params.cache} --out {output.suite} 2> {log}"


rule train:
    input:
        code=[*P.src("train"), *MODEL_CODE],
        config=P.config,
        suite=rules.suite.output.suite,
    output:
        adapter=directory(f"{P.out}/adapters/seed{{seed}}"),
    log:
        f"{P.logs}/train_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=1440, mem_mb=128000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "spectrum: Spectrum Tuning (LoRA on the instruct model), seed {wildcards.seed}"
    shell:
        "python -m repro.papers.spectrum.train --config {input.config} --scale {params.scale}"
        " --suite {input.suite} --seed {wildcards.seed} --out {output.adapter} 2> {log}"


rule evaluate:
    input:
        code=[*P.src("evaluate"), *MODEL_CODE],
        config=P.config,
        suite=rules.suite.output.suite,
        adapter=lambda w: (
            expand(rules.train.output.adapter, seed=w.seed) if TUNED[w.model] else []
        ),
    output:
        metrics=f"{P.out}/eval/{{model}}_seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_{{model}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_{{model}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=480, mem_mb=128000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
        adapter=lambda w, input: f"--adapter {input.adapter}" if input.adapter else "",
    message:
        "spectrum: evaluate {wildcards.model}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.spectrum.evaluate --config {input.config} --scale {params.scale}"
        " --suite {input.suite} --model {wildcards.model} --seed {wildcards.seed}"
        " {params.adapter} --out {output.metrics} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("main", "families", "coverage", "readme_dice", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/{f}.png" for f in ("steerability", "training")]


rule report:
    input:
        code=[
            *P.src("report", "suite", "formats", "sources"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        evals=expand(rules.evaluate.output.metrics, model=MODELS, seed=SEEDS),
        adapters=expand(rules.train.output.adapter, seed=SEEDS) if any(TUNED.values()) else [],
    output:
        **P.report_outputs(TABLES, FIGURES, category="spectrum"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "spectrum: tables (the paper's numbers beside ours), figures and the claims ledger"
    shell:
        "python -m repro.papers.spectrum.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --adapters {input.adapters} --out {params.out} 2> {log}"
