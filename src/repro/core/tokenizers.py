"""Tokenizers for the small models trained from scratch: characters over a fixed charset, or
UTF-8 bytes. Both decode up to the first eos and save/load beside a checkpoint's weights.

The byte tokenizer has one layout parameter because two papers' checkpoints and numbers depend
on their token ids: the RLVR policies (rove, nft) put pad/eos first and shift every byte by 2
(vocab 258); REAP's MoE keeps bytes as ids 0..255 and appends pad/bos/eos (vocab 259).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from repro.core.io import write_json

CHARSET = "0123456789+-*/()=: "
SPECIALS = ("<pad>", "<eos>")


class CharTokenizer:
    """Character-level tokenizer: ids 0/1 are pad/eos, then one id per character."""

    kind = "char"

    def __init__(self, charset: str = CHARSET) -> None:
        self.charset = charset
        self.itos = list(SPECIALS) + list(charset)
        self.stoi = {c: i for i, c in enumerate(self.itos)}
        self.pad_id, self.eos_id = 0, 1

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    def encode(self, text: str) -> list[int]:
        try:
            return [self.stoi[c] for c in text]
        except KeyError as e:
            raise ValueError(f"character {e.args[0]!r} is not in the char vocabulary") from None

    def decode(self, ids: Iterable[int]) -> str:
        """Text of the ids up to (not including) the first eos; pads are dropped."""
        out = []
        for i in ids:
            if i == self.eos_id:
                break
            if i != self.pad_id:
                out.append(self.itos[i])
        return "".join(out)

    def save(self, path: Path) -> None:
        write_json(path / "char_tokenizer.json", {"charset": self.charset, "specials": SPECIALS})

    @staticmethod
    def load(path: Path) -> CharTokenizer:
        return CharTokenizer(json.loads((path / "char_tokenizer.json").read_text())["charset"])


class ByteTokenizer:
    """UTF-8 bytes plus named special tokens; no merges, so any text round-trips.

    `specials` are the special tokens in id order (they must include <pad> and <eos>; <bos>
    is optional). `specials_first=True` gives them ids 0.. and byte b the id len(specials) + b
    (the RLVR policies' layout); False keeps byte b as id b and gives the specials 256..
    (REAP's layout). Decoding stops at the first eos and drops the other specials.
    """

    kind = "byte"

    def __init__(self, specials: Sequence[str] = SPECIALS, specials_first: bool = True) -> None:
        if "<pad>" not in specials or "<eos>" not in specials:
            raise ValueError(f"byte tokenizer specials {list(specials)} need <pad> and <eos>")
        self.specials = tuple(specials)
        self.specials_first = specials_first
        self.byte_offset = len(self.specials) if specials_first else 0
        first = 0 if specials_first else 256
        ids = {name: first + i for i, name in enumerate(self.specials)}
        self.pad_id, self.eos_id = ids["<pad>"], ids["<eos>"]
        self.bos_id: int | None = ids.get("<bos>")

    @property
    def vocab_size(self) -> int:
        return 256 + len(self.specials)

    def encode(self, text: str) -> list[int]:
        return [b + self.byte_offset for b in text.encode("utf-8")]

    def decode(self, ids: Iterable[int]) -> str:
        """Text of the ids up to (not including) the first eos; other specials are dropped."""
        out = bytearray()
        for i in map(int, ids):
            if i == self.eos_id:
                break
            b = i - self.byte_offset
            if 0 <= b < 256:
                out.append(b)
        return out.decode("utf-8", errors="replace")

    def save(self, path: Path) -> None:
        """`byte_tokenizer.json`: the specials, and their place only when it is not first
        (so the RLVR checkpoints' file is what it always was)."""
        meta: dict[str, object] = {"kind": "byte", "specials": list(self.specials)}
        if not self.specials_first:
            meta["specials_first"] = False
        write_json(path / "byte_tokenizer.json", meta)

    @staticmethod
    def load(path: Path) -> ByteTokenizer:
        """The tokenizer `save` wrote (files without `specials_first` put specials first)."""
        meta = json.loads((path / "byte_tokenizer.json").read_text())
        return ByteTokenizer(meta.get("specials", SPECIALS), meta.get("specials_first", True))
