"""FlowGen's scoring, as its evaluation scripts define it (FlowGen_Eval/eval.py, edit_smi.py;
read, not copied): triples normalised (lowercase; zero-width characters and the listed
punctuation dropped; `_` to a space, then every space dropped), deduplicated as sets, direction
kept. Strict F1 is the set intersection; relaxed F1 matches greedily one-to-one in prediction
order when head, relation and tail each reach 1 - Levenshtein/max_len >= 0.85. Both are per
image, then macro-averaged (precision 0 with no prediction, recall 0 with no gold). QA answers
(ours) are compared as normalised sets of comma-separated items."""

from __future__ import annotations

import re
from collections.abc import Sequence

PUNCT = set("`~!@#$%^&*()-+=[]{};:'\",.<>?/\\|")
ZERO_WIDTH = dict.fromkeys(map(ord, "\u00a0\u200b\u200c\u200d\ufeff"))
RELAXED = 0.85
"""the threshold edit_smi.py's main uses (its function default is 0.9)"""


def norm(s: str) -> str:
    s = s.lower().translate(ZERO_WIDTH)
    s = "".join(ch for ch in s if ch not in PUNCT).replace("_", " ")
    return re.sub(r"\s+", "", s)


def norm_triples(ts: Sequence[Sequence[str]]) -> set[tuple[str, str, str]]:
    return {(norm(h), norm(r), norm(t)) for h, r, t in ts}


def prf(tp: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def levenshtein(a: str, b: str) -> int:
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def similarity(a: str, b: str) -> float:
    n = max(len(a), len(b))
    return 1.0 if n == 0 else 1.0 - levenshtein(a, b) / n


def strict_f1(pred: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]
              ) -> tuple[float, float, float]:
    p, g = norm_triples(pred), norm_triples(gold)
    return prf(len(p & g), len(p), len(g))


def relaxed_f1(pred: Sequence[Sequence[str]], gold: Sequence[Sequence[str]],
               threshold: float = RELAXED) -> tuple[float, float, float]:
    p, g = sorted(norm_triples(pred)), sorted(norm_triples(gold))
    used = [False] * len(g)
    tp = 0
    for t in p:
        for j, u in enumerate(g):
            if not used[j] and all(similarity(a, b) >= threshold for a, b in zip(t, u,
                                                                                   strict=True)):
                used[j] = True
                tp += 1
                break
    return prf(tp, len(p), len(g))


def qa_correct(pred: str, gold: str) -> bool:
    def items(s: str) -> set[str]:
        return {norm(x) for x in s.split(",") if norm(x)}

    return items(pred) == items(gold)
