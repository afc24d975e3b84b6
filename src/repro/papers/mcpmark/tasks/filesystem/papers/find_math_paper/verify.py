"""find_math_paper: the one math benchmark paper that diagnoses knowledge, generalization and
memorization is renamed to answer.html, unchanged; every other file is untouched."""

import os
import re
import sys
from pathlib import Path


def abstract(text: str) -> str:
    m = re.search(r'<div class="ltx_abstract">(.*?)</div>', text, re.S)
    return m.group(1).lower() if m else ""


def main() -> int:
    root = Path(os.environ["FILESYSTEM_TEST_DIR"])
    initial = Path(os.environ["MCPMARK_INITIAL_STATE"])
    hits = [p.name for p in sorted(initial.glob("*.html"))
            if all(w in abstract(p.read_text(encoding="utf-8"))
                   for w in ("mathemat", "knowledge", "generaliz", "memoriz"))]
    if len(hits) != 1:
        print(f"FAIL: the template should hold one target paper, found {hits}")
        return 1
    target = hits[0]
    problems = []
    answer = root / "answer.html"
    if not answer.is_file():
        problems.append("answer.html is missing")
    elif answer.read_bytes() != (initial / target).read_bytes():
        problems.append("answer.html is not the paper described (or its content was changed)")
    if (root / target).exists():
        problems.append(f"{target} is still there: it should have been renamed")
    want = {p.name for p in initial.iterdir()} - {target}
    have = {p.name for p in root.iterdir() if not p.name.startswith(".")} - {"answer.html"}
    for name in sorted(want - have):
        problems.append(f"{name} is missing")
    for name in sorted(have - want - {target}):
        problems.append(f"unexpected entry {name}")
    for name in sorted(want & have):
        if not (root / name).is_file() or \
                (root / name).read_bytes() != (initial / name).read_bytes():
            problems.append(f"{name} was changed")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("PASS: the paper was found and renamed to answer.html")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
