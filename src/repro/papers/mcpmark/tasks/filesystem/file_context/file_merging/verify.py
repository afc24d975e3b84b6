"""file_merging: merged_content.txt holds the 10 smallest .txt files, in name order, each under a
header line with its name; the original files are untouched and nothing else was created."""

import os
import sys
from pathlib import Path

OUT = "merged_content.txt"


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    files = {p.name: p.read_bytes() for p in initial.iterdir() if p.is_file()}
    txt = {n: d for n, d in files.items() if n.endswith(".txt")}
    by_size = sorted(txt, key=lambda n: (len(txt[n]), n))
    expected = sorted(by_size[:10])
    problems = []
    for name, data in sorted(files.items()):
        p = root / name
        if not p.is_file():
            problems.append(f"{name} is missing")
        elif p.read_bytes() != data:
            problems.append(f"{name} was changed")
    extra = sorted(p.name for p in root.iterdir()
                   if p.name not in files and p.name != OUT and not p.name.startswith("."))
    if extra:
        problems.append(f"unexpected new entries: {extra}")
    merged = root / OUT
    if not merged.is_file():
        problems.append(f"{OUT} not found")
    else:
        lines = merged.read_text(errors="replace").split("\n")
        heads = [i for i, line in enumerate(lines) if line.strip() in txt]
        found = [lines[i].strip() for i in heads]
        if found != expected:
            problems.append(f"headers are {found}, expected {expected}")
        elif any(line.strip() for line in lines[:heads[0]]):
            problems.append("text before the first header")
        else:
            for k, i in enumerate(heads):
                end = heads[k + 1] if k + 1 < len(heads) else len(lines)
                section = "\n".join(lines[i + 1:end]).strip()
                if section != txt[found[k]].decode().strip():
                    problems.append(f"the section under {found[k]} differs from the file")
            for k in range(1, len(heads)):
                if lines[heads[k] - 1].strip():
                    problems.append(f"no blank line before the {found[k]} header")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {OUT} merges {', '.join(expected)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
