"""contact_information: contact_info.csv lists every contact entry (CSV rows with Name and Phone,
`Name:` blocks of text files) as Name,Email,Phone,Source; answer.txt names the one person with
two different phone numbers; nothing else changed."""

import csv
import io
import os
import sys
from collections import Counter
from pathlib import Path


def entries(initial: Path) -> list[tuple[str, str, str, str]]:
    out = []
    for p in sorted(initial.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(initial).as_posix()
        text = p.read_text(encoding="utf-8")
        if p.suffix == ".csv":
            rows = list(csv.DictReader(io.StringIO(text)))
            if rows and "Name" in rows[0] and "Phone" in rows[0]:
                out += [(r["Name"], r.get("Email", ""), r["Phone"], rel) for r in rows]
        else:
            for block in text.split("\n\n"):
                lines = [ln.strip() for ln in block.strip().split("\n")]
                if lines and lines[0].startswith("Name:"):
                    kv = dict(ln.split(":", 1) for ln in lines if ":" in ln)
                    kv = {k.strip(): v.strip() for k, v in kv.items()}
                    out.append((kv["Name"], kv.get("Email", ""), kv.get("Phone", ""), rel))
    return out


def unchanged(root: Path, initial: Path, new: set[str], problems: list) -> None:
    before = {p.relative_to(initial).as_posix() for p in initial.rglob("*")}
    after = {p.relative_to(root).as_posix() for p in root.rglob("*")
             if not p.name.startswith(".")}
    for rel in sorted(before - after):
        problems.append(f"{rel} is missing")
    for rel in sorted(after - before - new):
        problems.append(f"unexpected new entry {rel}")
    for rel in sorted(before & after):
        if (initial / rel).is_file() and (root / rel).read_bytes() != (initial / rel).read_bytes():
            problems.append(f"{rel} was changed")


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    want = entries(initial)
    phones: dict[str, set] = {}
    for name, _, phone, _ in want:
        phones.setdefault(name, set()).add(phone)
    twice = [n for n, s in phones.items() if len(s) > 1]
    if len(twice) != 1:
        print(f"FAIL: the template should have one person with two phone numbers: {twice}")
        return 1
    problems: list[str] = []
    unchanged(root, initial, {"contact_info.csv", "answer.txt"}, problems)
    table = root / "contact_info.csv"
    if not table.is_file():
        problems.append("contact_info.csv is missing")
    else:
        rows = [r for r in csv.reader(io.StringIO(table.read_text())) if r]
        if not rows or [c.strip() for c in rows[0]] != ["Name", "Email", "Phone", "Source"]:
            problems.append(f"header is {rows[:1]}, expected Name,Email,Phone,Source")
        got = [tuple(c.strip() for c in r) for r in rows[1:]]
        if Counter(got) != Counter(want):
            miss = sorted((Counter(want) - Counter(got)).elements())
            extra = sorted((Counter(got) - Counter(want)).elements())
            problems.append(f"rows differ: missing {miss[:4]}, unexpected {extra[:4]} "
                            f"({len(got)} rows, expected {len(want)})")
    answer = root / "answer.txt"
    if not answer.is_file():
        problems.append("answer.txt is missing")
    elif answer.read_text().strip() != twice[0]:
        problems.append(f"answer.txt says {answer.read_text().strip()!r}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(want)} contact entries; the answer is right")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
