"""duplicate_name: namesake.txt holds one name/count/ids group per full name shared by two or
more students, exactly those groups, and the database is unchanged."""

import os
import sys
from pathlib import Path

# the category's shared checks (_common.py beside the task folders)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import students, untouched  # noqa: E402

OUT = "namesake.txt"


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    by_name: dict[str, set[str]] = {}
    for s in students(initial):
        by_name.setdefault(s["Name"], set()).add(s["Student ID"])
    want = {n: ids for n, ids in by_name.items() if len(ids) > 1}
    problems = untouched(root, initial, {OUT})
    path = root / OUT
    if not path.is_file():
        problems.append(f"{OUT} not found")
    else:
        got: dict[str, set[str]] = {}
        blocks = [b for b in path.read_text(errors="replace").strip().split("\n\n") if b.strip()]
        for b in blocks:
            lines = [line.strip() for line in b.strip().split("\n")]
            if len(lines) != 3 or not lines[0].startswith("name:") or \
                    not lines[1].startswith("count:") or not lines[2].startswith("ids:"):
                problems.append(f"a group is not name/count/ids lines: {lines}")
                continue
            name = lines[0][5:].strip()
            ids = [i.strip() for i in lines[2][4:].split(",")]
            if name in got:
                problems.append(f"{name} is listed twice")
            got[name] = set(ids)
            if lines[1][6:].strip() != str(len(ids)) or len(set(ids)) != len(ids):
                problems.append(f"{name}: count {lines[1][6:].strip()} for ids {ids}")
        for name in sorted(set(want) | set(got)):
            if name not in got:
                problems.append(f"missing shared name {name}")
            elif name not in want:
                problems.append(f"{name} is not a shared name")
            elif got[name] != want[name]:
                problems.append(f"{name}: ids {sorted(got[name])}, expected {sorted(want[name])}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(want)} shared names")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
