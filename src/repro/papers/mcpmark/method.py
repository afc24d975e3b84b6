"""mcpmark: the method and its baseline, side by side (replace with the paper's)."""

from __future__ import annotations

import numpy as np

ESTIMATORS = {
    "mean": np.mean,      # the method
    "median": np.median,  # the baseline
}


def estimate(method: str, x: np.ndarray) -> float:
    if method not in ESTIMATORS:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(ESTIMATORS)})")
    return float(ESTIMATORS[method](x))
