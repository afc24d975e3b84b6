"""Matplotlib with the Agg backend (no display needed), and atomic, deterministic PNG saves."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from repro.core.io import atomic_path  # noqa: E402


def subplots(*args, **kwargs):
    kwargs.setdefault("constrained_layout", True)
    return plt.subplots(*args, **kwargs)


def save_figure(fig, path: str | Path, dpi: int = 120) -> None:
    """Save without timestamps in the metadata, so the same data gives the same bytes."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, format="png", metadata={"Software": None})
    plt.close(fig)
