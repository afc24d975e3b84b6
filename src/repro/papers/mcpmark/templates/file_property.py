"""file_property: a handful of photos, videos and text files of different byte sizes (MCPMark's
tree: bear.jpg, bridge.jpg, bus.MOV, random_file_1..3.txt, road.MOV, sg.jpg).

The builder stamps each file's modification time itself (STAMPS_TIMES): the files fall on three
or four days of two months of 2025, between 09:00 and 15:00 UTC, at least three of them on one
day, every file at a different second (the time classification task's groups and its
oldest/latest lines are then well defined)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

NAMES = ("bear.jpg", "bridge.jpg", "bus.MOV", "random_file_1.txt", "random_file_2.txt",
         "random_file_3.txt", "road.MOV", "sg.jpg")
STAMPS_TIMES = True
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
    _stamp(root, rng)


def _stamp(root: Path, rng: np.random.Generator) -> None:
    months = sorted(int(m) for m in rng.choice(np.arange(1, 13), 2, replace=False))
    days = {(m, int(rng.integers(1, 29))) for m in months}  # both months are used
    while len(days) < int(rng.integers(3, 5)):
        days.add((int(rng.choice(months)), int(rng.integers(1, 29))))
    days = sorted(days)
    # the first day gets three files, the others at least one each, the rest at random
    order = [days[0]] * 3 + days[1:]
    order += [days[int(rng.integers(len(days)))] for _ in range(len(NAMES) - len(order))]
    seconds = rng.choice(6 * 3600, len(NAMES), replace=False)  # distinct within 09:00-15:00
    for name, (m, d), s in zip(rng.permutation(NAMES), order, seconds, strict=True):
        t = datetime(2025, m, d, 9, tzinfo=UTC).timestamp() + int(s)
        os.utime(root / str(name), (t, t))
    os.utime(root, (1_735_689_600, 1_735_689_600))
