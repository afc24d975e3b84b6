# Relative Value Learning (ICLR 2026): exact theory checks on random MDPs, PPO vs PPO+RV on
# classic control and Atari (ale-py). One run per env x agent x seed: at full, 49 games x 10
# seeds x 2 agents, one GPU each, submitted as a SLURM job array (workflow/profiles/slurm).
# fetch (none: environments are simulators) -> train (theory, runs) -> report.
from repro.core.workflow import core, paper, slug

P = paper(config)
S = P.settings
AGENTS = S["agents"]
ENV_OF = {slug(e): e for e in [*S["classic"], *S["atari"]]}
ATARI = {slug(e) for e in S["atari"]}
# Ablations (ppo_rv with other rv settings) run on the envs they list only.
ABLATIONS = S.get("ablations") or {}
RUNS = [
    f"{P.out}/runs/{slug(e)}/{a}/seed{s}.json"
    for group, seeds in ((S["classic"], S["seeds"]), (S["atari"], S["atari_seeds"]))
    for e in group
    for a in [*AGENTS, *(n for n, ab in ABLATIONS.items() if e in ab["envs"])]
    for s in seeds
]
CODE = [*P.src("train", "ppo", "agent", "envs"), *P.job, *core("device", "checkpoint")]
P.phases({"train": ["theory", "train"], "report": ["report"]})


rule theory:
    input:
        code=[*P.src("theory"), *P.job],
        config=P.config,
    output:
        result=f"{P.out}/theory.json",
    log:
        f"{P.logs}/theory.log",
    benchmark:
        f"{P.bench}/theory.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "RelVal: pairwise Bellman contraction, fixed point, targets, R-GAE on random MDPs"
    shell:
        "python -m repro.papers.relval.theory --config {input.config} --scale {params.scale}"
        " --out {output.result} 2> {log}"


rule train:
    input:
        code=CODE,
        config=P.config,
    output:
        run=f"{P.out}/runs/{{env}}/{{agent}}/seed{{seed}}.json",
    log:
        f"{P.logs}/train_{{env}}_{{agent}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{env}}_{{agent}}_seed{{seed}}.tsv"
    wildcard_constraints:
        env="|".join(ENV_OF) or "none",
        agent="|".join([*AGENTS, *ABLATIONS]),
    conda:
        P.env
    resources:
        **P.cluster(runtime=360, mem_mb=16000, cpus_per_task=8),
        # Atari at full: one GPU per run, as the paper; classic control stays on a CPU.
        # 10M agent steps take ~65 min on an A100 per the paper; 6 h leaves room.
        gpu=lambda w: P.gpu if w.env in ATARI else 0,
    params:
        scale=P.scale,
        env_id=lambda w: ENV_OF[w.env],
    message:
        "RelVal: {wildcards.agent} on {params.env_id}, seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.relval.train"
        " --config {input.config} --scale {params.scale} --env {params.env_id}"
        " --agent {wildcards.agent} --seed {wildcards.seed} --out {output.run} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("theory", "returns", "atari_aggregate", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/curves_{slug(e)}.png" for e in ENV_OF.values()]


rule report:
    input:
        code=[
            *P.src("report", "theory"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        theory=rules.theory.output.result,
        runs=RUNS,
    output:
        **P.report_outputs(TABLES, FIGURES, category="RelVal"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "RelVal: tables, learning curves and the claims ledger"
    shell:
        "python -m repro.papers.relval.report --config {input.config} --scale {params.scale}"
        " --theory {input.theory} --runs {input.runs} --out {params.out} 2> {log}"
