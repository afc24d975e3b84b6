"""SLURM for real: a one-node cluster on this machine (scripts/slurm_local.sh), the workflow
submitted through snakemake-executor-plugin-slurm with `workflow/profiles/slurm`.

Evidence that jobs went through SLURM comes from SLURM itself (`squeue --states=all` lists the
run's jobs long after they end: the local cluster keeps them for a day, MinJobAge) and from the
plugin (one log per job under .snakemake/slurm_logs, the SLURM job id in Snakemake's log).
No accounting database is involved.

The tests that need the cluster change the machine (apt packages, /etc/slurm, daemons) and so
run only with REPRO_TEST_SLURM=1 (.ci/run sets it; conftest.slurm_cluster skips them otherwise,
saying so, and puts the machine back after them); where slurmctld cannot start (not root, no
apt, a real cluster's slurm.conf) they skip with the reason. The profile's own tests always run.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import (
    REPO,
    SNAKEMAKE,
    copy_repo,
    plan,
    planned_jobs,
    same_result,
    slurm_env,
    snakemake,
)

from repro.core.checkpoint import resume_dir

PROFILE = "workflow/profiles/slurm"
# The paper run through SLURM: stackelberg, whose tiny DAG is a dozen numpy jobs (each SLURM job
# pays a Snakemake start of its own, so a torch-heavy DAG would cost minutes), with a local report
# and paper target beside its submitted jobs. Which rules ran where is all the test is about.
PAPER = "stackelberg"
LOCAL = {f"{PAPER}_report", f"paper_{PAPER}"}
SUBMITTED = re.compile(r"Job \d+ has been submitted with SLURM jobid (\d+) \(log: (\S+)\)")
# Test-harness settings on top of the profile: poll SLURM every second instead of every 40 s,
# keep the SLURM log of every job (the plugin deletes those of successful jobs).
HARNESS = ["--slurm-init-seconds-before-status-checks", "1",
           "--seconds-between-status-checks", "1", "--slurm-keep-successful-logs"]

pytestmark = pytest.mark.slow


def rule_resources(root: Path, target: str, scale: str = "tiny") -> dict[str, dict]:
    """What each rule of the target declares (runtime, mem_mb, cpus_per_task, gpu), from the
    workflow's own plan: the resources live in the rules, not in the profile."""
    keys = ("runtime", "mem_mb", "cpus_per_task", "gpu")
    return {j["rule"]: {k: v for k, v in j["resources"].items() if k in keys}
            for j in plan(root, target, scale=scale, forceall=True)}


def fitted_resources(profile_dir: Path, declared: dict[str, dict] | None = None) -> list[str]:
    """The profile's defaults and the rules' own resources, fitted to this one small node: 1 CPU
    and at most 1 GB per job (full-scale requests like 16 CPUs would never schedule here),
    runtimes kept as they are, so the test can see each rule's runtime reach SLURM. Returns
    command-line arguments."""
    prof = yaml.safe_load((profile_dir / "config.yaml").read_text())

    def fit(res: dict) -> list[str]:
        fitted = {**res, "cpus_per_task": 1, "mem_mb": min(int(res.get("mem_mb", 1000)), 1000)}
        return [f"{k}={v}" for k, v in fitted.items()
                if not str(k).startswith("?") and k != "gpu"]

    default = fit(prof["default-resources"])
    per_rule = [f"{rule}:{kv}" for rule, res in (declared or {}).items()
                if "runtime" in res for kv in fit(res)]
    return ["--default-resources", *default, *(["--set-resources", *per_rule] if per_rule
                                                else [])]


def run_via_slurm(root: Path, *args: str, profile: Path, declared: dict[str, dict] | None = None,
                  **config: str) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    # cold: SLURM jobs start their own interpreters, as on a real cluster (and their tables are
    # compared with the local run's, whose jobs forked from the warm server)
    proc = snakemake(root, *args, "--workflow-profile", str(profile), *HARNESS,
                     *fitted_resources(profile, declared), warm=False, slurm=True, **config)
    return proc, time.monotonic() - t0


def slurm_jobs(log: str) -> dict[str, dict[str, str]]:
    """The run's jobs as SLURM knows them (squeue, by the run's job name): id -> fields."""
    run_id = re.search(r"SLURM run ID: (\S+)", log).group(1)
    out = subprocess.run(["squeue", "--states=all", "--noheader", "--name", run_id,
                          "--format=%i|%T|%k|%l"], capture_output=True, text=True, check=True,
                         env=slurm_env())
    jobs = {}
    for line in out.stdout.splitlines():
        jid, state, comment, limit = line.strip().split("|")
        show = subprocess.run(["scontrol", "show", "job", "-o", jid], capture_output=True,
                              text=True, check=True, env=slurm_env()).stdout
        jobs[jid] = {"state": state, "comment": comment, "time_limit": limit, "show": show}
    return jobs


def rule_of(comment: str, rules: set[str]) -> str:
    """The plugin comments each job `rule_<name>` or `rule_<name>_wildcards_<...>`."""
    hits = [r for r in rules
            if comment == f"rule_{r}" or comment.startswith(f"rule_{r}_wildcards_")]
    assert len(hits) == 1, (comment, hits)
    return hits[0]


def minutes(limit: str) -> int:
    """squeue's %l (`[D-]HH:MM:SS` or `MM:SS`) in minutes."""
    days, _, hms = limit.rpartition("-")
    parts = [int(p) for p in hms.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    h, m, _s = parts
    return int(days or 0) * 1440 + h * 60 + m


def gres_gpus(show: str) -> int:
    """GPUs a job asked for, from `scontrol show job` (TresPerJob=gres:gpu:1 or gres/gpu=1)."""
    m = re.search(r"gres[:/]gpu[:=](\d+)", show)
    return int(m.group(1)) if m else 0


# ---------------------------------------------------------------- the paper's tiny DAG


@pytest.fixture(scope="session")
def slurm_paper(slurm_cluster, tmp_path_factory):
    """`snakemake paper_<PAPER> --config scale=tiny` through SLURM, in a fresh repo copy."""
    root = copy_repo(tmp_path_factory.mktemp("slurm") / "repo")
    planned = planned_jobs(root, f"paper_{PAPER}")
    # the rules' full-scale sizes, fitted to this node, so their runtimes reach SLURM at tiny
    declared = rule_resources(root, f"paper_{PAPER}", scale="full")
    proc, seconds = run_via_slurm(root, f"paper_{PAPER}", profile=root / PROFILE,
                                  declared=declared, papers=PAPER)
    print(f"\npaper_{PAPER} tiny via SLURM: {seconds:.0f}s, {sum(planned.values())} jobs")
    return root, planned, proc.stdout + proc.stderr


def test_jobs_went_through_slurm(slurm_paper):
    root, planned, log = slurm_paper
    jobs = slurm_jobs(log)
    by_rule: dict[str, int] = {}
    for j in jobs.values():
        assert j["state"] == "COMPLETED", j
        rule = rule_of(j["comment"], set(planned))
        by_rule[rule] = by_rule.get(rule, 0) + 1
    # every non-local job ran as exactly one SLURM job; no local rule did
    assert by_rule == {r: n for r, n in planned.items() if r not in LOCAL}
    assert set(planned) >= LOCAL
    for rule in LOCAL:  # ... they ran here, in the snakemake process
        assert re.search(rf"Finished jobid: \d+ \(Rule: {rule}\)", log), f"{rule} did not run"
    # the plugin's evidence: the SLURM id in Snakemake's log and one SLURM log file per job
    submitted = dict(SUBMITTED.findall(log))
    assert set(submitted) == set(jobs)
    for jid, path in submitted.items():
        assert Path(path).is_file() and f"/{jid}.log" in path
        assert Path(path).is_relative_to(root / ".snakemake/slurm_logs")
    assert not any(f"rule_{r}" in p for r in LOCAL for p in submitted.values())


def test_rule_resources_reach_slurm(slurm_paper):
    """Each rule's own (full-scale) runtime, passed as it would be at full, else the profile's
    default, is its SLURM time limit; below full no rule asks SLURM for a GPU."""
    root, planned, log = slurm_paper
    prof = yaml.safe_load((root / PROFILE / "config.yaml").read_text())
    default = prof["default-resources"]["runtime"]
    declared = rule_resources(root, f"paper_{PAPER}", scale="full")
    for j in slurm_jobs(log).values():
        rule = rule_of(j["comment"], set(planned))
        want = declared[rule].get("runtime", default)
        assert minutes(j["time_limit"]) == want, (rule, j["time_limit"])
        assert gres_gpus(j["show"]) == 0, j["show"]


def test_tables_match_the_local_run(slurm_paper, tiny_run):
    root, _, _ = slurm_paper
    out, ref = root / f"results/tiny/{PAPER}", tiny_run(PAPER) / f"results/tiny/{PAPER}"
    names = sorted(p.relative_to(ref) for p in ref.glob("tables/*.csv"))
    assert names and names == sorted(p.relative_to(out) for p in out.glob("tables/*.csv"))
    for name in [*names, Path("claims.json")]:
        assert same_result(out / name, ref / name), name


# ---------------------------------------------------------------- preemption


def test_a_requeued_job_resumes_where_it_stopped(slurm_cluster, tmp_path):
    """Preemption the way SLURM does it on a cluster that requeues (`scontrol requeue`, what
    the profile's `--requeue` allows): the running job is signalled, saves its state, goes back
    to the queue under the same id and, started again, resumes at the round it saved; Snakemake
    waits through it and the output equals an uninterrupted run's."""
    root = copy_repo(tmp_path / "repo")
    cfg_path = root / "src/repro/papers/stackelberg/config.yaml"
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["scales"]["tiny"]["horizons"] = [50, 400, 4000]  # ~10 s of rounds: time to requeue
    cfg_path.write_text(yaml.safe_dump(cfg))
    target = "results/tiny/stackelberg/runs/paper/seed0.json"
    state = resume_dir(root / target) / "state.pt"
    env = {**slurm_env(), "PYTHONHASHSEED": "0", "REPRO_CHECKPOINT_MINUTES": "0.002"}
    env.pop("REPRO_WARMSTART", None)  # cold, as SLURM jobs are
    cmd = [SNAKEMAKE, target, "--workflow-profile", str(root / PROFILE), *HARNESS,
           *fitted_resources(root / PROFILE), "--config", "scale=tiny", "papers=stackelberg"]
    log_path = tmp_path / "snakemake.log"
    with open(log_path, "w") as log_file:
        p = subprocess.Popen(cmd, cwd=root, env=env, stdout=log_file, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 300
            while not state.exists():
                assert p.poll() is None, log_path.read_text()[-3000:]
                assert time.monotonic() < deadline, "no state saved within 300 s"
                time.sleep(0.05)
            (jid, _), = SUBMITTED.findall(log_path.read_text())
            subprocess.run(["scontrol", "requeue", jid], check=True, env=slurm_env(),
                           capture_output=True, text=True)
            rc = p.wait(timeout=600)
        finally:
            if p.poll() is None:
                p.terminate()
                p.wait()
    log = log_path.read_text()
    assert rc == 0, log[-3000:]
    show = subprocess.run(["scontrol", "show", "job", "-o", jid], capture_output=True,
                          text=True, check=True, env=slurm_env()).stdout
    assert "Restarts=1" in show and "JobState=COMPLETED" in show, show
    job_log = (root / "logs/tiny/stackelberg/run_paper_seed0.log").read_text()
    m = re.search(r"resuming at step (\d+) of 4000", job_log)
    assert m and 0 < int(m.group(1)) < 4000, job_log[-3000:]
    assert not state.parent.exists()
    ref = subprocess.run([sys.executable, "-m", "repro.papers.stackelberg.run", "--config",
                          str(cfg_path), "--scale", "tiny", "--env", "paper", "--seed", "0",
                          "--out", str(tmp_path / "ref.json")], cwd=root, env=env,
                         capture_output=True, text=True)
    assert ref.returncode == 0, ref.stderr[-3000:]
    assert (root / target).read_bytes() == (tmp_path / "ref.json").read_bytes()


# ---------------------------------------------------------------- the profile itself


def test_every_rove_rule_sizes_itself_for_full_and_the_profile_is_generic():
    prof = yaml.safe_load((REPO / PROFILE / "config.yaml").read_text())
    assert prof["executor"] == "slurm" and prof["slurm-status-command"] == "squeue"
    assert "set-resources" not in prof  # per-rule resources live in the rules
    declared = rule_resources(REPO, "paper_rove", scale="full")
    for rule in ("rove_toy", "rove_theorem", "rove_sft", "rove_train", "rove_evaluate",
                 "rove_math_base", "rove_math_train", "rove_math_evaluate"):
        assert {"runtime", "mem_mb", "cpus_per_task"} <= set(declared[rule]), rule
    assert declared["rove_train"]["gpu"] == 1 and declared["rove_toy"].get("gpu", 0) == 0
    tiny = rule_resources(REPO, "paper_rove")  # below full: no GPU, the profile's defaults
    assert tiny["rove_train"] == {"gpu": 0} and tiny["rove_toy"] == {}


@pytest.mark.parametrize("env,want", [
    ({}, {}),
    ({"SBATCH_PARTITION": "gpu", "SBATCH_ACCOUNT": "12345"},
     {"slurm_partition": "'gpu'", "slurm_account": "'12345'"}),
])
def test_partition_and_account_come_from_sbatch_variables(monkeypatch, env, want):
    from snakemake.profiles import ProfileConfigFileParser

    for k in ("SBATCH_PARTITION", "SBATCH_ACCOUNT"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with open(REPO / PROFILE / "config.yaml") as f:
        parsed = ProfileConfigFileParser().parse(f)
    defaults = dict(kv.split("=", 1) for kv in parsed["default-resources"])
    assert {k: defaults.get(k) for k in ("slurm_partition", "slurm_account")} == {
        k: want.get(k) for k in ("slurm_partition", "slurm_account")}
    assert {"runtime", "mem_mb", "cpus_per_task"} <= set(defaults)


GPU_WORKFLOW = """
localrules: gather

rule gather:
    input: "gpu.txt", "cpu.txt"
    output: "done.txt"
    shell: "cat {input} > {output}"

rule on_gpu:
    output: "gpu.txt"
    resources: gpu=1
    shell: "echo gpus=${{CUDA_VISIBLE_DEVICES:-none}} job=$SLURM_JOB_ID > {output}"

rule on_cpu:
    output: "cpu.txt"
    resources: gpu=0
    shell: "echo gpus=${{CUDA_VISIBLE_DEVICES:-none}} job=$SLURM_JOB_ID > {output}"
"""


def test_gpu_resource_becomes_a_slurm_gpu_request(slurm_cluster, tmp_path):
    """A rule's `gpu=1` (what ROVER's training rules declare at full scale) is submitted as a
    gres/gpu request and the job gets the GPU; `gpu=0` asks for none. The local cluster has one
    fake GPU for this; SLURM hands it to the job as CUDA_VISIBLE_DEVICES."""
    (tmp_path / "Snakefile").write_text(GPU_WORKFLOW)
    proc, _ = run_via_slurm(tmp_path, "gather", profile=REPO / PROFILE)
    jobs = {rule_of(j["comment"], {"on_gpu", "on_cpu"}): j
            for j in slurm_jobs(proc.stdout + proc.stderr).values()}
    assert set(jobs) == {"on_gpu", "on_cpu"}
    assert gres_gpus(jobs["on_gpu"]["show"]) == 1
    assert gres_gpus(jobs["on_cpu"]["show"]) == 0
    assert "gpus=none" not in (tmp_path / "gpu.txt").read_text()
    assert "gpus=none" in (tmp_path / "cpu.txt").read_text()
