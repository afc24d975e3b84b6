"""VAE-CF's data preparation and proximity analysis resume after SIGTERM / SIGINT and end with
the same bytes as an uninterrupted run (repro.core.checkpoint; the training's own tests are in
test_resume.py).

Each job runs once uninterrupted, once stopped by a signal as soon as it has saved a state, and
again to finish (the helpers of test_resume.py). A stop lands wherever the job happens to be,
so the stage-level and source-level resumes are also checked in-process at every boundary, by a
`Resumable` that sends itself the signal at a chosen step.
"""

from __future__ import annotations

import json
import os
import re
import signal
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from conftest import REPO
from test_resume import resumed_at, run, run_stopped

from repro.core.checkpoint import Resumable, resume_dir
from repro.papers.vaecf import data as D
from repro.papers.vaecf import proximity as P
from repro.papers.vaecf.data import CSR, save
from repro.papers.vaecf.model import MultVAE, VAEConfig
from repro.papers.vaecf.train import save_model

FAST = {"REPRO_CHECKPOINT_MINUTES": "0.0005"}  # the data job saves by wall time only


class StopAt(Resumable):
    """Sends itself SIGTERM in step `at` (before that step's save): the stop a signal makes."""

    at = 0

    def step(self, done, state):
        if done == self.at:
            os.kill(os.getpid(), signal.SIGTERM)
        super().step(done, state)


def _ratings(n_users: int, n_items: int = 80, seed: int = 0) -> pd.DataFrame:
    """Random ratings 1-5, 3 to 40 per user (some users below min_uc after binarising)."""
    rng = np.random.default_rng(seed)
    k = rng.integers(3, 40, n_users)
    users = np.repeat(np.arange(1000, 1000 + n_users), k)
    items = np.concatenate([rng.choice(n_items, size=n, replace=False) for n in k]) + 5000
    return pd.DataFrame({"user": users, "item": items, "value": rng.integers(1, 6, len(users))})


def _npz(path: Path) -> dict[str, bytes]:
    """An .npz's members, byte for byte (the zip's own entry times are wall-clock times)."""
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in sorted(z.namelist())}


# ------------------------------------------------------------------------ data preparation
def test_data_preparation_resumes_after_sigterm(tmp_path):
    """The CLI, stopped at the boundary after its first (time-based) save: the rerun writes
    the same matrices and stats."""
    _ratings(600).to_parquet(tmp_path / "ratings.parquet")
    args = ["repro.papers.vaecf.data", "--config", str(REPO / "src/repro/papers/vaecf/config.yaml"),
            "--scale", "tiny", "--dataset", "ml-100k", "--split", "1",
            "--interactions", "ratings.parquet"]

    def outs(d: str) -> list[str]:
        return ["--stats", f"{d}/stats.json", "--out", f"{d}/prepared.npz"]

    run([*args, *outs("a")], tmp_path, FAST)
    run_stopped([*args, *outs("b")], tmp_path, Path("b/prepared.npz"), env=FAST)
    assert not (tmp_path / "b/prepared.npz").exists()
    step, total = resumed_at(run([*args, *outs("b")], tmp_path, FAST))
    assert 0 < step < total == D.STEPS
    a, b = tmp_path / "a", tmp_path / "b"
    assert _npz(b / "prepared.npz") == _npz(a / "prepared.npz")
    assert (b / "stats.json").read_bytes() == (a / "stats.json").read_bytes()
    assert D.split_of_file(b / "prepared.npz") == (1, 98766)
    assert not resume_dir(b / "prepared.npz").exists()


@pytest.mark.parametrize("ids", ["int", "str"])
def test_each_stage_and_fold_in_chunk_resumes(tmp_path, monkeypatch, ids):
    """Stopped after each of the STEPS - 1 boundaries (the filter, the training matrix, every
    fold-in chunk of both groups), the rerun starts there, never reads the raw frame again,
    folds in only the chunks left, and returns what an uninterrupted split returns; string ids
    (MSD) survive the packed state."""
    df = _ratings(300, seed=1)
    if ids == "str":
        df = df.assign(user=df["user"].map("u{:x}".format).astype("str"),
                       item=df["item"].map("SO{}".format).astype("str"))
    args = (4, 5, 0, 40, 0.2, 98765)
    ref_m, ref_s, ref_i = D.liang_split(df, *args)

    def unread() -> pd.DataFrame:
        raise AssertionError("a resumed split read the raw frame")

    chunks = []  # the fold-in chunks run (split_fold_in calls)
    fold_in = D.split_fold_in
    monkeypatch.setattr(D, "split_fold_in", lambda *a: chunks.append(1) or fold_in(*a))
    for k in range(1, D.STEPS):
        out = tmp_path / f"stop{k}.npz"
        StopAt.at = k
        with pytest.raises(SystemExit), StopAt(out, "k", total=D.STEPS) as ck:
            D.liang_split(df, *args, ck=ck)
        chunks.clear()
        with Resumable(out, "k", total=D.STEPS) as ck:
            m, s, i = D.liang_split(unread, *args, ck=ck)
            assert ck.start == k
        assert len(chunks) == D.STEPS - max(k, 2)
        assert list(s.items()) == list(ref_s.items())
        for name in D.SPLITS:
            assert np.array_equal(m[name].indptr, ref_m[name].indptr), (k, name)
            assert np.array_equal(m[name].indices, ref_m[name].indices), (k, name)
        assert all(np.array_equal(i[g], ref_i[g]) for g in ref_i)
        assert not resume_dir(out).exists()


# ------------------------------------------------------------------------- proximity
def _proximity_job(d: Path, n_items: int = 600) -> list[str]:
    """Two runs (seeds 0 and 1, each on its own split) with an early and a final model of
    Liang et al.'s widths (so that a source's step takes tens of ms: the stop lands mid-unit),
    and a config with 12 sources of 60 targets: 4 units of 12 sources."""
    rng = np.random.default_rng(0)

    def mat(n: int) -> CSR:
        rows, cols = np.nonzero(rng.random((n, n_items)) < 0.05)
        return CSR.from_pairs(rows, cols, n, n_items)

    cfg = yaml.safe_load((REPO / "src/repro/papers/vaecf/config.yaml").read_text())
    cfg["scales"]["tiny"]["proximity"].update(n_targets=60, n_sources=12, bins=3)
    (d / "vaecf.yaml").write_text(yaml.safe_dump(cfg))
    args = ["repro.papers.vaecf.proximity", "--config", "vaecf.yaml", "--scale", "tiny",
            "--dataset", "ml-100k", "--variant", "masking", "--data"]
    for seed in (0, 1):
        save(d / f"split{seed}.npz", {"train": mat(80), **{k: mat(5) for k in D.SPLITS[1:]}},
             split=seed, split_seed=98765 + seed)
        run_dir = d / "runs" / f"seed{seed}"
        run_dir.mkdir(parents=True)
        (run_dir / "run.json").write_text(json.dumps({"seed": seed, "split": seed}))
        torch.manual_seed(seed)
        for name in ("model_early.pt", "model.pt"):
            save_model(MultVAE(VAEConfig(n_items=n_items)), run_dir / name)
        args.append(f"split{seed}.npz")
    return [*args, "--runs", "runs/seed0", "runs/seed1"]


def test_proximity_resumes_after_sigint_mid_unit(tmp_path):
    """Stopped in the second unit's loop over sources (its state is the one awaited): the
    rerun skips the first unit and goes on from that unit's next source."""
    args = _proximity_job(tmp_path)
    run([*args, "--out", "a.json"], tmp_path)
    unit1 = resume_dir(tmp_path / "b.json") / "unit1"
    run_stopped([*args, "--out", "b.json"], tmp_path, unit1.relative_to(tmp_path),
                signal.SIGINT)
    assert not (tmp_path / "b.json").exists()
    err = run([*args, "--out", "b.json"], tmp_path)
    assert resumed_at(err) == (1, 4)  # the units: one done
    (step, total), = re.findall(r"seed 0 final: resuming at step (\d+) of (\d+)", err)
    assert 0 < int(step) < int(total) == 12
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "a.json").read_bytes()
    assert len(json.loads((tmp_path / "a.json").read_text())["seeds"]) == 4
    assert not resume_dir(tmp_path / "b.json").exists()


def test_each_source_resumes(tmp_path, monkeypatch):
    """The loop over sources stopped after each source but the last: the rerun steps only the
    sources left and the summary is the uninterrupted one, float for float."""
    torch.manual_seed(0)
    x = (torch.rand(20, 30) < 0.2).float()
    model = MultVAE(VAEConfig(n_items=30, hidden=16, latent=4)).eval()  # as load_model gives
    ref = P.analyse(model, x, 5, 1e-2, 3, seed=0)
    calls = []  # user_losses calls: the base losses, then two per source
    losses = P.user_losses
    monkeypatch.setattr(P, "user_losses", lambda *a: calls.append(1) or losses(*a))
    for k in range(1, 5):
        out = tmp_path / f"stop{k}"
        StopAt.at = k
        with pytest.raises(SystemExit), StopAt(out, "k", total=5) as ck:
            P.analyse(model, x, 5, 1e-2, 3, seed=0, ck=ck)
        calls.clear()
        with Resumable(out, "k", total=5) as ck:
            assert P.analyse(model, x, 5, 1e-2, 3, seed=0, ck=ck) == ref
            assert ck.start == k
        assert len(calls) == 1 + 2 * (5 - k)
