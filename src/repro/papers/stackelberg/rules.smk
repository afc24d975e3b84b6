# Nearly-optimal bandit learning in Stackelberg games with side information (Balcan et al.,
# ICLR 2026): the reduction to linear contextual bandits in utility space (OFUL, logdet-FTRL)
# against Harris et al. (2024)'s explore-then-commit, random play, full information and the
# oracle, on the paper's simulated game, a second-price auction and a game whose followers'
# utilities move with the context, and one whose follower types are chosen by an oblivious
# adversary. One job per environment x seed runs every algorithm on the same draws; the
# ablation tunes every algorithm's exploration constant on separate seeds (tune), then runs the
# chosen ones on the main seeds (tuned); all CPU (full too). run, tune -> tuned -> report.
# At full a job runs every algorithm for 10^5 rounds (the contextual game, which enumerates
# extreme points every round, is the longest: ~10-15 min), one thread.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
ENVS = list(S["environments"])
RUNS = [
    f"{P.out}/runs/{e}/seed{s}.json"
    for e, spec in S["environments"].items()
    for s in spec.get("seeds", S["seeds"])
]
CODE = [*P.src("run", "algorithms", "environments", "game"), *P.job, *core("checkpoint")]
AB = S["ablation"]
TUNING = [f"{P.out}/ablation/tune/seed{s}.json" for s in AB["tuning_seeds"]]
TUNED = [
    f"{P.out}/ablation/tuned/seed{s}.json"
    for s in S["environments"][AB["env"]].get("seeds", S["seeds"])
]
P.phases({"train": ["run", "tune", "tuned"], "report": ["report"]})


wildcard_constraints:
    seed=r"\d+",


rule run:
    input:
        code=CODE,
        config=P.config,
    output:
        run=f"{P.out}/runs/{{env}}/seed{{seed}}.json",
    log:
        f"{P.logs}/run_{{env}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/run_{{env}}_seed{{seed}}.tsv"
    wildcard_constraints:
        env="|".join(ENVS),
    conda:
        P.env
    resources:
        **P.cluster(runtime=60, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Stackelberg: every algorithm on environment {wildcards.env}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.stackelberg.run --config {input.config} --scale {params.scale}"
        " --env {wildcards.env} --seed {wildcards.seed} --out {output.run} 2> {log}"


rule tune:
    input:
        code=CODE,
        config=P.config,
    output:
        run=f"{P.out}/ablation/tune/seed{{seed}}.json",
    log:
        f"{P.logs}/tune_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/tune_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        # one tuning seed: every algorithm x constant of the grid, paper game
        **P.cluster(runtime=120, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Stackelberg ablation: every exploration constant on tuning seed {wildcards.seed}"
    shell:
        "python -m repro.papers.stackelberg.run --config {input.config} --scale {params.scale}"
        " --ablation tune --seed {wildcards.seed} --out {output.run} 2> {log}"


rule tuned:
    input:
        code=CODE,
        config=P.config,
        tuning=TUNING,
        main=f"{P.out}/runs/{AB['env']}/seed{{seed}}.json",
    output:
        run=f"{P.out}/ablation/tuned/seed{{seed}}.json",
    log:
        f"{P.logs}/tuned_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/tuned_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=60, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Stackelberg ablation: every algorithm at its tuned constant on main seed {wildcards.seed}"
    shell:
        "python -m repro.papers.stackelberg.run --config {input.config} --scale {params.scale}"
        " --ablation eval --seed {wildcards.seed} --tuning-runs {input.tuning}"
        " --main-run {input.main} --out {output.run} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("regret", "regret_wide", "slopes", "paper_reported", "tuned")
    for ext in ("csv", "md")
]
FIGURES = [
    f"{P.out}/figures/{f}.png" for f in ("regret_curves", "regret_vs_T", "normalised_regret")
]


rule report:
    input:
        code=[
            *P.src("report"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        runs=RUNS,
        tuning=TUNING,
        tuned=TUNED,
    output:
        **P.report_outputs(TABLES, FIGURES, category="Stackelberg"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "Stackelberg: regret tables beside the paper's rates, slopes, tuned constants, regret"
        " curves, claims ledger"
    shell:
        "python -m repro.papers.stackelberg.report --config {input.config} --scale {params.scale}"
        " --runs {input.runs} --tuning-runs {input.tuning} --tuned-runs {input.tuned}"
        " --out {params.out} 2> {log}"
