"""time_classification: every file moved, unchanged (content and mtime), into MM/DD/ of its UTC
modification date; each MM/DD/ holds a two-line metadata_analyse.txt naming its oldest and
latest file with their times; nothing else created."""

import os
import sys
from datetime import UTC, datetime
from pathlib import Path

REPORT = "metadata_analyse.txt"


def utc(t: float) -> datetime:
    return datetime.fromtimestamp(int(t), tz=UTC)


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    files = {p.name: (p.read_bytes(), int(p.stat().st_mtime)) for p in initial.iterdir()
             if p.is_file() and p.name != ".DS_Store"}
    groups: dict[str, list[str]] = {}
    for name, (_, t) in files.items():
        groups.setdefault(utc(t).strftime("%m/%d"), []).append(name)
    problems = []
    for name, (data, t) in sorted(files.items()):
        folder = utc(t).strftime("%m/%d")
        p = root / folder / name
        if not p.is_file():
            problems.append(f"{name} is not in {folder}/")
        elif p.read_bytes() != data:
            problems.append(f"{name} was changed")
        elif int(p.stat().st_mtime) != t:
            problems.append(f"{name}'s modification time changed (re-created, not moved?)")
    months = {k.split("/")[0] for k in groups}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        parts = rel.split("/")
        ok = (len(parts) == 1 and parts[0] in months and p.is_dir()) or \
            (len(parts) == 2 and rel in groups and p.is_dir()) or \
            (len(parts) == 3 and "/".join(parts[:2]) in groups
             and parts[2] in groups["/".join(parts[:2])] + [REPORT])
        if not ok and not p.name.startswith("."):
            problems.append(f"unexpected entry {rel}")
    for folder, names in sorted(groups.items()):
        names.sort(key=lambda n: files[n][1])
        want = [f"oldest: {names[0]} {utc(files[names[0]][1]):%Y-%m-%d %H:%M:%S}",
                f"latest: {names[-1]} {utc(files[names[-1]][1]):%Y-%m-%d %H:%M:%S}"]
        report = root / folder / REPORT
        if not report.is_file():
            problems.append(f"{folder}/{REPORT} is missing")
            continue
        got = [line.strip() for line in report.read_text(errors="replace").strip().splitlines()]
        if got != want:
            problems.append(f"{folder}/{REPORT} reads {got}, expected {want}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(files)} files in {len(groups)} date folders, with their reports")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
