"""OWLEYE's whole DAG at tiny scale and its outputs, the small and full plans, a bad config,
edit plans (an edit reruns exactly the jobs that depend on it), the full-scale .mat fetch and
its integrity checks, and training and evaluation that resume after SIGTERM with an
uninterrupted run's bytes."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import scipy.io
import scipy.sparse as sp
import yaml
from conftest import REPO, copy_finished, copy_repo, edit, job_checkout, planned_jobs, snakemake
from test_resume import check_resumes, run

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/owleye/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _plan(s):
    d = s["domains"]
    n = len(s["seeds"])
    return {"owleye_fetch": len(d["train"]) + len(d["aux"]) + len(d["test"]), "owleye_align": 1,
            "owleye_train": n * len(s["methods"]), "owleye_evaluate": n * len(s["methods"]),
            "owleye_baseline": n * len(s["baselines"]), "owleye_report": 1, "paper_owleye": 1}


def test_plans_cover_the_whole_dag_at_every_scale(fresh_repo):
    for scale in ("tiny", "small", "full"):
        s = _settings(fresh_repo, scale)
        assert planned_jobs(fresh_repo, "paper_owleye", scale=scale) == _plan(s)
    small, full = _settings(fresh_repo, "small"), _settings(fresh_repo, "full")
    assert len(small["seeds"]) == 5 and set(small["methods"]) == {
        "owleye", "owleye_n", "owleye_s", "owleye_t", "arc"}
    assert set(small["baselines"]) == {"dominant", "iforest", "lof"}
    # the paper's eight test graphs, ARC's graphs for training, three for continual growth
    assert full["domains"]["test"] == ["cora", "Flickr", "ACM", "BlogCatalog", "Facebook",
                                       "weibo", "Reddit", "Amazon"]
    assert len(full["domains"]["train"]) == 4 and len(full["domains"]["aux"]) == 3
    assert full["owleye"]["hidden"] == 512 and full["owleye"]["support"] == 2000


def test_a_wrong_method_is_rejected_before_any_job(tmp_path):
    root = copy_repo(tmp_path / "repo")
    cfg = root / "src/repro/papers/owleye/config.yaml"
    cfg.write_text(cfg.read_text().replace("methods: [owleye, owleye_n,", "methods: [gcn, "
                                           "owleye_n,", 1))
    proc = snakemake(root, "-n", "paper_owleye", check=False, papers="owleye")
    assert proc.returncode != 0
    assert "methods" in proc.stderr and "'owleye'" in proc.stderr


def test_tiny_dag_outputs(tiny_owleye):
    out = tiny_owleye / "results/tiny/owleye"
    s = _settings(tiny_owleye)
    main = pd.read_csv(out / "tables/main.csv")
    in_context = len(s["methods"]) * len(s["eval"]["protocols"])
    assert len(main) == in_context + len(s["baselines"])
    owl = main[(main["method"] == "OWLEYE") & (main["protocol"] == "zero-shot")].iloc[0]
    assert owl["paper: AUPRC %, mean of its 8 graphs"] == 36.17  # the paper's, labelled
    per = pd.read_csv(out / "tables/per_domain.csv")
    assert set(per["domain"]) == set(s["domains"]["test"])
    ev = json.loads((out / "eval/owleye/seed0.json").read_text())
    ctx = s["eval"]["context"]
    for r in ev["results"]:  # every unseen node but the context is scored
        g = np.load(tiny_owleye / f"data/owleye/tiny/graphs/{r['domain']}.npz")
        assert r["nodes"] == len(g["y"]) - ctx and 0 <= r["auprc"] <= 1
    # growth: 0, 1, ... auxiliary domains; with none it is the zero-shot result itself
    assert [g["aux"] for g in ev["growth"]] == list(range(len(s["domains"]["aux"]) + 1))
    zero = {r["domain"]: r["auprc"] for r in ev["results"] if r["protocol"] == "zero_shot"}
    assert {r["domain"]: r["auprc"] for r in ev["growth"][0]["results"]} == zero
    assert len(ev["curve"]) == s["owleye"]["epochs"]
    base = json.loads((out / "eval/iforest/seed0.json").read_text())
    assert base["growth"] == [] and {r["protocol"] for r in base["results"]} == {"zero_shot"}
    domains = pd.read_csv(out / "tables/domains.csv")
    assert len(set(domains["features"])) > 1  # the domains have their own feature spaces
    ids = {c["id"] for c in load_claims(out / "claims.json")}
    assert {"owleye_beats_arc", "ablation_n_lowers", "growth_helps"} <= ids
    aligned = np.load(tiny_owleye / "data/owleye/tiny/aligned.npz")
    for d in s["domains"]["test"]:
        assert aligned[f"{d}/owleye"].shape[1] == s["align"]["dim"]


@pytest.mark.parametrize("module, untouched", [
    ("model", ("owleye_fetch", "owleye_align", "owleye_baseline")),  # train, evaluate, report
    ("baselines", ("owleye_fetch", "owleye_align", "owleye_train")),  # evaluate, baseline, report
    ("align", ("owleye_fetch", "owleye_baseline")),  # align and every step after it
])
def test_an_edit_reruns_exactly_what_depends_on_it(tiny_owleye, tmp_path, module, untouched):
    root = copy_finished(tiny_owleye, tmp_path / f"edit_{module}")
    edit(root / f"src/repro/papers/owleye/{module}.py")
    plan = _plan(_settings(root))
    for k in untouched:
        plan.pop(k)
    assert planned_jobs(root, "paper_owleye") == plan


# ------------------------------------------------------------------ the full-scale .mat fetch
def _mat(path, n=40, seed=0):
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=0.1, random_state=seed, format="csr")
    a = ((a + a.T) > 0).astype(float)
    y = np.zeros((n, 1))
    y[:4] = 1
    scipy.io.savemat(path, {"Network": a, "Attributes": sp.csr_matrix(rng.random((n, 7))),
                            "Label": y})
    return path.read_bytes()


@pytest.fixture()
def mat_repo(tmp_path):
    """A config whose test domain is an ARC-style .mat in a mirror, with its manifest entry."""
    d = tmp_path
    (d / "src/repro/papers/owleye").mkdir(parents=True, exist_ok=True)
    cfg = yaml.safe_load((REPO / "src/repro/papers/owleye/config.yaml").read_text())
    cfg["scales"]["tiny"]["sources"]["toy"] = {"kind": "mat", "file": "toy"}
    cfg["scales"]["tiny"]["domains"]["test"] = ["toy"]
    (d / "src/repro/papers/owleye/config.yaml").write_text(yaml.safe_dump(cfg))
    shutil.copy(REPO / "src/repro/papers/owleye/manifest.json", d / "src/repro/papers/owleye")
    (d / "mirror/arc").mkdir(parents=True)
    body = _mat(d / "mirror/arc/toy.mat")
    from repro.papers.owleye.data import git_blob_id

    man = json.loads((d / "src/repro/papers/owleye/manifest.json").read_text())
    man["files"]["arc/toy.mat"] = {"origin": "download", "source": "test",
                                   "git_blob_sha1": git_blob_id(body)}
    (d / "src/repro/papers/owleye/manifest.json").write_text(json.dumps(man))
    return d


def _fetch(d, domain="toy"):
    return run(["repro.papers.owleye.data", "fetch", "--config",
                "src/repro/papers/owleye/config.yaml", "--scale", "tiny", "--domain", domain,
                "--mirror", "mirror", "--out", f"g/{domain}.npz", "--source", f"g/{domain}.json"],
               d)


def test_a_mat_graph_is_read_with_its_own_labels(mat_repo):
    import subprocess

    _fetch(mat_repo)
    info = json.loads((mat_repo / "g/toy.json").read_text())
    assert info["anomalies"] == 4 and "injected" not in info and info["features"] == 7
    g = np.load(mat_repo / "g/toy.npz")
    assert (g["edges"][:, 0] < g["edges"][:, 1]).all()
    # the git blob id matches what `git hash-object` gives for the same bytes
    body = (mat_repo / "mirror/arc/toy.mat").read_bytes()
    from repro.papers.owleye.data import git_blob_id

    hashed = subprocess.run(["git", "hash-object", "--stdin"], input=body, capture_output=True,
                            check=True).stdout.decode().strip()
    assert git_blob_id(body) == hashed


def test_a_mat_file_that_is_not_the_repositorys_is_refused(mat_repo):
    import subprocess
    import sys

    _mat(mat_repo / "mirror/arc/toy.mat", seed=1)  # another graph in its place
    proc = subprocess.run([sys.executable, "-m", "repro.papers.owleye.data", "fetch",
                           "--config", "src/repro/papers/owleye/config.yaml", "--scale", "tiny",
                           "--domain", "toy", "--mirror", "mirror", "--out", "g/toy.npz",
                           "--source", "g/toy.json"], cwd=mat_repo, capture_output=True,
                          text=True)
    assert proc.returncode != 0 and "git blob id" in proc.stderr
    assert not (mat_repo / "g/toy.npz").exists()


# ------------------------------------------------------------------------------ resuming
TIME_SAVES = {"REPRO_CHECKPOINT_MINUTES": "0.0005"}  # a state every 30 ms of wall time


@pytest.fixture(scope="module")
def od(tmp_path_factory):
    """OWLEYE's tiny config with loops long enough to stop, and its aligned domains."""
    d = tmp_path_factory.mktemp("owleye")
    cfg = yaml.safe_load((REPO / "src/repro/papers/owleye/config.yaml").read_text())
    cfg["scales"]["tiny"]["owleye"]["epochs"] = 60
    cfg["scales"]["tiny"]["arc"]["epochs"] = 60
    job = job_checkout(d, "owleye", cfg)
    s = _settings(d)
    names = [*s["domains"]["train"], *s["domains"]["aux"], *s["domains"]["test"]]
    for n in names:
        run(["repro.papers.owleye.data", "fetch", *job, "--domain", n, "--out", f"g/{n}.npz",
             "--source", f"g/{n}.json"], d)
    run(["repro.papers.owleye.data", "align", *job, "--graphs", *[f"g/{n}.npz" for n in names],
         "--out", "aligned.npz", "--info", "align.json"], d)
    return d, job


@pytest.mark.parametrize("method", ["owleye", "arc"])
def test_training_resumes_after_sigterm(od, method):
    d, job = od
    args = ["repro.papers.owleye.train", *job, "--method", method, "--seed", "1",
            "--aligned", "aligned.npz"]
    step, total = check_resumes(args, d, f"{method}_a.pt", f"{method}_b.pt", env=TIME_SAVES)
    assert total == 60


def test_evaluation_resumes_after_sigterm(od):
    """A stopped evaluation keeps its finished (protocol, domain) and growth items and ends
    with the bytes of an uninterrupted one."""
    d, job = od
    run(["repro.papers.owleye.train", *job, "--method", "owleye", "--seed", "2", "--aligned",
         "aligned.npz", "--out", "m.pt"], d)
    args = ["repro.papers.owleye.evaluate", *job, "--model", "m.pt", "--aligned", "aligned.npz"]
    s = _settings(d)
    step, total = check_resumes(args, d, "e_a.json", "e_b.json", env=TIME_SAVES)
    assert total == len(s["eval"]["protocols"]) * len(s["domains"]["test"]) + len(
        s["domains"]["aux"])
