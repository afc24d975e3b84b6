"""duplicate_name's scripted solution: list the student folders, then write namesake.txt (names
and ids taken from the folder names in the sandbox beforehand)."""

from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    groups: dict[str, list[str]] = {}
    for d in sorted(p.name for p in root.iterdir() if p.is_dir()):
        sid, first, last = d.split("_", 2)
        groups.setdefault(f"{first} {last}", []).append(sid)
    blocks = [f"name: {n}\ncount: {len(ids)}\nids: {', '.join(ids)}"
              for n, ids in sorted(groups.items()) if len(ids) > 1]
    return [{"name": "list_directory", "arguments": {"path": str(root)}},
            {"name": "write_file", "arguments": {"path": str(root / "namesake.txt"),
                                                 "content": "\n\n".join(blocks) + "\n"}}]
