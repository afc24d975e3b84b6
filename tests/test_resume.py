"""Long jobs resume after SIGTERM / SIGINT and end with the same bytes as an uninterrupted run
(repro.core.checkpoint); SIGTERM or SIGINT to Snakemake stops its running jobs within seconds
(repro.core.stopjobs, installed by workflow/rules/common.smk).

One representative of each kind of long job, at a tiny size: the RLVR SFT warm-up and RL
training loops (rove and nft), relval's PPO training, the RLVR evaluation (sampling), vaecf's
training (mid-epoch), reap's training and its calibration pass. Each
runs once uninterrupted, then again in a fresh interpreter that is frozen (SIGSTOP) as soon as
its first periodic state is on disk, sent the stop signal and let go (SIGCONT), so the signal
always lands mid-run: it must save and exit with 128 + the signal, and the rerun must say where
it resumed and write exactly the uninterrupted run's outputs. The uninterrupted runs and the
reruns fork from the suite's warm interpreter where there is one, the stopped runs start cold.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO, SNAKEMAKE, warm_ready

from repro.core.checkpoint import Resumable, resume_dir

SRC = REPO / "src"


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": "0", "SLURM_CONF": os.devnull, **(extra or {})}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def _python(warm: bool = True) -> str:
    """The warm server's `python` shim (a job forks from the preloaded server), else this one."""
    from repro.core.warmstart import shim_path

    sock = os.environ.get("REPRO_WARMSTART")
    if warm and sock and sock.lower() not in ("off", "0", "no"):
        warm_ready()
        if shim_path(sock).exists():
            return str(shim_path(sock))
    return sys.executable


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """`python -m <args>` to completion (`env`: extra environment variables); its stderr."""
    p = subprocess.run([_python(), "-m", *args], cwd=cwd, env=_env(env), capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stderr


def run_stopped(args: list[str], cwd: Path, out: Path, sig: int = signal.SIGTERM,
                env: dict[str, str] | None = None) -> str:
    """`python -m <args>` in a fresh interpreter, stopped by `sig` once it has saved a state:
    frozen the moment the state appears, signalled, let go. Returns its stderr."""
    state = resume_dir(cwd / out) / "state.pt"
    p = subprocess.Popen([sys.executable, "-m", *args], cwd=cwd, env=_env(env),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not state.exists():
            assert p.poll() is None, f"ended before saving a state:\n{p.stderr.read()[-3000:]}"
            assert time.monotonic() < deadline, "no state saved within 120 s"
            time.sleep(0.005)
        os.kill(p.pid, signal.SIGSTOP)
        os.kill(p.pid, sig)
        os.kill(p.pid, signal.SIGCONT)
        err = p.communicate(timeout=60)[1]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 128 + sig, f"exit {p.returncode}, not {128 + sig}:\n{err[-3000:]}"
    assert f"stopped by {signal.Signals(sig).name} after step" in err, err[-3000:]
    assert state.exists()
    return err


def resumed_at(stderr: str) -> tuple[int, int]:
    m = re.search(r"resuming at step (\d+) of (\d+)", stderr)
    assert m, f"the rerun did not resume:\n{stderr[-3000:]}"
    return int(m.group(1)), int(m.group(2))


def files(d: Path) -> dict[str, bytes]:
    if d.is_file():
        return {"": d.read_bytes()}
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def check_resumes(args: list[str], cwd: Path, out_a: str, out_b: str,
                  sig: int = signal.SIGTERM, env: dict[str, str] | None = None
                  ) -> tuple[int, int]:
    """Uninterrupted into out_a; stopped, then rerun, into out_b: the same files, and no saved
    state left behind. `env`: e.g. {"REPRO_CHECKPOINT_MINUTES": "0.0005"} for a job that saves
    by wall time only."""
    run([*args, "--out", out_a], cwd, env)
    run_stopped([*args, "--out", out_b], cwd, Path(out_b), sig, env)
    step, total = resumed_at(run([*args, "--out", out_b], cwd, env))
    assert 0 < step < total
    assert files(cwd / out_b) == files(cwd / out_a)
    assert not resume_dir(cwd / out_b).exists()
    return step, total


# ------------------------------------------------------------------------------------- RLVR
@pytest.fixture(scope="module")
def rlvr(tmp_path_factory) -> Path:
    """rove's config at tiny with loops long enough to stop mid-way, and its Countdown data."""
    d = tmp_path_factory.mktemp("rlvr")
    cfg = yaml.safe_load((REPO / "src/repro/papers/rove/config.yaml").read_text())
    cd = cfg["scales"]["tiny"]["countdown"]
    cd["methods"] = ["grpo_kl"]
    cd["sft"].update(steps=120, checkpoint_every=5)
    cd["rl"].update(steps=10, checkpoint_every=2)
    cd["data"]["n_test"] = 24
    cd["eval"] = {"n_samples": 4, "ks": [1, 4], "n_problems": 24, "batch_size": 4,
                  "checkpoint_every": 2}  # one problem per sampling call: 24 calls
    (d / "rove.yaml").write_text(yaml.safe_dump(cfg))
    run(["repro.core.rlvr.data", "--config", "rove.yaml", "--scale", "tiny", "--out", "data"], d)
    return d


JOB = ["--config", "rove.yaml", "--scale", "tiny", "--data", "data"]


def test_sft_resumes_after_sigterm(rlvr):
    check_resumes(["repro.core.rlvr.sft", *JOB], rlvr, "base", "base_stopped")


def test_rl_training_resumes_after_sigint(rlvr):
    if not (rlvr / "base").exists():
        run(["repro.core.rlvr.sft", *JOB, "--out", "base"], rlvr)
    # grpo_kl: the RL loop with the frozen reference model as well
    check_resumes(["repro.papers.rove.train", *JOB, "--method", "grpo_kl", "--seed", "0",
                   "--base", "base"], rlvr, "run", "run_stopped", signal.SIGINT)


def test_evaluation_resumes_after_sigterm(rlvr):
    if not (rlvr / "base").exists():
        run(["repro.core.rlvr.sft", *JOB, "--out", "base"], rlvr)
    check_resumes(["repro.core.rlvr.evaluate", *JOB, "--method", "base", "--seed", "0",
                   "--policy", "base"], rlvr, "eval.json", "eval_stopped.json")


# ----------------------------------------------------------------------------------- relval
def test_relval_ppo_resumes_after_sigterm(tmp_path):
    cfg = yaml.safe_load((REPO / "src/repro/papers/relval/config.yaml").read_text())
    tiny = cfg["scales"]["tiny"]
    tiny["ppo"]["checkpoint_every"] = 2
    tiny["envs"]["CartPole-v1"]["total_steps"] = 12 * 4 * 64  # 12 updates of 4 envs x 64 steps
    (tmp_path / "relval.yaml").write_text(yaml.safe_dump(cfg))
    args = ["repro.papers.relval.train", "--config", "relval.yaml", "--scale", "tiny",
            "--env", "CartPole-v1", "--agent", "ppo_rv", "--seed", "0"]
    run([*args, "--out", "a.json"], tmp_path)
    run_stopped([*args, "--out", "b.json"], tmp_path, Path("b.json"))
    step, total = resumed_at(run([*args, "--out", "b.json"], tmp_path))
    assert 0 < step < total == 12
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert a.pop("sps") > 0 and b.pop("sps") > 0  # steps per second: a wall-time measure
    assert a == b


# ------------------------------------------------------------------------------------ vaecf
def test_vaecf_training_resumes_after_sigterm(tmp_path):
    """Mid-epoch: the user order, the epoch's loss sums, the best weights so far and the
    mid-training snapshot (--save-model) all come back."""
    from repro.papers.vaecf.data import CSR, save

    rng = np.random.default_rng(0)

    def mat(n: int) -> CSR:
        rows, cols = np.nonzero(rng.random((n, 60)) < 0.15)
        return CSR.from_pairs(rows, cols, n, 60)

    save(tmp_path / "prepared.npz", {"train": mat(200), **{k: mat(20) for k in (
        "val_tr", "val_te", "test_tr", "test_te")}}, split=0, split_seed=98765)
    cfg = yaml.safe_load((REPO / "src/repro/papers/vaecf/config.yaml").read_text())
    # 8 updates an epoch, 30 epochs; a state every 3 updates: the stop lands mid-epoch
    cfg["scales"]["tiny"]["train"].update(epochs=30, batch_size=25, checkpoint_every=3)
    (tmp_path / "vaecf.yaml").write_text(yaml.safe_dump(cfg))
    args = ["repro.papers.vaecf.train", "--config", "vaecf.yaml", "--scale", "tiny",
            "--dataset", "ml-100k", "--variant", "anchor_0p1", "--seed", "0",
            "--data", "prepared.npz", "--save-model"]
    run([*args, "--out", "a"], tmp_path)
    run_stopped([*args, "--out", "b"], tmp_path, Path("b"))
    step, total = resumed_at(run([*args, "--out", "b"], tmp_path))
    assert 0 < step < total == 240
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert sorted(a) == ["model.pt", "model_early.pt", "run.json"]
    ra, rb = (json.loads(f.pop("run.json")) for f in (a, b))
    for r in (ra, rb):  # wall and CPU time: measures of the machine
        assert r.pop("wall_s") > 0 and r.pop("cpu_s") > 0
        assert "checkpoint_every" not in r["train"]  # never part of a record
    assert ra == rb and a == b
    assert not resume_dir(tmp_path / "b").exists()


def test_vaecf_training_resumes_at_an_epoch_boundary(tmp_path):
    """A state saved after an epoch's last update (before its validation) resumes too: the
    epoch's end (validation, the best weights, the snapshot) runs after the resume. In-process:
    the stop is sent at exactly that update."""
    import torch

    from repro.papers.vaecf.data import CSR
    from repro.papers.vaecf.model import VAEConfig
    from repro.papers.vaecf.settings import TrainConfig
    from repro.papers.vaecf.train import fit

    rng = np.random.default_rng(1)

    def mat(n: int) -> CSR:
        rows, cols = np.nonzero(rng.random((n, 12)) < 0.3)
        return CSR.from_pairs(rows, cols, n, 12)

    data = {"train": mat(40), **{k: mat(8) for k in ("val_tr", "val_te", "test_tr", "test_te")}}
    mcfg = VAEConfig(n_items=12, hidden=8, latent=4, dropout=0.5, anchor_weight=0.1)
    tcfg = TrainConfig(epochs=4, batch_size=16, total_anneal_steps=10)  # 3 updates an epoch

    class StopAfter(Resumable):
        def step(self, done, state):
            if done == 6:  # the last update of epoch 2
                os.kill(os.getpid(), signal.SIGTERM)
            super().step(done, state)

    def fit_(ck):
        return fit(data, mcfg, tcfg, seed=3, log=lambda s: None, snapshot_update=4, ck=ck)

    out = tmp_path / "run"
    with Resumable(tmp_path / "ref", "k", total=12) as ck:
        m1, h1 = fit_(ck)
    with pytest.raises(SystemExit), StopAfter(out, "k", total=12) as ck:
        fit_(ck)
    with Resumable(out, "k", total=12) as ck:
        m2, h2 = fit_(ck)
        assert ck.start == 6
    assert h2.pop("prior_wall_s") > 0 and h1.pop("prior_wall_s") == 0
    h1.pop("prior_cpu_s"), h2.pop("prior_cpu_s")
    (e1, s1), (e2, s2) = h1.pop("snapshot"), h2.pop("snapshot")
    assert h1 == h2 and e1 == e2 == 2 and len(h1["curve"]) == 4
    for a, b in ((m1.state_dict(), m2.state_dict()), (s1, s2)):
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# ------------------------------------------------------------------------------------- reap
@pytest.fixture(scope="module")
def reap(tmp_path_factory) -> Path:
    """reap's tiny config with loops long enough to stop mid-way, and a small corpus."""
    d = tmp_path_factory.mktemp("reap")
    cfg = yaml.safe_load((REPO / "src/repro/papers/reap/config.yaml").read_text())
    tiny = cfg["scales"]["tiny"]
    tiny["train"].update(steps=30, checkpoint_every=3)
    tiny["calibration"].update(n_samples=48, batch_size=1, checkpoint_every=4)
    (d / "reap.yaml").write_text(yaml.safe_dump(cfg))
    (d / "data").mkdir()
    code = "".join(f"def f{i}(x):\n    return x * {i} + 1\n\n" for i in range(60))
    prose = "The if statement is used for conditional execution. " * 40
    with open(d / "data/docs.jsonl", "w") as f:
        for split in ("train", "calib"):
            for i in range(3):
                f.write(json.dumps({"name": f"{split}{i}.py", "kind": "code", "split": split,
                                    "text": code}) + "\n")
            f.write(json.dumps({"name": f"{split}.txt", "kind": "prose", "split": split,
                                "text": prose}) + "\n")
    (d / "data/calibration.jsonl").write_text("")
    return d


REAP = ["--config", "reap.yaml", "--scale", "tiny", "--data", "data", "--seed", "0"]


def test_reap_training_resumes_after_sigterm(reap):
    args = ["repro.papers.reap.train", *REAP]
    run([*args, "--out", "model"], reap)
    run_stopped([*args, "--out", "model_stopped"], reap, Path("model_stopped"))
    step, total = resumed_at(run([*args, "--out", "model_stopped"], reap))
    assert 0 < step < total == 30
    a, b = files(reap / "model"), files(reap / "model_stopped")
    la, lb = (json.loads(f.pop("train_log.json")) for f in (a, b))
    assert la.pop("wall_s") > 0 and lb.pop("wall_s") > 0  # a measure of the machine
    assert la == lb and a == b and len(a) > 1  # the weights, config and model.json
    assert not resume_dir(reap / "model_stopped").exists()


def test_reap_calibration_resumes_after_sigint(reap):
    if not (reap / "model").exists():
        run(["repro.papers.reap.train", *REAP, "--out", "model"], reap)
    args = ["repro.papers.reap.observe", *REAP, "--model", "model"]
    # the same file names (torch.save writes the name into the file)
    run([*args, "--out", "obs/a.pt", "--summary", "obs/a.json"], reap)
    stopped = [*args, "--out", "obs_stopped/a.pt", "--summary", "obs_stopped/a.json"]
    run_stopped(stopped, reap, Path("obs_stopped/a.pt"), signal.SIGINT)
    assert not (reap / "obs_stopped/a.json").exists()
    step, total = resumed_at(run(stopped, reap))
    assert 0 < step < total == 48
    assert files(reap / "obs_stopped") == files(reap / "obs")
    assert not resume_dir(reap / "obs_stopped/a.pt").exists()


# ------------------------------------------------------------------------------ stackelberg
TIME_SAVES = {"REPRO_CHECKPOINT_MINUTES": "0.0005"}  # a state every 30 ms of wall time


@pytest.fixture(scope="module")
def stackelberg(tmp_path_factory) -> Path:
    """stackelberg's tiny config with runs long enough to stop mid-way."""
    d = tmp_path_factory.mktemp("stackelberg")
    cfg = yaml.safe_load((REPO / "src/repro/papers/stackelberg/config.yaml").read_text())
    tiny = cfg["scales"]["tiny"]
    tiny["horizons"] = [50, 400, 1500]
    tiny["environments"]["adversarial_oful"] = {"seeds": [0], "horizons": [50, 200, 600]}
    tiny["ablation"]["multipliers"] = [0.5, 1.0]
    (d / "stackelberg.yaml").write_text(yaml.safe_dump(cfg))
    return d


STACKELBERG = ["repro.papers.stackelberg.run", "--config", "stackelberg.yaml", "--scale", "tiny",
               "--seed", "0"]


@pytest.mark.parametrize("env", ["paper", "adversarial_oful"])
def test_stackelberg_run_resumes_after_sigterm(stackelberg, env):
    """The round loop: every learner (OFUL's matrices, logdet-FTRL's reservoir and sampling
    generators, explore-then-commit per horizon), the utilities and curves so far come back;
    the adversary's sequence is remade from the seed."""
    step, total = check_resumes([*STACKELBERG, "--env", env], stackelberg, f"{env}.json",
                                f"{env}_stopped.json", env=TIME_SAVES)
    assert total == (1500 if env == "paper" else 600)


def test_stackelberg_tuning_keeps_finished_configurations_after_sigint(stackelberg):
    """A loop of runs, one per configuration: the configurations done are kept, the one
    running resumes at its round."""
    args = [*STACKELBERG, "--ablation", "tune"]
    run([*args, "--out", "tune.json"], stackelberg, TIME_SAVES)
    run_stopped([*args, "--out", "tune_stopped.json"], stackelberg, Path("tune_stopped.json"),
                signal.SIGINT, TIME_SAVES)
    err = run([*args, "--out", "tune_stopped.json"], stackelberg, TIME_SAVES)
    step, total = resumed_at(err)
    assert 0 < step < total == 4  # c in {0.5, 1}, explore-then-commit with and without log
    assert len(re.findall(r"resuming at step \d+ of 1500", err)) == 1, err[-3000:]
    assert files(stackelberg / "tune_stopped.json") == files(stackelberg / "tune.json")
    assert not list(stackelberg.glob(".tune_stopped.json*.resume"))


# --------------------------------------------------------------------------- the helper itself
def test_a_stop_signal_saves_and_exits_and_other_settings_start_over(tmp_path):
    import numpy as np

    out = tmp_path / "run.json"
    rng = np.random.default_rng(0)
    with pytest.raises(SystemExit) as stop:
        with Resumable(out, {"lr": 1}, total=10, rngs={"rng": rng}) as ck:
            assert ck.load() is None
            rng.random(3)
            os.kill(os.getpid(), signal.SIGTERM)  # handled: the step ends, then it stops
            ck.step(1, lambda: {"x": 1})
    assert stop.value.code == 128 + signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is not ck._on_signal  # handlers put back
    expect = rng.random(3)

    rng2 = np.random.default_rng(0)
    with Resumable(out, {"lr": 1}, total=10, rngs={"rng": rng2}) as ck:
        assert ck.load() == {"x": 1} and ck.start == 1
        assert (rng2.random(3) == expect).all()  # the generator continues where it was
    assert not resume_dir(out).exists()  # done: the state is removed

    with pytest.raises(SystemExit):
        with Resumable(out, {"lr": 1}, total=10) as ck:
            os.kill(os.getpid(), signal.SIGINT)
            ck.step(1, lambda: {"x": 1})
    with Resumable(out, {"lr": 2}, total=10) as ck:  # made for other settings: start over
        assert ck.load() is None and ck.start == 0
        assert not resume_dir(out).exists()


def test_map_resumes_after_the_last_finished_item(tmp_path):
    out, calls = tmp_path / "grid.json", []

    def fn(x):
        calls.append(x)
        if x == 3 and len(calls) == 4:  # the first pass: stopped while item 3 runs
            os.kill(os.getpid(), signal.SIGTERM)
        return {"x": x, "sq": x * x}

    with pytest.raises(SystemExit), Resumable(out, "k") as ck:
        ck.map(fn, range(6))
    assert calls == [0, 1, 2, 3]  # the item running when the signal came ended, then it stopped
    with Resumable(out, "k") as ck:
        got = ck.map(fn, range(6))
        assert ck.start == 4
    assert calls == [0, 1, 2, 3, 4, 5] and got == [{"x": x, "sq": x * x} for x in range(6)]
    with pytest.raises(ValueError, match="total 5 but 6 items"), Resumable(out, "k", total=5) as ck:
        ck.map(fn, range(6))


def test_a_numpy_only_job_never_imports_torch(tmp_path):
    """Saving and resuming a numpy job (stackelberg, hadamard_dp) must not pay torch's import
    (~200 MB and seconds per job)."""
    code = """
import os, signal, sys
import numpy as np
from repro.core.checkpoint import Resumable
rng = np.random.default_rng(0)
out = sys.argv[1]
try:
    with Resumable(out, "k", total=3, rngs={"rng": rng}) as ck:
        st = ck.load()
        x = st["x"] if st else np.zeros(2)
        for i in range(ck.start, 3):
            x = x + rng.random(2)
            if st is None and i == 1:
                os.kill(os.getpid(), signal.SIGTERM)
            ck.step(i + 1, lambda: {"x": x})
    print(repr(x.tolist()), "torch" in sys.modules)
except SystemExit:
    print("stopped", "torch" in sys.modules)
"""
    def go() -> str:
        p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.json")],
                           env=_env(), capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()

    assert go() == "stopped False"
    resumed = go()
    rng = np.random.default_rng(0)
    want = rng.random(2) + rng.random(2) + rng.random(2)
    assert resumed == f"{want.tolist()!r} False"


def test_a_signal_after_an_inner_loop_ends_stops_the_outer_loop(tmp_path):
    """A job of several loops: the signal lands in the inner loop's last step (which never
    stops), so the outer loop must stop at its next boundary instead of running on."""
    outer_out = tmp_path / "tune.json"

    def inner(label: int) -> int:
        with Resumable(tmp_path / f"run{label}.json", "k", total=3) as ck:
            for i in range(3):
                if label == 1 and i == 2:
                    os.kill(os.getpid(), signal.SIGTERM)
                ck.step(i + 1, lambda: {})
        return label

    with pytest.raises(SystemExit) as stop, Resumable(outer_out, "k") as ck:
        ck.map(inner, range(4))
    assert stop.value.code == 128 + signal.SIGTERM and ck.saved_step == 2
    assert not resume_dir(tmp_path / "run1.json").exists()  # the inner loop had finished
    with Resumable(outer_out, "k") as ck:
        assert ck.map(lambda x: x, range(4)) == [0, 1, 2, 3] and ck.start == 2

    # the signal lands between two inner loops: the next one stops at its first boundary
    def between(label: int) -> int:
        if label == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        with Resumable(tmp_path / f"b{label}.json", "k", total=3) as ck:
            for i in range(3):
                ck.step(i + 1, lambda i=i: {"i": i})
        return label

    with pytest.raises(SystemExit), Resumable(tmp_path / "b.json", "k") as ck:
        ck.map(between, range(4))
    assert ck.saved_step is None  # the outer loop never reached a boundary: it was the inner
    with Resumable(tmp_path / "b1.json", "k", total=3) as inner:  # that stopped, after step 1
        assert inner.load() == {"i": 0} and inner.start == 1


# ---------------------------------------------------------------- Snakemake's stop signals
WORKFLOW = """
import sys

sys.path.insert(0, "@SRC@")
if config.get("guard", 1):
    from repro.core.stopjobs import guard_signals

    guard_signals()


rule long:
    output:
        "done.txt",
    shell:
        "@PYTHON@ -m repro.core.gpus --gpus 0 -- @REAL@ job.py"
"""
# the job: writes its pid, then would run for 60 s
LONG_JOB = """import os, time
open("job.pid", "w").write(str(os.getpid()))
time.sleep(60)
open("done.txt", "w").close()
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has ended
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _snakemake_stopped(tmp: Path, sig: int, guard: bool) -> tuple[float, float | None, int]:
    """Start the 60 s job under Snakemake, send Snakemake alone `sig`: seconds until the job
    ended (None: still running 3 s later, then killed), and until Snakemake exited, and its
    job's pid."""
    wf = (WORKFLOW.replace("@SRC@", str(SRC)).replace("@PYTHON@", _python())
          .replace("@REAL@", sys.executable))
    (tmp / "Snakefile").write_text(wf)
    (tmp / "job.py").write_text(LONG_JOB)
    sm = subprocess.Popen([SNAKEMAKE, "-c1", "--config", f"guard={int(guard)}"], cwd=tmp,
                          env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    pid_file = tmp / "job.pid"
    try:
        deadline = time.monotonic() + 120
        while not (pid_file.exists() and pid_file.read_text()):
            assert sm.poll() is None, sm.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        job = int(pid_file.read_text())
        t0 = time.monotonic()
        sm.send_signal(sig)
        job_s = None
        while time.monotonic() - t0 < 3:
            if not _alive(job):
                job_s = time.monotonic() - t0
                break
            time.sleep(0.02)
        if job_s is None:
            os.kill(job, signal.SIGKILL)
        sm.wait(timeout=60)
        return job_s, time.monotonic() - t0, job
    finally:
        if sm.poll() is None:
            sm.kill()
            sm.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_to_snakemake_stops_its_jobs(tmp_path, sig):
    job_s, sm_s, _ = _snakemake_stopped(tmp_path, sig, guard=True)
    assert job_s is not None and job_s < 3, f"the job ran on after {sig.name} to Snakemake"
    assert sm_s < 10
    assert not (tmp_path / "done.txt").exists()


def test_without_the_guard_snakemake_leaves_its_job_running(tmp_path):
    """The defect the guard fixes: Snakemake 9.27 waits for running jobs after SIGTERM."""
    job_s, _, _ = _snakemake_stopped(tmp_path, signal.SIGTERM, guard=False)
    assert job_s is None
