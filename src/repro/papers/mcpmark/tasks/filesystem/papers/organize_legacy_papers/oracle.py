"""organize_legacy_papers' scripted solution: for each year up to 2023, a folder, one move per
paper and its INDEX.md; then SUMMARY.md (authors read from the sandbox before any call)."""

import re
from pathlib import Path

AUTHOR = re.compile(r'<meta name="citation_author" content="([^"]*)"')


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    years: dict[int, list[Path]] = {}
    for p in sorted(root.glob("*.html")):
        if int(p.name[:2]) <= 23:
            years.setdefault(2000 + int(p.name[:2]), []).append(p)
    org = root / "organized"
    calls = [{"name": "create_directory", "arguments": {"path": str(org)}}]
    summary = ["# Legacy papers", "", "| Year | Paper Count | Index Link |", "|---|---|---|"]
    for year, ps in sorted(years.items()):
        d = org / str(year)
        calls.append({"name": "create_directory", "arguments": {"path": str(d)}})
        index = [f"# Papers from {year}", "", "| ArXiv ID | Authors | Local Path |",
                 "| -------- | ------- | ---------- |"]
        for p in ps:
            authors = AUTHOR.findall(p.read_text())
            shown = ", ".join(authors[:3]) + (", et al." if len(authors) > 3 else "")
            index.append(f"| {p.stem} | {shown} | {p.name} |")
            calls.append({"name": "move_file", "arguments": {
                "source": str(p), "destination": str(d / p.name)}})
        calls.append({"name": "write_file", "arguments": {
            "path": str(d / "INDEX.md"), "content": "\n".join(index) + "\n"}})
        summary.append(f"| {year} | {len(ps)} | [View Index]({year}/INDEX.md) |")
    calls.append({"name": "write_file", "arguments": {
        "path": str(org / "SUMMARY.md"), "content": "\n".join(summary) + "\n"}})
    return calls
