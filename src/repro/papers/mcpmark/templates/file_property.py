"""file_property: a handful of photos, videos and text files of different byte sizes (MCPMark's
tree: bear.jpg, bridge.jpg, bus.MOV, random_file_1..3.txt, road.MOV, sg.jpg)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

NAMES = ("bear.jpg", "bridge.jpg", "bus.MOV", "random_file_1.txt", "random_file_2.txt",
         "random_file_3.txt", "road.MOV", "sg.jpg")
WORDS = ("alpha", "bravo", "delta", "echo", "river", "stone", "cloud", "maple", "orbit", "pixel")


def _text(rng: np.random.Generator, size: int) -> bytes:
    out = b""
    while len(out) < size:
        out += (" ".join(rng.choice(WORDS, 8)) + "\n").encode()
    return out[:size]


def build(root: Path, rng: np.random.Generator) -> None:
    # sizes span the size task's three classes (<300, 300-700, >700 bytes), with both borders
    sizes = {"random_file_1.txt": int(rng.integers(60, 300)), "random_file_2.txt": 300,
             "random_file_3.txt": int(rng.integers(301, 700)), "sg.jpg": 700}
    for name in NAMES:
        size = sizes.get(name, int(rng.integers(701, 40_000)))
        if name.endswith(".txt"):
            data = _text(rng, size)
        else:
            header = b"\xff\xd8\xff\xe0" if name.endswith(".jpg") else b"\x00\x00\x00\x14ftypqt  "
            data = header + rng.integers(0, 256, size - len(header), dtype=np.uint8).tobytes()
        (root / name).write_bytes(data)
