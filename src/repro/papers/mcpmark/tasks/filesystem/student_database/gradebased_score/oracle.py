"""gradebased_score's scripted solution: read every basic_info.txt, then write the CSV and the
summary (scores parsed from the sandbox beforehand)."""

import bisect
import re
from pathlib import Path

SUBJECTS = ("Chinese", "Math", "English")


def letter(score: int) -> str:
    return "FDCBA"[bisect.bisect_right([60, 70, 80, 90], score)]


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    folders = sorted((p for p in root.iterdir() if p.is_dir()),
                     key=lambda p: int(p.name.split("_")[0]))
    paths = [str(d / "basic_info.txt") for d in folders]
    calls = [{"name": "read_multiple_files", "arguments": {"paths": paths[i:i + 50]}}
             for i in range(0, len(paths), 50)]
    rows = [",".join(["student_id", "name"] + [f"{s.lower()}_{k}" for s in SUBJECTS
                                               for k in ("score", "grade")])]
    tally = {s: {g: 0 for g in "ABCDF"} for s in SUBJECTS}
    for d in folders:
        info = (d / "basic_info.txt").read_text()
        sid, first, last = d.name.split("_", 2)
        row = [sid, f"{first} {last}"]
        for s in SUBJECTS:
            score = int(re.search(rf"^{s}:\s*(\d+)", info, re.M).group(1))
            tally[s][letter(score)] += 1
            row += [str(score), letter(score)]
        rows.append(",".join(row))
    summary = [f"Total students: {len(folders)}"]
    for s in SUBJECTS:
        t = tally[s]
        summary.append(f"{s}: A={t['A']}, B={t['B']}, C={t['C']}, D={t['D']}, F={t['F']}, "
                       f"Pass={t['A'] + t['B'] + t['C']}, Fail={t['D'] + t['F']}")
    calls += [{"name": "write_file", "arguments": {"path": str(root / "student_grades.csv"),
                                                   "content": "\n".join(rows) + "\n"}},
              {"name": "write_file", "arguments": {"path": str(root / "grade_summary.txt"),
                                                   "content": "\n".join(summary) + "\n"}}]
    return calls
