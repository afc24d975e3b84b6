"""music_report: music/music_analysis_report.txt lists every Jay Chou and JJ Lin song with its
popularity score (3 decimals, best first) and then the top five names; nothing else changed."""

import csv
import os
import re
import sys
from decimal import Decimal
from pathlib import Path


def songs(initial: Path) -> list[tuple[str, Decimal, int, int]]:
    out = []
    with (initial / "music/jay_chou/favorite_songs.csv").open(newline="") as f:
        for r in csv.DictReader(f):
            out.append((r["song_name"], Decimal(r["rating"]), int(r["play_count"]),
                        int(r["release_year"])))
    text = (initial / "music/jj_lin/top_songs.txt").read_text()
    for m in re.finditer(r"^\d+\. (.+)\n\s+Album: .*\n\s+Released: (\d{4})\n"
                         r"\s+Rating: ([\d.]+)/5\n\s+Plays: (\d+)", text, re.M):
        out.append((m.group(1).strip(), Decimal(m.group(3)), int(m.group(4)),
                    int(m.group(2))))
    return out


def score(rating: Decimal, plays: int, year: int) -> Decimal:
    s = rating * Decimal("0.4") + Decimal(plays) / 250 * Decimal("0.4") + \
        Decimal(2025 - year) / 25 * Decimal("0.2")
    return s.quantize(Decimal("0.001"))


def unchanged(root: Path, initial: Path, new: str, problems: list) -> None:
    before = {p.relative_to(initial).as_posix() for p in initial.rglob("*")}
    after = {p.relative_to(root).as_posix() for p in root.rglob("*")
             if not p.name.startswith(".")}
    for rel in sorted(before - after):
        problems.append(f"{rel} is missing")
    for rel in sorted(after - before - {new}):
        problems.append(f"unexpected new entry {rel}")
    for rel in sorted(before & after):
        if (initial / rel).is_file() and (root / rel).read_bytes() != (initial / rel).read_bytes():
            problems.append(f"{rel} was changed")


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    scored = sorted(((score(r, p, y), n) for n, r, p, y in songs(initial)),
                    key=lambda t: (-t[0], t[1]))
    want = [f"{n}:{s}" for s, n in scored] + [n for _, n in scored[:5]]
    problems: list[str] = []
    unchanged(root, initial, "music/music_analysis_report.txt", problems)
    out = root / "music/music_analysis_report.txt"
    if not out.is_file():
        problems.append("music/music_analysis_report.txt is missing")
    else:
        got = [ln.rstrip() for ln in out.read_text().rstrip("\n").split("\n")]
        if len(got) != len(want):
            problems.append(f"{len(got)} lines, expected {len(want)}")
        for i, (g, w) in enumerate(zip(got, want, strict=False), 1):
            if g != w:
                problems.append(f"line {i}: {g!r}, expected {w!r}")
    for p in problems[:12]:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(scored)} songs scored and ranked")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
