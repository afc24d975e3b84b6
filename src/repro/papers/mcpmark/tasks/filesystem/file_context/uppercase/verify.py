"""uppercase: uppercase/file_01..10.txt are the capitalised originals and uppercase/answer.txt
lists each original's whitespace-separated word count, in order; nothing else changed."""

import os
import sys
from pathlib import Path

NAMES = [f"file_{i:02d}.txt" for i in range(1, 11)]


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    files = {p.name: p.read_bytes() for p in initial.iterdir() if p.is_file()}
    problems = []
    for name, data in sorted(files.items()):
        p = root / name
        if not p.is_file():
            problems.append(f"{name} is missing")
        elif p.read_bytes() != data:
            problems.append(f"{name} was changed")
    extra = sorted(p.name for p in root.iterdir()
                   if p.name not in files and p.name != "uppercase" and not p.name.startswith("."))
    if extra:
        problems.append(f"unexpected new entries: {extra}")
    up = root / "uppercase"
    if not up.is_dir():
        problems.append("folder uppercase/ not found")
    else:
        extra = sorted(p.name for p in up.iterdir() if p.name not in NAMES + ["answer.txt"])
        if extra:
            problems.append(f"uppercase/ holds other entries: {extra}")
        for name in NAMES:
            p = up / name
            want = files[name].decode().upper()
            if not p.is_file():
                problems.append(f"uppercase/{name} is missing")
            elif p.read_text(errors="replace").rstrip("\n") != want.rstrip("\n"):
                problems.append(f"uppercase/{name} is not the uppercase of {name}")
        answer = up / "answer.txt"
        want = [f"{n}:{len(files[n].decode().split())}" for n in NAMES]
        if not answer.is_file():
            problems.append("uppercase/answer.txt is missing")
        else:
            got = [line.strip() for line in answer.read_text(errors="replace").strip().split("\n")]
            if got != want:
                problems.append(f"answer.txt reads {got}, expected {want}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("PASS: ten uppercase copies and their word counts")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
