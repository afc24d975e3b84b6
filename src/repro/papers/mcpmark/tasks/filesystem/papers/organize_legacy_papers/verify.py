"""organize_legacy_papers: papers up to 2023 moved into organized/<year>/ with an exact INDEX.md
table each and organized/SUMMARY.md; newer papers and the BibTeX file left in place."""

import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path


class Authors(HTMLParser):
    def __init__(self):
        super().__init__()
        self.authors = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and a.get("name") == "citation_author":
            self.authors.append(a.get("content") or "")


def table(path: Path, problems: list) -> list[list[str]] | None:
    """The rows of the file's one Markdown table (header first, separator dropped)."""
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()]
    body = [ln for ln in lines if ln]
    rows = [ln for ln in body if ln.startswith("|")]
    others = [ln for ln in body if not ln.startswith("|")]
    if len(others) > 1 or (others and not others[0].startswith("#")) or \
            (others and body[0] != others[0]):
        problems.append(f"{path.name}: text other than one heading and the table: {others[:3]}")
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in rows]
    if len(cells) < 2 or not all(re.fullmatch(r":?-+:?", c) for c in cells[1]):
        problems.append(f"{path} has no Markdown table with a header and a separator row")
        return None
    return [cells[0]] + cells[2:]


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    problems: list[str] = []
    papers = sorted(p.name for p in initial.glob("*.html"))
    legacy: dict[str, list[str]] = {}
    for name in papers:
        year = 2000 + int(name[:2])
        if year <= 2023:
            legacy.setdefault(str(year), []).append(name)
    stay = {p.name for p in initial.iterdir()} - {n for v in legacy.values() for n in v}

    top = {p.name for p in root.iterdir() if not p.name.startswith(".")}
    for name in sorted(stay - top):
        problems.append(f"{name} should have stayed at the top level")
    for name in sorted(top - stay - {"organized"}):
        problems.append(f"{name} should not be at the top level")
    for name in sorted(stay & top):
        if (root / name).read_bytes() != (initial / name).read_bytes():
            problems.append(f"{name} was changed")
    org = root / "organized"
    if not org.is_dir():
        problems.append("missing folder organized/")
    else:
        have = {p.name for p in org.iterdir() if not p.name.startswith(".")}
        want = set(legacy) | {"SUMMARY.md"}
        if have != want:
            problems.append(f"organized/ holds {sorted(have)}, expected {sorted(want)}")
        for year, names in sorted(legacy.items()):
            d = org / year
            if not d.is_dir():
                continue
            got = {p.name for p in d.iterdir() if not p.name.startswith(".")}
            if got != set(names) | {"INDEX.md"}:
                problems.append(f"organized/{year}/ holds {sorted(got)}, expected "
                                f"{sorted(set(names) | {'INDEX.md'})}")
            for n in sorted(got & set(names)):
                if (d / n).read_bytes() != (initial / n).read_bytes():
                    problems.append(f"organized/{year}/{n} was changed")
            if not (d / "INDEX.md").is_file():
                continue
            rows = table(d / "INDEX.md", problems)
            expect = [["ArXiv ID", "Authors", "Local Path"]]
            for n in names:
                parser = Authors()
                parser.feed((initial / n).read_text(encoding="utf-8"))
                a = parser.authors
                cell = ", ".join(a[:3]) + (", et al." if len(a) > 3 else "")
                expect.append([n[:-5], cell, n])
            if rows is not None and rows != expect:
                bad = [r for r in rows if r not in expect] + [r for r in expect if r not in rows]
                problems.append(f"organized/{year}/INDEX.md differs from the expected table "
                                f"(first wrong or missing rows: {bad[:2]}; order matters)")
        if (org / "SUMMARY.md").is_file():
            rows = table(org / "SUMMARY.md", problems)
            expect = [["Year", "Paper Count", "Index Link"]] + [
                [y, str(len(n)), f"[View Index]({y}/INDEX.md)"] for y, n in sorted(legacy.items())]
            if rows is not None and rows != expect:
                problems.append(f"organized/SUMMARY.md rows {rows[1:]}, expected {expect[1:]}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {sum(map(len, legacy.values()))} legacy papers in {len(legacy)} years")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
