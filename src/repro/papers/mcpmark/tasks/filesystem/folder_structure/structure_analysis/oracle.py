"""structure_analysis's scripted solution: one directory_tree call, then the report (counted with
os.walk over the sandbox beforehand)."""

import os
from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    n_files = n_dirs = size = 0
    best, exts = "", {}
    for dirpath, _dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel != ".":
            n_dirs += 1
            if rel.count(os.sep) > best.count(os.sep) or not best:
                best = rel
        for f in filenames:
            n_files += 1
            size += os.path.getsize(os.path.join(dirpath, f))
            ext = os.path.splitext(f)[1][1:].lower() or "(no extension)"
            exts[ext] = exts.get(ext, 0) + 1
    lines = [f"total number of files: {n_files}", f"total number of folders: {n_dirs}",
             f"total size of all files: {size}", f"depth: {best.count(os.sep) + 1}",
             best.replace(os.sep, "/")]
    none = exts.pop("(no extension)", 0)
    lines += [f"{e}: {c}" for e, c in sorted(exts.items())]
    if none:
        lines.append(f"(no extension): {none}")
    return [{"name": "directory_tree", "arguments": {"path": str(root)}},
            {"name": "write_file", "arguments": {"path": str(root / "structure_analysis.txt"),
                                                 "content": "\n".join(lines) + "\n"}}]
