"""timeline_extraction: timeline.txt lists every (file, 2024 date) of the template once, month-only
dates as the 1st, range ends and bare years left out, sorted by date then path."""

import os
import re
import sys
from pathlib import Path

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
M = "|".join(MONTHS)
DATE = (rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{4}}-\d{{2}}\b(?!-\d)|\b(?:{M}) \d{{1,2}}, \d{{4}}\b"
        rf"|\b(?:{M}) \d{{4}}\b")


def normal(s: str) -> str:
    if m := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", s):
        return s
    if m := re.fullmatch(r"(\d{4})-(\d{2})", s):
        return f"{s}-01"
    if m := re.fullmatch(rf"({M}) (\d{{1,2}}), (\d{{4}})", s):
        return f"{m.group(3)}-{MONTHS.index(m.group(1)) + 1:02d}-{int(m.group(2)):02d}"
    m = re.fullmatch(rf"({M}) (\d{{4}})", s)
    return f"{m.group(2)}-{MONTHS.index(m.group(1)) + 1:02d}-01"


def dates(text: str) -> set[str]:
    text = re.sub(rf"({DATE}) to (?:{DATE})", r"\1", text)
    return {d for d in (normal(x) for x in re.findall(DATE, text)) if d.startswith("2024-")}


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    pairs = set()
    for p in sorted(initial.rglob("*")):
        if p.is_file():
            rel = p.relative_to(initial).as_posix()
            pairs |= {(d, rel) for d in dates(p.read_text(encoding="utf-8"))}
    want = [f"{rel}:{d}" for d, rel in sorted(pairs)]
    problems: list[str] = []
    before = {p.relative_to(initial).as_posix() for p in initial.rglob("*")}
    after = {p.relative_to(root).as_posix() for p in root.rglob("*")
             if not p.name.startswith(".")}
    for rel in sorted(before - after):
        problems.append(f"{rel} is missing")
    for rel in sorted(after - before - {"timeline.txt"}):
        problems.append(f"unexpected new entry {rel}")
    for rel in sorted(before & after):
        if (initial / rel).is_file() and (root / rel).read_bytes() != (initial / rel).read_bytes():
            problems.append(f"{rel} was changed")
    out = root / "timeline.txt"
    if not out.is_file():
        problems.append("timeline.txt is missing")
    else:
        got = [ln.strip() for ln in out.read_text().strip().splitlines()]
        if got != want:
            miss = [x for x in want if x not in got]
            extra = [x for x in got if x not in want]
            problems.append(f"timeline differs ({len(got)} lines, expected {len(want)}): missing "
                            f"{miss[:5]}, unexpected {extra[:5]}"
                            + ("" if miss or extra else " (order)"))
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(want)} timeline entries")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
