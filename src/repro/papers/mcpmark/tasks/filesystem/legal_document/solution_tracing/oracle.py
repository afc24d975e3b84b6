"""solution_tracing's scripted solution: read v5-v10, then write who first proposed each
clause's final figure (parsed from the sandbox before any call)."""

import re
from pathlib import Path


def parse(path: Path) -> list[tuple[str, str, str]]:
    """(clause, name, text) per comment line, in file order."""
    out, clause = [], ""
    for line in path.read_text().splitlines():
        if re.match(r"\d+\.\d+ ", line):
            clause = line.split(" ", 1)[0]
        elif line.startswith("[") and line.endswith("]"):
            name, text = line[1:-1].split(":", 1)
            out.append((clause, name.strip(), text.strip()))
    return out


def reads(root: Path, versions) -> tuple[list[dict], dict[int, Path]]:
    files = {v: root / "legal_files" / f"Preferred_Stock_Purchase_Agreement_v{v}.txt"
             for v in versions}
    return [{"name": "read_text_file", "arguments": {"path": str(p)}}
            for p in files.values()], files


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    calls, files = reads(root, range(5, 11))
    clauses = ["4.6", "4.16", "6.8", "6.16"]
    ver, who = [], []
    final = {line.split(" ", 1)[0]: line for line in files[10].read_text().splitlines()}
    for c in clauses:
        figure = re.findall(r"(\$[\d,]+|\d+%|\d+ days)", final[c])[-1]
        v, name = next((v, name) for v in range(5, 10) for cl, name, text in parse(files[v])
                       if cl == c and re.search(r"(?<![\d$,])" + re.escape(figure) + r"(?!\d|,\d)",
                                                text))
        ver.append(str(v))
        who.append(name)
    table = ["," + ",".join(clauses), "version_number," + ",".join(ver), "name," + ",".join(who)]
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "tracing.csv"), "content": "\n".join(table) + "\n"}})
    return calls
