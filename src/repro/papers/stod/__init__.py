"""SNN robustness: structured temporal orthogonal decorrelation (STOD)."""
