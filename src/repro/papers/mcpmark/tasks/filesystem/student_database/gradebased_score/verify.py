"""gradebased_score: student_grades.csv (one row per student, by id) and grade_summary.txt (the
grade counts per subject) match the template's scores exactly; the database is unchanged."""

import os
import sys
from pathlib import Path

# the category's shared checks (_common.py beside the task folders)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import students, untouched  # noqa: E402

SUBJECTS = ("Chinese", "Math", "English")
HEADER = ("student_id,name,chinese_score,chinese_grade,math_score,math_grade,english_score,"
          "english_grade")


def grade(score: int) -> str:
    return "A" if score >= 90 else "B" if score >= 80 else "C" if score >= 70 \
        else "D" if score >= 60 else "F"


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    studs = sorted(students(initial), key=lambda s: int(s["Student ID"]))
    rows = [HEADER]
    counts = {sub: dict.fromkeys("ABCDF", 0) for sub in SUBJECTS}
    for s in studs:
        cells = [s["Student ID"], s["Name"]]
        for sub in SUBJECTS:
            g = grade(int(s[sub]))
            counts[sub][g] += 1
            cells += [s[sub], g]
        rows.append(",".join(cells))
    summary = [f"Total students: {len(studs)}"]
    for sub in SUBJECTS:
        c = counts[sub]
        summary.append(f"{sub}: " + ", ".join(f"{g}={c[g]}" for g in "ABCDF")
                       + f", Pass={c['A'] + c['B'] + c['C']}, Fail={c['D'] + c['F']}")
    problems = untouched(root, initial, {"student_grades.csv", "grade_summary.txt"})
    for name, want in (("student_grades.csv", rows), ("grade_summary.txt", summary)):
        path = root / name
        if not path.is_file():
            problems.append(f"{name} not found")
            continue
        got = [line.strip() for line in path.read_text(errors="replace").strip().splitlines()]
        if len(got) != len(want):
            problems.append(f"{name} has {len(got)} lines, expected {len(want)}")
        bad = [(i + 1, g, w) for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w]
        for i, g, w in bad[:5]:
            problems.append(f"{name} line {i}: {g!r}, expected {w!r}")
        if len(bad) > 5:
            problems.append(f"{name}: {len(bad) - 5} more wrong lines")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: grades of {len(studs)} students and their summary")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
