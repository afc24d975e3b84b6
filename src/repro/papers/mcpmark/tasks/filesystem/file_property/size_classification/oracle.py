"""size_classification's scripted solution: three create_directory calls, then one move_file per
file into the folder of its size (read from the sandbox before any call is sent)."""

from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    calls = [{"name": "create_directory", "arguments": {"path": str(root / d)}}
             for d in ("small_files", "medium_files", "large_files")]
    for p in sorted(root.iterdir()):
        if p.is_file():
            size = p.stat().st_size
            folder = "small_files" if size < 300 else "medium_files" if size <= 700 \
                else "large_files"
            calls.append({"name": "move_file", "arguments": {
                "source": str(p), "destination": str(root / folder / p.name)}})
    return calls
