"""mcpmark initial states: the template databases and the filesystem templates.

    python -m repro.papers.mcpmark.data db --config config/papers/mcpmark.yaml --scale small \
        --name chinook --mirror ../shared/data --out data/mcpmark/small/db/chinook.sql
    python -m repro.papers.mcpmark.data templates --config ... --scale small \
        --out data/mcpmark/small/fs

Databases: below full, Chinook's plain-SQL dump from the offline mirror (the dump MCPMark's
chinook.backup was made from: neondatabase's postgres-sample-dbs), checked against
config/manifests/mcpmark.json. At full, every database the benchmark restores, downloaded from
the benchmark's own storage (storage.mcpmark.ai/postgres/<db>.backup, pg_restore custom format,
made with PostgreSQL 17: set REPRO_PG_BINDIR to a 17 server's binaries), or a plain dump where
the config names one. Filesystem templates: rebuilt by repro.papers.mcpmark.templates from the
config's seed (MCPMark's zips are not reachable offline; see templates/__init__.py).
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import sys
import urllib.request
from pathlib import Path

from repro.core.io import atomic_path, write_json
from repro.core.progress import job_footer
from repro.papers.mcpmark.settings import Database, load
from repro.papers.mcpmark.tasks import select


def needed_categories(task_names: list[str], services: list[str]) -> list[str]:
    return sorted({t.category for t in select(task_names, services) if t.service == "filesystem"})


def needed_databases(task_names: list[str], services: list[str]) -> list[str]:
    return sorted({t.meta.get("template_db", t.category) for t in select(task_names, services)
                   if t.service == "postgres" and t.meta.get("template_db", t.category)})


def fetch_db(name: str, db: Database, mirror: Path, out: Path, config: Path) -> dict:
    from repro.core.manifest import Manifest

    manifest = Manifest.for_config(config)
    key = f"{name}/{db.file}"
    if db.mirror and (mirror / db.mirror).exists():
        src, origin = mirror / db.mirror, "mirror"
        facts = manifest.verify(key, src)
        with atomic_path(out) as tmp:
            shutil.copyfile(src, tmp)
    elif db.url:
        origin = "download"
        print(f"mcpmark: downloading {db.url}", file=sys.stderr, flush=True)
        with atomic_path(out) as tmp:
            with urllib.request.urlopen(db.url, timeout=600) as r, open(tmp, "wb") as f:
                shutil.copyfileobj(r, f, 1 << 20)
            if db.gzip:
                raw = tmp.with_suffix(".gz")
                tmp.rename(raw)
                with gzip.open(raw) as g, open(tmp, "wb") as f:
                    shutil.copyfileobj(g, f, 1 << 20)
                raw.unlink()
            facts = manifest.verify(key, tmp, where=db.url)
        src = db.url
    else:
        raise SystemExit(f"mcpmark: database {name}: not in the mirror ({mirror / str(db.mirror)})"
                         " and no url configured")
    return {"database": name, "origin": origin, "source": str(src), **facts}


def main(argv: list[str] | None = None) -> None:
    job_footer()
    ap = argparse.ArgumentParser(description="mcpmark initial states")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p_db = sub.add_parser("db", parents=[_common()])
    p_db.add_argument("--name", required=True)
    p_db.add_argument("--mirror", type=Path, default=Path("../shared/data"))
    sub.add_parser("templates", parents=[_common()])
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if a.cmd == "db":
        if a.name not in cfg.databases:
            raise SystemExit(f"mcpmark: no database {a.name!r} in {a.config}; configured: "
                             f"{sorted(cfg.databases)}")
        info = fetch_db(a.name, cfg.databases[a.name], a.mirror, a.out, a.config)
        write_json(a.out.with_name(a.out.name + ".source.json"), info)
        print(f"mcpmark: {a.name} -> {a.out} ({info['origin']}, {info.get('size')} bytes)",
              file=sys.stderr)
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
