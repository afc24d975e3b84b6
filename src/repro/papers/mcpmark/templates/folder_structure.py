"""folder_structure: one tree `complex_structure/` several levels deep (MCPMark's tree: the fixed
parts deeply/nested/folder/structure/, empty_folder/, mixed_content/images_and_text/notes.txt,
project/docs/archive/2023/reports/report_0..2.txt, project/src/main/resources/ and m.py, next to
random `folder_<letters>_<depth>_<index>/` subtrees of `file_<letters>_<index>.txt` files).

Ours adds, from the seed: other folder names without digits, files with other extensions
(.py, .md, .json, .csv, .jpg, .MOV) and without one, and folders that directly hold 0-4 files,
so the mirror task's "more than two files" rule and its "name with digits" rule both matter.
"""

from __future__ import annotations

import shutil
import string
from pathlib import Path

import numpy as np

WORDS = ("assets", "logs", "cache", "drafts", "misc", "shared", "vendor", "notes", "backup")
EXTS = ("txt", "txt", "txt", "txt", "py", "md", "json", "csv", "jpg", "MOV", "")
TEXT = ("lorem", "ipsum", "dolor", "sit", "amet", "data", "value", "node", "tree", "leaf")


def _tag(rng: np.random.Generator) -> str:
    return "".join(rng.choice(list(string.ascii_letters), 5))


def _file(path: Path, rng: np.random.Generator) -> None:
    n = int(rng.integers(20, 1500))
    if path.suffix in (".jpg", ".MOV"):
        path.write_bytes(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
    else:
        words = " ".join(str(w) for w in rng.choice(TEXT, n // 5))
        path.write_text(words[:n] + "\n")


def _subtree(folder: Path, depth: int, rng: np.random.Generator) -> None:
    folder.mkdir()
    n_files = int(rng.choice([0, 1, 1, 2, 2, 3, 4])) if depth else 1
    for i in range(n_files):
        ext = str(rng.choice(EXTS))
        name = f"file_{_tag(rng)}_{i}" + (f".{ext}" if ext else "")
        if not ext and rng.random() < 0.5:
            name = str(rng.choice(["Makefile", "LICENSE", "README", "Dockerfile"]))
        if not (folder / name).exists():
            _file(folder / name, rng)
    if depth < 5:
        for j in range(int(rng.integers(0, 4 - depth // 2))):
            sub = f"folder_{_tag(rng)}_{depth + 1}_{j}" if rng.random() < 0.75 \
                else f"{rng.choice(WORDS)}_{_tag(rng).lower()}"
            _subtree(folder / sub, depth + 1, rng)


def build(root: Path, rng: np.random.Generator) -> None:
    top = root / "complex_structure"
    while True:  # redraw until the tree is of MCPMark's size (69 files, 51 folders there)
        _tree(top, rng)
        files = [p for p in top.rglob("*") if p.is_file()]
        counts = [sum(q.is_file() for q in p.iterdir()) for p in top.rglob("*") if p.is_dir()]
        if 45 <= len(files) <= 95 and sum(c > 2 for c in counts) >= 4 and counts.count(2) >= 2:
            return
        shutil.rmtree(top)


def _tree(top: Path, rng: np.random.Generator) -> None:
    (top / "deeply" / "nested" / "folder" / "structure").mkdir(parents=True)
    (top / "empty_folder").mkdir()
    (top / "mixed_content" / "images_and_text").mkdir(parents=True)
    _file(top / "mixed_content" / "images_and_text" / "notes.txt", rng)
    year = int(rng.integers(2019, 2025))
    reports = top / "project" / "docs" / "archive" / str(year) / "reports"
    reports.mkdir(parents=True)
    for i in range(3):
        _file(reports / f"report_{i}.txt", rng)
    (top / "project" / "src" / "main" / "resources").mkdir(parents=True)
    _file(top / "m.py", rng)
    for j in range(int(rng.integers(3, 5))):
        _subtree(top / f"folder_{_tag(rng)}_0_{j}", 0, rng)
