# Relative Value Learning (ICLR 2026): exact theory checks on random MDPs, PPO vs PPO+RV on
# classic control and Atari (ale-py). One run per env x agent x seed: at full, 49 games x 10
# seeds x 2 agents, one GPU each, submitted as a SLURM job array (workflow/profiles/slurm).
# fetch (none: environments are simulators) -> train (theory, runs) -> report.

localrules: relval_report, paper_relval  # never via SLURM

RELVAL_CFG, RELVAL = paper_settings("relval", SCALE)
RELVAL_OUT = f"{RESULTS}/relval"
RELVAL_LOGS = f"{LOGS}/relval"
RELVAL_AGENTS = RELVAL["agents"]


RELVAL_ENV_OF = {slug(e): e for e in [*RELVAL["classic"], *RELVAL["atari"]]}
RELVAL_ATARI = {slug(e) for e in RELVAL["atari"]}
RELVAL_RUNS = [
    f"{RELVAL_OUT}/runs/{slug(e)}/{a}/seed{s}.json"
    for group, seeds in ((RELVAL["classic"], RELVAL["seeds"]), (RELVAL["atari"], RELVAL["atari_seeds"]))
    for e in group
    for a in RELVAL_AGENTS
    for s in seeds
]
RELVAL_CODE = [*src("relval", "train", "ppo", "agent", "envs"), *CORE_JOB, *core("device")]


rule relval_theory:
    input:
        code=[*src("relval", "theory"), *CORE_JOB],
        config=RELVAL_CFG,
    output:
        result=f"{RELVAL_OUT}/theory.json",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{RELVAL_LOGS}/theory.log",
    message:
        "RelVal: pairwise Bellman contraction, fixed point, targets, R-GAE on random MDPs"
    shell:
        "python -m repro.papers.relval.theory --config {input.config} --scale {params.scale}"
        " --out {output.result} 2> {log}"


rule relval_train:
    input:
        code=RELVAL_CODE,
        config=RELVAL_CFG,
    output:
        run=f"{RELVAL_OUT}/runs/{{env}}/{{agent}}/seed{{seed}}.json",
    wildcard_constraints:
        env="|".join(RELVAL_ENV_OF) or "none",
        agent="|".join(RELVAL_AGENTS),
    params:
        scale=SCALE,
        env_id=lambda w: RELVAL_ENV_OF[w.env],
    resources:
        # Atari at full: one GPU per run, as the paper; classic control stays on a CPU
        gpu=lambda w: 1 if SCALE == "full" and w.env in RELVAL_ATARI else 0,
    conda:
        ENV
    log:
        f"{RELVAL_LOGS}/train_{{env}}_{{agent}}_seed{{seed}}.log",
    message:
        "RelVal: {wildcards.agent} on {params.env_id}, seed {wildcards.seed}"
    shell:
        "python -m repro.core.gpus --gpus {resources.gpu} -- python -m repro.papers.relval.train"
        " --config {input.config} --scale {params.scale} --env {params.env_id}"
        " --agent {wildcards.agent} --seed {wildcards.seed} --out {output.run} 2> {log}"


RELVAL_TABLES = [
    f"{RELVAL_OUT}/tables/{t}.{ext}"
    for t in ("theory", "returns", "atari_aggregate", "paper_reported")
    for ext in ("csv", "md")
]
RELVAL_FIGURES = [f"{RELVAL_OUT}/figures/curves_{slug(e)}.png" for e in RELVAL_ENV_OF.values()]


rule relval_report:
    input:
        code=[*src("relval", "report"), *CORE_JOB, *core("tables", "claims", "plotting")],
        config=RELVAL_CFG,
        theory=rules.relval_theory.output.result,
        runs=RELVAL_RUNS,
    output:
        tables=[report(t, category="RelVal", subcategory="tables") for t in RELVAL_TABLES],
        figures=[report(f, category="RelVal", subcategory="figures") for f in RELVAL_FIGURES],
        claims=report(f"{RELVAL_OUT}/claims.md", category="RelVal", subcategory="claims"),
        claims_json=f"{RELVAL_OUT}/claims.json",
        records=f"{RELVAL_OUT}/records.json",
    params:
        scale=SCALE,
        out=lambda w, output: os.path.dirname(output.claims_json),
    conda:
        ENV
    log:
        f"{RELVAL_LOGS}/report.log",
    message:
        "RelVal: tables, learning curves and the claims ledger"
    shell:
        "python -m repro.papers.relval.report --config {input.config} --scale {params.scale}"
        " --theory {input.theory} --runs {input.runs} --out {params.out} 2> {log}"


rule paper_relval:
    input:
        rules.relval_report.output,
    message:
        f"Relative Value Learning reproduced at scale {SCALE}"


PAPERS["relval"] = {"claims": rules.relval_report.output.claims_json}
