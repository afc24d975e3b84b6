"""duplicates_searching's scripted solution: read all files, create duplicates/, move each file
whose content another one shares (contents grouped from the sandbox beforehand)."""

from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    paths = sorted(p for p in root.iterdir() if p.is_file())
    groups: dict[str, list[Path]] = {}
    for p in paths:
        groups.setdefault(p.read_text(), []).append(p)
    calls = [{"name": "read_multiple_files", "arguments": {"paths": [str(p) for p in paths]}},
             {"name": "create_directory", "arguments": {"path": str(root / "duplicates")}}]
    for members in groups.values():
        if len(members) > 1:
            calls += [{"name": "move_file", "arguments": {
                "source": str(p), "destination": str(root / "duplicates" / p.name)}}
                for p in members]
    return calls
