"""file_arrangement: every file of the template moved, unchanged and flat, into the one of
work/ life/ archives/ temp/ others/ that the ordered rules give."""

import os
import re
import sys
from pathlib import Path

FOLDERS = ("work", "life", "archives", "temp", "others")


def classify(rel: str, path: Path) -> str:
    name = rel.rsplit("/", 1)[-1]
    first = path.read_text(encoding="utf-8").split("\n", 1)[0].lower()
    if re.search(r"\d{4}", name) or name.startswith("backup_"):
        return "archives"
    if rel.startswith("Temp/") or name.startswith(("draft_", "example")):
        return "temp"
    if rel.startswith(("Documents/Work/", "Documents/Projects/")) or \
            any(w in first for w in ("experiment", "client", "project")):
        return "work"
    if name.endswith(".csv") or "personal" in first:
        return "life"
    return "others"


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    files = {p.relative_to(initial).as_posix(): p for p in initial.rglob("*") if p.is_file()}
    want = {f"{classify(rel, p)}/{p.name}": p for rel, p in files.items()}
    problems = []
    for f in FOLDERS:
        if not (root / f).is_dir():
            problems.append(f"missing folder {f}/")
    have = {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and not p.name.startswith(".")}
    for rel in sorted(set(want) - have):
        problems.append(f"{rel} is missing (the file belongs there)")
    for rel in sorted(have - set(want)):
        problems.append(f"{rel} should not be there")
    for rel in sorted(set(want) & have):
        if (root / rel).read_bytes() != want[rel].read_bytes():
            problems.append(f"{rel} was changed")
    for f in FOLDERS:
        if (root / f).is_dir():
            nested = [p.name for p in (root / f).iterdir() if p.is_dir()]
            if nested:
                problems.append(f"{f}/ holds sub-folders {nested}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(want)} files arranged")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
