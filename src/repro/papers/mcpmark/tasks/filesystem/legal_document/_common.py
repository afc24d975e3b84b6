"""Shared by the legal_document verifiers: the agreement versions, their comment lines and
the unchanged-template check."""

import re
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
