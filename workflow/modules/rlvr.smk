# RL with verifiable rewards, written once for every paper that trains policies on Countdown
# and math (rove, nft): fetch -> base policy (SFT warm-up; the pretrained model for math) -> RL
# per method x seed -> evaluate, for each task (math only where `math.enabled`). A paper's
# module uses it with
#   module rlvr: snakefile: "../modules/rlvr.smk"; config: {**config, "rlvr": {...}}
#   use rule * from rlvr
# and brings its own objectives (src/repro/papers/<id>/{train,algos}.py), settings and report.
# config["rlvr"]: label (for messages), resources (per rule, sized for full; SLURM reads them).
# Rules: fetch, sft, train, evaluate (Countdown); math_fetch, math_base, math_train,
# math_evaluate (math): one definition each, written for both tasks in the loop below.
from repro.core.workflow import core, paper

P = paper(config)
LABEL = config["rlvr"]["label"]
RES = config["rlvr"]["resources"]
TRAIN_CODE = [*P.src("train", "algos"), *core("rlvr/trainer", "rlvr/objectives")]
EVAL_CODE = [*core("rlvr/evaluate"), *core("metrics")]
MATH_ON = bool(P.settings["math"]["enabled"])
TASKS = {
    "countdown": dict(
        prefix="",
        base="sft",
        data=P.data,
        out=f"{P.out}/countdown",
        methods=P.settings["countdown"]["methods"],
        fetch_code=core("rlvr/data", "rlvr/countdown"),
        fetch_module="repro.core.rlvr.data",
        task_code=core("rlvr/countdown"),
        flag="",
        fetch_what="Countdown problems",
        base_what="supervised warm-up of the Countdown base policy",
        train_what="Countdown RL",
        eval_what="held-out problems",
    ),
    "math": dict(
        prefix="math_",
        base="math_base",
        data=f"{P.data}/math",
        out=f"{P.out}/math",
        methods=P.settings["math"]["methods"] if MATH_ON else [],
        fetch_code=core("rlvr/math_task"),
        fetch_module="repro.core.rlvr.math_task",
        task_code=core("rlvr/math_task"),
        flag=" --task math",
        fetch_what="the math training set and benchmarks",
        base_what="the math base policy (the pretrained model as is; warmed up at tiny)",
        train_what="math RL",
        eval_what="the math benchmarks",
    ),
}
P.phases(
    {
        "fetch": ["fetch", "math_fetch"],
        "train": ["sft", "train", "math_base", "math_train"],
        "evaluate": ["evaluate", "math_evaluate"],
    }
)


wildcard_constraints:
    seed=r"\d+",


def policy_of(T):
    """The policy an evaluation reads: the base policy, or a method's trained run."""
    base = getattr(rules, T["base"]).output.base
    return lambda w: base if w.evalmethod == "base" else f"{T['out']}/{w.evalmethod}/seed{w.seed}"


# Snakemake runs a rule's `shell:` text when the job runs, after this loop has ended: anything
# that differs by task reaches the command through params (read when the rule is defined).
for task, T in TASKS.items():
    if task == "math" and not MATH_ON:
        continue
    # The modules each job of this task imports (their edits rerun exactly those jobs).
    CODE = [
        *T["task_code"],
        *core("rlvr/tasks", "rlvr/objectives", "rlvr/policy", "tokenizers", "device"),
        *core("checkpoint"),
        *P.job,
    ]

    rule:
        name:
            f"{T['prefix']}fetch"
        input:
            code=[*T["fetch_code"], *core("fetch"), *P.job],
            config=P.config,
            excerpts=P.excerpts,
        output:
            train=f"{T['data']}/train.jsonl",
            test=f"{T['data']}/test.jsonl",
            source=f"{T['data']}/source.json",
        log:
            f"{P.logs}/{T['prefix']}fetch.log",
        benchmark:
            f"{P.bench}/{T['prefix']}fetch.tsv"
        localrule: True
        conda:
            P.env
        params:
            scale=P.scale,
            mirror=P.mirror,
            out=lambda w, output: os.path.dirname(output.train),
            module=T["fetch_module"],
        message:
            f"{LABEL}: fetch {T['fetch_what']} (scale {P.scale})"
        shell:
            "python -m {params.module}"
            " --config {input.config} --scale {params.scale} --mirror={params.mirror:q}"
            " --out {params.out} 2> {log}"

    rule:
        name:
            T["base"]
        input:
            code=[*core("rlvr/sft"), *CODE],
            config=P.config,
            train=getattr(rules, f"{T['prefix']}fetch").output.train,
        output:
            base=directory(f"{T['out']}/base"),
        log:
            f"{P.logs}/{T['base']}.log",
        benchmark:
            f"{P.bench}/{T['base']}.tsv"
        conda:
            P.env
        resources:
            **P.cluster(**RES[T["base"]]),
            gpu=P.gpu,
        params:
            scale=P.scale,
            data=lambda w, input: os.path.dirname(input.train),
            flag=T["flag"],
        message:
            f"{LABEL}: {T['base_what']}"
        shell:
            "python -m repro.core.gpus --gpus {resources.gpu} --"
            " python -m repro.core.rlvr.sft{params.flag}"
            " --config {input.config} --scale {params.scale} --data {params.data}"
            " --out {output.base} 2> {log}"

    rule:
        name:
            f"{T['prefix']}train"
        input:
            code=[*TRAIN_CODE, *CODE],
            config=P.config,
            train=getattr(rules, f"{T['prefix']}fetch").output.train,
            base=getattr(rules, T["base"]).output.base,
        output:
            # the trained policy, with train_log.json (reward, entropy, rollouts per step)
            run=directory(f"{T['out']}/{{method}}/seed{{seed}}"),
        log:
            f"{P.logs}/{T['prefix']}train_{{method}}_seed{{seed}}.log",
        benchmark:
            f"{P.bench}/{T['prefix']}train_{{method}}_seed{{seed}}.tsv"
        wildcard_constraints:
            method="|".join(T["methods"]) or "none",
        conda:
            P.env
        resources:
            **P.cluster(**RES[f"{T['prefix']}train"]),
            gpu=P.gpu,
        params:
            scale=P.scale,
            data=lambda w, input: os.path.dirname(input.train),
            flag=T["flag"],
            module=f"repro.papers.{P.id}.train",
        message:
            f"{LABEL}: {T['train_what']} with {{wildcards.method}}, seed {{wildcards.seed}}"
        shell:
            "python -m repro.core.gpus --gpus {resources.gpu} --"
            " python -m {params.module}{params.flag}"
            " --config {input.config} --scale {params.scale} --method {wildcards.method}"
            " --seed {wildcards.seed} --data {params.data} --base {input.base}"
            " --out {output.run} 2> {log}"

    rule:
        name:
            f"{T['prefix']}evaluate"
        input:
            code=[*EVAL_CODE, *CODE],
            config=P.config,
            test=getattr(rules, f"{T['prefix']}fetch").output.test,
            policy=policy_of(T),
        output:
            metrics=f"{T['out']}/eval/{{evalmethod}}_seed{{seed}}.json",
        log:
            f"{P.logs}/{T['prefix']}evaluate_{{evalmethod}}_seed{{seed}}.log",
        benchmark:
            f"{P.bench}/{T['prefix']}evaluate_{{evalmethod}}_seed{{seed}}.tsv"
        wildcard_constraints:
            evalmethod="|".join(["base", *T["methods"]]),
        conda:
            P.env
        resources:
            **P.cluster(**RES[f"{T['prefix']}evaluate"]),
            gpu=P.gpu,
        params:
            scale=P.scale,
            data=lambda w, input: os.path.dirname(input.test),
            flag=T["flag"],
        message:
            f"{LABEL}: evaluate {{wildcards.evalmethod}} (seed {{wildcards.seed}}) on"
            f" {T['eval_what']}"
        shell:
            "python -m repro.core.gpus --gpus {resources.gpu} --"
            " python -m repro.core.rlvr.evaluate{params.flag}"
            " --config {input.config} --scale {params.scale} --method {wildcards.evalmethod}"
            " --seed {wildcards.seed} --data {params.data} --policy {input.policy}"
            " --out {output.metrics} 2> {log}"
