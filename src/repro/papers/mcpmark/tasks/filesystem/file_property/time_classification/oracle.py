"""time_classification's scripted solution: get each file's info, create the MM/DD/ folders,
move the files, then write each folder's report (the mtimes read from the sandbox
beforehand, as UTC)."""

import time
from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    files = sorted((p for p in root.iterdir() if p.is_file()), key=lambda p: p.stat().st_mtime)
    calls = [{"name": "get_file_info", "arguments": {"path": str(p)}} for p in files]
    days: dict[str, list[Path]] = {}
    for p in files:
        days.setdefault(time.strftime("%m/%d", time.gmtime(p.stat().st_mtime)), []).append(p)
    for day in sorted(days):
        calls.append({"name": "create_directory", "arguments": {"path": str(root / day)}})
    for day, ps in sorted(days.items()):
        calls += [{"name": "move_file", "arguments": {
            "source": str(p), "destination": str(root / day / p.name)}} for p in ps]
    for day, ps in sorted(days.items()):
        def stamp(p: Path) -> str:
            return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(p.stat().st_mtime))
        text = f"oldest: {ps[0].name} {stamp(ps[0])}\nlatest: {ps[-1].name} {stamp(ps[-1])}\n"
        calls.append({"name": "write_file", "arguments": {
            "path": str(root / day / "metadata_analyse.txt"), "content": text}})
    return calls
