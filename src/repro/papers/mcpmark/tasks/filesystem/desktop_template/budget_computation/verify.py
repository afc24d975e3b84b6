"""budget_computation: total_budget.txt lists every personal expense as path;price (cheapest
shop price for compared items, income rows left out) and ends with their sum."""

import csv
import os
import re
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path

WORK = ("Documents/Work/", "Documents/Projects/")


def expenses(initial: Path) -> list[tuple[str, Decimal]]:
    out = []
    for p in sorted(initial.rglob("*.csv")):
        rel = p.relative_to(initial).as_posix()
        if rel.startswith(WORK):
            continue
        with p.open(newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows:
            continue
        prices = [c for c in rows[0] if c.startswith("Price ")]
        for r in rows:
            if "Amount" in r:
                if r.get("Type", "").strip().lower() == "income":
                    continue
                out.append((rel, Decimal(r["Amount"]).quantize(Decimal("0.01"))))
            elif prices:
                out.append((rel, min(Decimal(r[c]) for c in prices).quantize(Decimal("0.01"))))
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
    want = expenses(initial)
    problems: list[str] = []
    unchanged(root, initial, {"total_budget.txt"}, problems)
    out = root / "total_budget.txt"
    if not out.is_file():
        problems.append("total_budget.txt is missing")
    else:
        lines = out.read_text().rstrip("\n").split("\n")
        got = []
        for ln in lines[:-1]:
            m = re.fullmatch(r"([^;]+);(\d+\.\d\d)", ln.strip())
            if not m:
                problems.append(f"line not of the form path;price with two decimals: {ln!r}")
            else:
                got.append((m.group(1), Decimal(m.group(2))))
        if Counter(got) != Counter(want):
            miss = sorted((Counter(want) - Counter(got)).elements())
            extra = sorted((Counter(got) - Counter(want)).elements())
            problems.append(f"expense lines differ: missing {[f'{a};{b}' for a, b in miss]}, "
                            f"unexpected {[f'{a};{b}' for a, b in extra]}")
        total = sum((v for _, v in want), Decimal("0.00"))
        if lines[-1].strip() != f"{total:.2f}":
            problems.append(f"last line {lines[-1]!r}, expected the total {total:.2f}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(want)} personal expenses")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
