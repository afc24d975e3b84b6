"""file_merging's scripted solution: list the folder with sizes, read the 10 smallest files, then
write merged_content.txt (the sizes and contents are read from the sandbox beforehand)."""

from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    sizes = {p.name: p.stat().st_size for p in root.glob("*.txt")}
    chosen = sorted(sorted(sizes, key=lambda n: (sizes[n], n))[:10])
    calls = [{"name": "list_directory_with_sizes", "arguments": {"path": str(root)}},
             {"name": "read_multiple_files",
              "arguments": {"paths": [str(root / n) for n in chosen]}}]
    parts = [f"{n}\n{(root / n).read_text().rstrip()}\n" for n in chosen]
    calls.append({"name": "write_file", "arguments": {
        "path": str(root / "merged_content.txt"), "content": "\n".join(parts)}})
    return calls
