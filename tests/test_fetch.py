"""repro.core.fetch against a real HTTP server on loopback: a download is checked before it is
cached, resumes after an interruption, a mirror copy is used when there is one, and with no
network the fetch ends in one line that names the file, its URL and where to put it."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from pathlib import Path

import pytest

from repro.core import fetch
from repro.core.manifest import DataError, Manifest

BODY = b"".join(b"%06d,%d\n" % (i, i * i % 97) for i in range(30_000))  # 240 kB of rows
KEY = "demo/table.csv"


class _Files(http.server.BaseHTTPRequestHandler):
    """Serves BODY at /table.csv (with Range support, as GitHub's raw host has), a different
    file at /other.csv, and counts requests."""

    hits: list[str] = []

    def do_GET(self):  # noqa: N802 - the stdlib's name
        type(self).hits.append(self.headers.get("Range") or "full")
        body = BODY if self.path == "/table.csv" else BODY[:1000]
        start = 0
        rng = self.headers.get("Range")
        if rng and self.path == "/table.csv":
            start = int(rng.removeprefix("bytes=").split("-")[0])
            self.send_response(206)
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        self.wfile.write(body[start:])

    def log_message(self, *a):
        pass


@pytest.fixture
def server():
    _Files.hits = []
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


@pytest.fixture
def manifest(tmp_path) -> Manifest:
    path = tmp_path / "src/repro/papers/demo/manifest.json"
    path.parent.mkdir(parents=True)
    entry = {"origin": "download", "source": "a test", "size": len(BODY),
             "sha256": hashlib.sha256(BODY).hexdigest(), "lines": 30_000}
    path.write_text(json.dumps({"paper": "demo", "files": {KEY: entry}}))
    return Manifest.load("demo", tmp_path)


def test_download_is_checked_cached_and_reused(server, manifest, tmp_path):
    cache = tmp_path / "cache"
    path, where = fetch.obtain(manifest, KEY, f"{server}/table.csv", mirror=None, cache=cache)
    assert path == cache / KEY and path.read_bytes() == BODY
    assert where == f"download {server}/table.csv"
    again, where = fetch.obtain(manifest, KEY, f"{server}/table.csv", mirror=None, cache=cache)
    assert again == path and where.startswith("cache ") and _Files.hits == ["full"]
    assert sorted(p.name for p in path.parent.iterdir()) == ["table.csv"]  # no temporary left


def test_a_wrong_download_is_refused_and_nothing_is_cached(server, manifest, tmp_path):
    cache = tmp_path / "cache"
    with pytest.raises(DataError) as err:
        fetch.obtain(manifest, KEY, f"{server}/other.csv", mirror=None, cache=cache)
    msg = str(err.value)
    assert "\n" not in msg and f"{server}/other.csv (downloaded)" in msg
    assert f"expected {len(BODY):,} bytes" in msg and "found 1,000 bytes" in msg
    assert not any(p.is_file() for p in cache.rglob("*"))


def test_an_interrupted_download_resumes_where_it_stopped(server, manifest, tmp_path):
    cache = tmp_path / "cache"
    part = cache / ".download" / (KEY + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(BODY[:100_000])  # what a killed run left
    path, _ = fetch.obtain(manifest, KEY, f"{server}/table.csv", mirror=None, cache=cache)
    assert path.read_bytes() == BODY and _Files.hits == ["bytes=100000-"]
    assert not part.exists()


def test_the_mirror_copy_is_used_and_checked(manifest, tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / KEY).parent.mkdir(parents=True)
    (mirror / KEY).write_bytes(BODY)
    url = f"{fetch.OFFLINE_PROXY}/never-asked.csv"
    path, where = fetch.obtain(manifest, KEY, url, mirror=mirror, cache=tmp_path / "cache")
    assert path == mirror / KEY and where == f"mirror {mirror / KEY}"
    (mirror / KEY).write_bytes(BODY[:-7])  # a damaged copy stops the fetch (no fallback)
    with pytest.raises(DataError, match="is not the recorded one"):
        fetch.obtain(manifest, KEY, url, mirror=mirror, cache=tmp_path / "cache")


def test_offline_is_one_line_naming_the_file_its_url_and_where_to_put_it(manifest, tmp_path):
    url = f"{fetch.OFFLINE_PROXY}/table.csv"  # nothing listens on the discard port
    with pytest.raises(DataError) as err:
        fetch.obtain(manifest, KEY, url, mirror=None, cache=tmp_path / "cache")
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"demo: could not download data file {KEY} from {url} (")
    assert msg.endswith(f"put the file at <dir>/{KEY} and rerun with --config "
                        "data_mirror=<dir> (an optional offline copy of the data)")
    with pytest.raises(DataError) as err:  # a configured mirror without the file: named
        fetch.obtain(manifest, KEY, url, mirror=tmp_path / "m", cache=tmp_path / "cache")
    assert str(err.value).endswith(f"put the file at {tmp_path / 'm' / KEY} (the data mirror "
                                   "configured)")


def test_tiny_reads_the_committed_excerpt_never_the_url(manifest):
    m = Manifest.load("mlc", Path(__file__).resolve().parents[1])
    path, where = fetch.data_file(m, "multijail/MultiJail.csv", "tiny", mirror=None,
                                  cache=Path("/nonexistent"), url=fetch.OFFLINE_PROXY)
    assert path == fetch.PAPERS_DIR / "mlc/excerpts/multijail/MultiJail.csv"
    assert where.startswith("excerpt ") and "first 80 prompts" in where
