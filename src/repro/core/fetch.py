"""One way to get a public data file: a committed excerpt at tiny, the canonical URL above it.

    path, where = obtain(manifest, "multijail/MultiJail.csv", url, mirror=mirror,
                         cache=Path("data/mlc/raw"))

Sources, in order, each checked against the paper's manifest (repro.core.manifest) before use:

1. the cache (`<cache>/<key>`): a file an earlier run downloaded;
2. the data mirror (`<data_mirror>/<key>`), where one is configured: an optional offline copy of
   the public files, for machines without internet; never needed where the URL is reachable;
3. the canonical URL: streamed to `<cache>/.download/<key>.part` (an interrupted download
   resumes with an HTTP Range request), checked, then renamed into place, so the cache never
   holds a bad file.

A machine that can reach none of them gets one line (DataError): the file, its URL, why the
download failed, and where to put the file by hand (`--config data_mirror=<dir>`).

`tiny` never downloads: `excerpt(paper, key)` is a small excerpt of the same file committed in
the paper's folder (`src/repro/papers/<id>/excerpts/<key>`, with its source and licence in
`excerpts/SOURCE.md`), recorded in the manifest as `excerpt/<key>`, so a fresh clone runs its
tiny DAGs and tests with nothing beside it.

Tests point downloads at a closed port (`offline_env`) to check the offline line for real.
"""

from __future__ import annotations

import argparse
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: a manifest check is not a rule input (core.manifest)
    from repro.core.manifest import Manifest

PAPERS_DIR = Path(__file__).resolve().parents[1] / "papers"
BLOCK = 1 << 20
NO_MIRROR = Path("<data_mirror>")  # where a fetch that predates `obtain` looks without one
OFFLINE_PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens, every request fails


def mirror_arg(ap: argparse.ArgumentParser) -> None:
    """The `--mirror` option of a fetch job: the optional offline copy (`data_mirror`);
    an empty value (the default config) means none."""
    ap.add_argument("--mirror", type=lambda s: Path(s) if s else None, default=None,
                    help="optional offline copy of the public data (<mirror>/<key>)")


def excerpt(paper: str, key: str, manifest: Manifest | None = None) -> Path:
    """The committed tiny excerpt of data file `key`, checked against its manifest entry
    (`excerpt/<key>`): tiny runs read only files in the repository."""
    from repro.core.manifest import Manifest

    manifest = manifest or Manifest.load(paper, PAPERS_DIR.parents[2])
    path = manifest.locate(f"excerpt/{key}", None)
    manifest.verify(f"excerpt/{key}", path)
    return path


def put_it_there(key: str, mirror: Path | None) -> str:
    """Where a file can be put by hand, said the same way by every paper."""
    if mirror is not None:
        return f"put the file at {mirror / key} (the data mirror configured)"
    return (f"put the file at <dir>/{key} and rerun with --config data_mirror=<dir> "
            "(an optional offline copy of the data)")


def _download(url: str, dest: Path, timeout: float) -> None:
    """Stream `url` to `dest` (resuming a `.part` left by an interrupted run); a line of
    progress every few seconds for large files."""
    from repro.core.progress import get_logger

    log = get_logger("fetch")
    part = dest.with_name(dest.name + ".part")
    part.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    req = urllib.request.Request(url, headers={"User-Agent": "papers-repro"})
    if have:
        req.add_header("Range", f"bytes={have}-")
    with urllib.request.urlopen(req, timeout=timeout) as r:  # noqa: S310 - a configured URL
        resumed = have and r.status == 206
        total = int(r.headers.get("Content-Length") or 0) + (have if resumed else 0)
        done, last = (have if resumed else 0), time.monotonic()
        with open(part, "ab" if resumed else "wb") as f:
            while block := r.read(BLOCK):
                f.write(block)
                done += len(block)
                if time.monotonic() - last > 5:
                    last = time.monotonic()
                    log.info("%s: %.1f of %s MB", dest.name, done / 1e6,
                             f"{total / 1e6:.1f}" if total else "?")
    os.replace(part, dest)


def obtain(manifest: Manifest, key: str, url: str | None = None, *, mirror: Path | None,
           cache: Path, timeout: float = 60.0) -> tuple[Path, str]:
    """Data file `key` of the manifest's paper as (path, where it came from): the cache, the
    mirror, else a download from `url` (the paper's setting), each checked against the
    manifest. Offline, one line says which file, from where, and where to put it."""
    from repro.core.manifest import DataError

    manifest.entry(key)  # a file with no entry is refused before anything is read
    cached = cache / key
    if cached.exists():
        manifest.verify(key, cached)
        return cached, f"cache {cached} (from {url or 'the mirror'})"
    if mirror is not None and (mirror / key).exists():
        manifest.verify(key, mirror / key)
        return mirror / key, f"mirror {mirror / key}"
    if not url:
        raise DataError(f"{manifest.paper}: data file {key} has no URL in its settings and is "
                        f"not in the data mirror: {put_it_there(key, mirror)}")
    tmp = cache / ".download" / key  # same name (its suffix tells how to measure it)
    try:
        _download(url, tmp, timeout)
    except (OSError, urllib.error.URLError) as e:
        reason = getattr(e, "reason", None) or e
        raise DataError(f"{manifest.paper}: could not download data file {key} from {url} "
                        f"({reason}); {put_it_there(key, mirror)}") from None
    try:
        manifest.verify(key, tmp, where=f"{url} (downloaded)")
    except DataError:
        tmp.unlink(missing_ok=True)
        raise
    cached.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, cached)
    return cached, f"download {url}"


def data_file(manifest: Manifest, key: str, scale: str, *, mirror: Path | None, cache: Path,
              url: str | None = None) -> tuple[Path, str]:
    """Data file `key` at `scale` as (path, where it came from): the committed excerpt at tiny,
    else `obtain` (cache, data mirror, URL)."""
    if scale == "tiny":
        path = excerpt(manifest.paper, key, manifest)
        shown = path.relative_to(PAPERS_DIR.parents[2])  # the same in every checkout
        return path, f"excerpt {shown} ({manifest.entry(f'excerpt/{key}')['source']})"
    return obtain(manifest, key, url, mirror=mirror, cache=cache)


def offline_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """An environment in which every HTTP(S) download fails at once (a proxy on a closed
    loopback port, hub libraries offline), loopback itself still reachable: how the tests
    check the offline message without a network."""
    env = dict(os.environ if env is None else env)
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        env[var] = OFFLINE_PROXY
    env["no_proxy"] = env["NO_PROXY"] = "localhost,127.0.0.1,::1"
    env["HF_HUB_OFFLINE"] = env["HF_DATASETS_OFFLINE"] = "1"
    return env
