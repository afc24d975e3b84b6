# papers-repro: one DAG per paper (fetch -> train -> evaluate -> report).
#   snakemake paper_rove                      # ROVER at the default scale (small)
#   snakemake paper_rove --config scale=tiny  # plumbing only, seconds
#   snakemake all                             # every paper + results/<scale>/summary.md
# Parse-time cost matters (every dry run pays it): import nothing heavy here.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"


# Each registered paper is its own Snakemake module (src/repro/papers/<id>/rules.smk): its globals and
# wildcard constraints are its own, its rules have plain names (`train`), and here they become
# `<id>_train`. `paper_<id>` is the paper's target: everything its report makes.
for pid in PAPERS:
    prefix = f"{pid}_"

    module:
        name: pid
        snakefile:
            f"src/repro/papers/{pid}/rules.smk"
        config:
            module_config(config, pid)

    use rule * from pid as prefix*

    rule:
        name:
            f"paper_{pid}"
        input:
            getattr(rules, f"{pid}_report").output,
        localrule: True
        message:
            f"{pid} reproduced at scale {SCALE}"


rule all:
    default_target: True
    input:
        summary=f"{RESULTS}/summary.md",
    localrule: True


rule summary:
    input:
        claims=[getattr(rules, f"{p}_report").output.claims_json for p in PAPERS],
        code=core("summary", "io", "claims", "provenance", "forest", "plotting"),
    output:
        summary=report(f"{RESULTS}/summary.md", category="Summary"),
        figure=report(f"{RESULTS}/summary.png", category="Summary"),
    log:
        f"{LOGS}/summary.log",
    localrule: True
    conda:
        "environment.yml"
    params:
        scale=SCALE,
        papers=PAPERS,
    message:
        "Summary of every paper's claims at scale {params.scale}"
    shell:
        "python -m repro.core.summary --scale {params.scale} --papers {params.papers}"
        " --claims {input.claims} --out {output.summary} --figure {output.figure} 2> {log}"
