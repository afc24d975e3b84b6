# NFT (arXiv 2505.18116): Prop. 4.2 on real gradients, and RFT / NFT / GRPO / Dr.GRPO /
# DAPO-lite on rove's Countdown setting (shared code: repro.core.rlvr); at full, the paper's
# Qwen2.5-Math-7B on DAPO-Math-17k through the same code.
# fetch -> train (sft warm-up, gradient check, RL per method x seed) -> evaluate -> report.

localrules: nft_fetch, nft_report, paper_nft  # never via SLURM

NFT_CFG, NFT = paper_settings("nft", SCALE)
NFT_OUT = f"{RESULTS}/nft"
NFT_DATA = f"{DATA}/nft/{SCALE}"
NFT_LOGS = f"{LOGS}/nft"
NFT_SEEDS = NFT["seeds"]
NFT_METHODS = NFT["countdown"]["methods"]
NFT_CD = f"{NFT_OUT}/countdown"
# The modules each Countdown job imports (their edits rerun exactly the jobs that run them).
NFT_CD_CODE = [*core("rlvr/countdown", "rlvr/tasks", "rlvr/policy"), *CORE_JOB, *core("device")]
NFT_TRAIN_CODE = [*src("nft", "train", "algos"), *core("rlvr/trainer", "rlvr/objectives")]
NFT_MATH_ON = bool(NFT["math"]["enabled"])
NFT_MATH_METHODS = NFT["math"]["methods"] if NFT_MATH_ON else []
NFT_MATH = f"{NFT_OUT}/math"
NFT_MATH_DATA = f"{NFT_DATA}/math"
NFT_MATH_CODE = [*core("rlvr/math_task", "rlvr/tasks", "rlvr/policy"), *CORE_JOB, *core("device")]
NFT_GPU = 1 if SCALE == "full" else 0


rule nft_fetch:
    input:
        code=[*core("rlvr/data", "rlvr/countdown"), *CORE_JOB],
        config=NFT_CFG,
    output:
        train=f"{NFT_DATA}/train.jsonl",
        test=f"{NFT_DATA}/test.jsonl",
        source=f"{NFT_DATA}/source.json",
    params:
        scale=SCALE,
        mirror=MIRROR,
        out=lambda w, output: os.path.dirname(output.train),
    conda:
        ENV
    log:
        f"{NFT_LOGS}/fetch.log",
    message:
        "NFT: Countdown problems (rove's generator; scale {params.scale})"
    shell:
        "python -m repro.core.rlvr.data --config {input.config} --scale {params.scale}"
        " --mirror {params.mirror} --out {params.out} 2> {log}"


rule nft_sft:
    input:
        code=[*core("rlvr/sft"), *NFT_CD_CODE],
        config=NFT_CFG,
        train=rules.nft_fetch.output.train,
    output:
        base=directory(f"{NFT_CD}/base"),
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.train),
    resources:
        gpu=NFT_GPU,
    conda:
        ENV
    log:
        f"{NFT_LOGS}/sft.log",
    message:
        "NFT: supervised warm-up of the Countdown base policy"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.core.rlvr.sft --config {input.config} --scale {params.scale}"
        " --data {params.data} --out {output.base} 2> {log}"


rule nft_equivalence:
    input:
        code=[*src("nft", "equivalence", "algos"), *core("rlvr/trainer", "rlvr/objectives"),
              *NFT_CD_CODE],
        config=NFT_CFG,
        train=rules.nft_fetch.output.train,
        base=rules.nft_sft.output.base,
    output:
        result=f"{NFT_OUT}/equivalence.json",
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.train),
    conda:
        ENV
    log:
        f"{NFT_LOGS}/equivalence.log",
    message:
        "NFT: NFT vs GRPO / Dr.GRPO gradients on on-policy and off-policy batches (Prop. 4.2)"
    shell:
        "python -m repro.papers.nft.equivalence --config {input.config} --scale {params.scale}"
        " --data {params.data} --base {input.base} --out {output.result} 2> {log}"


rule nft_train:
    input:
        code=[*NFT_TRAIN_CODE, *NFT_CD_CODE],
        config=NFT_CFG,
        train=rules.nft_fetch.output.train,
        base=rules.nft_sft.output.base,
    output:
        # the trained policy, with train_log.json (reward, entropy, rollouts per step) beside it
        run=directory(f"{NFT_CD}/{{nmethod}}/seed{{seed}}"),
    wildcard_constraints:
        nmethod="|".join(NFT_METHODS) or "none",
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.train),
    resources:
        gpu=NFT_GPU,
    conda:
        ENV
    log:
        f"{NFT_LOGS}/train_{{nmethod}}_seed{{seed}}.log",
    message:
        "NFT: Countdown training with {wildcards.nmethod}, seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.nft.train --config {input.config} --scale {params.scale}"
        " --method {wildcards.nmethod} --seed {wildcards.seed} --data {params.data}"
        " --base {input.base} --out {output.run} 2> {log}"


rule nft_evaluate:
    input:
        code=[*core("rlvr/evaluate"), *NFT_CD_CODE, *core("metrics")],
        config=NFT_CFG,
        test=rules.nft_fetch.output.test,
        policy=lambda w: (
            rules.nft_sft.output.base
            if w.nevalmethod == "base"
            else f"{NFT_CD}/{w.nevalmethod}/seed{w.seed}"
        ),
    output:
        metrics=f"{NFT_CD}/eval/{{nevalmethod}}_seed{{seed}}.json",
    wildcard_constraints:
        nevalmethod="|".join(["base", *NFT_METHODS]),
    params:
        scale=SCALE,
        data=lambda w, input: os.path.dirname(input.test),
    resources:
        gpu=NFT_GPU,
    conda:
        ENV
    log:
        f"{NFT_LOGS}/evaluate_{{nevalmethod}}_seed{{seed}}.log",
    message:
        "NFT: evaluate {wildcards.nevalmethod} (seed {wildcards.seed}) on held-out problems"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.core.rlvr.evaluate --config {input.config} --scale {params.scale}"
        " --method {wildcards.nevalmethod} --seed {wildcards.seed} --data {params.data}"
        " --policy {input.policy} --out {output.metrics} 2> {log}"


if NFT_MATH_ON:

    localrules: nft_math_fetch

    rule nft_math_fetch:
        input:
            code=[*core("rlvr/math_task"), *CORE_JOB],
            config=NFT_CFG,
        output:
            train=f"{NFT_MATH_DATA}/train.jsonl",
            test=f"{NFT_MATH_DATA}/test.jsonl",
            source=f"{NFT_MATH_DATA}/source.json",
        params:
            scale=SCALE,
            mirror=MIRROR,
            out=lambda w, output: os.path.dirname(output.train),
        conda:
            ENV
        log:
            f"{NFT_LOGS}/math_fetch.log",
        message:
            "NFT: fetch DAPO-Math-17k and the six validation benchmarks (scale {params.scale})"
        shell:
            "python -m repro.core.rlvr.math_task --config {input.config} --scale {params.scale}"
            " --mirror {params.mirror} --out {params.out} 2> {log}"

    rule nft_math_base:
        input:
            code=[*core("rlvr/sft"), *NFT_MATH_CODE],
            config=NFT_CFG,
            train=rules.nft_math_fetch.output.train,
        output:
            base=directory(f"{NFT_MATH}/base"),
        params:
            scale=SCALE,
            data=lambda w, input: os.path.dirname(input.train),
        resources:
            gpu=NFT_GPU,
        conda:
            ENV
        log:
            f"{NFT_LOGS}/math_base.log",
        message:
            "NFT: the math base policy (Qwen2.5-Math-7B as is)"
        shell:
            "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.core.rlvr.sft --task math --config {input.config}"
            " --scale {params.scale} --data {params.data} --out {output.base} 2> {log}"

    rule nft_math_train:
        input:
            code=[*NFT_TRAIN_CODE, *NFT_MATH_CODE],
            config=NFT_CFG,
            train=rules.nft_math_fetch.output.train,
            base=rules.nft_math_base.output.base,
        output:
            run=directory(f"{NFT_MATH}/{{nmmethod}}/seed{{seed}}"),
        wildcard_constraints:
            nmmethod="|".join(NFT_MATH_METHODS) or "none",
        params:
            scale=SCALE,
            data=lambda w, input: os.path.dirname(input.train),
        resources:
            gpu=NFT_GPU,
        conda:
            ENV
        log:
            f"{NFT_LOGS}/math_train_{{nmmethod}}_seed{{seed}}.log",
        message:
            "NFT: math training with {wildcards.nmmethod}, seed {wildcards.seed}"
        shell:
            "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.nft.train --task math --config {input.config}"
            " --scale {params.scale} --method {wildcards.nmmethod} --seed {wildcards.seed}"
            " --data {params.data} --base {input.base} --out {output.run} 2> {log}"

    rule nft_math_evaluate:
        input:
            code=[*core("rlvr/evaluate"), *NFT_MATH_CODE, *core("metrics")],
            config=NFT_CFG,
            test=rules.nft_math_fetch.output.test,
            policy=lambda w: (
                rules.nft_math_base.output.base
                if w.nmevalmethod == "base"
                else f"{NFT_MATH}/{w.nmevalmethod}/seed{w.seed}"
            ),
        output:
            metrics=f"{NFT_MATH}/eval/{{nmevalmethod}}_seed{{seed}}.json",
        wildcard_constraints:
            nmevalmethod="|".join(["base", *NFT_MATH_METHODS]),
        params:
            scale=SCALE,
            data=lambda w, input: os.path.dirname(input.test),
        resources:
            gpu=NFT_GPU,
        conda:
            ENV
        log:
            f"{NFT_LOGS}/math_evaluate_{{nmevalmethod}}_seed{{seed}}.log",
        message:
            "NFT: evaluate {wildcards.nmevalmethod} (seed {wildcards.seed}) on the benchmarks"
        shell:
            "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.core.rlvr.evaluate --task math --config {input.config}"
            " --scale {params.scale} --method {wildcards.nmevalmethod} --seed {wildcards.seed}"
            " --data {params.data} --policy {input.policy} --out {output.metrics} 2> {log}"


NFT_MATH_EVALS = expand(
    f"{NFT_MATH}/eval/{{m}}_seed{{s}}.json", m=["base", *NFT_MATH_METHODS], s=NFT_SEEDS
) if NFT_MATH_ON else []
NFT_MATH_RUNS = expand(
    f"{NFT_MATH}/{{m}}/seed{{s}}", m=NFT_MATH_METHODS, s=NFT_SEEDS
) if NFT_MATH_ON else []
NFT_TABLES = [
    f"{NFT_OUT}/tables/{t}.{ext}"
    for t in ("equivalence", "countdown", "paper_table1", "paper_reported",
              *(["math"] if NFT_MATH_ON else []))
    for ext in ("csv", "md")
]
NFT_FIGURES = [f"{NFT_OUT}/figures/{f}.png" for f in ("equivalence", "passk", "entropy")]


rule nft_report:
    input:
        code=[*src("nft", "report"), *CORE_JOB,
              *core("tables", "claims", "plotting", "metrics", "rlvr/reporting")],
        config=NFT_CFG,
        equivalence=rules.nft_equivalence.output.result,
        evals=expand(f"{NFT_CD}/eval/{{m}}_seed{{s}}.json", m=["base", *NFT_METHODS], s=NFT_SEEDS),
        runs=expand(f"{NFT_CD}/{{m}}/seed{{s}}", m=NFT_METHODS, s=NFT_SEEDS),
        math_evals=NFT_MATH_EVALS,
        math_runs=NFT_MATH_RUNS,
    output:
        tables=[report(t, category="NFT", subcategory="tables") for t in NFT_TABLES],
        figures=[report(f, category="NFT", subcategory="figures") for f in NFT_FIGURES],
        claims=report(f"{NFT_OUT}/claims.md", category="NFT", subcategory="claims"),
        claims_json=f"{NFT_OUT}/claims.json",
        records=f"{NFT_OUT}/records.json",
    params:
        scale=SCALE,
        out=lambda w, output: os.path.dirname(output.claims_json),
        math=lambda w, input: (
            f"--math-evals {' '.join(input.math_evals)} --math-train-runs {' '.join(input.math_runs)}"
            if NFT_MATH_ON
            else ""
        ),
    conda:
        ENV
    log:
        f"{NFT_LOGS}/report.log",
    message:
        "NFT: tables, figures and the claims ledger"
    shell:
        "python -m repro.papers.nft.report --config {input.config} --scale {params.scale}"
        " --equivalence {input.equivalence} --evals {input.evals} --train-runs {input.runs}"
        " {params.math} --out {params.out} 2> {log}"


rule paper_nft:
    input:
        rules.nft_report.output,
    message:
        f"NFT reproduced at scale {SCALE}"


PAPERS["nft"] = {"claims": rules.nft_report.output.claims_json}
