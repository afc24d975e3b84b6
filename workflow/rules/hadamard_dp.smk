# Exponential-wrapped mechanisms: DP on Hadamard manifolds (ICLR 2026), on SPD(m) with the
# affine-invariant, log-Euclidean and log-Cholesky metrics. EW Gaussian / EW Laplace vs the
# MCMC Riemannian Laplace on private Fréchet means; one grid job per metric x m (d = m(m+1)/2).
# fetch (image covariance descriptors) -> grid cells, real data, footpoint ablation, privacy
# check -> report.

localrules: hadamard_dp_fetch, hadamard_dp_report, paper_hadamard_dp  # never via SLURM

HDP_CFG, HDP = paper_settings("hadamard_dp", SCALE)
HDP_OUT = f"{RESULTS}/hadamard_dp"
HDP_DATA = f"{DATA}/hadamard_dp/{SCALE}"
HDP_LOGS = f"{LOGS}/hadamard_dp"
HDP_METRICS = HDP["metrics"]
HDP_MS = [str(m) for m in HDP["synthetic"]["ms"]]
# The modules every release job imports (their edits rerun exactly the jobs that run them).
HDP_CORE = [*src("hadamard_dp", "geometry", "mechanisms", "frechet", "experiment"), *CORE_JOB]


rule hadamard_dp_fetch:
    input:
        code=[*src("hadamard_dp", "data"), *CORE_JOB],
        config=HDP_CFG,
    output:
        descriptors=f"{HDP_DATA}/descriptors.npz",
        source=f"{HDP_DATA}/source.json",
    params:
        scale=SCALE,
        mirror=MIRROR,
        source=HDP["real"]["source"],
    conda:
        ENV
    log:
        f"{HDP_LOGS}/fetch.log",
    message:
        "Hadamard DP: covariance descriptors of {params.source} images (scale {params.scale})"
    shell:
        "python -m repro.papers.hadamard_dp.data --config {input.config}"
        " --scale {params.scale} --mirror {params.mirror} --out {output.descriptors} 2> {log}"


rule hadamard_dp_grid:
    input:
        code=HDP_CORE,
        config=HDP_CFG,
    output:
        cell=f"{HDP_OUT}/grid/{{hmetric}}_m{{m}}.json",
    wildcard_constraints:
        hmetric="|".join(HDP_METRICS),
        m="|".join(HDP_MS),
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{HDP_LOGS}/grid_{{hmetric}}_m{{m}}.log",
    message:
        "Hadamard DP: EWG / EWL / MCMC RL on {wildcards.hmetric}, m={wildcards.m}, every budget"
    shell:
        "python -m repro.papers.hadamard_dp.experiment --config {input.config}"
        " --scale {params.scale} --metric {wildcards.hmetric} --m {wildcards.m}"
        " --out {output.cell} 2> {log}"


rule hadamard_dp_realdata:
    input:
        code=[*src("hadamard_dp", "realdata"), *HDP_CORE],
        config=HDP_CFG,
        descriptors=rules.hadamard_dp_fetch.output.descriptors,
        source=rules.hadamard_dp_fetch.output.source,
    output:
        result=f"{HDP_OUT}/realdata.json",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{HDP_LOGS}/realdata.log",
    message:
        "Hadamard DP: private class means of the image covariance descriptors"
    shell:
        "python -m repro.papers.hadamard_dp.realdata --config {input.config}"
        " --scale {params.scale} --data {input.descriptors} --out {output.result} 2> {log}"


rule hadamard_dp_footpoint:
    input:
        code=[*src("hadamard_dp", "footpoint"), *HDP_CORE],
        config=HDP_CFG,
    output:
        result=f"{HDP_OUT}/footpoint.json",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{HDP_LOGS}/footpoint.log",
    message:
        "Hadamard DP: footpoint ablation (data moved away from the footpoint)"
    shell:
        "python -m repro.papers.hadamard_dp.footpoint --config {input.config}"
        " --scale {params.scale} --out {output.result} 2> {log}"


rule hadamard_dp_privacy:
    input:
        code=[*src("hadamard_dp", "privacy_check"), *HDP_CORE],
        config=HDP_CFG,
    output:
        result=f"{HDP_OUT}/privacy.json",
    params:
        scale=SCALE,
    conda:
        ENV
    log:
        f"{HDP_LOGS}/privacy.log",
    message:
        "Hadamard DP: empirical privacy check on neighbouring data sets, with controls"
    shell:
        "python -m repro.papers.hadamard_dp.privacy_check --config {input.config}"
        " --scale {params.scale} --out {output.result} 2> {log}"


HDP_GRID = expand(f"{HDP_OUT}/grid/{{hmetric}}_m{{m}}.json", hmetric=HDP_METRICS, m=HDP_MS)
HDP_TABLES = [
    f"{HDP_OUT}/tables/{t}.{ext}"
    for t in ("utility_summary", "utility", "runtime", "realdata", "footpoint", "privacy",
              "calibration_gaussian", "calibration_gdp_laplace", "paper_reported")
    for ext in ("csv", "md")
]
HDP_FIGURES = [
    *[f"{HDP_OUT}/figures/utility_{metric}.png" for metric in HDP_METRICS],
    f"{HDP_OUT}/figures/realdata.png",
    f"{HDP_OUT}/figures/privacy.png",
]


rule hadamard_dp_report:
    input:
        code=[*src("hadamard_dp", "report"), *CORE_JOB, *core("tables", "claims", "plotting")],
        config=HDP_CFG,
        grid=HDP_GRID,
        realdata=rules.hadamard_dp_realdata.output.result,
        footpoint=rules.hadamard_dp_footpoint.output.result,
        privacy=rules.hadamard_dp_privacy.output.result,
    output:
        tables=[report(t, category="Hadamard DP", subcategory="tables") for t in HDP_TABLES],
        figures=[report(f, category="Hadamard DP", subcategory="figures") for f in HDP_FIGURES],
        claims=report(f"{HDP_OUT}/claims.md", category="Hadamard DP", subcategory="claims"),
        claims_json=f"{HDP_OUT}/claims.json",
        records=f"{HDP_OUT}/records.json",
    params:
        scale=SCALE,
        out=lambda w, output: os.path.dirname(output.claims_json),
    conda:
        ENV
    log:
        f"{HDP_LOGS}/report.log",
    message:
        "Hadamard DP: utility / runtime tables, figures and the claims ledger"
    shell:
        "python -m repro.papers.hadamard_dp.report --config {input.config} --scale {params.scale}"
        " --grid {input.grid} --realdata {input.realdata} --footpoint {input.footpoint}"
        " --privacy {input.privacy} --out {params.out} 2> {log}"


rule paper_hadamard_dp:
    input:
        rules.hadamard_dp_report.output,
    message:
        f"Hadamard DP (exponential-wrapped mechanisms) reproduced at scale {SCALE}"


PAPERS["hadamard_dp"] = {"claims": rules.hadamard_dp_report.output.claims_json}
