# ROVER (arXiv 2509.24981): Fig. 5 toy, the uniform-Q theorem, Countdown RL, math RL.
# fetch -> train (toy, theorem, sft warm-up, RL per method x seed) -> evaluate -> report.
# The math rules (DeepScaleR; `math.enabled` at tiny and full) mirror the Countdown ones.

localrules: rove_fetch, rove_report, paper_rove  # never via SLURM

ROVE_CFG, ROVE = paper_settings("rove", SCALE)
ROVE_OUT = f"{RESULTS}/rove"
ROVE_DATA = f"{DATA}/rove/{SCALE}"
ROVE_LOGS = f"{LOGS}/rove"
ROVE_SEEDS = ROVE["seeds"]
ROVE_METHODS = ROVE["countdown"]["methods"]
ROVE_CD = f"{ROVE_OUT}/countdown"
# The modules each Countdown job imports (their edits rerun exactly the jobs that run them).
ROVE_CD_CODE = [*core("rlvr/countdown", "rlvr/tasks", "rlvr/policy"), *CORE_JOB, *core("device")]
ROVE_MATH_ON = bool(ROVE["math"]["enabled"])
ROVE_MATH_METHODS = ROVE["math"]["methods"] if ROVE_MATH_ON else []
ROVE_MATH = f"{ROVE_OUT}/math"
ROVE_MATH_DATA = f"{ROVE_DATA}/math"
ROVE_MATH_CODE = [*core("rlvr/math_task", "rlvr/tasks", "rlvr/policy"), *CORE_JOB, *core("device")]

wildcard_constraints:
    method="|".join(ROVE_METHODS),
    mmethod="|".join(ROVE_MATH_METHODS) or "none",
    seed=r"\d+",


rule rove_fetch:
    input:
        code=[*core("rlvr/data", "rlvr/countdown"), *CORE_JOB],
        config=ROVE_CFG,
    output:
        train=f"{ROVE_DATA}/train.jsonl",
        test=f"{ROVE_DATA}/test.jsonl",
        source=f"{ROVE_DATA}/source.json",
    params:
        scale=SCALE,
        mirror=MIRROR,
        out=lambda w, output: os.path.dirname(output.train),
    conda:
        ENV
    log:
        f"{ROVE_LOGS}/fetch.log",
    message:
        "ROVER: fetch Countdown problems (scale {params.scale})"
    shell:
        "python -m repro.core.rlvr.data --config {input.config} --scale {params.scale}"
        " --mirror {params.mirror} --out {params.out} 2> {log}"


rule rove_toy:
    input:
        code=[*src("rove", "toy"), *CORE_JOB],
        config=ROVE_CFG,
    output:
        metrics=f"{ROVE_OUT}/toy/metrics.json",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{ROVE_LOGS}/toy.log",
    message:
        "ROVER: Fig. 5 toy, Q-learning vs ROVER over seeds"
    shell:
        "python -m repro.papers.rove.toy --config {input.config} --scale {params.scale}"
        " --out {output.metrics} 2> {log}"


rule rove_theorem:
    input:
        code=[*src("rove", "theorem"), *CORE_JOB],
        config=ROVE_CFG,
    output:
        result=f"{ROVE_OUT}/theorem.json",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{ROVE_LOGS}/theorem.log",
    message:
        "ROVER: check greedy-on-uniform-Q optimality on random tree MDPs"
    shell:
        "python -m repro.papers.rove.theorem --config {input.config} --scale {params.scale}"
        " --out {output.result} 2> {log}"


rule rove_sft:
    input:
        code=[*core("rlvr/sft"), *ROVE_CD_CODE],
        config=ROVE_CFG,
        train=rules.rove_fetch.output.train,
    output:
        base=directory(f"{ROVE_CD}/base"),
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.train),
    resources:
        gpu=1 if SCALE == "full" else 0,
    conda:
        ENV
    log:
        f"{ROVE_LOGS}/sft.log",
    message:
        "ROVER: supervised warm-up of the Countdown base policy"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.core.rlvr.sft --config {input.config} --scale {params.scale}"
        " --data {params.data} --out {output.base} 2> {log}"


rule rove_train:
    input:
        code=[*src("rove", "train", "algos"), *core("rlvr/trainer", "rlvr/objectives"), *ROVE_CD_CODE],
        config=ROVE_CFG,
        train=rules.rove_fetch.output.train,
        base=rules.rove_sft.output.base,
    output:
        # the trained policy checkpoint, with train_log.json (reward, entropy per step) beside it
        run=directory(f"{ROVE_CD}/{{method}}/seed{{seed}}"),
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.train),
    resources:
        gpu=1 if SCALE == "full" else 0,
    conda:
        ENV
    log:
        f"{ROVE_LOGS}/train_{{method}}_seed{{seed}}.log",
    message:
        "ROVER: Countdown RL with {wildcards.method}, seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.rove.train --config {input.config} --scale {params.scale}"
        " --method {wildcards.method} --seed {wildcards.seed} --data {params.data}"
        " --base {input.base} --out {output.run} 2> {log}"


rule rove_evaluate:
    input:
        code=[*core("rlvr/evaluate"), *ROVE_CD_CODE, *core("metrics")],
        config=ROVE_CFG,
        test=rules.rove_fetch.output.test,
        policy=lambda w: (
            rules.rove_sft.output.base
            if w.evalmethod == "base"
            else f"{ROVE_CD}/{w.evalmethod}/seed{w.seed}"
        ),
    output:
        metrics=f"{ROVE_CD}/eval/{{evalmethod}}_seed{{seed}}.json",
    wildcard_constraints:
        evalmethod="|".join(["base", *ROVE_METHODS]),
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.test),
    resources:
        gpu=1 if SCALE == "full" else 0,
    conda:
        ENV
    log:
        f"{ROVE_LOGS}/evaluate_{{evalmethod}}_seed{{seed}}.log",
    message:
        "ROVER: evaluate {wildcards.evalmethod} (seed {wildcards.seed}) on held-out problems"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.core.rlvr.evaluate --config {input.config} --scale {params.scale}"
        " --method {wildcards.evalmethod} --seed {wildcards.seed} --data {params.data}"
        " --policy {input.policy} --out {output.metrics} 2> {log}"


if ROVE_MATH_ON:

    localrules: rove_math_fetch

    rule rove_math_fetch:
        input:
            code=[*core("rlvr/math_task"), *CORE_JOB],
            config=ROVE_CFG,
        output:
            train=f"{ROVE_MATH_DATA}/train.jsonl",
            test=f"{ROVE_MATH_DATA}/test.jsonl",
            source=f"{ROVE_MATH_DATA}/source.json",
        params:
            scale=SCALE,
            mirror=MIRROR,
            out=lambda w, output: os.path.dirname(output.train),
        conda:
            ENV
        log:
            f"{ROVE_LOGS}/math_fetch.log",
        message:
            "ROVER: fetch math problems (DeepScaleR, benchmarks; scale {params.scale})"
        shell:
            "python -m repro.core.rlvr.math_task --config {input.config} --scale {params.scale}"
            " --mirror {params.mirror} --out {params.out} 2> {log}"

    rule rove_math_base:
        input:
            code=[*core("rlvr/sft"), *ROVE_MATH_CODE],
            config=ROVE_CFG,
            train=rules.rove_math_fetch.output.train,
        output:
            base=directory(f"{ROVE_MATH}/base"),
        params:
            scale=SCALE,
            data=lambda w, input: os.path.dirname(input.train),
        resources:
            gpu=1 if SCALE == "full" else 0,
        conda:
            ENV
        log:
            f"{ROVE_LOGS}/math_base.log",
        message:
            "ROVER: the math base policy (the pretrained model as is; a warmed-up scratch model at tiny)"
        shell:
            "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.core.rlvr.sft --task math --config {input.config} --scale {params.scale}"
            " --data {params.data} --out {output.base} 2> {log}"

    rule rove_math_train:
        input:
            code=[*src("rove", "train", "algos"), *core("rlvr/trainer", "rlvr/objectives"), *ROVE_MATH_CODE],
            config=ROVE_CFG,
            train=rules.rove_math_fetch.output.train,
            base=rules.rove_math_base.output.base,
        output:
            run=directory(f"{ROVE_MATH}/{{mmethod}}/seed{{seed}}"),
        params:
            scale=SCALE,
            data=lambda w, input: os.path.dirname(input.train),
        resources:
            gpu=1 if SCALE == "full" else 0,
        conda:
            ENV
        log:
            f"{ROVE_LOGS}/math_train_{{mmethod}}_seed{{seed}}.log",
        message:
            "ROVER: math RL with {wildcards.mmethod}, seed {wildcards.seed}"
        shell:
            "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.rove.train --task math --config {input.config} --scale {params.scale}"
            " --method {wildcards.mmethod} --seed {wildcards.seed} --data {params.data}"
            " --base {input.base} --out {output.run} 2> {log}"

    rule rove_math_evaluate:
        input:
            code=[*core("rlvr/evaluate"), *ROVE_MATH_CODE, *core("metrics")],
            config=ROVE_CFG,
            test=rules.rove_math_fetch.output.test,
            policy=lambda w: (
                rules.rove_math_base.output.base
                if w.mevalmethod == "base"
                else f"{ROVE_MATH}/{w.mevalmethod}/seed{w.seed}"
            ),
        output:
            metrics=f"{ROVE_MATH}/eval/{{mevalmethod}}_seed{{seed}}.json",
        wildcard_constraints:
            mevalmethod="|".join(["base", *ROVE_MATH_METHODS]),
        params:
            scale=SCALE,
            data=lambda w, input: os.path.dirname(input.test),
        resources:
            gpu=1 if SCALE == "full" else 0,
        conda:
            ENV
        log:
            f"{ROVE_LOGS}/math_evaluate_{{mevalmethod}}_seed{{seed}}.log",
        message:
            "ROVER: evaluate {wildcards.mevalmethod} (seed {wildcards.seed}) on the math benchmarks"
        shell:
            "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.core.rlvr.evaluate --task math --config {input.config} --scale {params.scale}"
            " --method {wildcards.mevalmethod} --seed {wildcards.seed} --data {params.data}"
            " --policy {input.policy} --out {output.metrics} 2> {log}"


ROVE_EVAL_METHODS = ["base", *ROVE_METHODS]
ROVE_MATH_EVALS = expand(
    f"{ROVE_MATH}/eval/{{m}}_seed{{s}}.json", m=["base", *ROVE_MATH_METHODS], s=ROVE_SEEDS
) if ROVE_MATH_ON else []
ROVE_MATH_RUNS = expand(
    f"{ROVE_MATH}/{{m}}/seed{{s}}", m=ROVE_MATH_METHODS, s=ROVE_SEEDS
) if ROVE_MATH_ON else []
ROVE_TABLES = [
    f"{ROVE_OUT}/tables/{t}.{ext}"
    for t in ("toy", "theorem", "countdown", "paper_reported", *(["math"] if ROVE_MATH_ON else []))
    for ext in ("csv", "md")
]
ROVE_FIGURES = [f"{ROVE_OUT}/figures/{f}.png" for f in ("toy_policies", "passk", "entropy")]


rule rove_report:
    input:
        code=[*src("rove", "report", "plots"), *CORE_JOB, *core("tables", "claims", "plotting", "metrics", "rlvr/reporting")],
        config=ROVE_CFG,
        toy=rules.rove_toy.output.metrics,
        theorem=rules.rove_theorem.output.result,
        evals=expand(f"{ROVE_CD}/eval/{{m}}_seed{{s}}.json", m=ROVE_EVAL_METHODS, s=ROVE_SEEDS),
        runs=expand(f"{ROVE_CD}/{{m}}/seed{{s}}", m=ROVE_METHODS, s=ROVE_SEEDS),
        math_evals=ROVE_MATH_EVALS,
        math_runs=ROVE_MATH_RUNS,
    output:
        tables=[report(t, category="ROVER", subcategory="tables") for t in ROVE_TABLES],
        figures=[report(f, category="ROVER", subcategory="figures") for f in ROVE_FIGURES],
        claims=report(f"{ROVE_OUT}/claims.md", category="ROVER", subcategory="claims"),
        claims_json=f"{ROVE_OUT}/claims.json",
        records=f"{ROVE_OUT}/records.json",
    params:
        scale=SCALE,
        out=lambda w, output: os.path.dirname(output.claims_json),
        math=lambda w, input: (
            f"--math-evals {' '.join(input.math_evals)} --math-train-runs {' '.join(input.math_runs)}"
            if ROVE_MATH_ON
            else ""
        ),
    conda:
        ENV
    log:
        f"{ROVE_LOGS}/report.log",
    message:
        "ROVER: tables, figures and the claims ledger"
    shell:
        "python -m repro.papers.rove.report --config {input.config} --scale {params.scale}"
        " --toy {input.toy} --theorem {input.theorem} --evals {input.evals}"
        " --train-runs {input.runs} {params.math} --out {params.out} 2> {log}"


rule paper_rove:
    input:
        rules.rove_report.output,
    message:
        f"ROVER reproduced at scale {SCALE}"


PAPERS["rove"] = {"claims": rules.rove_report.output.claims_json}
