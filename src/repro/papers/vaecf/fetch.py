"""CLI: fetch one recommendation data set's raw interactions into one parquet file.

    python -m repro.papers.vaecf.fetch --config src/repro/papers/vaecf/config.yaml --scale small \\
        --dataset ml-100k --mirror '' --out data/vaecf/small/ml-100k

Writes `<out>/interactions.parquet` (columns user, item, value: the raw rating or play count,
ids as in the source) and `<out>/source.json` (which source was used, its URL or path, the
sha256 of what was read).

At tiny (the setting `generator`) nothing is fetched: the ratings come from a seeded generator
shaped like a scaled-down ML-100k (`generate_ratings`; ML-100k's licence forbids committing an
excerpt), and `source.json` says `"source": "generator"` with its parameters. Above tiny the
real data set is read; sources, tried in order (`<mirror>`: the optional offline copy of the
data, `--config data_mirror=<dir>`; none by default):

- ml-100k: files.grouplens.org (`ml-100k.zip`, `u.data`), then `<mirror>/ml-100k/u.data`, then
  the copy of ML-100k inside the `recbole` wheel on PyPI (`recbole/dataset_example/ml-100k/
  ml-100k.inter`, the same 100,000 ratings), fetched with `pip download` (or PyPI's JSON API).
  With none reachable the fetch stops with one line: what was tried, the URL, and where to put
  `u.data` by hand.
- ml-20m: files.grouplens.org (`ml-20m.zip`, `ratings.csv`), then `<mirror>/ml-20m/`.
- netflix: the Netflix Prize data is no longer distributed by Netflix: it needs a manual
  download (the error says where to put it); read from `<mirror>/netflix/` or
  `data/vaecf/manual/netflix/`.
- msd: the Echo Nest Taste Profile subset (`train_triplets.txt.zip`) of the Million Song
  Dataset, from millionsongdataset.com (the labrosa mirror as fallback), then the mirror.

Downloads are cached under `data/vaecf/downloads/` so scales share them. Every file is checked
against the paper's `manifest.json` (repro.core.manifest) before it is read: a download before it
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
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from repro.core.config import job_parser
from repro.core.fetch import mirror_arg, put_it_there
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger
from repro.papers.vaecf.settings import GeneratorConfig
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


# ------------------------------------------------------------------ tiny: generated ratings
RATING_OFFSET = 3.0  # a rating before the bias and factor terms (gives ML-100k's ~55% >= 4)
BIAS_SD = 0.4  # sd of the user and of the item rating biases


def generate_ratings(g: GeneratorConfig) -> pd.DataFrame:
    """Explicit ratings 1-5 shaped like a scaled-down ML-100k, the same for the same settings.

    Users and items get `rank`-dim Gaussian factors scaled so that their affinity (dot product)
    has unit variance, and Gaussian rating biases. User u rates `min_ratings` + an exponential
    number of items (mean `mean_ratings` overall, at most half the items), drawn without
    replacement with probability ~ Zipf popularity (exponent `popularity`, over a random order
    of the items) x exp(affinity): popular items and items the user likes are seen more, as in
    MovieLens. A rating is RATING_OFFSET + the two biases + the affinity + N(0, noise^2),
    rounded and clipped to 1-5. Ids are 1-based as in ML-100k's u.data."""
    rng = np.random.default_rng(g.seed)
    scale = g.rank ** -0.25  # each factor entry's sd: affinity variance rank * scale^4 = 1
    user_f = rng.normal(0.0, scale, (g.users, g.rank))
    item_f = rng.normal(0.0, scale, (g.items, g.rank))
    popularity = (1.0 + rng.permutation(g.items)) ** -g.popularity
    user_bias = rng.normal(0.0, BIAS_SD, g.users)
    item_bias = rng.normal(0.0, BIAS_SD, g.items)
    extra = np.floor(rng.exponential(max(g.mean_ratings - g.min_ratings, 0.0), g.users))
    counts = np.minimum(g.min_ratings + extra.astype(np.int64), g.items // 2)
    frames = []
    for u in range(g.users):
        affinity = user_f[u] @ item_f.T
        weight = popularity * np.exp(affinity)
        items = np.sort(rng.choice(g.items, size=int(counts[u]), replace=False,
                                   p=weight / weight.sum()))
        x = (RATING_OFFSET + user_bias[u] + item_bias[items] + affinity[items]
             + rng.normal(0.0, g.noise, len(items)))
        frames.append(pd.DataFrame({"user": u + 1, "item": items + 1,
                                    "value": np.clip(np.rint(x), 1, 5).astype(np.int64)}))
    return pd.concat(frames, ignore_index=True)


def generated(dataset: str, g: GeneratorConfig) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Tiny's stand-in for `dataset`: `generate_ratings`, and what source.json records."""
    if g.min_ratings > g.items // 2 or min(g.users, g.items, g.rank, g.min_ratings) < 1:
        raise FetchError(f"generator: users, items, rank, min_ratings must be >= 1 and "
                         f"min_ratings <= items / 2 (got {asdict(g)})")
    df = generate_ratings(g)
    return df, {"source": "generator", "stands_in_for": dataset, "parameters": asdict(g),
                "sha256": sha256(df.to_csv(index=False).encode())}


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
             "--only-binary", ":all:", "-d", tmp, "-q", "--retries", "1"],
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


def _ml100k_grouplens(mirror: Path | None, manifest: Manifest
                     ) -> tuple[pd.DataFrame, dict[str, Any]]:
    url = f"{GROUPLENS}/ml-100k.zip"
    raw = zipfile.ZipFile(download(url, manifest)).read("ml-100k/u.data")
    manifest.verify_bytes("ml-100k/u.data", raw, f"{url} (ml-100k/u.data)")
    df = pd.read_csv(io.BytesIO(raw), sep="\t", names=["user", "item", "value", "ts"])
    return df, {"source": "grouplens", "url": url, "member": "ml-100k/u.data",
                "sha256": sha256(raw)}


def _in_mirror(mirror: Path | None, key: str) -> Path:
    """`<mirror>/<key>`, or FetchError (one line) when no mirror is configured or it lacks
    the file."""
    if mirror is None:
        raise FetchError(f"{key} in the data mirror: no data mirror configured")
    path = mirror / key
    if not path.exists():
        raise FetchError(f"{key} in the data mirror: {path} does not exist")
    return path


def _ml100k_mirror(mirror: Path | None, manifest: Manifest
                   ) -> tuple[pd.DataFrame, dict[str, Any]]:
    path = _in_mirror(mirror, "ml-100k/u.data")
    manifest.verify("ml-100k/u.data", path)
    raw = path.read_bytes()
    df = pd.read_csv(io.BytesIO(raw), sep="\t", names=["user", "item", "value", "ts"])
    return df, {"source": "mirror", "path": str(path), "sha256": sha256(raw)}


def _ml100k_recbole(mirror: Path | None, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
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


def _ml20m_grouplens(mirror: Path | None, manifest: Manifest
                    ) -> tuple[pd.DataFrame, dict[str, Any]]:
    url = f"{GROUPLENS}/ml-20m.zip"
    with zipfile.ZipFile(download(url, manifest, timeout=120)) as z, \
            z.open("ml-20m/ratings.csv") as f:
        df = _ml20m(f, manifest, f"{url} (ml-20m/ratings.csv)")
    return df, {"source": "grouplens", "url": url, "member": "ml-20m/ratings.csv"}


def _ml20m_mirror(mirror: Path | None, manifest: Manifest
                  ) -> tuple[pd.DataFrame, dict[str, Any]]:
    path = _in_mirror(mirror, "ml-20m/ratings.csv")
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


def _or_mirror(mirror: Path | None, folder: str) -> str:
    """The mirror alternative in a manual-download message."""
    if mirror is not None:
        return f"or under {mirror / folder}/, the data mirror configured"
    return f"or under <dir>/{folder}/ and rerun with --config data_mirror=<dir>"


def _netflix_manual(mirror: Path | None, manifest: Manifest
                    ) -> tuple[pd.DataFrame, dict[str, Any]]:
    roots = [MANUAL / "netflix"] if mirror is None else [mirror / "netflix", MANUAL / "netflix"]
    for root in roots:
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
        f"{MANUAL / 'netflix'}/ ({_or_mirror(mirror, 'netflix')}), then rerun"
    )


def _read_triplets(f) -> pd.DataFrame:
    return pd.read_csv(f, sep="\t", names=["user", "item", "value"],
                       dtype={"user": str, "item": str, "value": "int64"})


def _msd_web(mirror: Path | None, manifest: Manifest) -> tuple[pd.DataFrame, dict[str, Any]]:
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


def _msd_mirror(mirror: Path | None, manifest: Manifest
                ) -> tuple[pd.DataFrame, dict[str, Any]]:
    for root in [MANUAL / "msd"] if mirror is None else [mirror / "msd", MANUAL / "msd"]:
        path = root / "train_triplets.txt"
        if path.exists():
            df = _read_triplets(path)
            manifest.verify_frame("train_triplets.txt", df, str(path))
            return df, {"source": "mirror", "path": str(path)}
    raise FetchError(
        "MSD (Echo Nest Taste Profile subset) unreachable: download train_triplets.txt.zip "
        f"from {MSD_URLS[0]}, unzip it to {MANUAL / 'msd' / 'train_triplets.txt'} "
        f"({_or_mirror(mirror, 'msd')}), then rerun"
    )


Reader = Callable[[Path | None, "Manifest"], tuple[pd.DataFrame, dict[str, Any]]]
SOURCES: dict[str, list[Reader]] = {
    "ml-100k": [_ml100k_grouplens, _ml100k_mirror, _ml100k_recbole],
    "ml-20m": [_ml20m_grouplens, _ml20m_mirror],
    "netflix": [_netflix_manual],
    "msd": [_msd_web, _msd_mirror],
}
# what a reader that failed had tried (its FetchErrors say it themselves)
TRIED = {
    _ml100k_grouplens: f"{GROUPLENS}/ml-100k.zip",
    _ml100k_recbole: f"the recbole {RECBOLE_VERSION} wheel on PyPI (its copy of ML-100k)",
    _ml20m_grouplens: f"{GROUPLENS}/ml-20m.zip",
    _msd_web: "millionsongdataset.com and labrosa.ee.columbia.edu",
}
# dataset -> (archive URL, member): what to download by hand when no source could be read
BY_HAND = {
    "ml-100k": (f"{GROUPLENS}/ml-100k.zip", "ml-100k/u.data"),
    "ml-20m": (f"{GROUPLENS}/ml-20m.zip", "ml-20m/ratings.csv"),
}


def _why(e: BaseException) -> str:
    """An exception as a short one-line reason (a URLError's own reason, not its wrapper)."""
    reason = getattr(e, "reason", None) or e
    return " ".join(str(reason).split()) or type(e).__name__


def fetch(dataset: str, mirror: Path | None, manifest: Manifest,
          log: Callable[[str], None] = print) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Try each source of `dataset` in order; the first that reads wins. A source that is
    unreachable or absent passes to the next (`mirror` None: no data mirror configured); a
    file that differs from `manifest` stops the fetch (repro.core.manifest.DataError, one
    line). With none readable, FetchError (one line): what was tried, why each failed, and
    where to put the file by hand."""
    if dataset not in SOURCES:
        raise FetchError(f"unknown dataset {dataset!r}: allowed are {', '.join(SOURCES)}")
    errors = []
    for reader in SOURCES[dataset]:
        tried = TRIED.get(reader, reader.__name__)
        try:
            df, meta = reader(mirror, manifest)
        except FetchError as e:
            errors.append(str(e))
            continue
        except (OSError, KeyError, zipfile.BadZipFile, subprocess.SubprocessError,
                StopIteration, ValueError) as e:
            log(f"{dataset}: {tried} failed ({type(e).__name__}: {_why(e)})")
            errors.append(f"{tried}: {_why(e)}")
            continue
        if dataset == "ml-100k" and len(df) != ML100K_ROWS:
            errors.append(f"{tried}: {len(df)} rows, expected {ML100K_ROWS}")
            continue
        log(f"{dataset}: read {len(df):,} rows from {meta['source']}")
        return df[["user", "item", "value"]], meta
    msg = f"{dataset}: no source could be read (tried {'; '.join(errors)})"
    if dataset in BY_HAND:
        url, key = BY_HAND[dataset]
        msg += (f"; download {url} by hand, take {key} out of it, and "
                f"{put_it_there(key, mirror)}")
    raise FetchError(msg.replace("\n", " "))  # one line, whatever a reason held


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    mirror_arg(ap)
    a = ap.parse_args(argv)
    cfg = load_config(a.config, a.scale)
    log = get_logger("vaecf.fetch")
    from repro.core.manifest import Manifest

    try:
        if cfg.generator is not None:  # tiny: nothing is fetched
            df, meta = generated(a.dataset, cfg.generator)
            log.info(f"{a.dataset}: generated {len(df):,} ratings (tiny's stand-in, "
                     f"seed {cfg.generator.seed})")
        else:
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
