"""size_classification: every file moved, unchanged, into the folder of its byte size."""

import hashlib
import os
import sys
from pathlib import Path

FOLDERS = ("small_files", "medium_files", "large_files")


def klass(size: int) -> str:
    return "small_files" if size < 300 else "medium_files" if size <= 700 else "large_files"


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    files = {p.name: p.read_bytes() for p in initial.iterdir() if p.is_file()}
    problems = []
    for folder in FOLDERS:
        if not (root / folder).is_dir():
            problems.append(f"missing folder {folder}/")
    left = sorted(p.name for p in root.iterdir() if p.is_file() and not p.name.startswith("."))
    if left:
        problems.append(f"files left at the top level: {left}")
    for name, data in sorted(files.items()):
        want = root / klass(len(data)) / name
        if not want.is_file():
            problems.append(f"{name} ({len(data)} B) is not in {klass(len(data))}/")
        elif hashlib.sha256(want.read_bytes()).digest() != hashlib.sha256(data).digest():
            problems.append(f"{name} was changed")
    for folder in FOLDERS:
        if (root / folder).is_dir():
            extra = sorted(p.name for p in (root / folder).iterdir()
                           if p.name not in files or klass(len(files[p.name])) != folder)
            if extra:
                problems.append(f"{folder}/ holds what does not belong there: {extra}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(files)} files in their size folders")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
