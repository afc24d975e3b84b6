"""timeline_extraction's scripted solution: read every file, then write the timeline (dates found
in the sandbox's files before any call, by a scan of their words)."""

import re
from pathlib import Path

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def found(text: str) -> set[str]:
    out = set()
    tokens = re.findall(r"[A-Za-z]+|\d{4}-\d{2}-\d{2}|\d{4}-\d{2}|\d+,?|\S", text)
    i, skip_next = 0, False
    while i < len(tokens):
        t, date, used = tokens[i], None, 1
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", t):
            date = t
        elif re.fullmatch(r"\d{4}-\d{2}", t):
            date = t + "-01"
        elif t in MONTHS and i + 1 < len(tokens):
            nxt = tokens[i + 1]
            year = tokens[i + 2] if i + 2 < len(tokens) else ""
            if nxt.endswith(",") and re.fullmatch(r"\d{4},?", year):
                date = f"{tokens[i + 2][:4]}-{MONTHS.index(t) + 1:02d}-{int(nxt[:-1]):02d}"
                used = 3
            elif re.fullmatch(r"\d{4},?", nxt):
                date = f"{nxt[:4]}-{MONTHS.index(t) + 1:02d}-01"
                used = 2
        if date:
            if not skip_next and date.startswith("2024"):
                out.add(date)
            skip_next = i + used < len(tokens) and tokens[i + used] == "to"
        elif t != "to":
            skip_next = False
        i += used
    return out


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    calls, pairs = [], set()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            calls.append({"name": "read_text_file", "arguments": {"path": str(p)}})
            rel = p.relative_to(root).as_posix()
            pairs |= {(d, rel) for d in found(p.read_text())}
    lines = [f"{rel}:{d}" for d, rel in sorted(pairs)]
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "timeline.txt"), "content": "\n".join(lines) + "\n"}})
    return calls
