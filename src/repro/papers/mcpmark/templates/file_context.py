"""file_context: twenty short text files and one long one (MCPMark's tree: file_01.txt ..
file_20.txt and large_file.txt).

What the category's tasks need, for every seed:
- the short files have different sizes around the 10th/11th smallest (the merging task's cut is
  clean), and some groups of files share identical content (the duplicates task);
- several short files quote, between double quotes, one passage of 45-90 characters copied from
  large_file.txt, which holds it exactly once and holds no double quote; the short files use
  other words than large_file.txt, so no other 30-character run is shared (pattern matching);
- large_file.txt's length is a multiple of 10 (the splitting task's equal pieces).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SHORT_WORDS = (
    "apple", "basket", "candle", "garden", "pencil", "window", "ladder", "mirror", "pocket",
    "saddle", "tunnel", "violin", "wallet", "yogurt", "anchor", "button", "carpet", "donkey",
    "feather", "goblet", "hammer", "jacket", "kettle", "lantern", "muffin", "napkin", "pillow",
    "rocket", "spoon", "teapot", "umbrella", "velvet", "wagon", "zipper", "biscuit", "cobweb",
    "is", "was", "and", "the", "a", "on", "under", "near", "with", "for", "my", "our", "old")
LARGE_WORDS = (
    "river", "mountain", "valley", "forest", "meadow", "harbor", "island", "canyon", "desert",
    "glacier", "prairie", "summit", "lagoon", "marsh", "tundra", "plateau", "delta", "ridge",
    "quarry", "orchard", "village", "citadel", "beacon", "compass", "voyage", "horizon",
    "thunder", "breeze", "shadow", "ember", "crystal", "granite", "silver", "copper", "amber",
    "crosses", "follows", "reaches", "shelters", "guards", "circles", "becomes", "remembers",
    "of", "into", "beyond", "toward", "across", "every", "quiet", "distant", "ancient")
N_SHORT = 20


def _sentence(rng: np.random.Generator, words: tuple[str, ...], lo: int, hi: int) -> str:
    ws = [str(w) for w in rng.choice(words, int(rng.integers(lo, hi + 1)))]
    ws[0] = ws[0].capitalize()
    return " ".join(ws) + "."


def _large(rng: np.random.Generator) -> str:
    lines = []
    while sum(len(x) + 1 for x in lines) < 7000:
        lines.append(" ".join(_sentence(rng, LARGE_WORDS, 5, 11) for _ in range(3)))
    text = "\n".join(lines) + "\n"
    pad = (-len(text)) % 10  # equal tenths for the splitting task
    return text[:-1] + "." * pad + "\n"


def _excerpt(rng: np.random.Generator, large: str) -> str:
    """A passage between two spaces of large_file.txt, 45-90 characters, found there once."""
    while True:
        start = int(rng.integers(0, len(large) - 200))
        start = large.index(" ", start) + 1
        end = start + int(rng.integers(45, 91))
        end = large.index(" ", end)
        piece = large[start:end]
        if "\n" not in piece and large.count(piece) == 1:
            return piece


def build(root: Path, rng: np.random.Generator) -> None:
    large = _large(rng)
    while True:
        texts = []
        for _ in range(N_SHORT):
            n = int(rng.integers(1, 9))
            lines = [_sentence(rng, SHORT_WORDS, 4, 12) for _ in range(n)]
            texts.append("\n".join(lines) + "\n")
        # five to seven files quote a passage of large_file.txt
        for i in rng.choice(N_SHORT, int(rng.integers(5, 8)), replace=False):
            lines = texts[i].rstrip("\n").split("\n")
            at = int(rng.integers(0, len(lines) + 1))
            lines.insert(at, f'It said "{_excerpt(rng, large)}" to me.')
            texts[i] = "\n".join(lines) + "\n"
        # three to five groups of two or three files with identical content
        order = [int(i) for i in rng.permutation(N_SHORT)]
        for _ in range(int(rng.integers(3, 6))):
            group = [order.pop() for _ in range(int(rng.integers(2, 4)))]
            for j in group[1:]:
                texts[j] = texts[group[0]]
        sizes = sorted(len(t) for t in texts)
        quoting = sum('"' in t for t in texts)
        if sizes[9] != sizes[10] and 3 <= quoting <= N_SHORT - 3 and \
                len([t for t in texts if texts.count(t) == 1]) >= 5:
            break
    for i, text in enumerate(texts, 1):
        (root / f"file_{i:02d}.txt").write_text(text)
    (root / "large_file.txt").write_text(large)
