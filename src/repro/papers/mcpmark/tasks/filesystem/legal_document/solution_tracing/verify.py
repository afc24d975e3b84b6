"""solution_tracing: tracing.csv gives, for clauses 4.6, 4.16, 6.8 and 6.16, the version and the
author of the first v5-v9 comment stating the figure that the clause has in v10."""

import csv
import io
import os
import re
import sys
from pathlib import Path

# the category's shared checks (_common.py beside the task folders)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import comments, finish, unchanged, version  # noqa: E402

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
