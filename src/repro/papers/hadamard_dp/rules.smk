# Exponential-wrapped mechanisms: DP on Hadamard manifolds (ICLR 2026), on SPD(m) with the
# affine-invariant, log-Euclidean and log-Cholesky metrics. EW Gaussian / EW Laplace vs the
# MCMC Riemannian Laplace on private Fréchet means; one grid job per metric x m (d = m(m+1)/2).
# fetch (image covariance descriptors) -> grid cells, real data, footpoint ablation, privacy
# check -> report. CPU only at every scale: at full a grid cell is 100 reps x 20 budgets =
# 2,000 MCMC chains of 10,000 steps (vectorised, ~5-15 min), the real-data job 4 x 2,000.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
METRICS = S["metrics"]
MS = [str(m) for m in S["synthetic"]["ms"]]
# The modules every release job imports (their edits rerun exactly the jobs that run them);
# the grid and real-data jobs save resumable state (repro.core.checkpoint).
CODE = [*P.src("geometry", "mechanisms", "frechet", "experiment"), *P.job, *core("checkpoint")]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["grid", "footpoint", "realdata"],
        "evaluate": ["privacy"],
        "report": ["report"],
    }
)


rule fetch:
    input:
        code=[*P.src("data"), *P.job],
        config=P.config,
    output:
        descriptors=f"{P.data}/descriptors.npz",
        source=f"{P.data}/source.json",
    log:
        f"{P.logs}/fetch.log",
    benchmark:
        f"{P.bench}/fetch.tsv"
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        mirror=P.mirror,
        source=S["real"]["source"],
    message:
        "Hadamard DP: covariance descriptors of {params.source} images (scale {params.scale})"
    shell:
        "python -m repro.papers.hadamard_dp.data --config {input.config}"
        " --scale {params.scale} --mirror={params.mirror:q} --out {output.descriptors} 2> {log}"


rule grid:
    input:
        code=CODE,
        config=P.config,
    output:
        cell=f"{P.out}/grid/{{metric}}_m{{m}}.json",
    log:
        f"{P.logs}/grid_{{metric}}_m{{m}}.log",
    benchmark:
        f"{P.bench}/grid_{{metric}}_m{{m}}.tsv"
    wildcard_constraints:
        metric="|".join(METRICS),
        m="|".join(MS),
    conda:
        P.env
    resources:
        **P.cluster(runtime=60, mem_mb=4000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Hadamard DP: EWG / EWL / MCMC RL on {wildcards.metric}, m={wildcards.m}, every budget"
    shell:
        "python -m repro.papers.hadamard_dp.experiment --config {input.config}"
        " --scale {params.scale} --metric {wildcards.metric} --m {wildcards.m}"
        " --out {output.cell} 2> {log}"


rule realdata:
    input:
        code=[*P.src("realdata"), *CODE],
        config=P.config,
        descriptors=rules.fetch.output.descriptors,
        source=rules.fetch.output.source,
    output:
        result=f"{P.out}/realdata.json",
    log:
        f"{P.logs}/realdata.log",
    benchmark:
        f"{P.bench}/realdata.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=120, mem_mb=8000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Hadamard DP: private class means of the image covariance descriptors"
    shell:
        "python -m repro.papers.hadamard_dp.realdata --config {input.config}"
        " --scale {params.scale} --data {input.descriptors} --out {output.result} 2> {log}"


rule footpoint:
    input:
        code=[*P.src("footpoint"), *CODE],
        config=P.config,
    output:
        result=f"{P.out}/footpoint.json",
    log:
        f"{P.logs}/footpoint.log",
    benchmark:
        f"{P.bench}/footpoint.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Hadamard DP: footpoint ablation (data moved away from the footpoint)"
    shell:
        "python -m repro.papers.hadamard_dp.footpoint --config {input.config}"
        " --scale {params.scale} --out {output.result} 2> {log}"


rule privacy:
    input:
        code=[*P.src("privacy_check"), *CODE],
        config=P.config,
    output:
        result=f"{P.out}/privacy.json",
    log:
        f"{P.logs}/privacy.log",
    benchmark:
        f"{P.bench}/privacy.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=4000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "Hadamard DP: empirical privacy check on neighbouring data sets, with controls"
    shell:
        "python -m repro.papers.hadamard_dp.privacy_check --config {input.config}"
        " --scale {params.scale} --out {output.result} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in (
        "utility_summary",
        "utility",
        "runtime",
        "realdata",
        "footpoint",
        "privacy",
        "calibration_gaussian",
        "calibration_gdp_laplace",
        "paper_reported",
    )
    for ext in ("csv", "md")
]
FIGURES = [
    *[f"{P.out}/figures/utility_{metric}.png" for metric in METRICS],
    f"{P.out}/figures/realdata.png",
    f"{P.out}/figures/privacy.png",
]


rule report:
    input:
        code=[
            *P.src("report"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        grid=expand(rules.grid.output.cell, metric=METRICS, m=MS),
        realdata=rules.realdata.output.result,
        footpoint=rules.footpoint.output.result,
        privacy=rules.privacy.output.result,
    output:
        **P.report_outputs(TABLES, FIGURES, category="Hadamard DP"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "Hadamard DP: utility / runtime tables, figures and the claims ledger"
    shell:
        "python -m repro.papers.hadamard_dp.report --config {input.config} --scale {params.scale}"
        " --grid {input.grid} --realdata {input.realdata} --footpoint {input.footpoint}"
        " --privacy {input.privacy} --out {params.out} 2> {log}"
