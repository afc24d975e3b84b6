"""english_talent: qualified_students.txt holds a name/id/email block for exactly the students
with an S or A recommendation and TOEFL >= 100; the database is unchanged."""

import os
import sys
from pathlib import Path

# the category's shared checks (_common.py beside the task folders)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import students, untouched  # noqa: E402

OUT = "qualified_students.txt"


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    want = {s["Student ID"]: (s["Name"], s["Email"]) for s in students(initial)
            if s["grade"] in ("S", "A") and int(s["TOEFL"]) >= 100}
    problems = untouched(root, initial, {OUT})
    path = root / OUT
    if not path.is_file():
        problems.append(f"{OUT} not found")
    else:
        got: dict[str, tuple[str, str]] = {}
        blocks = [b for b in path.read_text(errors="replace").strip().split("\n\n") if b.strip()]
        for b in blocks:
            lines = [line.strip() for line in b.strip().split("\n")]
            if len(lines) != 3 or not lines[0].startswith("name:") or \
                    not lines[1].startswith("id:") or not lines[2].startswith("email:"):
                problems.append(f"a block is not name/id/email lines: {lines}")
                continue
            sid = lines[1][3:].strip()
            if sid in got:
                problems.append(f"id {sid} is listed twice")
            got[sid] = (lines[0][5:].strip(), lines[2][6:].strip())
        for sid in sorted(set(want) | set(got)):
            if sid not in got:
                problems.append(f"missing qualified student {sid} {want[sid][0]}")
            elif sid not in want:
                problems.append(f"{sid} {got[sid][0]} does not qualify")
            elif got[sid] != want[sid]:
                problems.append(f"{sid}: {got[sid]}, expected {want[sid]}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(want)} qualified students")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
