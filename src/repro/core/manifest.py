"""What every external data file should be: committed manifests, checked before a file is used.

Each paper that reads data from outside the repo (the data mirror, a registry package's data,
a download, the interpreter's standard library) has `src/repro/papers/<paper>/manifest.json`:

    {"paper": "rove",
     "files": {
       "math-eval/aime-2024-deepscaler.parquet": {
         "origin": "mirror",               # mirror | package | download | hub | manual | stdlib
         "source": "https://github.com/...",       # where the original comes from
         "scales": ["tiny", "full"],               # the scales whose fetch reads it
         "size": 16661, "sha256": "...",           # measured (md5 where that is what is published)
         "rows": 30, "columns": ["data_source", ...]}}}   # parquet; `lines` for text files

A fetch step calls `Manifest.verify(key, path)` (or `verify_bytes` for a download held in
memory, `verify_frame` for a table that never was one file, e.g. a hub dataset) before it
uses the file. Any difference (missing, truncated, another file in its place) stops the job
with one line: the file, what the manifest expects, what was found, and what to do. Fetch
outputs are written atomically after the checks, so a refused file leaves nothing behind.

Facts an entry does not record are not checked: files seen only at full scale keep what is
published about them (an md5, a row count, the columns the code needs); a file with no entry
at all is refused, and the error says how to record it once it is known to be the right one:

    python -m repro.core.manifest write <paper> <key> <path> [--origin mirror --source URL]
    python -m repro.core.manifest write reap --stdlib      # this interpreter's stdlib
    python -m repro.core.manifest check [<paper> ...]       # every entry against this machine

The standard-library corpus (reap) is recorded per Python version (`stdlib/<version>`: file
count, bytes, a digest over every .py file and one per top-level module, so an error names
the module that differs); a Python version with no entry is reported, not refused: the
corpus is defined as the running interpreter's, and the version is in the run's provenance.

Files are hashed streaming in 1 MiB blocks; the largest (ML-20M, MSD archives at full) take
about a second, once per fetch, so nothing is cached.

A check never changes a value: it passes, or the job stops. So neither this module nor the
manifests are rule inputs (fetch code imports it inside the fetch, not at module level):
recording a full-scale file, or editing a message here, must not rerun a paper's whole DAG.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repro.core.io import write_json

PAPERS_DIR = Path("src/repro/papers")  # in the checkout: each paper's folder holds its manifest


def manifest_path(paper: str, root: str | Path = ".") -> Path:
    """src/repro/papers/<paper>/manifest.json under `root`."""
    return Path(root) / PAPERS_DIR / paper / "manifest.json"
ORIGINS = ("mirror", "package", "download", "hub", "manual", "stdlib", "excerpt")
MEASURED = ("size", "sha256", "md5", "rows", "columns", "lines")
TEXT_SUFFIXES = (".csv", ".txt", ".data", ".inter", ".jsonl", ".tsv")
BLOCK = 1 << 20


class DataError(SystemExit):
    """A data file does not match its manifest (or has none); the message is one line."""

    def __init__(self, message: str):
        super().__init__(" ".join(message.split()))


# ----------------------------------------------------------------------------- facts
def _short(h: str) -> str:
    return h[:12] + "…"


def _is_text(name: str) -> bool:
    name = name.removesuffix(".gz")
    return name.endswith(TEXT_SUFFIXES)


def measure(src: Path | bytes, name: str, want: Iterable[str] = MEASURED) -> dict[str, Any]:
    """The facts of a file (a path) or of a download held in memory (bytes) that `want` asks
    for: size, sha256/md5 (streaming), parquet rows and columns, text lines (gzip or plain).
    A fact that cannot be read (a truncated parquet) is recorded as `unreadable`."""
    want = set(want)
    facts: dict[str, Any] = {}
    if isinstance(src, Path) and not src.is_file():
        return {"missing": True}
    hashers = {h: hashlib.new(h) for h in ("sha256", "md5") if h in want}
    lines = 0
    count_lines = "lines" in want and _is_text(name) and not name.endswith(".gz")
    size = 0
    stream = io.BytesIO(src) if isinstance(src, bytes) else open(src, "rb")  # noqa: SIM115
    with stream as f:
        while block := f.read(BLOCK):
            size += len(block)
            for h in hashers.values():
                h.update(block)
            if count_lines:
                lines += block.count(b"\n")
    facts["size"] = size
    facts.update({k: h.hexdigest() for k, h in hashers.items()})
    if count_lines:
        facts["lines"] = lines
    elif "lines" in want and _is_text(name):  # gzip-compressed text: count what it holds
        try:
            with gzip.open(io.BytesIO(src) if isinstance(src, bytes) else src, "rb") as g:
                facts["lines"] = sum(b.count(b"\n") for b in iter(lambda: g.read(BLOCK), b""))
        except (OSError, EOFError) as e:
            facts["unreadable"] = f"not a readable gzip file: {type(e).__name__}"
    if {"rows", "columns"} & want and name.endswith(".parquet"):
        try:
            import pyarrow.parquet as pq

            pf = pq.ParquetFile(io.BytesIO(src) if isinstance(src, bytes) else src)
            facts["rows"] = pf.metadata.num_rows
            facts["columns"] = list(pf.schema_arrow.names)
        except Exception as e:  # noqa: BLE001 - pyarrow raises several types for a bad file
            facts["unreadable"] = f"not a readable parquet file: {type(e).__name__}"
    return facts


def _show(k: str, v: Any) -> str:
    if v is None:
        return f"no {k}"
    if k == "size":
        return f"{v:,} bytes"
    if k in ("sha256", "md5"):
        return f"{k} {_short(v)}"
    if k in ("rows", "lines"):
        return f"{v:,} {k}"
    if k == "columns":
        return f"columns [{', '.join(map(str, v))}]"
    if k == "requires_columns":
        alts = v if v and isinstance(v[0], list) else [v]
        return "columns including " + " or ".join(f"[{', '.join(a)}]" for a in alts)
    return f"{k} {v}"


def differences(expected: Mapping[str, Any], found: Mapping[str, Any]) -> list[str]:
    """The checked keys on which `found` differs from `expected`."""
    bad = []
    for k in MEASURED:
        if expected.get(k) is not None and found.get(k) != expected[k]:
            bad.append(k)
    req = expected.get("requires_columns")
    if req:
        alts = req if isinstance(req[0], list) else [req]
        cols = set(found.get("columns") or ())
        if not any(set(a) <= cols for a in alts):
            bad.append("requires_columns")
    return bad


# ----------------------------------------------------------------------------- stdlib
def stdlib_root() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_key(version: str | None = None) -> str:
    return f"stdlib/{version or sys.version.split()[0]}"


def stdlib_files(root: Path) -> list[Path]:
    """Every .py file of the standard library at `root` (sorted; third-party dirs excluded):
    the corpus reap draws its documents from is a subset of these."""
    skip = {"site-packages", "dist-packages"}
    return sorted(p for p in root.rglob("*.py") if not skip & set(p.relative_to(root).parts))


def measure_stdlib(root: Path) -> dict[str, Any]:
    """files, size, sha256 over (relative path, content sha256) of every file, and per
    top-level module or package the same three as "<files> <bytes> <digest[:16]>" (`modules`:
    an error names the module that differs)."""
    total = hashlib.sha256()
    modules: dict[str, list[Any]] = {}
    n = size = 0
    for p in stdlib_files(root):
        rel = p.relative_to(root).as_posix()
        data = p.read_bytes()
        line = rel.encode() + b"\0" + hashlib.sha256(data).digest()
        total.update(line)
        top = rel.split("/", 1)[0]
        m = modules.setdefault(top, [0, 0, hashlib.sha256()])
        m[0] += 1
        m[1] += len(data)
        m[2].update(line)
        n += 1
        size += len(data)
    return {"files": n, "size": size, "sha256": total.hexdigest(),
            "modules": {k: f"{c} {s} {h.hexdigest()[:16]}" for k, (c, s, h) in modules.items()}}


# ----------------------------------------------------------------------------- manifests
@dataclass
class Manifest:
    """One paper's committed manifest (`src/repro/papers/<paper>/manifest.json`)."""

    paper: str
    path: Path
    files: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, paper: str, root: str | Path = ".") -> Manifest:
        return cls.read(paper, manifest_path(paper, root))

    @classmethod
    def read(cls, paper: str, path: Path) -> Manifest:
        """Paper `paper`'s manifest at `path`."""
        if not path.exists():
            raise DataError(f"no data manifest {path} for paper {paper}: record the files its "
                            f"fetch reads with `python -m repro.core.manifest write {paper} "
                            "<key> <path>`")
        files = json.loads(path.read_text()).get("files", {})
        return cls(paper, path, files)

    @classmethod
    def for_config(cls, config: str | Path) -> Manifest:
        """The manifest beside a paper's config (src/repro/papers/<id>/config.yaml ->
        manifest.json in the same folder; jobs are given their config's path, relative to the
        checkout they run in)."""
        config = Path(config)
        if config.name != "config.yaml":
            raise DataError(f"{config} is not a paper's config.yaml: no manifest beside it")
        return cls.read(config.parent.name, config.parent / "manifest.json")

    # ---------------------------------------------------------------- entries
    def entry(self, key: str, where: str | Path | None = None) -> dict[str, Any]:
        if key not in self.files:
            at = f" ({where})" if where else ""
            raise DataError(
                f"data file {key}{at} has no entry in {self.path}: nothing records what it "
                "should be. If it is the intended file, record it with `python -m "
                f"repro.core.manifest write {self.paper} {key} {where or '<path>'}` and commit "
                f"{self.path}")
        return self.files[key]

    def _todo(self, key: str, e: dict[str, Any], where: str) -> str:
        origin, source = e.get("origin"), e.get("source", "")
        record = (f"if the new file is intended, record it with `python -m repro.core.manifest "
                  f"write {self.paper} {key} {where}` and commit {self.path}")
        if origin == "mirror":
            return (f"restore the original ({source}) in the data mirror, or {record}"
                    if source else f"restore the original in the data mirror, or {record}")
        if origin == "package":
            return (f"reinstall {e.get('package', 'the package')} at the locked version "
                    "(bash scripts/setup.sh), or, if that version changed on purpose, rerun "
                    f"`python -m repro.core.manifest write {self.paper} {key} {where}`")
        if origin == "download":
            cached = f"delete the cached copy ({e['cache']}) and " if e.get("cache") else ""
            return (f"{cached}rerun the fetch to download it again from {source}; if the "
                    "upstream file changed, check it and record it with `python -m "
                    f"repro.core.manifest write {self.paper} {key} <path>`")
        if origin == "excerpt":
            return (f"restore the committed excerpt (git checkout -- {where}), or, if it was "
                    f"changed on purpose, {record}")
        if origin == "hub":
            return (f"check the dataset revision ({source}) and the copy in the mirror; "
                    f"{record}")
        return record

    def fail(self, key: str, where: str | Path, expected: Mapping[str, Any],
             found: Mapping[str, Any], bad: list[str]) -> DataError:
        e = self.files.get(key, {})
        shown = bad + [k for k in ("size", "sha256", "md5") if k not in bad
                       and expected.get(k) is not None][:1]
        exp = ", ".join(_show(k, expected.get(k)) for k in shown)
        if found.get("missing"):
            got = "no file"
        else:
            parts = [_show(k, found.get(k)) for k in shown
                     if k != "requires_columns" and found.get(k) is not None]
            if "requires_columns" in bad:
                parts.append(_show("columns", found.get("columns")))
            if found.get("unreadable"):
                parts.append(found["unreadable"])
            got = ", ".join(parts)
        return DataError(
            f"data file {where} ({key} in {self.path}) is not the recorded one: expected "
            f"{exp}; found {got}. What to do: {self._todo(key, e, str(where))}")

    # ---------------------------------------------------------------- checks
    def verify(self, key: str, path: str | Path, where: str | None = None) -> dict[str, Any]:
        """Check the file at `path` against entry `key`; return its measured facts (for the
        run's source.json) or raise DataError (one line; `where` names the file in it when
        `path` is a temporary copy, e.g. a download not yet in place)."""
        path = Path(path)
        where = where or str(path)
        e = self.entry(key, where)
        want = {k for k in MEASURED if e.get(k) is not None} | {"size", "sha256"}
        if e.get("requires_columns"):
            want.add("columns")
        found = measure(path, path.name, want)
        if found.get("missing"):
            raise self.fail(key, where, e, found, ["size"] if e.get("size") else [])
        bad = differences(e, found)
        if bad or found.get("unreadable"):
            raise self.fail(key, where, e, found, bad or ["size"])
        return found

    def verify_bytes(self, key: str, data: bytes, where: str) -> dict[str, Any]:
        """As `verify`, for a download held in memory (`where`: its URL)."""
        e = self.entry(key, where)
        want = {k for k in MEASURED if e.get(k) is not None} | {"size", "sha256"}
        if e.get("requires_columns"):
            want.add("columns")
        found = measure(data, key, want)
        bad = differences(e, found)
        if bad or found.get("unreadable"):
            raise self.fail(key, where, e, found, bad or ["size"])
        return found

    def verify_frame(self, key: str, frame: Any, where: str) -> dict[str, Any]:
        """A table that was never one file (a hub dataset, a parsed archive member): its row
        count and columns against entry `key`."""
        return self.verify_table(key, len(frame), list(frame.columns), where)

    def verify_table(self, key: str, rows: int, columns: list[Any], where: str
                     ) -> dict[str, Any]:
        """As `verify_frame`, from the row count and column names."""
        e = self.entry(key, where)
        found = {"rows": rows, "columns": [str(c) for c in columns]}
        bad = [k for k in differences(e, found) if k not in ("size", "sha256", "md5", "lines")]
        if bad:
            raise self.fail(key, where, e, found, bad)
        return found

    def verify_stdlib(self, root: Path | None = None) -> dict[str, Any]:
        """This interpreter's standard library against `stdlib/<version>`. Returns the measured
        facts plus `recorded` (False when the version has no entry: reported, not refused)."""
        root = root or stdlib_root()
        key = stdlib_key()
        found = measure_stdlib(root)
        e = self.files.get(key)
        if e is None:
            return {**found, "recorded": False, "key": key}
        bad = [k for k in ("files", "size", "sha256") if e.get(k) != found[k]]
        if bad:
            mods = e.get("modules", {})
            diff = sorted(k for k in {*mods, *found["modules"]}
                          if mods.get(k) != found["modules"].get(k))

            def mod(m: dict[str, str], k: str) -> str:
                if k not in m:
                    return f"{k}: absent"
                files, size, digest = m[k].split()
                n = f"{files} file" + ("s" if files != "1" else "")
                return f"{k}: {n}, {int(size):,} bytes, {_short(digest)}"

            which = "; ".join(mod(mods, k) for k in diff[:3]) or "?"
            got = "; ".join(mod(found["modules"], k) for k in diff[:3]) or "?"
            raise DataError(
                f"data file {root} (the standard library, {key} in {self.path}) is not the "
                f"recorded one: {len(diff)} module(s) differ, first {', '.join(diff[:3])}: "
                f"expected {which} ({e['files']} files, {e['size']:,} bytes in all); found "
                f"{got} ({found['files']} files, {found['size']:,} bytes). What to do: "
                f"reinstall Python {key.split('/', 1)[1]} (its standard library was changed), "
                "or, if this library is intended, record it with `python -m "
                f"repro.core.manifest write {self.paper} --stdlib` and commit {self.path}")
        return {**found, "recorded": True, "key": key}

    # ---------------------------------------------------------------- recording
    def record(self, key: str, path: Path, **fields: Any) -> dict[str, Any]:
        """Measure `path` into entry `key`, keeping the entry's hand-written fields (origin,
        source, scales, note, requires_columns) unless `fields` overrides them."""
        e = dict(self.files.get(key, {}))
        e.update({k: v for k, v in fields.items() if v is not None})
        if key.startswith("stdlib/"):
            e.update(measure_stdlib(path), origin="stdlib")
        else:
            # where the publisher gives an md5, keep recording it beside the sha256
            keep_md5 = "md5" in e or "md5" in fields.get("hashes", ())
            found = measure(path, path.name, [k for k in MEASURED if k != "md5" or keep_md5])
            if found.get("missing"):
                raise DataError(f"cannot record {key}: {path} does not exist")
            if found.get("unreadable"):
                raise DataError(f"cannot record {key}: {path} is {found['unreadable']}")
            for k in MEASURED:
                e.pop(k, None)
            e.update({k: v for k, v in found.items() if k in MEASURED})
        e.pop("hashes", None)
        if e.get("origin") not in ORIGINS:
            raise DataError(f"entry {key}: origin must be one of {', '.join(ORIGINS)} "
                            "(--origin)")
        self.files[key] = e
        return e

    def save(self) -> None:
        write_json(self.path, {"paper": self.paper, "files": self.files})

    # ---------------------------------------------------------------- this machine
    def locate(self, key: str, mirror: Path | None) -> Path | None:
        """Where entry `key` lives on this machine (None: only fetched at run time, or a
        standard library of another Python version); a download's copy in the data mirror
        where one is given."""
        e = self.files[key]
        origin = e.get("origin")
        if origin in ("mirror", "download") and mirror is not None and (mirror / key).exists():
            return mirror / key
        if origin == "mirror":
            return None
        if origin == "package":
            return package_file(e["module"], e["member"])
        if origin == "stdlib":
            return stdlib_root() if key == stdlib_key() else None
        if origin == "download" and e.get("cache"):
            return Path(e["cache"])
        if origin == "excerpt":  # committed beside the paper's code (repro.core.fetch.excerpt)
            from repro.core.fetch import PAPERS_DIR

            return PAPERS_DIR / self.paper / "excerpts" / key.removeprefix("excerpt/")
        return None


def package_file(module: str, member: str) -> Path:
    """A data file shipped inside an installed package (e.g. sklearn's digits)."""
    from importlib import resources

    return Path(str(resources.files(module) / member))


def papers_with_manifests(root: str | Path = ".") -> list[str]:
    return sorted(p.parent.name for p in (Path(root) / PAPERS_DIR).glob("*/manifest.json"))


def check_machine(papers: list[str], mirror: Path | None, root: str | Path = "."
                  ) -> tuple[list[str], list[str]]:
    """Verify every entry whose file is present on this machine; (checked, skipped) keys."""
    checked, skipped = [], []
    for paper in papers:
        m = Manifest.load(paper, root)
        for key, e in sorted(m.files.items()):
            where = m.locate(key, mirror)
            if e.get("origin") == "stdlib":
                if where is None:
                    skipped.append(f"{paper}:{key}")
                    continue
                m.verify_stdlib(where)
            elif where is None or not where.exists():
                skipped.append(f"{paper}:{key}")
                continue
            else:
                m.verify(key, where)
            checked.append(f"{paper}:{key}")
    return checked, skipped


# ----------------------------------------------------------------------------- CLI
def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Record or check the data manifests")
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="(re)write one entry from a file")
    w.add_argument("paper")
    w.add_argument("key", nargs="?")
    w.add_argument("path", nargs="?", type=Path)
    w.add_argument("--stdlib", action="store_true", help="record this interpreter's stdlib")
    w.add_argument("--origin", choices=ORIGINS)
    w.add_argument("--source")
    w.add_argument("--scales", help="comma-separated")
    w.add_argument("--md5", action="store_true", help="also record the md5")
    w.add_argument("--root", default=".")
    c = sub.add_parser("check", help="verify every entry present on this machine")
    c.add_argument("papers", nargs="*")
    c.add_argument("--mirror", type=Path, default=None,
                   help="an offline copy of the data (data_mirror) to check too")
    c.add_argument("--root", default=".")
    a = ap.parse_args(argv)
    if a.cmd == "write":
        path = manifest_path(a.paper, a.root)
        m = Manifest.read(a.paper, path) if path.exists() else Manifest(a.paper, path)
        if a.stdlib:
            key, src = stdlib_key(), stdlib_root()
        elif a.key and a.path:
            key, src = a.key, a.path
        else:
            raise SystemExit("write needs <key> <path>, or --stdlib")
        e = m.record(key, src, origin=a.origin, source=a.source,
                     scales=a.scales.split(",") if a.scales else None,
                     hashes=("md5",) if a.md5 else ())
        m.save()
        print(f"{m.path}: {key}: " + ", ".join(
            _show(k, e[k]) for k in ("size", "sha256", "rows", "lines", "files") if k in e))
    else:
        papers = a.papers or papers_with_manifests(a.root)
        checked, skipped = check_machine(papers, a.mirror, a.root)
        print(f"{len(checked)} entries match; {len(skipped)} not on this machine"
              + (f" ({', '.join(skipped)})" if skipped else ""))


if __name__ == "__main__":
    main()
