"""Baselines that need no training across graphs (issue 24, groundwork): feature-only
IsolationForest and LOF per graph (scikit-learn), and the two metrics every table reports."""

from __future__ import annotations

import numpy as np


def auroc_auprc(y: np.ndarray, score: np.ndarray) -> tuple[float, float]:
    """AUROC and AUPRC (average precision, as ARC and OWLEYE report it); larger score = more
    anomalous."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    return float(roc_auc_score(y, score)), float(average_precision_score(y, score))


def isolation_forest(x: np.ndarray, seed: int, trees: int = 200) -> np.ndarray:
    from sklearn.ensemble import IsolationForest

    f = IsolationForest(n_estimators=trees, random_state=seed).fit(x)
    return -f.score_samples(x)


def lof(x: np.ndarray, neighbours: int = 20) -> np.ndarray:
    from sklearn.neighbors import LocalOutlierFactor

    m = LocalOutlierFactor(n_neighbors=min(neighbours, len(x) - 1)).fit(x)
    return -m.negative_outlier_factor_
