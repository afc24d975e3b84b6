"""Top-k metrics with Liang et al. (2018)'s definitions, per user (numpy).

Scores of the fold-in (`_tr`) items are set to -inf before ranking, so only unseen items
are recommended. For a user with held-out set T and top-k list R_k:

    Recall@k = |R_k ∩ T| / min(k, |T|)
    NDCG@k   = DCG@k / IDCG@k,  DCG@k = sum_{r<k} [R_k[r] in T] / log2(r + 2),
               IDCG@k = sum_{r < min(k, |T|)} 1 / log2(r + 2)

Users with an empty held-out set have no defined metric and are returned as NaN (callers
average over the others).
"""

from __future__ import annotations

import numpy as np


def topk(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest scores per row, best first (ties: lower index first)."""
    k = min(k, scores.shape[1])
    part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(scores, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def recall_at_k(scores: np.ndarray, heldout: np.ndarray, k: int) -> np.ndarray:
    """Per-user Recall@k, normalised by min(k, #held-out)."""
    hits = np.take_along_axis(heldout > 0, topk(scores, k), axis=1).sum(1)
    n = (heldout > 0).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, hits / np.minimum(k, n), np.nan)


def ndcg_at_k(scores: np.ndarray, heldout: np.ndarray, k: int) -> np.ndarray:
    """Per-user NDCG@k with binary relevance."""
    idx = topk(scores, k)
    disc = 1.0 / np.log2(np.arange(2, idx.shape[1] + 2))
    dcg = (np.take_along_axis(heldout > 0, idx, axis=1) * disc).sum(1)
    n = (heldout > 0).sum(1)
    idcg = np.array([disc[: min(int(c), idx.shape[1])].sum() for c in n])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, dcg / idcg, np.nan)


METRICS = {"recall@20": (recall_at_k, 20), "recall@50": (recall_at_k, 50),
           "ndcg@100": (ndcg_at_k, 100)}


def all_metrics(scores: np.ndarray, fold_in: np.ndarray, heldout: np.ndarray
                ) -> dict[str, np.ndarray]:
    """Recall@20, Recall@50, NDCG@100 per user, after masking the fold-in items."""
    scores = np.where(fold_in > 0, -np.inf, scores)
    return {name: fn(scores, heldout, k) for name, (fn, k) in METRICS.items()}
