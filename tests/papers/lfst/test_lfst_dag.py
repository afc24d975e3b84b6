"""LFST's whole DAG at tiny scale and its outputs, the small and full plans, a bad config, edit
plans (an edit reruns exactly the jobs that depend on it), and training that resumes after
SIGTERM with an uninterrupted run's bytes."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import (
    REPO,
    copy_finished,
    copy_repo,
    edit,
    job_checkout,
    needs_programs,
    planned_jobs,
    snakemake,
)
from test_resume import check_resumes, run

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/lfst/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _runs(s):
    return sum(s["datasets"][c].get("folds", 1) for c in s["conditions"]) * len(
        s["methods"]) * len(s["seeds"])


def _plan(s):
    synth = any(s["datasets"][c]["kind"] == "synth" for c in s["conditions"])
    plan = {"lfst_prepare": len(s["conditions"]), "lfst_train": _runs(s),
            "lfst_evaluate": _runs(s), "lfst_report": 1, "paper_lfst": 1}
    return {"lfst_synth": 1, **plan} if synth else plan


def test_plans_cover_the_whole_dag_at_every_scale(fresh_repo):
    for scale in ("tiny", "small", "full"):
        assert planned_jobs(fresh_repo, "paper_lfst", scale=scale) == _plan(
            _settings(fresh_repo, scale))
    small, full = _settings(fresh_repo, "small"), _settings(fresh_repo, "full")
    assert len(small["seeds"]) == 3 and set(small["conditions"]) == {"clean", "phone"}
    assert set(small["methods"]) == {"stft", "cwt", "superlet", "leaf", "lfst",
                                     "lfst_fixed_grid", "lfst_integer_orders", "lfst_no_laht"}
    # the paper's setting: 96 bands x 8 orders, 1024-tap kernels at 16 kHz, C = 128, LOSO
    f = full["frontend"]
    assert (f["bands"], f["orders"], full["sample_rate"], full["stee"]["channels"]) == (
        96, 8, 16000, 128)
    assert full["conditions"] == ["emodb", "iemocap"]
    assert (full["datasets"]["emodb"]["folds"], full["datasets"]["iemocap"]["folds"]) == (10, 5)
    # 2 corpora x (10 + 5 folds) x 8 front-ends x 3 seeds, no synthesis at full
    assert planned_jobs(fresh_repo, "paper_lfst", scale="full")["lfst_train"] == 15 * 8 * 3


def test_a_wrong_front_end_is_rejected_before_any_job(tmp_path):
    root = copy_repo(tmp_path / "repo")
    cfg = root / "src/repro/papers/lfst/config.yaml"
    cfg.write_text(cfg.read_text().replace("methods: [stft, cwt,", "methods: [mfcc, cwt,", 1))
    proc = snakemake(root, "-n", "paper_lfst", check=False, papers="lfst")
    assert proc.returncode != 0
    assert "methods" in proc.stderr and "'mfcc'" in proc.stderr


def test_tiny_dag_outputs(tiny_lfst):
    out = tiny_lfst / "results/tiny/lfst"
    s = _settings(tiny_lfst)
    main = pd.read_csv(out / "tables/main.csv")
    assert len(main) == len(s["methods"])
    lfst = main[main["front-end (+ STEE)"] == "LFST"].iloc[0]
    assert lfst["paper: IEMOCAP acc / F1 %"] == "87.5 / 86.8"  # the paper's, labelled
    ev = json.loads((out / "eval/clean/lfst/fold0_seed0.json").read_text())
    z = np.load(tiny_lfst / "data/lfst/tiny/clean.npz")
    assert ev["test"] == int((z["split"] == "test").sum())
    assert 0 <= ev["ua"] <= 1 and 0 <= ev["f1"] <= 1
    assert np.asarray(ev["confusion"]).sum() == ev["test"]
    assert len(ev["loss"]) == s["train"]["epochs"]
    # LFST's learned grid stays strictly increasing between its fixed end points
    f = np.asarray(ev["learned"]["freq_hz"])
    assert len(f) == s["frontend"]["bands"] and (np.diff(f) > 0).all()
    assert f[0] == pytest.approx(s["frontend"]["f_min"], rel=1e-5)
    assert json.loads((out / "eval/clean/stft/fold0_seed0.json").read_text())["learned"] is None
    # speakers never cross the split; validation/test speakers say held-out sentences
    spk = {k: set(z["speaker"][z["split"] == k]) for k in ("train", "val", "test")}
    assert not (spk["train"] & spk["val"]) and not (spk["train"] & spk["test"])
    assert not set(z["text"][z["split"] == "train"]) & set(z["text"][z["split"] == "test"])
    ids = {c["id"] for c in load_claims(out / "claims.json")}
    assert {"lfst_ge_superlet", "superlet_beats_stft", "no_laht_lowers"} <= ids
    corpus = pd.read_csv(out / "tables/corpus.csv")
    assert list(corpus["condition"]) == s["conditions"]
    sp = s["synth"]["speakers"]
    assert corpus["speakers train / val / test"][0] == f"{sp['train']} / {sp['val']} / {sp['test']}"
    n = s["synth"]["per_speaker"]
    assert corpus["train / val / test clips"][0] == " / ".join(
        str(n * sp[k]) for k in ("train", "val", "test"))


@pytest.mark.parametrize("module, untouched", [
    ("stee", ("lfst_synth", "lfst_prepare")),  # train, evaluate, report
    ("evaluate", ("lfst_synth", "lfst_prepare", "lfst_train")),  # evaluate, report
    ("report", ("lfst_synth", "lfst_prepare", "lfst_train", "lfst_evaluate")),
])
def test_an_edit_reruns_exactly_what_depends_on_it(tiny_lfst, tmp_path, module, untouched):
    root = copy_finished(tiny_lfst, tmp_path / f"edit_{module}")
    edit(root / f"src/repro/papers/lfst/{module}.py")
    plan = _plan(_settings(root))
    for k in untouched:
        plan.pop(k)
    assert planned_jobs(root, "paper_lfst") == plan


# ------------------------------------------------------------------------------ resuming
TIME_SAVES = {"REPRO_CHECKPOINT_MINUTES": "0.0005"}  # a state every 30 ms of wall time


@pytest.fixture(scope="module")
def ld(tmp_path_factory):
    """LFST's tiny config with a training loop long enough to stop, and its clean clips."""
    d = tmp_path_factory.mktemp("lfst")
    cfg = yaml.safe_load((REPO / "src/repro/papers/lfst/config.yaml").read_text())
    cfg["scales"]["tiny"]["train"]["epochs"] = 12
    job = job_checkout(d, "lfst", cfg)
    run(["repro.papers.lfst.data", "synth", *job, "--out", "synth.npz"], d)
    run(["repro.papers.lfst.data", "prepare", *job, "--condition", "clean", "--synth",
         "synth.npz", "--out", "clean.npz"], d)
    return d, job


@needs_programs("espeak-ng")  # ld synthesises the corpus
def test_training_resumes_after_sigterm(ld):
    d, job = ld
    args = ["repro.papers.lfst.train", *job, "--method", "lfst", "--condition", "clean",
            "--seed", "1", "--data", "clean.npz"]
    step, total = check_resumes(args, d, "a.pt", "b.pt", env=TIME_SAVES)
    assert total == 12


# ------------------------------------------------- the full-scale corpora, at tiny compute
EMOTIONS = "WLEAFTN"


def _emodb_zip(path, speakers=("03", "08", "09"), rate=16000):
    """An EMO-DB-shaped archive: wav/<speaker><text><emotion><version>.wav, plus the extras
    the real one has (which the fetch must leave out)."""
    import io
    import zipfile

    from scipy.io import wavfile

    rng = np.random.default_rng(0)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        for s in speakers:
            for k, e in enumerate(EMOTIONS):
                buf = io.BytesIO()
                x = (0.3 * np.sin(2 * np.pi * (120 + 20 * k) * np.arange(rate // 2) / rate)
                     + 0.01 * rng.standard_normal(rate // 2))
                wavfile.write(buf, rate, (x * 32767).astype(np.int16))
                z.writestr(f"wav/{s}a0{k}{e}a.wav", buf.getvalue())
        z.writestr("erkennung.txt", "not audio")
    return path


def test_emodb_is_prepared_from_the_mirror_and_trained_leave_one_speaker_out(tmp_path):
    d = tmp_path
    cfg = yaml.safe_load((REPO / "src/repro/papers/lfst/config.yaml").read_text())
    cfg["defaults"]["datasets"]["emodb"]["root"] = "raw/emodb"
    cfg["defaults"]["datasets"]["emodb"]["folds"] = 3
    job = job_checkout(d, "lfst", cfg)
    _emodb_zip(d / "mirror/lfst/emodb.zip")
    run(["repro.papers.lfst.data", "prepare", *job, "--condition", "emodb", "--mirror",
         "mirror", "--out", "emodb.npz"], d)
    assert sorted(p.name for p in (d / "raw/emodb").iterdir()) == ["wav"]  # wav/ only
    z = np.load(d / "emodb.npz")
    classes = cfg["defaults"]["datasets"]["emodb"]["classes"]
    assert len(z["label"]) == 21 and sorted(set(z["group"])) == ["03", "08", "09"]
    # the file name's emotion letter -> the class (W anger ... N neutral)
    assert [classes[i] for i in z["label"][:7]] == ["anger", "boredom", "disgust", "fear",
                                                    "happiness", "sadness", "neutral"]
    assert not any(z["split"])  # folds are leave-one-speaker-out
    info = json.loads((d / "emodb.json").read_text())
    assert info["groups"] == 3 and info["classes"] == classes
    run(["repro.papers.lfst.train", *job, "--method", "lfst", "--condition", "emodb",
         "--fold", "1", "--seed", "0", "--data", "emodb.npz", "--out", "m.pt"], d)
    run(["repro.papers.lfst.evaluate", *job, "--model", "m.pt", "--data", "emodb.npz",
         "--out", "e.json"], d)
    ev = json.loads((d / "e.json").read_text())
    assert ev["fold"] == 1 and ev["test"] == 7  # speaker 08's seven clips
    assert len(ev["confusion"]) == 7 and np.asarray(ev["confusion"]).sum() == 7
