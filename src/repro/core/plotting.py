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


def save_figure(fig, path: str | Path, dpi: int = 120, fmt: str = "png") -> None:
    """Save without timestamps in the metadata, so the same data gives the same bytes (SVG:
    text kept as text and element ids from a fixed salt, so it is small and diffable)."""
    with atomic_path(path) as tmp:
        if fmt == "svg":
            with matplotlib.rc_context({"svg.hashsalt": "repro", "svg.fonttype": "none"}):
                fig.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
        else:
            fig.savefig(tmp, dpi=dpi, format=fmt, metadata={"Software": None})
    plt.close(fig)
