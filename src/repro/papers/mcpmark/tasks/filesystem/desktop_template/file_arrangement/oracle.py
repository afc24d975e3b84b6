"""file_arrangement's scripted solution: the five folders, then one move per file into the
folder the ordered rules give (file names and first lines read from the sandbox beforehand)."""

from pathlib import Path


def target(root: Path, p: Path) -> str:
    rel = p.relative_to(root).as_posix()
    head = p.read_text().splitlines()[0].lower() if p.read_text() else ""
    if any(p.name[i:i + 4].isdigit() for i in range(len(p.name) - 3)) or \
            p.name.startswith("backup_"):
        return "archives"
    if rel.startswith("Temp/") or p.name.startswith(("draft_", "example")):
        return "temp"
    if rel.split("/")[:2] in (["Documents", "Work"], ["Documents", "Projects"]) or \
            any(w in head for w in ("experiment", "client", "project")):
        return "work"
    if p.suffix == ".csv" or "personal" in head:
        return "life"
    return "others"


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    files = sorted(p for p in root.rglob("*") if p.is_file())
    calls = [{"name": "create_directory", "arguments": {"path": str(root / d)}}
             for d in ("work", "life", "archives", "temp", "others")]
    for p in files:
        calls.append({"name": "move_file", "arguments": {
            "source": str(p), "destination": str(root / target(root, p) / p.name)}})
    return calls
