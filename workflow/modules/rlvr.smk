# RL with verifiable rewards, written once for every paper that trains policies on Countdown
# and math (rove, nft): fetch -> SFT warm-up -> RL per method x seed -> evaluate, and the same
# for math (DeepScaleR-style data; `math.enabled`). A paper's module uses it with
#   module rlvr: snakefile: "../modules/rlvr.smk"; config: {**config, "rlvr": {...}}
#   use rule * from rlvr
# and brings its own objectives (src/repro/papers/<id>/{train,algos}.py), settings and report.
# config["rlvr"]: label (for messages), resources (per rule, sized for full; SLURM reads them).
from repro.core.workflow import core, paper

P = paper(config)
LABEL = config["rlvr"]["label"]
RES = config["rlvr"]["resources"]
CD = f"{P.out}/countdown"
MATH = f"{P.out}/math"
MATH_DATA = f"{P.data}/math"
METHODS = P.settings["countdown"]["methods"]
MATH_ON = bool(P.settings["math"]["enabled"])
MATH_METHODS = P.settings["math"]["methods"] if MATH_ON else []
GPU = "python -m repro.core.gpus --gpus {resources.gpu} --"
# The modules each job imports (their edits rerun exactly the jobs that run them).
CD_CODE = [*core("rlvr/countdown", "rlvr/tasks", "rlvr/policy"), *P.job, *core("device")]
MATH_CODE = [*core("rlvr/math_task", "rlvr/tasks", "rlvr/policy"), *P.job, *core("device")]
TRAIN_CODE = [*P.src("train", "algos"), *core("rlvr/trainer", "rlvr/objectives")]
EVAL_CODE = [*core("rlvr/evaluate"), *core("metrics")]
P.phases(
    {
        "fetch": ["fetch", "math_fetch"],
        "train": ["sft", "train", "math_base", "math_train"],
        "evaluate": ["evaluate", "math_evaluate"],
    }
)


wildcard_constraints:
    seed=r"\d+",


rule fetch:
    input:
        code=[*core("rlvr/data", "rlvr/countdown"), *P.job],
        config=P.config,
    output:
        train=f"{P.data}/train.jsonl",
        test=f"{P.data}/test.jsonl",
        source=f"{P.data}/source.json",
    log:
        f"{P.logs}/fetch.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        mirror=P.mirror,
        out=lambda w, output: os.path.dirname(output.train),
    message:
        f"{LABEL}: fetch Countdown problems (scale {P.scale})"
    shell:
        "python -m repro.core.rlvr.data --config {input.config} --scale {params.scale}"
        " --mirror {params.mirror} --out {params.out} 2> {log}"


rule sft:
    input:
        code=[*core("rlvr/sft"), *CD_CODE],
        config=P.config,
        train=rules.fetch.output.train,
    output:
        base=directory(f"{CD}/base"),
    log:
        f"{P.logs}/sft.log",
    conda:
        P.env
    resources:
        **RES["sft"],
        gpu=P.gpu,
    params:
        scale=P.scale,
        data=lambda w, input: os.path.dirname(input.train),
    message:
        f"{LABEL}: supervised warm-up of the Countdown base policy"
    shell:
        GPU + " python -m repro.core.rlvr.sft --config {input.config} --scale {params.scale}"
        " --data {params.data} --out {output.base} 2> {log}"


rule train:
    input:
        code=[*TRAIN_CODE, *CD_CODE],
        config=P.config,
        train=rules.fetch.output.train,
        base=rules.sft.output.base,
    output:
        # the trained policy, with train_log.json (reward, entropy, rollouts per step) beside it
        run=directory(f"{CD}/{{method}}/seed{{seed}}"),
    log:
        f"{P.logs}/train_{{method}}_seed{{seed}}.log",
    wildcard_constraints:
        method="|".join(METHODS) or "none",
    conda:
        P.env
    resources:
        **RES["train"],
        gpu=P.gpu,
    params:
        scale=P.scale,
        data=lambda w, input: os.path.dirname(input.train),
    message:
        f"{LABEL}: Countdown RL with {{wildcards.method}}, seed {{wildcards.seed}}"
    shell:
        GPU + f" python -m repro.papers.{P.id}.train --config {{input.config}}"
        " --scale {params.scale} --method {wildcards.method} --seed {wildcards.seed}"
        " --data {params.data} --base {input.base} --out {output.run} 2> {log}"


rule evaluate:
    input:
        code=[*EVAL_CODE, *CD_CODE],
        config=P.config,
        test=rules.fetch.output.test,
        policy=lambda w: (
            rules.sft.output.base
            if w.evalmethod == "base"
            else f"{CD}/{w.evalmethod}/seed{w.seed}"
        ),
    output:
        metrics=f"{CD}/eval/{{evalmethod}}_seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_{{evalmethod}}_seed{{seed}}.log",
    wildcard_constraints:
        evalmethod="|".join(["base", *METHODS]),
    conda:
        P.env
    resources:
        **RES["evaluate"],
        gpu=P.gpu,
    params:
        scale=P.scale,
        data=lambda w, input: os.path.dirname(input.test),
    message:
        f"{LABEL}: evaluate {{wildcards.evalmethod}} (seed {{wildcards.seed}}) on held-out problems"
    shell:
        GPU + " python -m repro.core.rlvr.evaluate --config {input.config}"
        " --scale {params.scale} --method {wildcards.evalmethod} --seed {wildcards.seed}"
        " --data {params.data} --policy {input.policy} --out {output.metrics} 2> {log}"


if MATH_ON:

    rule math_fetch:
        input:
            code=[*core("rlvr/math_task"), *P.job],
            config=P.config,
        output:
            train=f"{MATH_DATA}/train.jsonl",
            test=f"{MATH_DATA}/test.jsonl",
            source=f"{MATH_DATA}/source.json",
        log:
            f"{P.logs}/math_fetch.log",
        localrule: True
        conda:
            P.env
        params:
            scale=P.scale,
            mirror=P.mirror,
            out=lambda w, output: os.path.dirname(output.train),
        message:
            f"{LABEL}: fetch the math training set and benchmarks (scale {P.scale})"
        shell:
            "python -m repro.core.rlvr.math_task --config {input.config} --scale {params.scale}"
            " --mirror {params.mirror} --out {params.out} 2> {log}"

    rule math_base:
        input:
            code=[*core("rlvr/sft"), *MATH_CODE],
            config=P.config,
            train=rules.math_fetch.output.train,
        output:
            base=directory(f"{MATH}/base"),
        log:
            f"{P.logs}/math_base.log",
        conda:
            P.env
        resources:
            **RES["math_base"],
            gpu=P.gpu,
        params:
            scale=P.scale,
            data=lambda w, input: os.path.dirname(input.train),
        message:
            f"{LABEL}: the math base policy (the pretrained model as is; warmed up at tiny)"
        shell:
            GPU + " python -m repro.core.rlvr.sft --task math --config {input.config}"
            " --scale {params.scale} --data {params.data} --out {output.base} 2> {log}"

    rule math_train:
        input:
            code=[*TRAIN_CODE, *MATH_CODE],
            config=P.config,
            train=rules.math_fetch.output.train,
            base=rules.math_base.output.base,
        output:
            run=directory(f"{MATH}/{{method}}/seed{{seed}}"),
        log:
            f"{P.logs}/math_train_{{method}}_seed{{seed}}.log",
        wildcard_constraints:
            method="|".join(MATH_METHODS) or "none",
        conda:
            P.env
        resources:
            **RES["math_train"],
            gpu=P.gpu,
        params:
            scale=P.scale,
            data=lambda w, input: os.path.dirname(input.train),
        message:
            f"{LABEL}: math RL with {{wildcards.method}}, seed {{wildcards.seed}}"
        shell:
            GPU + f" python -m repro.papers.{P.id}.train --task math --config {{input.config}}"
            " --scale {params.scale} --method {wildcards.method} --seed {wildcards.seed}"
            " --data {params.data} --base {input.base} --out {output.run} 2> {log}"

    rule math_evaluate:
        input:
            code=[*EVAL_CODE, *MATH_CODE],
            config=P.config,
            test=rules.math_fetch.output.test,
            policy=lambda w: (
                rules.math_base.output.base
                if w.evalmethod == "base"
                else f"{MATH}/{w.evalmethod}/seed{w.seed}"
            ),
        output:
            metrics=f"{MATH}/eval/{{evalmethod}}_seed{{seed}}.json",
        log:
            f"{P.logs}/math_evaluate_{{evalmethod}}_seed{{seed}}.log",
        wildcard_constraints:
            evalmethod="|".join(["base", *MATH_METHODS]),
        conda:
            P.env
        resources:
            **RES["math_evaluate"],
            gpu=P.gpu,
        params:
            scale=P.scale,
            data=lambda w, input: os.path.dirname(input.test),
        message:
            f"{LABEL}: evaluate {{wildcards.evalmethod}} (seed {{wildcards.seed}}) on the math"
            " benchmarks"
        shell:
            GPU + " python -m repro.core.rlvr.evaluate --task math --config {input.config}"
            " --scale {params.scale} --method {wildcards.evalmethod} --seed {wildcards.seed}"
            " --data {params.data} --policy {input.policy} --out {output.metrics} 2> {log}"
