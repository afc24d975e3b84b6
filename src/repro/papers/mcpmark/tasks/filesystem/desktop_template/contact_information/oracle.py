"""contact_information's scripted solution: read the files with contacts, then write the table
and the answer (entries parsed from the sandbox before any call)."""

import re
from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    calls, rows = [], []
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(root).as_posix()
        text = p.read_text()
        if p.suffix == ".csv":
            header, *data = [ln.split(",") for ln in text.splitlines() if ln]
            if "Name" in header and "Phone" in header:
                calls.append({"name": "read_text_file", "arguments": {"path": str(p)}})
                for r in data:
                    rec = dict(zip(header, r, strict=True))
                    rows.append([rec["Name"], rec.get("Email", ""), rec["Phone"], rel])
        elif "Name:" in text:
            calls.append({"name": "read_text_file", "arguments": {"path": str(p)}})
            for block in re.split(r"\n\s*\n", text):
                found = dict(re.findall(r"^(Name|Email|Phone): *(.*)$", block, re.M))
                if "Name" in found:
                    rows.append([found["Name"], found.get("Email", ""), found.get("Phone", ""),
                                 rel])
    phones: dict[str, set] = {}
    for name, _, phone, _ in rows:
        phones.setdefault(name, set()).add(phone)
    answer = next(n for n, s in phones.items() if len(s) > 1)
    table = "Name,Email,Phone,Source\n" + "".join(",".join(r) + "\n" for r in rows)
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "contact_info.csv"), "content": table}})
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "answer.txt"), "content": answer + "\n"}})
    return calls
