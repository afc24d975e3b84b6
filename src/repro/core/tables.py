"""Tables as CSV (for machines) and Markdown (for people), our numbers beside the paper's."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from repro.core.io import write_text


def fmt(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) >= 1e-3 or x == 0 else f"{x:.2e}"
    return str(x)


def to_markdown(df: pd.DataFrame, digits: int = 3) -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(fmt(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def write_table(df: pd.DataFrame, out_dir: str | Path, name: str, caption: str = "") -> None:
    """Write `<name>.csv` and `<name>.md` (caption on top) atomically."""
    out = Path(out_dir)
    write_text(out / f"{name}.csv", df.to_csv(index=False, float_format="%.6g"))
    md = (f"{caption}\n\n" if caption else "") + to_markdown(df)
    write_text(out / f"{name}.md", md)


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    s = pd.Series(list(values), dtype=float)
    return float(s.mean()), float(s.std(ddof=1)) if len(s) > 1 else 0.0


PM = "mean ± sd"  # what every `pm` string means; captions and headers say it with this


def pm(values: Sequence[float | None], digits: int = 3, style: str = "f") -> str:
    """'mean ± sd' (sample sd, ddof=1) of the finite values: the one spread every table uses.

    One value has no spread, so it reads 'm (n=1)' rather than a misleading '± 0'; none
    reads '-'. `style` is the format type of both numbers: 'f' (fixed) or 'g' (significant).
    """
    vals = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not vals:
        return "-"
    m, s = mean_sd(vals)
    if len(vals) == 1:
        return f"{m:.{digits}{style}} (n=1)"
    sd_digits = digits if style == "f" else 2
    return f"{m:.{digits}{style}} ± {s:.{sd_digits}{style}}"


def paper_value(
    reported: Sequence[Mapping[str, Any]], method: str, metric: str, setting: str | None = None
) -> float | None:
    """The paper's own number for (method, metric[, setting]), or None where it reports none."""
    for r in reported:
        if r["method"] == method and r["metric"] == metric and (
            setting is None or r.get("setting") == setting
        ):
            return float(r["value"])
    return None


def reported_table(reported: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The paper's own numbers as a table (source, setting, method, metric, value)."""
    return pd.DataFrame(list(reported))[["source", "setting", "method", "metric", "value"]]
