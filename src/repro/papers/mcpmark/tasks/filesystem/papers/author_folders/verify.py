"""author_folders: frequent_authors/<first_last>/ (>=4 papers) and 2025_authors/<first_last>/
(>=3 papers in 2025) hold exact copies of exactly the right papers; originals untouched."""

import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path


class Meta(HTMLParser):
    def __init__(self):
        super().__init__()
        self.authors, self.date = [], None

    def handle_starttag(self, tag, attrs):
        if tag != "meta":
            return
        a = dict(attrs)
        if a.get("name") == "citation_author" and a.get("content"):
            self.authors.append(a["content"])
        elif a.get("name") == "citation_date" and self.date is None:
            self.date = a.get("content")


def folder_name(author: str) -> str:
    last, _, given = author.partition(",")
    first = given.split()[0] if given.split() else ""
    name = f"{first}_{last.strip()}" if first else last.strip()
    name = re.sub(r"[^\w\s-]", "", name)
    return re.sub(r"[\s-]+", "_", name).lower()


def expected(initial: Path) -> tuple[dict, dict]:
    every: dict[str, set] = {}
    of2025: dict[str, set] = {}
    for p in sorted(initial.glob("*.html")):
        m = Meta()
        m.feed(p.read_text(encoding="utf-8"))
        for a in m.authors:
            every.setdefault(folder_name(a), set()).add(p.name)
            if (m.date or "")[:4] == "2025":
                of2025.setdefault(folder_name(a), set()).add(p.name)
    return ({a: s for a, s in every.items() if len(s) >= 4},
            {a: s for a, s in of2025.items() if len(s) >= 3})


def check_folder(root: Path, initial: Path, folder: str, want: dict, problems: list) -> None:
    base = root / folder
    if not base.is_dir():
        problems.append(f"missing folder {folder}/")
        return
    have = {p.name for p in base.iterdir() if not p.name.startswith(".")}
    for extra in sorted(have - set(want)):
        problems.append(f"{folder}/{extra} should not be there")
    for author, papers in sorted(want.items()):
        d = base / author
        if not d.is_dir():
            problems.append(f"missing author folder {folder}/{author}/")
            continue
        got = {p.name for p in d.iterdir() if not p.name.startswith(".")}
        if got != papers:
            problems.append(f"{folder}/{author}/ holds {sorted(got)}, expected {sorted(papers)}")
        for name in sorted(got & papers):
            if (d / name).read_bytes() != (initial / name).read_bytes():
                problems.append(f"{folder}/{author}/{name} is not an exact copy")


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    frequent, prolific = expected(initial)
    problems: list[str] = []
    check_folder(root, initial, "frequent_authors", frequent, problems)
    check_folder(root, initial, "2025_authors", prolific, problems)
    originals = {p.name for p in initial.iterdir()}
    top = {p.name for p in root.iterdir() if not p.name.startswith(".")}
    for name in sorted(originals - top):
        problems.append(f"original file {name} is gone from the top level")
    for name in sorted(top - originals - {"frequent_authors", "2025_authors"}):
        problems.append(f"unexpected new entry at the top level: {name}")
    for name in sorted(originals & top):
        if not (root / name).is_file() or \
                (root / name).read_bytes() != (initial / name).read_bytes():
            problems.append(f"original file {name} was changed")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(frequent)} frequent authors, {len(prolific)} prolific 2025 authors")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
