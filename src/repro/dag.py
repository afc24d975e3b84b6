"""The concrete job DAG Snakemake plans for a target, as plain data (rule, inputs, outputs).

Used to generate dvc.yaml from the workflow, so the two can never drift apart. Runs
Snakemake's own planner through its Python API (no job is executed).
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Job:
    rule: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def plan_jobs(repo: str | Path, target: str, config: dict[str, str]) -> list[Job]:
    """Every job (as if nothing existed yet) that `snakemake <target>` would run."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import (
        ConfigSettings,
        DAGSettings,
        OutputSettings,
        ResourceSettings,
    )

    repo = Path(repo).resolve()
    cwd = os.getcwd()
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), SnakemakeApi(
            OutputSettings(quiet={"all"})
        ) as api:
            wf_api = api.workflow(
                resource_settings=ResourceSettings(cores=1),
                config_settings=ConfigSettings(config=dict(config)),
                snakefile=repo / "Snakefile",
                workdir=repo,
            )
            dag_api = wf_api.dag(DAGSettings(targets={target}, forceall=True))
            wf = dag_api.workflow_api._workflow
            wf._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True)
            wf._build_dag()
            jobs = [
                Job(job.rule.name, tuple(sorted(map(str, job.input))),
                    tuple(sorted(map(str, job.output))))
                for job in wf.dag.jobs
            ]
    finally:
        os.chdir(cwd)
    return sorted(jobs, key=lambda j: (j.rule, j.outputs))
