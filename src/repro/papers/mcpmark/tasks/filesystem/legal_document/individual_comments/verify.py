"""individual_comments: individual_comment.csv counts each person's comments on clauses 1.1, 1.3,
4.6, 4.16, 6.8 and 6.16 in v5-v8 (joint comments not counted), cell by cell."""

import csv
import io
import os
import sys
from pathlib import Path

# the category's shared checks (_common.py beside the task folders)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import PEOPLE, comments, finish, unchanged, version  # noqa: E402

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
