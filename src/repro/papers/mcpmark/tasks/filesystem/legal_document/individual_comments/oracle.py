"""individual_comments' scripted solution: read v5-v8, then write the person-by-clause table
(parsed from the sandbox before any call)."""

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
    calls, files = reads(root, (5, 6, 7, 8))
    n = Counter((name, c) for p in files.values() for c, name, _ in parse(p))
    clauses = ["1.1", "1.3", "4.6", "4.16", "6.8", "6.16"]
    rows = [["Name", *clauses]] + [[who] + [str(n[who, c]) for c in clauses] for who in
                                   ("Bill Harvey", "Michelle Jackson", "David Russel",
                                    "Tony Taylor")]
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "individual_comment.csv"),
        "content": "".join(",".join(r) + "\n" for r in rows)}})
    return calls
