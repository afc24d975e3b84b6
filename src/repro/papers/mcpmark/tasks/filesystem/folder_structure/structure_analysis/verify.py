"""structure_analysis: structure_analysis.txt states the template's file and folder counts, total
size, deepest folder and its depth, and the per-extension counts, exactly; nothing changed."""

import os
import sys
from collections import Counter
from pathlib import Path

OUT = "structure_analysis.txt"


def untouched(root: Path, initial: Path) -> list[str]:
    """Every template file and folder still there, the files unchanged."""
    problems = []
    for p in sorted(initial.rglob("*")):
        q = root / p.relative_to(initial)
        if p.is_dir() and not q.is_dir():
            problems.append(f"folder {p.relative_to(initial)} is gone")
        elif p.is_file() and (not q.is_file() or q.read_bytes() != p.read_bytes()):
            problems.append(f"{p.relative_to(initial)} was changed, moved or deleted")
    have = {str(p.relative_to(initial)) for p in initial.rglob("*")}
    extra = sorted(str(p.relative_to(root)) for p in (root / "complex_structure").rglob("*")
                   if str(p.relative_to(root)) not in have)
    if extra:
        problems.append(f"new entries inside complex_structure/: {extra[:10]}")
    return problems


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    files = [p for p in initial.rglob("*") if p.is_file()]
    folders = [p.relative_to(initial).as_posix() for p in initial.rglob("*") if p.is_dir()]
    depth = max(len(f.split("/")) for f in folders)
    deepest = {f for f in folders if len(f.split("/")) == depth}
    exts = Counter(p.name.rsplit(".", 1)[1].lower() if "." in p.name else "" for p in files)
    want = [f"total number of files: {len(files)}", f"total number of folders: {len(folders)}",
            f"total size of all files: {sum(p.stat().st_size for p in files)}",
            f"depth: {depth}"]
    tail = [f"{e}: {exts[e]}" for e in sorted(exts) if e]
    if exts[""]:
        tail.append(f"(no extension): {exts['']}")
    problems = untouched(root, initial)
    extra = sorted(p.name for p in root.iterdir() if p.name not in ("complex_structure", OUT))
    if extra:
        problems.append(f"unexpected new entries: {extra}")
    path = root / OUT
    if not path.is_file():
        problems.append(f"{OUT} not found")
    else:
        got = [line.strip() for line in path.read_text(errors="replace").strip().splitlines()]
        if got[:4] != want:
            problems.append(f"the first lines read {got[:4]}, expected {want}")
        if len(got) < 5 or got[4].rstrip("/") not in deepest:
            problems.append(f"line 5 ({got[4] if len(got) > 4 else None!r}) is not a deepest "
                            f"folder: one of {sorted(deepest)}")
        if got[5:] != tail:
            problems.append(f"the extension lines read {got[5:]}, expected {tail}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(files)} files, {len(folders)} folders, depth {depth}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
