"""mcpmark initial states: the template databases and the filesystem templates.

    python -m repro.papers.mcpmark.data db --config src/repro/papers/mcpmark/config.yaml \
        --scale small \
        --name chinook --out data/mcpmark/small/db/chinook.sql
    python -m repro.papers.mcpmark.data templates --config ... --scale small \
        --out data/mcpmark/small/fs
    python -m repro.papers.mcpmark.data suite --config ... --scale full \
        --out data/mcpmark/full/suite

Databases: below full, Chinook's plain-SQL dump (the dump MCPMark's chinook.backup was made
from: neondatabase's postgres-sample-dbs, downloaded at a pinned commit or read from the
optional data mirror; tiny restores a committed excerpt of it), checked against
the paper's manifest.json. At full, every database the benchmark restores, downloaded from
the benchmark's own storage (storage.mcpmark.ai/postgres/<db>.backup, pg_restore custom format,
made with PostgreSQL 17: set REPRO_PG_BINDIR to a 17 server's binaries), or a plain dump where
the config names one. Filesystem templates: rebuilt by repro.papers.mcpmark.templates from the
config's seed (MCPMark's zips are not reachable offline; see templates/__init__.py); with the
official suite (full), MCPMark's own zips (storage.mcpmark.ai/filesystem/<category>.zip),
unpacked with their files' modification times, as the benchmark's `unzip` keeps them (one task
sorts files by them). The official suite: MCPMark's task folders (description.md, verify.py,
meta.json and their data) from the repository's tarball at the pinned commit.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import struct
import sys
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

from repro.core.io import atomic_path, write_json
from repro.core.progress import job_footer
from repro.papers.mcpmark.settings import Database, Suite, load
from repro.papers.mcpmark.tasks import select


def needed_categories(task_names: list[str], services: list[str]) -> list[str]:
    return sorted({t.category for t in select(task_names, services) if t.service == "filesystem"})


def fetch_db(name: str, db: Database, scale: str, mirror: Path | None, out: Path,
             config: Path) -> dict:
    """A template database's dump into `out`: at tiny the committed Chinook excerpt, above it
    the configured URL (or the download cache, or the optional data mirror), checked against
    the manifest (key `<name>/<file>`) before it is copied into place."""
    from repro.core.fetch import data_file
    from repro.core.manifest import Manifest

    manifest = Manifest.for_config(config)
    key = f"{name}/{db.file}"
    src, where = data_file(manifest, key, scale, mirror=mirror, cache=out.parent / "raw",
                           url=db.url)
    with atomic_path(out) as tmp:
        shutil.copyfile(src, tmp)
    facts = manifest.verify(f"excerpt/{key}" if scale == "tiny" else key, out)
    return {"database": name, "origin": where.split()[0], "source": where, **facts}


def download(url: str, out: Path) -> dict:
    """A file from `url` to `out` (atomically), with its size and sha256."""
    print(f"mcpmark: downloading {url}", file=sys.stderr, flush=True)
    h, size = hashlib.sha256(), 0
    with atomic_path(out) as tmp:
        with urllib.request.urlopen(url, timeout=600) as r, open(tmp, "wb") as f:
            while chunk := r.read(1 << 20):
                f.write(chunk)
                h.update(chunk)
                size += len(chunk)
    return {"url": url, "size": size, "sha256": h.hexdigest()}


def zip_mtime(info: zipfile.ZipInfo) -> float:
    """A member's modification time as unzip sets it: the extended-timestamp field (0x5455,
    UTC seconds) where the archive has one, else the DOS time read as local time."""
    extra, i = info.extra, 0
    while i + 4 <= len(extra):
        tag, n = struct.unpack_from("<HH", extra, i)
        if tag == 0x5455 and n >= 5 and extra[i + 4] & 1:
            return float(struct.unpack_from("<i", extra, i + 5)[0])
        i += 4 + n
    return time.mktime((*info.date_time, 0, 0, -1))


def unzip(archive: Path, dest: Path) -> list[str]:
    """Extract like MCPMark's `unzip -o` (members kept inside dest, __MACOSX dropped), then set
    every member's mtime, deepest first so a folder's own time is not reset by its children.
    Returns the top-level names."""
    with zipfile.ZipFile(archive) as zf:
        members = [m for m in zf.infolist() if not m.filename.startswith("__MACOSX")]
        for m in members:
            zf.extract(m, dest)
        for m in sorted(members, key=lambda m: -m.filename.rstrip("/").count("/")):
            t = zip_mtime(m)
            os.utime(dest / m.filename, (t, t))
    return sorted({m.filename.split("/", 1)[0] for m in members})


def official_templates(suite: Suite, out: Path, config: Path) -> list[dict]:
    """MCPMark's own filesystem templates: one zip per category, unpacked to out/<category>/."""
    from repro.core.manifest import Manifest

    manifest, info = Manifest.for_config(config), []
    for cat in suite.categories:
        url = suite.template_url.format(category=cat)
        z = out / f".{cat}.zip"
        got = download(url, z)
        manifest.verify(f"filesystem/{cat}.zip", z, where=url)
        tops = unzip(z, out)
        z.unlink()
        if not (out / cat).is_dir():
            raise SystemExit(f"mcpmark: {url} holds {tops}, not a top-level {cat}/ folder")
        info.append({"category": cat, **got})
        print(f"mcpmark: template {cat} ({got['size']} bytes)", file=sys.stderr, flush=True)
    return info


def fetch_suite(suite: Suite, services: list[str], out: Path, config: Path) -> dict:
    """MCPMark's task folders at the pinned commit: tasks/<service>/... of the tarball, to
    out/tasks/<service>/ (our task discovery reads the same layout)."""
    from repro.core.manifest import Manifest

    url = suite.url.format(repo=suite.repo, commit=suite.commit)
    with atomic_path(out) as tmp:
        tmp.mkdir(parents=True)
        tarball = tmp / "suite.tar.gz"
        got = download(url, tarball)
        Manifest.for_config(config).verify(f"suite/{suite.repo.replace('/', '+')}.tar.gz",
                                           tarball, where=url)
        counts = {}
        with tarfile.open(tarball) as tf:
            members = tf.getmembers()
            top = members[0].name.split("/", 1)[0]
            for service in services:
                prefix = f"{top}/tasks/{service}/"
                picked = [m for m in members if m.name.startswith(prefix)]
                if not picked:
                    raise SystemExit(f"mcpmark: {url} has no tasks/{service}/ (commit "
                                     f"{suite.commit}: the paper-era layout is "
                                     "tasks/<service>/<category>/<task>)")
                for m in picked:
                    m.name = m.name[len(top) + 1:]
                # the "data" filter (no links out, no device files) exists from Python 3.11.4
                safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                tf.extractall(tmp, members=picked, **safe)
                counts[service] = sum(1 for m in picked if m.name.endswith("/verify.py"))
        tarball.unlink()
        write_json(tmp / "suite.json", {"repo": suite.repo, "commit": suite.commit,
                                        "tarball": got, "verifiers": counts})
    return counts


def main(argv: list[str] | None = None) -> None:
    job_footer()
    ap = argparse.ArgumentParser(description="mcpmark initial states")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p_db = sub.add_parser("db", parents=[_common()])
    p_db.add_argument("--name", required=True)
    from repro.core.fetch import mirror_arg  # fetch code: imported where the job runs

    mirror_arg(p_db)
    sub.add_parser("templates", parents=[_common()])
    sub.add_parser("suite", parents=[_common()])
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if a.cmd == "db":
        if a.name not in cfg.databases:
            raise SystemExit(f"mcpmark: no database {a.name!r} in {a.config}; configured: "
                             f"{sorted(cfg.databases)}")
        info = fetch_db(a.name, cfg.databases[a.name], a.scale, a.mirror, a.out, a.config)
        write_json(a.out.with_name(a.out.name + ".source.json"), info)
        print(f"mcpmark: {a.name} -> {a.out} ({info['origin']}, {info.get('size')} bytes)",
              file=sys.stderr)
        return
    if a.cmd == "suite":
        if cfg.suite.source != "official":
            raise SystemExit(f"mcpmark: {a.config} (scale {a.scale}) uses our tasks; only the "
                             "official suite is fetched")
        counts = fetch_suite(cfg.suite, cfg.services, a.out, a.config)
        print(f"mcpmark: {cfg.suite.repo}@{cfg.suite.commit}: {counts}", file=sys.stderr)
        return
    if cfg.suite.source == "official":
        with atomic_path(a.out) as tmp:
            tmp.mkdir(parents=True)
            info = official_templates(cfg.suite, tmp, a.config)
            write_json(tmp / "templates.json", {"source": "official", "zips": info})
        return
    from repro.papers.mcpmark import templates

    cats = needed_categories(cfg.tasks, cfg.services)
    with atomic_path(a.out) as tmp:
        tmp.mkdir(parents=True)
        for cat in cats:
            templates.build(cat, tmp, cfg.templates.seed)
            print(f"mcpmark: template {cat} (seed {cfg.templates.seed})", file=sys.stderr)
        write_json(tmp / "templates.json", {"seed": cfg.templates.seed, "categories": cats})


def _common() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--config", required=True, type=Path)
    p.add_argument("--scale", required=True, choices=["tiny", "small", "full"])
    p.add_argument("--out", required=True, type=Path)
    return p


if __name__ == "__main__":
    main()
