"""individual_comments: individual_comment.csv counts each person's comments on clauses 1.1, 1.3,
4.6, 4.16, 6.8 and 6.16 in v5-v8 (joint comments not counted), cell by cell."""

import csv
import io
import os
import re
import sys
from pathlib import Path

CLAUSE = re.compile(r"^(\d+\.\d+) ")
COMMENT = re.compile(r"^\[([^:\]]+):([^\]]*)\]\s*$")
PEOPLE = ("Bill Harvey", "Michelle Jackson", "David Russel", "Tony Taylor")


def version(initial: Path, v: int) -> Path:
    return initial / "legal_files" / f"Preferred_Stock_Purchase_Agreement_v{v}.txt"


def comments(path: Path) -> list[tuple[str, str, str]]:
    """(clause, name, text) of every comment line, in file order."""
    out, clause = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = CLAUSE.match(line)
        if m:
            clause = m.group(1)
            continue
        m = COMMENT.match(line.strip())
        if m and clause:
            out.append((clause, m.group(1).strip(), m.group(2).strip()))
    return out


def unchanged(root: Path, initial: Path, new: str, problems: list) -> None:
    before = {p.relative_to(initial).as_posix() for p in initial.rglob("*")}
    after = {p.relative_to(root).as_posix() for p in root.rglob("*")
             if not p.name.startswith(".")}
    for rel in sorted(before - after):
        problems.append(f"{rel} is missing")
    for rel in sorted(after - before - {new}):
        problems.append(f"unexpected new entry {rel}")
    for rel in sorted(before & after):
        if (initial / rel).is_file() and (root / rel).read_bytes() != (initial / rel).read_bytes():
            problems.append(f"{rel} was changed")


def finish(problems: list, ok: str) -> int:
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("PASS:", ok)
    return 1 if problems else 0


CLAUSES = ("1.1", "1.3", "4.6", "4.16", "6.8", "6.16")


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    count = {(p, c): 0 for p in PEOPLE for c in CLAUSES}
    for v in (5, 6, 7, 8):
        for clause, name, _ in comments(version(initial, v)):
            if (name, clause) in count:
                count[name, clause] += 1
    want = [["Name", *CLAUSES]] + [[p] + [str(count[p, c]) for c in CLAUSES] for p in PEOPLE]
    problems: list[str] = []
    unchanged(root, initial, "individual_comment.csv", problems)
    out = root / "individual_comment.csv"
    if not out.is_file():
        problems.append("individual_comment.csv is missing")
    else:
        got = [[c.strip() for c in r] for r in csv.reader(io.StringIO(out.read_text())) if r]
        if got[:1] != want[:1]:
            problems.append(f"header {got[:1]}, expected {want[0]}")
        elif got != want:
            for i, row in enumerate(want[1:], 1):
                have = got[i] if i < len(got) else None
                if have != row:
                    problems.append(f"row {i}: {have}, expected {row}")
            if len(got) > len(want):
                problems.append(f"extra rows {got[len(want):]}")
    return finish(problems, "every count is right")


if __name__ == "__main__":
    sys.exit(main())
