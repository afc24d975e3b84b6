"""project_management: organized_projects/ with its seven sub-folders; every .py, .csv and .md
file moved, unchanged, by the rules; other files in place; project_structure.md counts right."""

import os
import re
import sys
from pathlib import Path

SUBS = ("experiments/ml_projects", "experiments/data_analysis", "experiments/reports",
        "learning/progress_tracking", "learning/resources", "personal/entertainment",
        "personal/collections")
MD = {"exp_logs": "experiments/reports", "learning": "learning/resources",
      "play": "personal/entertainment", "travel_plan": "personal/entertainment",
      "music": "personal/collections"}


def place(rel: str) -> str | None:
    top, suffix = rel.split("/", 1)[0], Path(rel).suffix
    if suffix == ".py":
        return "experiments/ml_projects"
    if suffix == ".csv":
        return "learning/progress_tracking" if top == "learning" else "experiments/data_analysis"
    if suffix == ".md":
        return MD[top]
    return None


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    org = "organized_projects"
    want: dict[str, Path] = {}
    counts = dict.fromkeys(SUBS, 0)
    for p in sorted(initial.rglob("*")):
        if p.is_file():
            rel = p.relative_to(initial).as_posix()
            dest = place(rel)
            if dest:
                counts[dest] += 1
                want[f"{org}/{dest}/{p.name}"] = p
            else:
                want[rel] = p
    problems = []
    for s in SUBS:
        if not (root / org / s).is_dir():
            problems.append(f"missing folder {org}/{s}/")
    have = {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and not p.name.startswith(".")}
    doc = f"{org}/project_structure.md"
    for rel in sorted(set(want) - have):
        problems.append(f"{rel} is missing")
    for rel in sorted(have - set(want) - {doc}):
        problems.append(f"{rel} should not be there")
    for rel in sorted(set(want) & have):
        if (root / rel).read_bytes() != want[rel].read_bytes():
            problems.append(f"{rel} was changed")
    extra_dirs = sorted(p.relative_to(root / org).as_posix() for p in (root / org).rglob("*")
                        if p.is_dir() and p.relative_to(root / org).as_posix() not in
                        set(SUBS) | {s.split("/")[0] for s in SUBS}) if (root / org).is_dir() \
        else []
    if extra_dirs:
        problems.append(f"unexpected folders in {org}/: {extra_dirs}")
    if not (root / doc).is_file():
        problems.append(f"{doc} is missing")
    else:
        lines = re.findall(r"^\s*(?:[-*] )?`?([a-z_]+/[a-z_]+)`?: (\d+)\s*$",
                           (root / doc).read_text(), re.M)
        got = sorted((a, int(b)) for a, b in lines)
        if got != sorted(counts.items()):
            problems.append(f"count lines {got}, expected {sorted(counts.items())}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {sum(counts.values())} files organised")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
