"""find_math_paper's scripted solution: search for memorization, read the candidate papers,
then rename the math benchmark among them (chosen from the sandbox's text before any call)."""

from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    cands = [p for p in sorted(root.glob("*.html")) if "memorization" in p.read_text().lower()]
    target = next(p for p in cands if "benchmark" in p.read_text().lower()
                  and "mathemat" in p.read_text().lower())
    calls = [{"name": "search_files", "arguments": {"path": str(root), "pattern": "*.html"}}]
    calls += [{"name": "read_text_file", "arguments": {"path": str(p)}} for p in cands]
    calls.append({"name": "move_file", "arguments": {
        "source": str(target), "destination": str(root / "answer.html")}})
    return calls
