"""`python -m repro new-paper <id>`: a working skeleton of a new paper, in the project's pattern.

Adding a paper means adding one folder (and its test folder); nothing else: the registry
(papers are discovered by folder), phases, dvc.yaml, SLURM resources, the summary and the
generic tests follow from it:

    src/repro/papers/<id>/             the paper: its package (data, method + baseline,
                                       evaluation, report) and
        config.yaml                    settings per scale, the paper's numbers, its claims
        schema.yaml                    what those settings may be (checked at parse time)
        rules.smk                      its Snakemake module: fetch -> train -> evaluate -> report
        captions/                      the report's captions of its tables and figures
    tests/papers/<id>/                 what is specific to the paper

The skeleton is a small real experiment (mean vs median as estimators of a Gaussian's centre,
seeds from config, one claim computed by the ledger), so its tiny DAG passes the generic tests
at once; replace it piece by piece with the paper's method, data and baselines.
"""

from __future__ import annotations

import re
from pathlib import Path
from string import Template

ID = re.compile(r"^[a-z][a-z0-9_]*$")

CONFIG = """\
# $title. Written by `python -m repro new-paper $pid`: replace the skeleton's settings with the
# paper's, and its reported number and claim with the paper's own (cite table/figure/page).
# `defaults` hold for every scale; `scales.<scale>` override them.
paper: $pid
title: "$title"

defaults:
  seeds: [0, 1, 2]
  methods: [mean, median]     # the method and its baseline
  data:
    seed: 1234                # the data set is drawn once, from this seed
    n: 2000                   # samples in the pool
    loc: 3.0                  # the centre to estimate
  train:
    sample_size: 50           # samples each seed's estimator sees (drawn from the pool)

scales:
  tiny:
    seeds: [0, 1]
    data: {n: 200}
    train: {sample_size: 20}
  small: {}
  full:
    seeds: [0, 1, 2, 3, 4]
    data: {n: 100000}
    train: {sample_size: 200}

reported:
  - {source: "skeleton: replace with the paper's table or figure", setting: "Gaussian, n -> inf",
     method: median, metric: relative_efficiency, value: 0.637}

claims:
  - id: mean_beats_median
    statement: "The sample mean's squared error is at most the median's on Gaussian data"
    left: {method: mean, metric: sq_error}
    op: "<="
    right: {method: median, metric: sq_error}
    paper: "asymptotic relative efficiency of the median 2/pi = 0.637"
"""

SCHEMA = """\
$$schema: "https://json-schema.org/draft/2020-12/schema"
description: $pid settings at one scale (defaults merged with scales.<scale>).
type: object
additionalProperties: false
required: [seeds, methods, data, train]
properties:
  seeds: {type: array, minItems: 1, uniqueItems: true, items: {type: integer, minimum: 0}}
  methods:
    type: array
    minItems: 1
    uniqueItems: true
    items: {enum: [mean, median]}
  data:
    type: object
    additionalProperties: false
    required: [seed, n, loc]
    properties:
      seed: {type: integer, minimum: 0}
      n: {type: integer, minimum: 10}
      loc: {type: number}
  train:
    type: object
    additionalProperties: false
    required: [sample_size]
    properties:
      sample_size: {type: integer, minimum: 2}
"""

RULES = """\
# ${title}: a skeleton written by `python -m repro new-paper ${pid}`.
# fetch -> train (method x seed) -> evaluate (method x seed) -> report. This file is the paper's
# own Snakemake module: rule names are plain (`train` becomes `${pid}_train`), globals and
# wildcards are its own. SLURM sizes (P.cluster) are for `full`; below it the profile's defaults.
from repro.core.workflow import core, paper

P = paper(config)
S = P.settings
SEEDS = S["seeds"]
METHODS = S["methods"]
P.phases(
    {
        "fetch": ["fetch"],
        "train": ["train"],
        "evaluate": ["evaluate"],
        "report": ["report"],
    }
)


wildcard_constraints:
    method="|".join(METHODS),
    seed=r"\\d+",


rule fetch:
    input:
        code=[*P.src("data"), *P.job],
        config=P.config,
    output:
        data=f"{P.data}/data.npz",
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
    message:
        "${pid}: draw the data set (scale {params.scale})"
    shell:
        "python -m repro.papers.${pid}.data --config {input.config} --scale {params.scale}"
        " --out {output.data} 2> {log}"


rule train:
    input:
        code=[*P.src("method", "train"), *P.job],
        config=P.config,
        data=rules.fetch.output.data,
    output:
        run=f"{P.out}/runs/{{method}}/seed{{seed}}.json",
    log:
        f"{P.logs}/train_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/train_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=2000, cpus_per_task=1),
        gpu=P.gpu,
    params:
        scale=P.scale,
    message:
        "${pid}: {wildcards.method}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.${pid}.train --config {input.config} --scale {params.scale}"
        " --method {wildcards.method} --seed {wildcards.seed} --data {input.data}"
        " --out {output.run} 2> {log}"


rule evaluate:
    input:
        code=[*P.src("evaluate"), *P.job],
        config=P.config,
        run=rules.train.output.run,
    output:
        metrics=f"{P.out}/eval/{{method}}_seed{{seed}}.json",
    log:
        f"{P.logs}/evaluate_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{P.bench}/evaluate_{{method}}_seed{{seed}}.tsv"
    conda:
        P.env
    resources:
        **P.cluster(runtime=30, mem_mb=2000, cpus_per_task=1),
    params:
        scale=P.scale,
    message:
        "${pid}: evaluate {wildcards.method}, seed {wildcards.seed}"
    shell:
        "python -m repro.papers.${pid}.evaluate --config {input.config} --scale {params.scale}"
        " --run {input.run} --out {output.metrics} 2> {log}"


TABLES = [f"{P.out}/tables/{t}.{ext}" for t in ("main", "paper_reported") for ext in ("csv", "md")]
FIGURES = [f"{P.out}/figures/errors.png"]


rule report:
    input:
        code=[
            *P.src("report"),
            *P.job,
            *core("tables", "claims", "forest", "provenance", "plotting"),
        ],
        config=P.config,
        evals=expand(rules.evaluate.output.metrics, method=METHODS, seed=SEEDS),
    output:
        **P.report_outputs(TABLES, FIGURES, category="${pid}"),
    log:
        f"{P.logs}/report.log",
    localrule: True
    conda:
        P.env
    params:
        scale=P.scale,
        out=lambda w, output: os.path.dirname(output.claims_json),
    message:
        "${pid}: tables (the paper's numbers beside ours), figure and the claims ledger"
    shell:
        "python -m repro.papers.${pid}.report --config {input.config} --scale {params.scale}"
        " --evals {input.evals} --out {params.out} 2> {log}"
"""

INIT = '''\
"""$title."""
'''

SETTINGS = '''\
"""$pid settings as typed objects: every job reads these, never raw YAML dictionaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from repro.core.config import load_settings, typed


@dataclass
class Data:
    seed: int
    """the data set is drawn once, from this seed"""
    n: int
    """samples in the pool"""
    loc: float
    """the centre to estimate"""


@dataclass
class Train:
    sample_size: int
    """samples each seed's estimator sees"""


@dataclass
class Settings:
    seeds: list[int]
    methods: list[str]
    data: Data
    train: Train = field(default_factory=lambda: Train(50))


def load(path: Path, scale: str) -> Settings:
    return typed(Settings, load_settings(path, scale), f"{path} (scale {scale})")
'''

DATA = '''\
"""$pid data. The skeleton draws its data from a seeded generator; a real paper fetches its
data set here (the real source at full, an offline mirror or a registry package below) and
checks each file against src/repro/papers/$pid/manifest.json before it reads it
(`Manifest.for_config(a.config).verify(key, path)`, repro.core.manifest)."""

from __future__ import annotations

import io

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.papers.$pid.settings import load


def main(argv: list[str] | None = None) -> None:
    a = job_parser("draw the $pid data set").parse_args(argv)
    cfg = load(a.config, a.scale)
    x = np.random.default_rng(cfg.data.seed).normal(cfg.data.loc, 1.0, size=cfg.data.n)
    buf = io.BytesIO()
    np.savez(buf, x=x)
    with atomic_path(a.out) as tmp:
        tmp.write_bytes(buf.getvalue())
    write_json(a.out.with_name("source.json"),
               {"source": "generator", "seed": cfg.data.seed, "n": cfg.data.n})


if __name__ == "__main__":
    main()
'''

METHOD = '''\
"""$pid: the method and its baseline, side by side (replace with the paper's)."""

from __future__ import annotations

import numpy as np

ESTIMATORS = {
    "mean": np.mean,      # the method
    "median": np.median,  # the baseline
}


def estimate(method: str, x: np.ndarray) -> float:
    if method not in ESTIMATORS:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(ESTIMATORS)})")
    return float(ESTIMATORS[method](x))
'''

TRAIN = '''\
"""$pid: one method on one seed's sample of the data."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.seeding import seed_everything
from repro.papers.$pid.method import estimate
from repro.papers.$pid.settings import load


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("fit one $pid method on one seed")
    ap.add_argument("--method", required=True)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--data", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    rng = seed_everything(a.seed)
    pool = np.load(a.data)["x"]
    sample = rng.choice(pool, size=cfg.train.sample_size, replace=False)
    write_json(a.out, {"method": a.method, "seed": a.seed, "loc": cfg.data.loc,
                       "estimate": estimate(a.method, sample)})


if __name__ == "__main__":
    main()
'''

EVALUATE = '''\
"""$pid: score one trained run."""

from __future__ import annotations

from pathlib import Path

from repro.core.config import job_parser
from repro.core.io import read_json, write_json


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("evaluate one $pid run")
    ap.add_argument("--run", required=True, type=Path)
    a = ap.parse_args(argv)
    run = read_json(a.run)
    write_json(a.out, {"method": run["method"], "seed": run["seed"],
                       "sq_error": (run["estimate"] - run["loc"]) ** 2})


if __name__ == "__main__":
    main()
'''

REPORT = '''\
"""$pid report: our numbers beside the paper's, a figure, and the claims ledger."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from repro.core.claims import write_ledger
from repro.core.config import job_parser, load_yaml
from repro.core.io import read_json
from repro.core.plotting import save_figure, subplots
from repro.core.tables import PM, paper_value, pm, reported_table, write_table
from repro.papers.$pid.settings import load


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("$pid tables, figure and claims ledger")
    ap.add_argument("--evals", nargs="+", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg, reported = load(a.config, a.scale), load_yaml(a.config)["reported"]
    evals = [read_json(p) for p in a.evals]
    records = [{"method": e["method"], "metric": "sq_error", "seed": e["seed"],
                "value": e["sq_error"]} for e in evals]
    errors = {m: [r["value"] for r in records if r["method"] == m] for m in cfg.methods}
    table = pd.DataFrame([{"method": m, f"squared error ({PM} over seeds)": pm(errors[m], 4),
                           "seeds": len(errors[m]),
                           "paper: relative efficiency (not comparable)": paper_value(
                               reported, m, "relative_efficiency")} for m in cfg.methods])
    write_table(table, a.out / "tables", "main",
                f"Squared error of each estimator (scale {a.scale}, sample size "
                f"{cfg.train.sample_size}); the paper's number is labelled as the paper's.")
    write_table(reported_table(reported), a.out / "tables", "paper_reported",
                "The paper's own numbers (never presented as ours).")
    fig, ax = subplots(figsize=(4, 3))
    for i, m in enumerate(cfg.methods):
        ax.plot([i] * len(errors[m]), errors[m], "o", alpha=0.6)
    ax.set_xticks(range(len(cfg.methods)), cfg.methods)
    ax.set_ylabel("squared error (one dot per seed)")
    save_figure(fig, a.out / "figures" / "errors.png")
    write_ledger(a.out, "$pid", a.scale, load_yaml(a.config)["claims"], records)


if __name__ == "__main__":
    main()
'''

README = """\
# $title (`$pid`)

A skeleton written by `python -m repro new-paper $pid`: mean vs median on seeded Gaussian data,
so the DAG runs end to end. Replace it with the paper's method, baselines and data, and say here:

- what is reproduced, and how the small setting differs from the paper's;
- the reproduced table (published results, never pasted by hand);
- how long `snakemake paper_$pid` took at small, and on what machine.

    snakemake paper_$pid                      # small
    snakemake paper_$pid --config scale=tiny  # plumbing, seconds
"""

TEST = '''\
"""$pid: what is specific to this paper (the generic checks are in tests/test_papers.py)."""

from __future__ import annotations

import numpy as np
import pytest

from repro.papers.$pid.method import estimate


def test_estimators_on_a_known_sample():
    x = np.array([1.0, 2.0, 9.0])
    assert estimate("mean", x) == pytest.approx(4.0)
    assert estimate("median", x) == 2.0
    with pytest.raises(ValueError, match="unknown method"):
        estimate("mode", x)
'''


# Report captions (the paper's captions/, repro.core.workflow.caption_path): a table's shows its
# own caption line and provenance; the figure's says what it draws (edit it with the figure).
TABLE_CAPTION = """\
{% set c = snakemake.config %}{% set out = c["results_dir"] ~ "/" ~ c["scale"] ~ "/$pid" %}
**$pid: table** ``$stem`` at scale ``{{ c["scale"] }}``. What it shows and
the setting (the table's own caption, as the report wrote it):

.. raw:: html

   <style>pre.literal-block { white-space: pre-wrap; font-family: inherit; }</style>

.. include:: {{ out }}/tables/$stem.md
   :end-line: 1
   :literal:

.. include:: {{ out }}/tables/$stem.md
   :start-after: <!-- provenance -->
   :literal:
"""
FIGURE_CAPTION = """\
{% set c = snakemake.config %}{% set out = c["results_dir"] ~ "/" ~ c["scale"] ~ "/$pid" %}
**$pid: figure** ``errors`` at scale ``{{ c["scale"] }}``. The squared error of
each estimator, one dot per seed (the `main` table gives their mean and spread); the paper's
numbers are not drawn.

.. raw:: html

   <style>pre.literal-block { white-space: pre-wrap; font-family: inherit; }</style>

.. include:: {{ out }}/claims.md
   :start-after: <!-- provenance -->
   :literal:
"""


def files(pid: str, title: str) -> dict[str, str]:
    """Path (relative to the repo) -> text of every file the skeleton adds."""
    sub = {"pid": pid, "title": title.replace('"', "'")}
    pkg = f"src/repro/papers/{pid}"
    texts = {
        f"{pkg}/config.yaml": CONFIG,
        f"{pkg}/schema.yaml": SCHEMA,
        f"{pkg}/rules.smk": RULES,
        f"{pkg}/__init__.py": INIT,
        f"{pkg}/settings.py": SETTINGS,
        f"{pkg}/data.py": DATA,
        f"{pkg}/method.py": METHOD,
        f"{pkg}/train.py": TRAIN,
        f"{pkg}/evaluate.py": EVALUATE,
        f"{pkg}/report.py": REPORT,
        f"{pkg}/README.md": README,
        f"tests/papers/{pid}/test_{pid}_method.py": TEST,
        f"{pkg}/captions/figures/errors.rst": FIGURE_CAPTION,
    }
    out = {path: Template(text).substitute(sub) for path, text in texts.items()}
    for stem in ("main", "paper_reported"):
        out[f"{pkg}/captions/tables/{stem}.rst"] = Template(TABLE_CAPTION).substitute(sub,
                                                                                  stem=stem)
    return out


def new_paper(repo: Path, pid: str, title: str) -> list[str]:
    """Write the skeleton of paper `pid`; refuses an invalid id or one already registered."""
    if not ID.match(pid):
        raise ValueError(f"paper id {pid!r} must match {ID.pattern} (it names a Python package)")
    out = files(pid, title)
    taken = [p for p in out if (repo / p).exists()]
    if taken or (repo / f"src/repro/papers/{pid}").exists():
        raise ValueError(f"paper {pid!r} exists already ({', '.join(taken) or 'its package'})")
    for path, text in out.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    return sorted(out)
