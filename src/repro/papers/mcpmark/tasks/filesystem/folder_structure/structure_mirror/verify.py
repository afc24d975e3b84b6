"""structure_mirror: complex_structure_mirror/ re-creates complex_structure/'s folders, minus those
directly holding more than 2 files (and their subtrees), with '_processed' after names holding a
digit, and a placeholder.txt holding its absolute path in every mirror folder without
subfolders; no other file; the source unchanged."""

import os
import sys
from pathlib import Path

MIRROR = "complex_structure_mirror"


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


def expected(src: Path, dst: str, out: list[str]) -> None:
    out.append(dst)
    for d in sorted(p for p in src.iterdir() if p.is_dir()):
        if sum(q.is_file() for q in d.iterdir()) > 2:
            continue
        name = d.name + "_processed" if any(c.isdigit() for c in d.name) else d.name
        expected(d, f"{dst}/{name}", out)


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    dirs: list[str] = []
    expected(initial / "complex_structure", MIRROR, dirs)
    leaves = {d for d in dirs if not any(e.startswith(d + "/") for e in dirs)}
    problems = untouched(root, initial)
    extra = sorted(p.name for p in root.iterdir() if p.name not in ("complex_structure", MIRROR))
    if extra:
        problems.append(f"unexpected new entries: {extra}")
    if not (root / MIRROR).is_dir():
        problems.append(f"{MIRROR}/ not found")
    else:
        have = [p.relative_to(root).as_posix() for p in (root / MIRROR).rglob("*")]
        have_dirs = {h for h in have if (root / h).is_dir()} | {MIRROR}
        have_files = {h for h in have if not (root / h).is_dir()}
        for d in sorted(set(dirs) - have_dirs):
            problems.append(f"missing folder {d}")
        for d in sorted(have_dirs - set(dirs)):
            problems.append(f"folder {d} should not be there")
        for f in sorted(have_files - {f"{d}/placeholder.txt" for d in leaves}):
            problems.append(f"file {f} should not be there")
        bases = {str(root), str(root.resolve())}
        for d in sorted(leaves):
            p = root / d / "placeholder.txt"
            if not p.is_file():
                problems.append(f"{d}/placeholder.txt is missing")
                continue
            text = p.read_text(errors="replace").strip()
            if text.rstrip("/") not in {f"{b}/{d}" for b in bases}:
                problems.append(f"{d}/placeholder.txt reads {text[:200]!r}, "
                                f"expected {str(root / d)!r}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(dirs)} mirror folders, {len(leaves)} placeholders")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
