"""The jobs Snakemake plans for a target, as plain data (rule, phase, inputs, outputs, resources).

Runs Snakemake's own planner in-process through its public API (`snakemake.api`), as a dry run,
and reads each planned job from the structured JOB_INFO log records that Snakemake emits for
logger plugins (`snakemake_interface_logger_plugins.common.LogEvent`): nothing private, no
console text parsed. dvc.yaml, `restore`, `python -m repro plan` and the tests use it.

The phase of each rule comes from the paper modules' own declaration (`Paper.phases` in
repro.core.workflow), filled while Snakemake parses the workflow in this process.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# resources Snakemake derives or sets per machine, not what a rule asked for
_DERIVED = {"_cores", "_nodes", "tmpdir", "mem", "mem_mib", "disk", "disk_mib"}
_ANNOTATION = re.compile(r" \([^()]*\)$")  # "path (directory)": Snakemake's flag annotations


@dataclass(frozen=True)
class Job:
    rule: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    phase: str | None = None
    paper: str | None = None
    resources: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _JobInfo(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        from snakemake_interface_logger_plugins.common import LogEvent

        if getattr(record, "event", None) == LogEvent.JOB_INFO:
            self.records.append(record)


class PlanError(RuntimeError):
    """Snakemake could not plan the target (bad config, missing input, ...)."""


def _files(items: Any) -> tuple[str, ...]:
    return tuple(sorted(_ANNOTATION.sub("", str(f)) for f in items or ()))


@contextlib.contextmanager
def _no_slurm_probe():
    """Import Snakemake's plugins without their SLURM probe: snakemake.api imports every
    installed executor plugin, and the SLURM one runs `scontrol show config` at import (for its
    --help text only), which waits ~9 s where a slurm.conf names a controller that is down. An
    empty SLURM_CONF makes scontrol fail at once; a plan never talks to SLURM."""
    old = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = os.devnull
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = old


def plan(repo: str | Path, target: str | None = None, config: dict[str, str] | None = None,
         forceall: bool = False) -> list[Job]:
    """The jobs `snakemake [target]` would run now (every job of the DAG with forceall)."""
    with _no_slurm_probe():
        from snakemake.api import SnakemakeApi
    from snakemake.settings.types import (
        ConfigSettings,
        DAGSettings,
        OutputSettings,
        Quietness,
        ResourceSettings,
    )

    from repro.core.workflow import DECLARED

    repo = Path(repo).resolve()
    cwd, environ = os.getcwd(), dict(os.environ)  # the Snakefile sets the jobs' PATH, PYTHONPATH
    handler = _JobInfo()
    logger = logging.getLogger("snakemake")
    logger.addHandler(handler)
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), SnakemakeApi(
            OutputSettings(dryrun=True, quiet={Quietness.ALL})
        ) as api:
            wf = api.workflow(
                resource_settings=ResourceSettings(cores=1),
                config_settings=ConfigSettings(config=dict(config or {})),
                snakefile=repo / "Snakefile",
                workdir=repo,
            )
            dag = wf.dag(DAGSettings(targets={target} if target else set(), forceall=forceall))
            dag.execute_workflow(executor="local", pseudo_executor="dryrun")
    except SystemExit as err:  # a config error: Snakemake's parse printed one line and exited
        lines = sink.getvalue().strip().splitlines()
        raise PlanError(lines[-1] if lines else f"snakemake exited with {err.code}") from err
    except Exception as err:
        what = target or "the default target"
        raise PlanError(f"snakemake could not plan {what}: {err}") from err
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
        logger.removeHandler(handler)
    jobs = {}
    for r in handler.records:
        paper, phase = DECLARED.get(r.rule_name, (None, None))
        job = Job(r.rule_name, _files(r.input), _files(r.output), phase, paper,
                  {k: v for k, v in dict(r.resources or {}).items() if k not in _DERIVED})
        jobs[(job.rule, job.outputs, job.inputs)] = job
    return sorted(jobs.values(), key=lambda j: (j.rule, j.outputs))


def plan_jobs(repo: str | Path, target: str, config: dict[str, str]) -> list[Job]:
    """Every job (as if nothing existed yet) that `snakemake <target>` would run."""
    return plan(repo, target, config, forceall=True)


def counts(jobs: list[Job]) -> dict[str, int]:
    """rule -> number of jobs."""
    return dict(Counter(j.rule for j in jobs))
