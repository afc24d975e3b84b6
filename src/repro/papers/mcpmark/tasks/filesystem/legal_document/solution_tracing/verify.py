"""solution_tracing: tracing.csv gives, for clauses 4.6, 4.16, 6.8 and 6.16, the version and the
author of the first v5-v9 comment stating the figure that the clause has in v10."""

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


CLAUSES = ("4.6", "4.16", "6.8", "6.16")
FIGURE = re.compile(r"\$\d{1,3}(?:,\d{3})*|\d+%|\d+ days")


def final_figure(initial: Path, clause: str) -> str:
    for line in version(initial, 10).read_text(encoding="utf-8").splitlines():
        if line.startswith(clause + " "):
            return FIGURE.findall(line)[-1]
    raise ValueError(f"clause {clause} not in v10")


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    answer = {}
    for clause in CLAUSES:
        fig = final_figure(initial, clause)
        for v in range(5, 10):
            hit = [name for c, name, text in comments(version(initial, v))
                   if c == clause and fig in FIGURE.findall(text)]
            if hit:
                answer[clause] = (str(v), hit[0])
                break
        else:
            print(f"FAIL: the template has no comment proposing {fig} for {clause}")
            return 1
    want = [["", *CLAUSES], ["version_number"] + [answer[c][0] for c in CLAUSES],
            ["name"] + [answer[c][1] for c in CLAUSES]]
    problems: list[str] = []
    unchanged(root, initial, "tracing.csv", problems)
    out = root / "tracing.csv"
    if not out.is_file():
        problems.append("tracing.csv is missing")
    else:
        got = [[c.strip() for c in r] for r in csv.reader(io.StringIO(out.read_text())) if r]
        if got != want:
            problems.append(f"table {got}, expected the header {want[0]} and other cells")
            for i, label in ((1, "version_number"), (2, "name")):
                if i < len(got) and got[i] != want[i]:
                    problems.append(f"row {label} is wrong: {got[i]}")
    return finish(problems, "every clause traced to its originator")


if __name__ == "__main__":
    sys.exit(main())
