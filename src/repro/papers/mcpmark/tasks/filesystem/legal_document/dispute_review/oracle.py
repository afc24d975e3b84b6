"""dispute_review's scripted solution: read v5-v7, then write the per-clause counts (parsed
from the sandbox before any call)."""

import re
from collections import Counter
from pathlib import Path


def parse(path: Path) -> list[tuple[str, str, str]]:
    """(clause, name, text) per comment line, in file order."""
    out, clause = [], ""
    for line in path.read_text().splitlines():
        if re.match(r"\d+\.\d+ ", line):
            clause = line.split(" ", 1)[0]
        elif line.startswith("[") and line.endswith("]"):
            name, text = line[1:-1].split(":", 1)
            out.append((clause, name.strip(), text.strip()))
    return out


def reads(root: Path, versions) -> tuple[list[dict], dict[int, Path]]:
    files = {v: root / "legal_files" / f"Preferred_Stock_Purchase_Agreement_v{v}.txt"
             for v in versions}
    return [{"name": "read_text_file", "arguments": {"path": str(p)}}
            for p in files.values()], files


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    calls, files = reads(root, (5, 6, 7))
    n = Counter(c for p in files.values() for c, _, _ in parse(p))
    lines = [f"{c}:{n[c]}" for c in sorted(n, key=lambda c: [int(x) for x in c.split(".")])]
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "dispute_review.txt"), "content": "\n".join(lines) + "\n"}})
    return calls
