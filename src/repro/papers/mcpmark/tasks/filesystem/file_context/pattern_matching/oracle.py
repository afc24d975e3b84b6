"""pattern_matching's scripted solution: read large_file.txt and the twenty files, then write
answer.txt (each file's longest block shared with large_file.txt found with difflib, from the
sandbox, beforehand)."""

from difflib import SequenceMatcher
from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    large = (root / "large_file.txt").read_text()
    names = [f"file_{i:02d}.txt" for i in range(1, 21)]
    lines = []
    for n in names:
        text = (root / n).read_text()
        m = SequenceMatcher(None, large, text, autojunk=False).find_longest_match(
            0, len(large), 0, len(text))
        if m.size >= 30:
            run = large[m.a:m.a + m.size]
            lines.append(f"{n},{large.index(run) + 1}")
    return [{"name": "read_text_file", "arguments": {"path": str(root / "large_file.txt")}},
            {"name": "read_multiple_files",
             "arguments": {"paths": [str(root / n) for n in names]}},
            {"name": "write_file", "arguments": {"path": str(root / "answer.txt"),
                                                 "content": "\n".join(lines) + "\n"}}]
