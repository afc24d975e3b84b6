"""pattern_matching: answer.txt lists, in name order, each file_XX.txt that shares a run of 30+
characters with large_file.txt, with the 1-based start of its longest shared run there."""

import os
import sys
from pathlib import Path

MIN = 30


def longest_shared(text: str, large: str) -> str:
    """The longest substring of text found in large (at least MIN long), or ''."""
    grams = {large[i:i + MIN] for i in range(len(large) - MIN + 1)}
    best = ""
    for i in range(len(text) - MIN + 1):
        if text[i:i + MIN] not in grams:
            continue
        n = max(MIN, len(best) + 1)
        while i + n <= len(text) and text[i:i + n] in large:
            best = text[i:i + n]
            n += 1
    return best


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    files = {p.name: p.read_bytes() for p in initial.iterdir() if p.is_file()}
    large = files["large_file.txt"].decode()
    want = []
    for name in [f"file_{i:02d}.txt" for i in range(1, 21)]:
        run = longest_shared(files[name].decode(), large)
        if run:
            want.append(f"{name},{large.index(run) + 1}")
    problems = []
    for name, data in sorted(files.items()):
        p = root / name
        if not p.is_file():
            problems.append(f"{name} is missing")
        elif p.read_bytes() != data:
            problems.append(f"{name} was changed")
    extra = sorted(p.name for p in root.iterdir()
                   if p.name not in files and p.name != "answer.txt" and not p.name.startswith("."))
    if extra:
        problems.append(f"unexpected new entries: {extra}")
    answer = root / "answer.txt"
    if not answer.is_file():
        problems.append("answer.txt not found")
    else:
        got = [line.strip() for line in answer.read_text(errors="replace").strip().split("\n")
               if line.strip()]
        if got != want:
            problems.append(f"answer.txt reads {got}, expected {want}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(want)} matching files with their positions")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
