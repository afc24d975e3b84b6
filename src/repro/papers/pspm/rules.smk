# PS and PM (MAPSS, ICLR 2026): perceptual separation (leakage) and match (self-distortion)
# measures for source separation. synth (per data set x seed: espeak-ng speech / additive music
# mixtures and their grid of degraded outputs; full: fetch + sassec, SASSEC's systems) ->
# score (PS / PM per encoder: distortion banks, encodings, a diffusion map per frame) and
# baselines (SI-SDR, BSS Eval, PESQ, STOI) -> report. At full the wav2vec2 scoring asks for a GPU.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
ENCODERS = S["encoders"]
DATASETS = S["datasets"]
MEASURES = [
    *P.src("engine", "measures", "bounds", "distortions", "encoders", "settings"),
    *P.job,
]
DATA = f"{P.data}/{{dataset}}/seed{{seed}}"
P.phases(
    {
        "fetch": ["fetch", "synth", "sassec"],
        "evaluate": ["score", "baselines"],
        "report": ["report"],
    }
)


wildcard_constraints:
    dataset="|".join(DATASETS),
    encoder="|".join(ENCODERS),
    seed=r"\d+",


rule fetch:
    input:
        code=[*P.src("data", "settings", "mixtures", "distortions"), *P.job],
        config=P.config,
    output:
        done=f"{P.data}/sassec_fetch.json",
    log:
        f"{P.logs}/fetch.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
    message:
        "PS/PM: download SASSEC (the SEBASS listening-test signals)"
    shell:
        "python -m repro.papers.pspm.data fetch --config {input.config} --scale {params.scale}"
        " --out {output.done} 2> {log}"


rule sassec:
    input:
        code=[*P.src("data", "settings", "mixtures", "distortions"), *P.job],
        config=P.config,
        fetched=rules.fetch.output.done,
    output:
        data=f"{DATA}.npz",
        info=f"{DATA}.json",
    log:
        f"{P.logs}/sassec_{{dataset}}_seed{{seed}}.log",
    wildcard_constraints:
        dataset=r"sassec_\w+",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
    message:
        "PS/PM: {wildcards.dataset}'s references and system outputs"
    shell:
        "python -m repro.papers.pspm.data sassec --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.dataset} --out {output.data} 2> {log}"


rule synth:
    input:
        code=[*P.src("data", "settings", "mixtures", "distortions"), *P.job, *core("speech")],
        config=P.config,
    output:
        data=f"{DATA}.npz",
        info=f"{DATA}.json",
    log:
        f"{P.logs}/synth_{{dataset}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/synth_{{dataset}}_seed{{seed}}.tsv"
    wildcard_constraints:
        dataset="speech_en|speech_es|music",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
    message:
        "PS/PM: synthesise {wildcards.dataset} mixtures and their degraded outputs, seed"
        " {wildcards.seed}"
    shell:
        "python -m repro.papers.pspm.data synth --config {input.config} --scale {params.scale}"
        " --dataset {wildcards.dataset} --seed {wildcards.seed} --out {output.data} 2> {log}"


rule score:
    input:
        code=[*P.src("evaluate"), *MEASURES],
        config=P.config,
        data=f"{DATA}.npz",
    output:
        scores=f"{P.out}/scores/{{dataset}}/seed{{seed}}_{{encoder}}.json",
    log:
        f"{P.logs}/score_{{dataset}}_seed{{seed}}_{{encoder}}.log",
    benchmark:
        f"{P.bench}/score_{{dataset}}_seed{{seed}}_{{encoder}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=240, mem_mb=32000, cpus_per_task=8),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "PS/PM: score {wildcards.dataset} seed {wildcards.seed} with the {wildcards.encoder}"
        " encoder"
    shell:
        "python -m repro.papers.pspm.evaluate --config {input.config} --scale {params.scale}"
        " --data {input.data} --encoder {wildcards.encoder} --out {output.scores} 2> {log}"


rule baselines:
    input:
        code=[*P.src("baselines", "distortions"), *P.job],
        config=P.config,
        data=f"{DATA}.npz",
    output:
        scores=f"{P.out}/baselines/{{dataset}}/seed{{seed}}.json",
    log:
        f"{P.logs}/baselines_{{dataset}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/baselines_{{dataset}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=60, mem_mb=8000, cpus_per_task=2),
    params:
        scale=P.scale,
    message:
        "PS/PM: SI-SDR, SDR/SIR/SAR, PESQ, STOI/ESTOI on {wildcards.dataset} seed"
        " {wildcards.seed}"
    shell:
        "python -m repro.papers.pspm.baselines --config {input.config} --scale {params.scale}"
        " --data {input.data} --out {output.scores} 2> {log}"


TABLES = [
    f"{P.out}/tables/{t}.{ext}"
    for t in ("main", "selectivity", "ranking", "errors", "data", "paper_reported")
    for ext in ("csv", "md")
]
FIGURES = [f"{P.out}/figures/levels.png"]


rule report:
    input:
        code=[
            *P.src("report", "baselines", "distortions", "settings"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        scores=expand(rules.score.output.scores, dataset=DATASETS, seed=SEEDS, encoder=ENCODERS),
        baselines=expand(rules.baselines.output.scores, dataset=DATASETS, seed=SEEDS),
        infos=expand(f"{DATA}.json", dataset=DATASETS, seed=SEEDS),
    output:
        **P.report_outputs(TABLES, FIGURES, category="PS/PM"),
        correlations=f"{P.out}/correlations.json",
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "PS/PM: correlations with the known levels beside the paper's MOS numbers, selectivity,"
        " ranking, error terms, claims ledger"
    shell:
        "python -m repro.papers.pspm.report --config {input.config} --scale {params.scale}"
        " --scores {input.scores} --baselines {input.baselines} --infos {input.infos}"
        " --out {params.out} 2> {log}"
