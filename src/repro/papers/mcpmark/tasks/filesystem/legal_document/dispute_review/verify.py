"""dispute_review: dispute_review.txt lists <clause>:<count> for every clause commented on in
v5-v7 (joint comments included), sorted by clause number, and nothing else."""

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


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    counts: dict[str, int] = {}
    for v in (5, 6, 7):
        for clause, _, _ in comments(version(initial, v)):
            counts[clause] = counts.get(clause, 0) + 1
    order = sorted(counts, key=lambda c: tuple(int(x) for x in c.split(".")))
    want = [f"{c}:{counts[c]}" for c in order]
    problems: list[str] = []
    unchanged(root, initial, "dispute_review.txt", problems)
    out = root / "dispute_review.txt"
    if not out.is_file():
        problems.append("dispute_review.txt is missing")
    else:
        got = [ln.strip() for ln in out.read_text().strip().splitlines()]
        if got != want:
            miss = [x for x in want if x not in got]
            extra = [x for x in got if x not in want]
            problems.append(f"lines differ from the expected {len(want)}: missing {miss}, "
                            f"unexpected {extra}" + ("" if miss or extra else " (order)"))
    return finish(problems, f"{len(want)} clauses counted")


if __name__ == "__main__":
    sys.exit(main())
