"""structure_mirror's scripted solution: one directory_tree call, one create_directory per mirror
folder without subfolders (it makes the parents too), then the placeholders (the tree walked in
the sandbox beforehand)."""

import re
from pathlib import Path


def _walk(src: Path, dst: Path, leaves: list[Path]) -> None:
    kept = []
    for d in sorted(src.iterdir()):
        if d.is_dir() and len([f for f in d.iterdir() if f.is_file()]) <= 2:
            kept.append(d)
    for d in kept:
        _walk(d, dst / (d.name + "_processed" if re.search(r"[0-9]", d.name) else d.name),
              leaves)
    if not kept:
        leaves.append(dst)


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    leaves: list[Path] = []
    _walk(root / "complex_structure", root / "complex_structure_mirror", leaves)
    calls = [{"name": "directory_tree", "arguments": {"path": str(root / "complex_structure")}}]
    calls += [{"name": "create_directory", "arguments": {"path": str(d)}} for d in leaves]
    calls += [{"name": "write_file", "arguments": {"path": str(d / "placeholder.txt"),
                                                   "content": str(d) + "\n"}} for d in leaves]
    return calls
