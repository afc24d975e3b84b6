"""Shared by the student_database verifiers: the students of the pristine template and the
unchanged-template check."""

from pathlib import Path


def students(initial: Path) -> list[dict]:
    """Each student of the pristine template: the fields of basic_info.txt and the letter's
    grade."""
    out = []
    for d in sorted(p for p in initial.iterdir() if p.is_dir()):
        rec = {"folder": d.name}
        for line in (d / "basic_info.txt").read_text().splitlines():
            key, sep, value = line.partition(":")
            if sep:
                rec[key.strip()] = value.strip()
        for line in (d / "recommendation_letter.txt").read_text().splitlines():
            if line.startswith("Recommendation Grade:"):
                rec["grade"] = line.split(":", 1)[1].strip()
        out.append(rec)
    return out


def untouched(root: Path, initial: Path, outputs: set[str]) -> list[str]:
    """Every template file still there and unchanged; nothing new but the outputs."""
    problems = []
    for p in sorted(initial.rglob("*")):
        q = root / p.relative_to(initial)
        if p.is_file() and (not q.is_file() or q.read_bytes() != p.read_bytes()):
            problems.append(f"{p.relative_to(initial)} was changed, moved or deleted")
    have = {str(p.relative_to(initial)) for p in initial.rglob("*")} | outputs
    extra = sorted(str(p.relative_to(root)) for p in root.rglob("*")
                   if str(p.relative_to(root)) not in have and not p.name.startswith("."))
    if extra:
        problems.append(f"unexpected new entries: {extra[:10]}")
    return problems
