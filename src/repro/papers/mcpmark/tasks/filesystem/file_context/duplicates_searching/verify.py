"""duplicates_searching: every file whose content another file shares is in duplicates/, every
unique one is still at the top, all unchanged, nothing extra."""

import hashlib
import os
import sys
from collections import Counter
from pathlib import Path


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    files = {p.name: p.read_bytes() for p in initial.iterdir() if p.is_file()}
    digest = {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}
    count = Counter(digest.values())
    dups = sorted(n for n in files if count[digest[n]] > 1)
    problems = []
    dup_dir = root / "duplicates"
    if not dup_dir.is_dir():
        problems.append("folder duplicates/ not found")
    for name, data in sorted(files.items()):
        want, other = (dup_dir, root) if name in dups else (root, dup_dir)
        p = want / name
        if not p.is_file():
            where = "duplicates/" if name in dups else "the top level"
            problems.append(f"{name} is not in {where}")
        elif p.read_bytes() != data:
            problems.append(f"{name} was changed")
        if (other / name).exists():
            problems.append(f"{name} is wrongly (also) in {other.relative_to(root)}/")
    extra = sorted(p.name for p in root.iterdir() if p.name not in files
                   and p.name != "duplicates" and not p.name.startswith("."))
    if extra:
        problems.append(f"unexpected new entries: {extra}")
    if dup_dir.is_dir():
        extra = sorted(p.name for p in dup_dir.iterdir() if p.name not in files)
        if extra:
            problems.append(f"duplicates/ holds other entries: {extra}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(dups)} duplicates moved: {', '.join(dups)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
