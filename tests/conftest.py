"""Fixtures that build a temporary copy of the repo and run the real pipeline in it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml
from filelock import FileLock

REPO = Path(__file__).resolve().parents[1]
# The suite reads nothing outside the repository and its temporary directories: no data mirror
# is configured (config.yaml's default), tiny reads committed excerpts (repro.core.fetch), and
# every process the suite starts refuses to open anything under the sibling `shared/` folder of
# our own machines (repro.core.guard; users never have it). Set before `repro` is imported.
SIBLING = REPO.parent / "shared"
os.environ.setdefault("REPRO_FORBID_READS", str(SIBLING.resolve()))

from repro.core.workflow import registered_papers  # noqa: E402 - after the guard's variable

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
PAPERS = registered_papers(REPO)

# One BLAS / OpenMP thread per process the suite starts: two xdist workers each run Snakemake with
# two cores, so four jobs share the machine's cores, and BLAS or OpenMP pools sized to every core
# then oversubscribe it many times over (pspm's scoring, eigendecompositions, took 10x its
# unloaded time in CI). Results stay deterministic: a run and its rerun see the same setting.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# Snakemake imports every installed executor plugin when it starts, and the SLURM one runs
# `scontrol show config` then (for its --help text only), which waits ~9 s where a slurm.conf
# names a controller that is down. An empty SLURM_CONF makes scontrol fail at once: every process
# the suite starts gets one, except the SLURM tests' (slurm_env), which need the machine's own.
# The machine's own value is kept in REPRO_MACHINE_SLURM_CONF, which xdist workers inherit (they
# start with the controller's environment, where SLURM_CONF is already the empty one).
os.environ.setdefault("REPRO_MACHINE_SLURM_CONF", os.environ.get("SLURM_CONF", ""))
MACHINE_SLURM_CONF = os.environ["REPRO_MACHINE_SLURM_CONF"] or None
os.environ["SLURM_CONF"] = os.devnull
# MCPMark's MCP servers are installed (scripts/setup.sh) in this checkout's tools/mcp,
# which the repo copies the DAG tests run in do not carry (it is ignored).
os.environ.setdefault("REPRO_MCP_TOOLS", str(REPO / "tools" / "mcp"))


def slurm_env() -> dict[str, str]:
    """The environment with the machine's own SLURM_CONF (or none), for SLURM commands."""
    env = dict(os.environ)
    env.pop("SLURM_CONF", None)
    if MACHINE_SLURM_CONF is not None:
        env["SLURM_CONF"] = MACHINE_SLURM_CONF
    return env


def job_checkout(d: Path, pid: str, cfg: dict | None = None, scale: str = "tiny") -> list[str]:
    """The paper's config (`cfg` where a test edits it) and data manifest under `d`, laid out as
    in a checkout (src/repro/papers/<pid>/), so a job run in `d` reads them as it would there;
    returns the job's `--config ... --scale ...` arguments."""
    rel = f"src/repro/papers/{pid}"
    (d / rel).mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(cfg) if cfg is not None else (REPO / rel / "config.yaml").read_text()
    (d / rel / "config.yaml").write_text(text)
    if (REPO / rel / "manifest.json").exists():
        shutil.copy(REPO / rel / "manifest.json", d / rel)
    return ["--config", f"{rel}/config.yaml", "--scale", scale]


def copy_repo(dest: Path) -> Path:
    """What a clean clone would hold: tracked and not-ignored files (no .venv, results, ...)."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout.split("\0")
    for rel in filter(None, files):
        src, dst = REPO / rel, dest / rel
        if not (src.exists() or src.is_symlink()):
            continue  # deleted in the work tree, not yet committed
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
    return dest


# ---------------------------------------------------------------- warm interpreters for jobs
# Each process that runs tests (each pytest-xdist worker) starts a repro.core.warmstart server:
# the jobs of every Snakemake run the tests start fork from it instead of importing torch,
# transformers, scipy... again (a tiny job is 7-9 CPU-s of imports and well under a second of
# work). REPRO_WARMSTART=off runs every job in a fresh interpreter. The SLURM test runs its jobs
# cold and compares their tables with the local (warm) run's.
_WARM: list = []


def pytest_configure(config):
    controller = (not os.environ.get("PYTEST_XDIST_WORKER")
                  and isinstance(getattr(config.option, "numprocesses", None), int)
                  and config.option.numprocesses > 0)
    if controller or os.environ.get("REPRO_WARMSTART", "").lower() in ("off", "0", "no"):
        return
    import tempfile

    where = Path(tempfile.mkdtemp(prefix="repro-warm-"))
    sock = where / "sock"
    log = open(where / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "repro.core.warmstart", "serve", "--socket",
                             str(sock)], env={**os.environ, "PYTHONHASHSEED": "0"},
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    _WARM.extend([proc, where, log])
    os.environ["REPRO_WARMSTART"] = str(sock)


def pytest_unconfigure(config):
    if _WARM:
        proc, where, log = _WARM
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(where, ignore_errors=True)


def warm_ready(timeout: float = 120) -> None:
    """Wait for this process's warm server to serve (jobs started before it is ready would
    only run cold); returns at once after the first time."""
    from repro.core.warmstart import shim_path

    if not _WARM:
        return
    proc, where, _ = _WARM
    deadline = time.monotonic() + timeout
    while (not shim_path(where / "sock").exists() and proc.poll() is None
           and time.monotonic() < deadline):
        time.sleep(0.2)


def snakemake(workdir: Path, *args: str, check: bool = True, scale: str = "tiny",
              warm: bool = True, slurm: bool = False, **config: str
              ) -> subprocess.CompletedProcess:
    """Run snakemake in `workdir`; `slurm=True` for a run that submits to SLURM (it gets the
    machine's slurm.conf)."""
    overrides = {"scale": scale, **config}
    cmd = [SNAKEMAKE, *args, "--config", *(f"{k}={v}" for k, v in overrides.items())]
    env = {**(slurm_env() if slurm else os.environ), "PYTHONHASHSEED": "0"}
    if warm:
        warm_ready()
    else:
        env.pop("REPRO_WARMSTART", None)
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def plan(workdir: Path, target: str, scale: str = "tiny", forceall: bool = False,
         **config: str) -> list[dict]:
    """The jobs Snakemake would run for `target` now (every job with forceall), from the
    workflow's own planner (repro.dag, Snakemake's public API; what `python -m repro plan
    --json` prints), run in this process: a plan costs its parse, not a new interpreter.
    A paper's target loads only that paper's module (`papers=<id>`): the same plan, cheaper."""
    from repro.dag import PlanError
    from repro.dag import plan as dag_plan

    if target.startswith("paper_"):
        config.setdefault("papers", target.removeprefix("paper_"))
    overrides = {"scale": scale, **config}
    try:
        jobs = dag_plan(workdir, target, overrides, forceall)
    except PlanError as err:
        raise AssertionError(f"planning {target} failed:\n{err}") from err
    return [json.loads(json.dumps(j.to_dict())) for j in jobs]  # as `--json` gives them


def planned_jobs(workdir: Path, target: str, scale: str = "tiny") -> dict[str, int]:
    """The jobs Snakemake would run for `target` now: rule -> count."""
    return dict(Counter(j["rule"] for j in plan(workdir, target, scale)))


def edit(path: Path) -> None:
    """A real edit: new content and a strictly newer mtime (Snakemake ignores a bare touch
    whose content checksum it has on record)."""
    with open(path, "a") as f:
        f.write("# an edit\n")
    t = time.time() + 5
    os.utime(path, (t, t))


def shared_dir(tmp_path_factory) -> Path:
    """One directory for the whole run, whichever pytest-xdist worker asks: the run's base temp
    dir (a worker's own base dir sits inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def finished_tiny_dag(tmp_path_factory, pid: str) -> Path:
    """A repo copy in which `snakemake paper_<pid> --config scale=tiny` has run to completion:
    built once per test run, by whichever worker needs it first (the others wait on its lock),
    and read-only to every test (an edit is tried on a copy_finished copy)."""
    where = shared_dir(tmp_path_factory) / "tiny_runs" / pid
    where.parent.mkdir(parents=True, exist_ok=True)
    root, done = where / "repo", where / "finished"
    with FileLock(str(where) + ".lock"):
        if not done.exists():
            t0 = time.monotonic()
            shutil.rmtree(where, ignore_errors=True)  # a partial run of a worker that crashed
            copy_repo(root)
            snakemake(root, f"paper_{pid}", "--cores", "2", papers=pid)
            done.touch()
            _TINY_RUNS.append((pid, time.monotonic() - t0))
    return root


def _tiny_dag_fixture(pid: str):
    """A session fixture: a repo copy in which `snakemake paper_<pid> --config scale=tiny` has
    run to completion (one per paper, shared by its DAG tests)."""

    @pytest.fixture(scope="session")
    def fixture(tmp_path_factory) -> Path:
        return finished_tiny_dag(tmp_path_factory, pid)

    return fixture


# tiny_<id>: one finished tiny run per registered paper, shared by every test that needs it
for _pid in PAPERS:
    globals()[f"tiny_{_pid}"] = _tiny_dag_fixture(_pid)


@pytest.fixture(scope="session", autouse=True)
def _dvc_site_cache_in_tmp(tmp_path_factory):
    """DVC keeps an index and state of every repo it touches under /var/tmp/dvc (its site cache
    dir), where the suite's throwaway repos would outlive it: point it at pytest's temp dir."""
    old = os.environ.get("DVC_SITE_CACHE_DIR")
    os.environ["DVC_SITE_CACHE_DIR"] = str(tmp_path_factory.mktemp("dvc-site-cache"))
    yield
    if old is None:
        os.environ.pop("DVC_SITE_CACHE_DIR", None)
    else:
        os.environ["DVC_SITE_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def fresh_repo(tmp_path_factory) -> Path:
    """One clean copy of the repo for tests that only plan (never run) jobs in it."""
    return copy_repo(tmp_path_factory.mktemp("fresh") / "repo")


@pytest.fixture(scope="session")
def tiny_run(request):
    """tiny_run(pid): the finished tiny run of a paper (the same one tiny_<pid> gives)."""
    return lambda pid: request.getfixturevalue(f"tiny_{pid}")


def same_result(a: Path, b: Path) -> bool:
    """Byte-identical but for the provenance (date, job wall times, machine): a Markdown file
    without its footer, claims.json without its provenance; anything else byte for byte."""
    from repro.core.provenance import strip_footer, without_provenance

    if a.suffix == ".md":
        return strip_footer(a.read_text()) == strip_footer(b.read_text())
    if a.name == "claims.json":
        return without_provenance(json.loads(a.read_text())) == without_provenance(
            json.loads(b.read_text()))
    return a.read_bytes() == b.read_bytes()


def copy_finished(src: Path, dest: Path) -> Path:
    """Copy a finished run (mtimes and Snakemake metadata kept) to try an edit on it."""
    shutil.copytree(src, dest, symlinks=True, copy_function=shutil.copy2)
    return dest


SLURM_SCRIPT = REPO / "scripts" / "slurm_local.sh"
# The SLURM tests change the machine: scripts/slurm_local.sh installs slurm-wlm and munge with
# apt where missing, writes /etc/slurm/slurm.conf and starts slurmctld, slurmd and munged (ports
# 6817/6818). They run only when asked, with REPRO_TEST_SLURM=1 (.ci/run sets it), and put the
# machine back afterwards (see slurm_cluster).
SLURM_OPT_IN = "REPRO_TEST_SLURM"
SLURM_UNDO = Path("/var/lib/repro-slurm.undo")  # what slurm_local.sh start added to the machine


def _slurm_local(action: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SLURM_SCRIPT), action], capture_output=True, text=True,
                          timeout=timeout, env=slurm_env())


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """A running local SLURM cluster, with REPRO_TEST_SLURM=1 only (skipped otherwise, saying
    so): started here unless already up, and when the last pytest worker using it is done (a
    count of users under a lock), put back as this run found it if this run started it: the
    daemons stopped and slurm.conf, gres.conf and the state removed (`slurm_local.sh stop`), and,
    where this run installed packages, those purged again (`slurm_local.sh uninstall`)."""
    if os.environ.get(SLURM_OPT_IN) != "1":
        pytest.skip(f"starts a local SLURM cluster (apt-get install slurm-wlm munge, "
                    f"/etc/slurm/slurm.conf, daemons on ports 6817/6818): set {SLURM_OPT_IN}=1 "
                    "to run it, as .ci/run does")
    shared = shared_dir(tmp_path_factory)
    lock, users, ours = (shared / f"slurm.{x}" for x in ("lock", "users", "started"))

    def count(delta: int) -> int:
        n = (int(users.read_text()) if users.exists() else 0) + delta
        users.write_text(str(n))
        return n

    cannot = shared / "slurm.cannot"
    with FileLock(str(lock)):
        if cannot.exists():  # another worker tried already
            pytest.skip(cannot.read_text())
        if _slurm_local("status", timeout=60).returncode != 0:
            # uninstall only what this run adds: nothing was left by an earlier start
            undo = "stop" if SLURM_UNDO.exists() else "uninstall"
            proc = _slurm_local("start", timeout=1200)
            if proc.returncode != 0:
                _slurm_local(undo)
            reason = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
            if proc.returncode == 3:
                cannot.write_text(reason)
                pytest.skip(reason)
            assert proc.returncode == 0, f"local SLURM cluster failed to start:\n{proc.stderr}"
            ours.write_text(undo)
        count(+1)
    yield
    with FileLock(str(lock)):
        if count(-1) == 0 and ours.exists():
            undo = ours.read_text()
            ours.unlink()
            proc = _slurm_local(undo)
            assert proc.returncode == 0, f"slurm_local.sh {undo} failed:\n{proc.stderr}"


# ---------------------------------------------------------------- what the suite's time goes to
# Every test phase's seconds go to the paper it is about (its `pid` parameter, or its folder
# tests/papers/<id>/), else to the shared infrastructure; a paper's tiny DAG goes to that paper
# whichever test first needed it. Each report carries its seconds (user_properties travel from
# pytest-xdist workers to the controller), summed where the terminal summary is written and
# printed with the projection to the nineteen papers the project will have (issue 17: at most
# 15 minutes on 2 idle cores).
PLANNED_PAPERS = 19
COST_KEY = "suite_seconds"
_COST: dict[str, float] = defaultdict(float)
_TINY_RUNS: list[tuple[str, float]] = []
_WALL = [time.monotonic()]


def pytest_sessionstart(session):
    _WALL[0] = time.monotonic()


def _owner(item) -> str:
    group = _group(item.nodeid)
    return group if group in PAPERS else "(shared)"


def _group(nodeid: str) -> str:
    """The paper a test is about (its `pid` parameter, or its folder tests/papers/<id>/), else
    its file: the unit pytest-xdist hands to one worker."""
    path, _, rest = nodeid.partition("::")
    params = rest.partition("[")[2].rstrip("]").split("-")
    parts = Path(path).parts
    folder = parts[parts.index("papers") + 1] if "papers" in parts[:-1] else None
    hits = [p for p in PAPERS if p in params or p == folder]
    return max(hits, key=len) if hits else Path(path).stem


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """A paper's tests run on one worker (its tiny run is built there, its plans cached there),
    and so do a shared file's (its module fixtures are built once). (xdist's own loadgroup does
    not group under pytest 9.2: it renames item._nodeid, which pytest no longer reads.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByPaper(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group(nodeid)

    return ByPaper(config, log)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    seconds = call.stop - call.start
    costs = []
    while _TINY_RUNS:  # tiny DAGs this phase built: their paper's, not this test's
        pid, s = _TINY_RUNS.pop()
        costs.append((pid, s))
        seconds -= s
    costs.append((_owner(item), seconds))
    outcome.get_result().user_properties.append((COST_KEY, costs))


def pytest_runtest_logreport(report):
    for key, costs in report.user_properties:
        if key == COST_KEY:
            for owner, seconds in costs:
                _COST[owner] += seconds


def pytest_terminal_summary(terminalreporter, config):
    papers = {p: _COST[p] for p in PAPERS if p in _COST}
    if not papers:
        return
    shared = _COST.get("(shared)", 0.0)
    mean = sum(papers.values()) / len(papers)
    total = shared + sum(papers.values())
    wall = time.monotonic() - _WALL[0]
    workers = getattr(config.option, "numprocesses", None)
    workers = workers if isinstance(workers, int) and workers > 0 else 1
    w = terminalreporter.write_line
    w("suite time by paper (tiny DAG, plans, determinism rerun, its own tests), test-seconds: "
      + ", ".join(f"{p} {s:.0f}" for p, s in sorted(papers.items(), key=lambda kv: -kv[1])))
    w(f"suite time shared (core, DVC, SLURM, scaffold, summary): {shared:.0f} s; "
      f"papers: {sum(papers.values()):.0f} s ({len(papers)} papers, {mean:.0f} s each on average)")
    if len(papers) == len(PAPERS):
        speedup = total / wall if wall > 0 else 1.0
        w(f"{total:.0f} test-seconds in {wall:.0f} s of wall time on {workers} worker(s) "
          f"({speedup:.2f}x); projected at {PLANNED_PAPERS} papers (shared + {PLANNED_PAPERS} x "
          f"the mean paper, at the same speed-up): "
          f"{(shared + PLANNED_PAPERS * mean) / speedup:.0f} s")



# ==================================================================================================
# System programs. A test that runs one of Debian's programs skips where it is missing, naming it
# and the fix, instead of failing: `needs_programs(NAME, ...)` is a skipif mark (a test's
# decorator, or a module's `pytestmark`); NAME is a key of SYSTEM_PROGRAMS. Each paper's finished
# tiny run (the tiny_<id> fixtures, so also tiny_run(id) and the all-papers tests) skips the same
# way where the paper's PAPER_PROGRAMS are missing (the loop at the end redefines those papers'
# tiny_<id>, which the loop above defined). scripts/setup.sh installs them all.
# --------------------------------------------------------------------------------------------------


def _font(family: str) -> bool:
    """fontconfig resolves `family` to itself, not a fallback (as flowgen's render.py checks)."""
    if shutil.which("fc-match") is None:
        return False
    out = subprocess.run(["fc-match", "-f", "%{family}", family], capture_output=True, text=True)
    return family.lower() in out.stdout.lower()


def _tesseract_eng() -> bool:
    if shutil.which("tesseract") is None:
        return False
    out = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True)
    return "eng" in out.stdout.split()


def _mcp(entry: str) -> bool:
    from repro.papers.mcpmark import servers

    try:
        getattr(servers, entry)()
    except servers.ServerMissing:
        return False
    return entry != "filesystem_entry" or shutil.which("node") is not None


def _postgres() -> bool:
    from repro.papers.mcpmark.postgres import PostgresError, bindir

    try:
        bindir()
    except PostgresError:
        return False
    return True


# name -> (what the message calls it, whether it is there)
SYSTEM_PROGRAMS = {
    "espeak-ng": ("espeak-ng (Debian's espeak-ng)", lambda: bool(shutil.which("espeak-ng"))),
    "graphviz": ("graphviz's dot (Debian's graphviz)", lambda: bool(shutil.which("dot"))),
    "tesseract-ocr-eng": ("tesseract with English data (Debian's tesseract-ocr, "
                          "tesseract-ocr-eng)", _tesseract_eng),
    "fonts-urw-base35": ("the font Z003 (Debian's fonts-urw-base35)", lambda: _font("Z003")),
    "postgresql": ("a PostgreSQL server (Debian's postgresql)", _postgres),
    "server-filesystem": ("MCPMark's filesystem MCP server (node, npm ci in tools/mcp)",
                          lambda: _mcp("filesystem_entry")),
    "postgres-mcp": ("MCPMark's postgres-mcp (tools/mcp/postgres-venv)",
                     lambda: _mcp("postgres_entry")),
    "chromium": ("Chromium (Debian's chromium)",
                 lambda: bool(os.environ.get("REPRO_CHROMIUM") or shutil.which("chromium")
                              or shutil.which("chromium-browser"))),
}
PAPER_PROGRAMS = {
    "lfst": ("espeak-ng",),
    "pspm": ("espeak-ng",),
    "flowgen": ("graphviz", "tesseract-ocr-eng", "fonts-urw-base35"),
    "mcpmark": ("postgresql", "server-filesystem", "postgres-mcp"),
}
_FOUND: dict[str, bool] = {}


def missing_programs(*names: str) -> list[str]:
    """Of `names` (SYSTEM_PROGRAMS keys), those missing here (checked once per process)."""
    for name in names:
        if name not in _FOUND:
            _FOUND[name] = SYSTEM_PROGRAMS[name][1]()
    return [name for name in names if not _FOUND[name]]


def missing_reason(missing: list[str]) -> str:
    what = ", ".join(SYSTEM_PROGRAMS[name][0] for name in missing)
    one = len(missing) == 1
    return (f"needs {what}, which {'is' if one else 'are'} missing: `bash scripts/setup.sh` "
            f"installs {'it' if one else 'them'} (as root or with sudo)")


def needs_programs(*names: str) -> pytest.MarkDecorator:
    """Skip where any of `names` is missing, saying which and that setup.sh installs it."""
    missing = missing_programs(*names)
    return pytest.mark.skipif(bool(missing), reason=missing_reason(missing) if missing else "")


def _tiny_dag_needing(pid: str, names: tuple[str, ...]):
    """tiny_<pid>, skipping (every test that asks for it) where the paper's programs are missing."""

    @pytest.fixture(scope="session")
    def fixture(tmp_path_factory) -> Path:
        missing = missing_programs(*names)
        if missing:
            pytest.skip(f"paper {pid}'s tiny run {missing_reason(missing)}")
        return finished_tiny_dag(tmp_path_factory, pid)

    return fixture


for _pid, _names in PAPER_PROGRAMS.items():
    if _pid in PAPERS:
        globals()[f"tiny_{_pid}"] = _tiny_dag_needing(_pid, _names)
