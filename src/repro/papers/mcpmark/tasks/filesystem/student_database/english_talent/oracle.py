"""english_talent's scripted solution: read every student's two files (25 students per
read_multiple_files call, so the run stays well inside the benchmark's 100 turns), then write
qualified_students.txt (the fields matched with regular expressions in the sandbox
beforehand)."""

import re
from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    calls, blocks = [], []
    folders = sorted(p for p in root.iterdir() if p.is_dir())
    for i in range(0, len(folders), 25):
        calls.append({"name": "read_multiple_files", "arguments": {"paths": [
            str(d / f) for d in folders[i:i + 25]
            for f in ("basic_info.txt", "recommendation_letter.txt")]}})
    for d in folders:
        info = (d / "basic_info.txt").read_text()
        letter = (d / "recommendation_letter.txt").read_text()
        grade = re.search(r"^Recommendation Grade:\s*(\w)", letter, re.M).group(1)
        toefl = int(re.search(r"^TOEFL:\s*(\d+)", info, re.M).group(1))
        if grade in "SA" and toefl >= 100:
            name = re.search(r"^Name:\s*(.+)$", info, re.M).group(1).strip()
            sid = re.search(r"^Student ID:\s*(\d+)", info, re.M).group(1)
            email = re.search(r"^Email:\s*(\S+)", info, re.M).group(1)
            blocks.append(f"name: {name}\nid: {sid}\nemail: {email}")
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "qualified_students.txt"), "content": "\n\n".join(blocks) + "\n"}})
    return calls
