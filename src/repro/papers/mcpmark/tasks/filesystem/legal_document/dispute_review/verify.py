"""dispute_review: dispute_review.txt lists <clause>:<count> for every clause commented on in
v5-v7 (joint comments included), sorted by clause number, and nothing else."""

import os
import sys
from pathlib import Path

# the category's shared checks (_common.py beside the task folders)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import comments, finish, unchanged, version  # noqa: E402


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
