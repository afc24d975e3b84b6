"""author_folders' scripted solution: read every paper's citation metadata (from the sandbox,
before any call), then create the author folders and write a copy of each paper into them."""

import re
from collections import defaultdict
from pathlib import Path

AUTHOR = re.compile(r'<meta name="citation_author" content="([^"]*)"')
DATE = re.compile(r'<meta name="citation_date" content="(\d{4})')


def slug(author: str) -> str:
    last, given = (s.strip() for s in author.split(",", 1))
    name = given.split()[0] + " " + last
    name = "".join(c for c in name if c.isalnum() or c in " -_")
    return "_".join(re.split(r"[ -]+", name)).lower()


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    papers = {p.name: p.read_text() for p in sorted(root.glob("*.html"))}
    every, of2025 = defaultdict(set), defaultdict(set)
    for name, text in papers.items():
        year = DATE.search(text).group(1)
        for a in AUTHOR.findall(text):
            every[slug(a)].add(name)
            if year == "2025":
                of2025[slug(a)].add(name)
    calls = []
    for folder, groups, k in (("frequent_authors", every, 4), ("2025_authors", of2025, 3)):
        calls.append({"name": "create_directory", "arguments": {"path": str(root / folder)}})
        for author in sorted(a for a, s in groups.items() if len(s) >= k):
            d = root / folder / author
            calls.append({"name": "create_directory", "arguments": {"path": str(d)}})
            for name in sorted(groups[author]):
                calls.append({"name": "write_file", "arguments": {
                    "path": str(d / name), "content": papers[name]}})
    return calls
