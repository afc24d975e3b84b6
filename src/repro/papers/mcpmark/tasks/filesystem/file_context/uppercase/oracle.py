"""uppercase's scripted solution: read the ten files, create uppercase/, write their capitalised
copies, then answer.txt with the word counts (contents read from the sandbox beforehand)."""

import re
from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    names = [f"file_{i:02d}.txt" for i in range(1, 11)]
    calls = [{"name": "read_multiple_files",
              "arguments": {"paths": [str(root / n) for n in names]}},
             {"name": "create_directory", "arguments": {"path": str(root / "uppercase")}}]
    lines = []
    for n in names:
        text = (root / n).read_text()
        calls.append({"name": "write_file", "arguments": {
            "path": str(root / "uppercase" / n), "content": text.upper()}})
        words = len(re.findall(r"[^ \t\n]+", text))
        lines.append(f"{n}:{words}")
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "uppercase" / "answer.txt"), "content": "\n".join(lines) + "\n"}})
    return calls
