# papers-repro: one DAG per paper (fetch -> train -> evaluate -> report).
#   snakemake paper_rove                      # ROVER at the default scale (small)
#   snakemake paper_rove --config scale=tiny  # plumbing only, seconds
#   snakemake all                             # every paper + results/<scale>/summary.md
# Parse-time cost matters (every dry run pays it): import nothing heavy here.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/rove.smk"
include: "workflow/rules/nft.smk"
include: "workflow/rules/relval.smk"
include: "workflow/rules/reap.smk"
include: "workflow/rules/hadamard_dp.smk"
include: "workflow/rules/tstudent.smk"
include: "workflow/rules/vaecf.smk"
include: "workflow/rules/stackelberg.smk"


localrules: all, summary


rule all:
    input:
        summary=f"{RESULTS}/summary.md",
    default_target: True


rule summary:
    input:
        claims=[PAPERS[p]["claims"] for p in sorted(PAPERS)],
        code=core("summary", "io", "claims"),
    output:
        summary=report(f"{RESULTS}/summary.md", category="Summary"),
    params:
        scale=SCALE,
        papers=sorted(PAPERS),
    conda:
        "environment.yml"
    log:
        f"{LOGS}/summary.log",
    message:
        "Summary of every paper's claims at scale {params.scale}"
    shell:
        "python -m repro.core.summary --scale {params.scale} --papers {params.papers}"
        " --claims {input.claims} --out {output.summary} 2> {log}"
