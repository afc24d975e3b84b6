"""REAP data: a real corpus that exists offline, a byte tokenizer, splits and function prefixes.

Code is the running interpreter's CPython standard library (`sysconfig.get_paths()["stdlib"]`,
files sorted, `pydoc_data` and the configured directories excluded); prose is the English text
of the Python reference manual that the stdlib ships as `pydoc_data.topics.topics`. Every
document goes to train / calib / heldout by a hash of its name, so the split does not depend on
file order or content and calibration never sees evaluation text.

Held-out code also yields the generation prompts: a function's signature and docstring (plus
its first body line), after some preceding file context; the model continues greedily.

At `full` the calibration set is the paper's (theblackcat102/evol-codealpaca-v1 from the
hub, read from the mirror when present) and the hub checkpoint is fetched into the HF cache.

Data manifest (`src/repro/papers/reap/manifest.json`, repro.core.manifest): the standard library is
checked before it is read against its entry for the running Python version (file count, bytes,
a digest per top-level module); a version with no entry is reported in the log and in
source.json, not refused (the corpus is the running interpreter's by definition). The
calibration rows must have the columns the code reads.

    python -m repro.papers.reap.data --config src/repro/papers/reap/config.yaml --scale small \
        --out data/reap/small
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger
from repro.core.tokenizers import ByteTokenizer
from repro.papers.reap.settings import CalibrationConfig, DataConfig, PrefixConfig, load

if TYPE_CHECKING:
    from repro.core.manifest import Manifest

log = get_logger("reap.data")


# ----------------------------------------------------------------------------- tokenizer
SPECIALS = ("<pad>", "<bos>", "<eos>")  # ids 256, 257, 258 after the bytes (vocab 259)


def tokenizer() -> ByteTokenizer:
    """REAP's byte tokenizer: UTF-8 bytes are ids 0..255 and the specials follow, the layout
    every REAP checkpoint was trained with."""
    return ByteTokenizer(SPECIALS, specials_first=False)


# ----------------------------------------------------------------------------- corpus
def split_of(name: str, fractions: dict[str, float]) -> str:
    """Deterministic split by a hash of the document's name (sha256, first 8 hex digits)."""
    u = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) / 16**8
    acc = 0.0
    for split, frac in fractions.items():
        acc += float(frac)
        if u < acc:
            return split
    return list(fractions)[-1]


def stdlib_root() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_docs(root: Path, exclude_dirs: Sequence[str], max_files: int = 0,
                max_file_bytes: int = 0) -> list[dict[str, str]]:
    """The stdlib's .py files (sorted by relative path) as {name, kind, text} documents."""
    excluded = {*exclude_dirs, "pydoc_data", "site-packages"}
    files = sorted(
        p for p in root.rglob("*.py")
        if not excluded & set(p.relative_to(root).parts[:-1])
    )
    docs = []
    for p in files:
        if max_file_bytes and p.stat().st_size > max_file_bytes:
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        docs.append({"name": p.relative_to(root).as_posix(), "kind": "code", "text": text})
        if max_files and len(docs) >= max_files:
            break
    return docs


def prose_docs(max_docs: int = 0) -> list[dict[str, str]]:
    """The reference manual's topics (English prose with some grammar snippets), sorted."""
    from pydoc_data.topics import topics

    names = sorted(topics)[: max_docs or None]
    return [{"name": f"pydoc_topics/{k}", "kind": "prose", "text": topics[k]} for k in names]


def build_docs(data: DataConfig) -> list[dict[str, str]]:
    """Every document with its split (train / calib / heldout)."""
    root = stdlib_root()
    docs = stdlib_docs(root, data.exclude_dirs, data.max_files, data.max_file_bytes)
    docs += prose_docs(data.max_prose_docs)
    for d in docs:
        d["split"] = split_of(d["name"], data.splits)
    return docs


def read_docs(path: str | Path, split: str | None = None, kind: str | None = None
              ) -> list[dict[str, str]]:
    out = []
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if (split is None or d["split"] == split) and (kind is None or d["kind"] == kind):
                out.append(d)
    return out


def stream(docs: Sequence[dict[str, str]], tok: Any) -> np.ndarray:
    """All documents' token ids, each followed by eos, as one int64 array."""
    parts = []
    for d in docs:
        parts.append(np.asarray(tok.encode(d["text"]), dtype=np.int64))
        parts.append(np.asarray([tok.eos_id], dtype=np.int64))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def random_windows(ids: np.ndarray, n: int, seq_len: int, rng: np.random.Generator) -> np.ndarray:
    """`n` windows of `seq_len` tokens at random offsets (calibration and training samples)."""
    if len(ids) <= seq_len:
        raise SystemExit(f"corpus has {len(ids)} tokens, fewer than one window of {seq_len}")
    starts = rng.integers(0, len(ids) - seq_len, size=n)
    return np.stack([ids[s: s + seq_len] for s in starts])


def even_windows(ids: np.ndarray, n: int, seq_len: int) -> np.ndarray:
    """`n` windows evenly spread over the stream (a fixed evaluation set)."""
    if len(ids) <= seq_len:
        raise SystemExit(f"held-out split has {len(ids)} tokens, fewer than one window")
    starts = np.linspace(0, len(ids) - seq_len - 1, num=n).astype(np.int64)
    return np.stack([ids[s: s + seq_len] for s in starts])


# ----------------------------------------------------------------------------- prefixes
def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _strip_indent(text: str, indent: int) -> str:
    """Remove `indent` leading blanks from each line that has them (a method -> module level)."""
    out = []
    for ln in text.split("\n"):
        k = min(indent, _indent(ln))
        out.append(ln[k:])
    return "\n".join(out)


def parses(function_text: str) -> bool:
    """Does the (dedented) function parse, as is or closed by a `pass` under its last line?"""
    try:
        ast.parse(function_text)
        return True
    except (SyntaxError, ValueError):
        pass
    lines = [ln for ln in function_text.split("\n") if ln.strip()]
    if not lines:
        return False
    closing = " " * (_indent(lines[-1]) + 4) + "pass\n"
    try:
        ast.parse(function_text.rstrip("\n") + "\n" + closing)
        return True
    except (SyntaxError, ValueError):
        return False


def complete_function(prefix: str, generated: str, indent: int, ended: bool = False
                      ) -> tuple[str, int]:
    """The function a greedy continuation completes: the prefix plus the generated complete
    lines up to the first line that dedents to the `def` (the function ended there); the last,
    partial line is dropped unless generation stopped at eos. Returns (dedented function text,
    number of non-empty generated lines kept)."""
    lines = generated.split("\n")
    if not ended:
        lines = lines[:-1]
    kept = []
    for ln in lines:
        if ln.strip() and _indent(ln) <= indent:
            break
        kept.append(ln)
    text = prefix + "".join(ln + "\n" for ln in kept)
    return _strip_indent(text, indent), sum(1 for ln in kept if ln.strip())


def function_prefixes(docs: Sequence[dict[str, str]], cfg: PrefixConfig) -> list[dict[str, Any]]:
    """Prompts from held-out code: signature + docstring (if any) + the first `body_lines`
    lines of the body, after up to `context_chars` of preceding file text (cut at a line
    start). Kept only if the prefix closes to valid Python and the true next line is
    non-trivial; `n` of them chosen by a hash of (file, line), deterministically."""
    cands = []
    for d in docs:
        try:
            tree = ast.parse(d["text"])
        except (SyntaxError, ValueError):
            continue
        lines = d["text"].splitlines(keepends=True)
        offsets = np.cumsum([0] + [len(ln) for ln in lines])
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            body = node.body
            has_doc = ast.get_docstring(node, clean=False) is not None
            rest = body[1:] if has_doc else body
            if not rest:
                continue
            head_end = body[0].end_lineno if has_doc else rest[0].lineno - 1  # 1-based, incl.
            end = head_end + int(cfg.body_lines)
            if end >= node.end_lineno:
                continue
            nxt = lines[end] if end < len(lines) else ""
            if len(nxt.strip()) < int(cfg.min_next_line):
                continue
            prefix = "".join(lines[node.lineno - 1: end])
            if len(prefix) > int(cfg.max_prefix_chars):
                continue
            indent = node.col_offset
            func = "".join(lines[node.lineno - 1: node.end_lineno])
            if not parses(_strip_indent(prefix, indent)) or not parses(_strip_indent(func, indent)):
                continue
            before = d["text"][: offsets[node.lineno - 1]]
            context = before[-int(cfg.context_chars):] if cfg.context_chars else ""
            if len(context) < len(before) and "\n" in context:
                context = context[context.index("\n") + 1:]  # start at a line boundary
            key = f"{d['name']}:{node.lineno}"
            cands.append({
                "id": key,
                "file": d["name"],
                "name": node.name,
                "lineno": node.lineno,
                "indent": indent,
                "context": context,
                "prefix": prefix,
                "next_line": nxt.rstrip("\n"),
                "reference": "".join(lines[end: node.end_lineno]),
                "_h": hashlib.sha256(key.encode()).hexdigest(),
            })
    cands.sort(key=lambda c: c["_h"])
    out = cands[: int(cfg.n)]
    for c in out:
        del c["_h"]
    return out


# ----------------------------------------------------------------------------- full scale
def fetch_evol_codealpaca(cal: CalibrationConfig, mirror: Path, manifest: Manifest
                          ) -> list[dict[str, str]]:
    """The paper's calibration set: {instruction, output} rows of evol-codealpaca-v1.

    Read from `<mirror>/<mirror_dir>/*.jsonl|*.parquet` when present, else from the hub with
    `datasets` (only ever called at full scale); checked against the manifest's entry for the
    dataset (its columns) before use."""
    local = mirror / cal.mirror_dir
    rows: list[dict[str, str]] = []
    if local.is_dir() and any(local.iterdir()):
        import pandas as pd

        for p in sorted(local.iterdir()):
            if p.suffix == ".jsonl":
                rows += [json.loads(ln) for ln in p.read_text().splitlines() if ln.strip()]
            elif p.suffix == ".parquet":
                rows += pd.read_parquet(p).to_dict("records")
        log.info("evol-codealpaca: %d rows from the mirror %s", len(rows), local)
    else:
        try:
            from datasets import load_dataset
        except ImportError:
            raise SystemExit("full scale needs `datasets`: pip install -e '.[full]'") from None
        try:
            ds = load_dataset(cal.dataset, split=cal.split)
        except Exception as e:  # network, auth, missing dataset: one line that says what to do
            raise SystemExit(
                f"cannot load {cal.dataset} ({e.__class__.__name__}): check the network or put "
                f"its jsonl/parquet files under {local}"
            ) from None
        rows = [dict(r) for r in ds]
    columns = sorted({k for r in rows for k in r})
    manifest.verify_table(cal.dataset, len(rows), columns,
                          str(local) if local.is_dir() else f"hub:{cal.dataset}")
    return [{"instruction": str(r["instruction"]), "output": str(r["output"])} for r in rows]


def fetch_hub_model(model: dict[str, Any]) -> str:
    """Download the hub checkpoint into the HF cache (login node: jobs then load it offline)."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise SystemExit("full scale needs huggingface_hub: pip install -e '.[full]'") from None
    try:
        return snapshot_download(model["model_id"], revision=model.get("revision"))
    except Exception as e:
        raise SystemExit(
            f"cannot download {model['model_id']} ({e.__class__.__name__}): check the network, "
            "HF_ENDPOINT or HF_HOME"
        ) from None


# ----------------------------------------------------------------------------- CLI
def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    from repro.core.fetch import NO_MIRROR, mirror_arg  # argument parsing only: not a rule input
    mirror_arg(ap)
    a = ap.parse_args(argv)
    a.mirror = a.mirror or NO_MIRROR  # no data mirror configured: never found
    cfg = load(a.config, a.scale)
    from repro.core.manifest import Manifest

    manifest = Manifest.for_config(a.config)
    lib = manifest.verify_stdlib(stdlib_root())
    if not lib["recorded"]:
        log.info("the standard library of Python %s has no entry in %s (%d files, sha256 %s): "
                 "record it with `python -m repro.core.manifest write reap --stdlib`",
                 sys.version.split()[0], manifest.path, lib["files"], lib["sha256"][:12])
    docs = build_docs(cfg.data)
    held = [d for d in docs if d["split"] == "heldout" and d["kind"] == "code"]
    prefixes = function_prefixes(held, cfg.eval.prefixes)
    if not prefixes:
        raise SystemExit("no function prefixes in the held-out code: raise data.max_files")
    counts = {
        f"{k}/{sp}": sum(1 for d in docs if d["kind"] == k and d["split"] == sp)
        for k in ("code", "prose") for sp in cfg.data.splits
    }
    chars = {
        f"{k}/{sp}": sum(len(d["text"]) for d in docs if d["kind"] == k and d["split"] == sp)
        for k in ("code", "prose") for sp in cfg.data.splits
    }
    source: dict[str, Any] = {
        "code": f"CPython {sys.version.split()[0]} standard library at {stdlib_root()}",
        "prose": "pydoc_data.topics.topics (the Python reference manual shipped with the stdlib)",
        "documents": counts,
        "chars": chars,
        "prefixes": len(prefixes),
        "stdlib_manifest": {"key": lib["key"], "recorded": lib["recorded"],
                            "files": lib["files"], "sha256": lib["sha256"]},
    }
    with atomic_path(a.out) as tmp:
        tmp.mkdir(parents=True)
        with open(tmp / "docs.jsonl", "w") as f:
            for d in docs:
                f.write(json.dumps(d) + "\n")
        with open(tmp / "prefixes.jsonl", "w") as f:
            for p in prefixes:
                f.write(json.dumps(p) + "\n")
        cal = cfg.calibration
        if cal.source == "evol_codealpaca":
            rows = fetch_evol_codealpaca(cal, a.mirror, manifest)
            with open(tmp / "calibration.jsonl", "w") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
            source["calibration"] = f"{cal.dataset} ({len(rows)} rows)"
        else:
            (tmp / "calibration.jsonl").write_text("")  # calibration is the stdlib calib split
            source["calibration"] = "stdlib calib split (code) + reference-manual calib topics"
        if cfg.model["kind"] == "pretrained":
            source["model_snapshot"] = fetch_hub_model(cfg.model)
        write_json(tmp / "source.json", source)
    log.info("reap data: %s, %d prefixes", counts, len(prefixes))


if __name__ == "__main__":
    main()
