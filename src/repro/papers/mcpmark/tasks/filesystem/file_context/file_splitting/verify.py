"""file_splitting: split/split_01..10.txt are the ten equal consecutive tenths of large_file.txt;
every original file is untouched and nothing else was created."""

import os
import sys
from pathlib import Path

NAMES = [f"split_{i:02d}.txt" for i in range(1, 11)]


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    files = {p.name: p.read_bytes() for p in initial.iterdir() if p.is_file()}
    large = files["large_file.txt"]
    step = len(large) // 10
    problems = []
    for name, data in sorted(files.items()):
        p = root / name
        if not p.is_file():
            problems.append(f"{name} is missing")
        elif p.read_bytes() != data:
            problems.append(f"{name} was changed")
    extra = sorted(p.name for p in root.iterdir()
                   if p.name not in files and p.name != "split" and not p.name.startswith("."))
    if extra:
        problems.append(f"unexpected new entries: {extra}")
    split = root / "split"
    if not split.is_dir():
        problems.append("folder split/ not found")
    else:
        extra = sorted(p.name for p in split.iterdir() if p.name not in NAMES)
        if extra:
            problems.append(f"split/ holds other entries: {extra}")
        for i, name in enumerate(NAMES):
            p = split / name
            if not p.is_file():
                problems.append(f"split/{name} is missing")
                continue
            data = p.read_bytes()
            if len(data) != step:
                problems.append(f"split/{name} has {len(data)} characters, expected {step}")
            elif data != large[i * step:(i + 1) * step]:
                problems.append(f"split/{name} is not piece {i + 1} of large_file.txt")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: large_file.txt split into 10 pieces of {step} characters")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
