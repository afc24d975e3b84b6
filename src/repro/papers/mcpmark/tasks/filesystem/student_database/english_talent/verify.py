"""english_talent: qualified_students.txt holds a name/id/email block for exactly the students
with an S or A recommendation and TOEFL >= 100; the database is unchanged."""

import os
import sys
from pathlib import Path

OUT = "qualified_students.txt"


def students(initial: Path) -> list[dict]:
    """Each student of the pristine template: the fields of basic_info.txt and the letter's
    grade."""
    out = []
    for d in sorted(p for p in initial.iterdir() if p.is_dir()):
        rec = {"folder": d.name}
        for line in (d / "basic_info.txt").read_text().splitlines():
            key, sep, value = line.partition(":")
            if sep:
                rec[key.strip()] = value.strip()
        for line in (d / "recommendation_letter.txt").read_text().splitlines():
            if line.startswith("Recommendation Grade:"):
                rec["grade"] = line.split(":", 1)[1].strip()
        out.append(rec)
    return out


def untouched(root: Path, initial: Path, outputs: set[str]) -> list[str]:
    """Every template file still there and unchanged; nothing new but the outputs."""
    problems = []
    for p in sorted(initial.rglob("*")):
        q = root / p.relative_to(initial)
        if p.is_file() and (not q.is_file() or q.read_bytes() != p.read_bytes()):
            problems.append(f"{p.relative_to(initial)} was changed, moved or deleted")
    have = {str(p.relative_to(initial)) for p in initial.rglob("*")} | outputs
    extra = sorted(str(p.relative_to(root)) for p in root.rglob("*")
                   if str(p.relative_to(root)) not in have and not p.name.startswith("."))
    if extra:
        problems.append(f"unexpected new entries: {extra[:10]}")
    return problems


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
