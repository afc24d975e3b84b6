"""music_report's scripted solution: read both song lists, then write the ranked report (the
songs parsed from the sandbox before any call; scores in integer thousandths)."""

from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    a, b = root / "music/jay_chou/favorite_songs.csv", root / "music/jj_lin/top_songs.txt"
    rows = []  # (name, rating in tenths, plays, year)
    for line in a.read_text().splitlines()[1:]:
        name, _, year, rating, plays = line.split(",")
        rows.append((name, round(float(rating) * 10), int(plays), int(year)))
    block: dict = {}
    for line in b.read_text().splitlines():
        s = line.strip()
        if s[:1].isdigit() and ". " in s:
            block = {"name": s.split(". ", 1)[1]}
        elif s.startswith("Released:"):
            block["year"] = int(s.split()[1])
        elif s.startswith("Rating:"):
            block["rating"] = round(float(s.split()[1].split("/")[0]) * 10)
        elif s.startswith("Plays:"):
            rows.append((block["name"], block["rating"], int(s.split()[1]), block["year"]))
    # thousandths: rating*0.4 -> rating_tenths*40; plays/250*0.4 -> plays*1.6; years*8
    scored = sorted(((r * 40 + p * 8 // 5 + (2025 - y) * 8, n) for n, r, p, y in rows),
                    key=lambda t: (-t[0], t[1]))
    lines = [f"{n}:{s // 1000}.{s % 1000:03d}" for s, n in scored] + [n for _, n in scored[:5]]
    return [{"name": "read_text_file", "arguments": {"path": str(a)}},
            {"name": "read_text_file", "arguments": {"path": str(b)}},
            {"name": "write_file", "arguments": {
                "path": str(root / "music/music_analysis_report.txt"),
                "content": "\n".join(lines) + "\n"}}]
