"""english_talent's scripted solution: read every student's two files, then write
qualified_students.txt (the fields matched with regular expressions in the sandbox
beforehand)."""

import re
from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    calls, blocks = [], []
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        info = (d / "basic_info.txt").read_text()
        letter = (d / "recommendation_letter.txt").read_text()
        calls.append({"name": "read_multiple_files", "arguments": {"paths": [
            str(d / "basic_info.txt"), str(d / "recommendation_letter.txt")]}})
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
