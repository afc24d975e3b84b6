"""file_splitting's scripted solution: read large_file.txt, create split/, write its ten equal
tenths (the content is read from the sandbox beforehand)."""

from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    text = (root / "large_file.txt").read_text()
    n = len(text) // 10
    calls = [{"name": "read_text_file", "arguments": {"path": str(root / "large_file.txt")}},
             {"name": "create_directory", "arguments": {"path": str(root / "split")}}]
    for i in range(10):
        calls.append({"name": "write_file", "arguments": {
            "path": str(root / "split" / f"split_{i + 1:02d}.txt"),
            "content": text[i * n:(i + 1) * n]}})
    return calls
