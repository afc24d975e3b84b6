# Nearly-optimal bandit learning in Stackelberg games with side information (Balcan et al.,
# ICLR 2026): the reduction to linear contextual bandits in utility space (OFUL, logdet-FTRL)
# against Harris et al. (2024)'s explore-then-commit, random play, full information and the
# oracle, on the paper's simulated game, a second-price auction and a game whose followers'
# utilities move with the context, and one whose follower types are chosen by an oblivious
# adversary. One job per environment x seed runs every algorithm on the same draws; the
# ablation tunes every algorithm's exploration constant on separate seeds (tune), then runs the
# chosen ones on the main seeds (tuned); all CPU (full too). run, tune -> tuned -> report.

localrules: stackelberg_report, paper_stackelberg  # never via SLURM

STK_CFG, STK = paper_settings("stackelberg", SCALE)
STK_OUT = f"{RESULTS}/stackelberg"
STK_LOGS = f"{LOGS}/stackelberg"
STK_ENVS = list(STK["environments"])
STK_RUNS = [
    f"{STK_OUT}/runs/{e}/seed{s}.json"
    for e, spec in STK["environments"].items()
    for s in spec.get("seeds", STK["seeds"])
]


rule stackelberg_run:
    input:
        code=[*src("stackelberg", "run", "algorithms", "environments", "game"), *CORE_JOB],
        config=STK_CFG,
    output:
        run=f"{STK_OUT}/runs/{{env}}/seed{{seed}}.json",
    wildcard_constraints:
        env="|".join(STK_ENVS),
        seed=r"\d+",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{STK_LOGS}/run_{{env}}_seed{{seed}}.log",
    message:
        "Stackelberg: every algorithm on environment {wildcards.env}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.stackelberg.run --config {input.config} --scale {params.scale}"
        " --env {wildcards.env} --seed {wildcards.seed} --out {output.run} 2> {log}"


STK_AB = STK["ablation"]
STK_TUNING = [f"{STK_OUT}/ablation/tune/seed{s}.json" for s in STK_AB["tuning_seeds"]]
STK_TUNED = [
    f"{STK_OUT}/ablation/tuned/seed{s}.json"
    for s in STK["environments"][STK_AB["env"]].get("seeds", STK["seeds"])
]


rule stackelberg_tune:
    input:
        code=[*src("stackelberg", "run", "algorithms", "environments", "game"), *CORE_JOB],
        config=STK_CFG,
    output:
        run=f"{STK_OUT}/ablation/tune/seed{{seed}}.json",
    wildcard_constraints:
        seed=r"\d+",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{STK_LOGS}/tune_seed{{seed}}.log",
    message:
        "Stackelberg ablation: every exploration constant on tuning seed {wildcards.seed}"
    shell:
        "python -m repro.papers.stackelberg.run --config {input.config} --scale {params.scale}"
        " --ablation tune --seed {wildcards.seed} --out {output.run} 2> {log}"


rule stackelberg_tuned:
    input:
        code=[*src("stackelberg", "run", "algorithms", "environments", "game"), *CORE_JOB],
        config=STK_CFG,
        tuning=STK_TUNING,
        main=f"{STK_OUT}/runs/{STK_AB['env']}/seed{{seed}}.json",
    output:
        run=f"{STK_OUT}/ablation/tuned/seed{{seed}}.json",
    wildcard_constraints:
        seed=r"\d+",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{STK_LOGS}/tuned_seed{{seed}}.log",
    message:
        "Stackelberg ablation: every algorithm at its tuned constant on main seed {wildcards.seed}"
    shell:
        "python -m repro.papers.stackelberg.run --config {input.config} --scale {params.scale}"
        " --ablation eval --seed {wildcards.seed} --tuning-runs {input.tuning}"
        " --main-run {input.main} --out {output.run} 2> {log}"


STK_TABLES = [
    f"{STK_OUT}/tables/{t}.{ext}"
    for t in ("regret", "slopes", "paper_reported", "tuned")
    for ext in ("csv", "md")
]
STK_FIGURES = [f"{STK_OUT}/figures/{f}.png" for f in ("regret_curves", "regret_vs_T")]


rule stackelberg_report:
    input:
        code=[*src("stackelberg", "report"), *CORE_JOB, *core("tables", "claims", "plotting")],
        config=STK_CFG,
        runs=STK_RUNS,
        tuning=STK_TUNING,
        tuned=STK_TUNED,
    output:
        tables=[report(t, category="Stackelberg", subcategory="tables") for t in STK_TABLES],
        figures=[report(f, category="Stackelberg", subcategory="figures") for f in STK_FIGURES],
        claims=report(f"{STK_OUT}/claims.md", category="Stackelberg", subcategory="claims"),
        claims_json=f"{STK_OUT}/claims.json",
        records=f"{STK_OUT}/records.json",
    params:
        scale=SCALE,
        out=lambda w, output: os.path.dirname(output.claims_json),
    conda:
        ENV
    log:
        f"{STK_LOGS}/report.log",
    message:
        "Stackelberg: regret tables beside the paper's rates, slopes, tuned constants, regret"
        " curves, claims ledger"
    shell:
        "python -m repro.papers.stackelberg.report --config {input.config} --scale {params.scale}"
        " --runs {input.runs} --tuning-runs {input.tuning} --tuned-runs {input.tuned}"
        " --out {params.out} 2> {log}"


rule paper_stackelberg:
    input:
        rules.stackelberg_report.output,
    message:
        f"Bandit learning in contextual Stackelberg games reproduced at scale {SCALE}"


PAPERS["stackelberg"] = {"claims": rules.stackelberg_report.output.claims_json}
