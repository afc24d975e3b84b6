# REAP (ICLR 2026, CerebrasResearch/reap): one-shot MoE expert compression. REAP pruning against
# frequency / EAN pruning and M-SMoE / HC-SMoE merging, at 25% and 50% of each layer's experts.
# tiny/small: a Qwen3-MoE trained here on the CPython stdlib + reference-manual prose; full: the
# paper's Qwen/Qwen3-30B-A3B, evol-codealpaca calibration, EvalPlus + LiveCodeBench.
# fetch -> train (the model, cached) -> observe (calibration per seed) -> evaluate -> report.

localrules: reap_fetch, reap_report, paper_reap  # never via SLURM

REAP_CFG, REAP = paper_settings("reap", SCALE)
REAP_OUT = f"{RESULTS}/reap"
REAP_DATA = f"{DATA}/reap/{SCALE}"
REAP_LOGS = f"{LOGS}/reap"
REAP_SEEDS = REAP["seeds"]
REAP_METHODS = REAP["methods"]
REAP_RATIOS = REAP["ratios"]
REAP_GPU = REAP["gpus"]  # 0 at tiny/small; the hub model's jobs at full
REAP_REF_SEED = REAP_SEEDS[0]  # the unpruned model needs no calibration; its seed seeds nothing
# The modules each job imports (their edits rerun exactly the jobs that run them).
REAP_JOB_CODE = [*src("reap", "model", "data"), *CORE_JOB, *core("device")]
REAP_EVAL_CODE = [*src("reap", "evaluate", "benchmarks", "prune", "merge"), *REAP_JOB_CODE]


rule reap_fetch:
    input:
        code=[*src("reap", "data"), *CORE_JOB],
        config=REAP_CFG,
    output:
        docs=f"{REAP_DATA}/docs.jsonl",
        prefixes=f"{REAP_DATA}/prefixes.jsonl",
        calibration=f"{REAP_DATA}/calibration.jsonl",
        source=f"{REAP_DATA}/source.json",
    params:
        scale=SCALE,
        mirror=MIRROR,
        out=lambda w, output: os.path.dirname(output.docs),
    conda:
        ENV
    log:
        f"{REAP_LOGS}/fetch.log",
    message:
        "REAP: stdlib code + reference-manual prose, splits and function prefixes (scale {params.scale})"
    shell:
        "python -m repro.papers.reap.data --config {input.config} --scale {params.scale}"
        " --mirror {params.mirror} --out {params.out} 2> {log}"


rule reap_train:
    input:
        code=[*src("reap", "train"), *REAP_JOB_CODE],
        config=REAP_CFG,
        docs=rules.reap_fetch.output.docs,
    output:
        # weights + config + model.json, and train_log.json (loss, router entropy, usage)
        model=directory(f"{REAP_OUT}/model"),
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.docs),
    threads: REAP["train"]["threads"] if REAP["model"]["kind"] == "scratch" else 1
    conda:
        ENV
    log:
        f"{REAP_LOGS}/train.log",
    message:
        "REAP: train the Qwen3-MoE until its router specialises (full: point at the hub model)"
    shell:
        "python -m repro.papers.reap.train --config {input.config} --scale {params.scale}"
        " --data {params.data} --out {output.model} 2> {log}"


rule reap_observe:
    input:
        code=[*src("reap", "observe"), *REAP_JOB_CODE],
        config=REAP_CFG,
        docs=rules.reap_fetch.output.docs,
        calibration=rules.reap_fetch.output.calibration,
        model=rules.reap_train.output.model,
    output:
        obs=f"{REAP_OUT}/observe/seed{{seed}}.pt",
        summary=f"{REAP_OUT}/observe/seed{{seed}}.json",
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.docs),
    resources:
        gpu=REAP_GPU,
    conda:
        ENV
    log:
        f"{REAP_LOGS}/observe_seed{{seed}}.log",
    message:
        "REAP: calibration statistics (frequency, EAN, REAP, merging criteria), seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.reap.observe --config {input.config} --scale {params.scale}"
        " --seed {wildcards.seed} --model {input.model} --data {params.data}"
        " --out {output.obs} --summary {output.summary} 2> {log}"


rule reap_reference:
    input:
        code=REAP_EVAL_CODE,
        config=REAP_CFG,
        docs=rules.reap_fetch.output.docs,
        prefixes=rules.reap_fetch.output.prefixes,
        model=rules.reap_train.output.model,
    output:
        metrics=f"{REAP_OUT}/eval/unpruned.json",
    params:
        scale=SCALE,
        seed=REAP_REF_SEED,
        data=lambda w, input: os.path.dirname(input.docs),
    resources:
        gpu=REAP_GPU,
    conda:
        ENV
    log:
        f"{REAP_LOGS}/evaluate_unpruned.log",
    message:
        "REAP: evaluate the unpruned model (the reference continuations)"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.reap.evaluate --config {input.config} --scale {params.scale}"
        " --method unpruned --seed {params.seed} --model {input.model} --data {params.data}"
        " --out {output.metrics} 2> {log}"


rule reap_evaluate:
    input:
        code=REAP_EVAL_CODE,
        config=REAP_CFG,
        docs=rules.reap_fetch.output.docs,
        prefixes=rules.reap_fetch.output.prefixes,
        model=rules.reap_train.output.model,
        obs=rules.reap_observe.output.obs,
        reference=rules.reap_reference.output.metrics,
    output:
        metrics=f"{REAP_OUT}/eval/{{rmethod}}_r{{ratio}}_seed{{seed}}.json",
    wildcard_constraints:
        rmethod="|".join(REAP_METHODS),
        ratio="|".join(map(str, REAP_RATIOS)),
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.docs),
    resources:
        gpu=REAP_GPU,
    conda:
        ENV
    log:
        f"{REAP_LOGS}/evaluate_{{rmethod}}_r{{ratio}}_seed{{seed}}.log",
    message:
        "REAP: {wildcards.rmethod} at {wildcards.ratio}% (calibration seed {wildcards.seed}), then evaluate"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.reap.evaluate --config {input.config} --scale {params.scale}"
        " --method {wildcards.rmethod} --ratio {wildcards.ratio} --seed {wildcards.seed}"
        " --model {input.model} --data {params.data} --obs {input.obs}"
        " --reference {input.reference} --out {output.metrics} 2> {log}"


REAP_EVALS = [rules.reap_reference.output.metrics] + expand(
    f"{REAP_OUT}/eval/{{m}}_r{{r}}_seed{{s}}.json", m=REAP_METHODS, r=REAP_RATIOS, s=REAP_SEEDS
)
REAP_TABLES = [
    f"{REAP_OUT}/tables/{t}.{ext}"
    for t in ("compression", "paper_comparison", "router", "merging_gap", "paper_reported")
    for ext in ("csv", "md")
]
REAP_FIGURES = [f"{REAP_OUT}/figures/{f}.png" for f in ("compression", "router")]


rule reap_report:
    input:
        code=[*src("reap", "report"), *CORE_JOB, *core("tables", "claims", "plotting")],
        config=REAP_CFG,
        model=rules.reap_train.output.model,
        observations=expand(f"{REAP_OUT}/observe/seed{{s}}.json", s=REAP_SEEDS),
        evals=REAP_EVALS,
    output:
        tables=[report(t, category="REAP", subcategory="tables") for t in REAP_TABLES],
        figures=[report(f, category="REAP", subcategory="figures") for f in REAP_FIGURES],
        claims=report(f"{REAP_OUT}/claims.md", category="REAP", subcategory="claims"),
        claims_json=f"{REAP_OUT}/claims.json",
        records=f"{REAP_OUT}/records.json",
    params:
        scale=SCALE,
        out=lambda w, output: os.path.dirname(output.claims_json),
        train_log=lambda w, input: os.path.join(input.model, "train_log.json"),
    conda:
        ENV
    log:
        f"{REAP_LOGS}/report.log",
    message:
        "REAP: compression tables beside the paper's, router statistics, figures, claims ledger"
    shell:
        "python -m repro.papers.reap.report --config {input.config} --scale {params.scale}"
        " --train-log {params.train_log} --observations {input.observations}"
        " --evals {input.evals} --out {params.out} 2> {log}"


rule paper_reap:
    input:
        rules.reap_report.output,
    message:
        f"REAP reproduced at scale {SCALE}"


PAPERS["reap"] = {"claims": rules.reap_report.output.claims_json}
