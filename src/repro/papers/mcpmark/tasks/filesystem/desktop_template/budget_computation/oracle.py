"""budget_computation's scripted solution: read the CSV files (a read_text_file call each; the
values come from the sandbox before any call) and write total_budget.txt."""

from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    calls, lines, cents = [], [], 0
    for p in sorted(root.rglob("*.csv")):
        rel = p.relative_to(root).as_posix()
        calls.append({"name": "read_text_file", "arguments": {"path": str(p)}})
        if rel.startswith(("Documents/Work/", "Documents/Projects/")):
            continue
        header, *rows = [ln.split(",") for ln in p.read_text().splitlines() if ln]
        for r in rows:
            rec = dict(zip(header, r, strict=True))
            if "Amount" in rec:
                if rec.get("Type") == "income":
                    continue
                c = round(float(rec["Amount"]) * 100)
            elif any(h.startswith("Price ") for h in header):
                c = min(round(float(rec[h]) * 100) for h in header if h.startswith("Price "))
            else:
                continue
            lines.append(f"{rel};{c // 100}.{c % 100:02d}")
            cents += c
    lines.append(f"{cents // 100}.{cents % 100:02d}")
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "total_budget.txt"), "content": "\n".join(lines) + "\n"}})
    return calls
