"""The claims figure every paper's ledger gets (a forest plot), and the one across papers.

Claims of one paper are in different units (a regret slope, an NDCG difference, a cosine), so
each row has its own scale: the row's interval, its paper value and 0 are fitted into [-1, 1]
and the numbers themselves are printed on the right. What every row shows alike: the
difference the claim tests (left - right, or left - value) with its 95% interval (an `exact`
claim: the range over its units), the null line, the side the claim says the difference is on
(shaded), the colour of its verdict, and the paper's own value of the same difference where the
claim gives one (`paper_diff`: only where the paper's setting makes it comparable).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from repro.core.claims import UNTESTABLE, VERDICTS

COLORS = dict(zip(VERDICTS, ("#2ca02c", "#d62728", "#ff7f0e", "#7f7f7f"), strict=True))


def _fmt(x: float) -> str:
    return f"{x:+.3g}"


def claim_row(c: Mapping[str, Any]) -> dict[str, Any]:
    """What one claim's row draws: interval, point, paper value (None where absent), the
    claimed side (+1: the difference should be positive) and the text on the right."""
    v = c.get("values") or {}
    op = c["comparison"].split(" ")[1] if " " in c["comparison"] else ">"
    side = 1 if op in (">", ">=") else -1
    lo = hi = mid = None
    if v.get("diff_ci95"):
        lo, hi = v["diff_ci95"]
        mid = v.get("diff_mean")
        text = f"{_fmt(mid)} [{_fmt(lo)}, {_fmt(hi)}]" if mid is not None else ""
    elif v.get("diff_range"):
        lo, hi = v["diff_range"]
        text = f"range [{_fmt(lo)}, {_fmt(hi)}] (exact)"
    elif c["verdict"] == UNTESTABLE:
        text = f"not testable: {v.get('reason', '')}"
    else:
        text = v.get("reason") or v.get("method") or ""
    n = v.get("n_seeds")
    if n is not None:
        text += f"; n={n}"
    return {"id": c["id"], "verdict": c["verdict"], "holm": c.get("verdict_holm"),
            "lo": lo, "hi": hi, "mid": mid, "paper": c.get("paper_diff"), "side": side,
            "text": text}


def plot_claims(claims: Sequence[Mapping[str, Any]], path: str | Path, paper: str, scale: str,
                fmt: str = "png") -> None:
    """The paper's forest plot (one row per claim, in ledger order) to `path`: the same figure
    from a report's fresh verdicts (png) and from the published ones (svg)."""
    title = f"{paper}: claims at scale {scale}"
    from matplotlib.patches import Patch

    from repro.core.plotting import save_figure, subplots

    rows = [claim_row(c) for c in claims]
    n = max(len(rows), 1)
    fig, ax = subplots(figsize=(11.0, 1.2 + 0.32 * n), constrained_layout=False)
    fig.subplots_adjust(left=0.27, right=0.62, top=1 - 0.75 / (1.2 + 0.32 * n),
                        bottom=0.55 / (1.2 + 0.32 * n))
    for i, r in enumerate(rows):
        y = n - 1 - i
        vals = [abs(x) for x in (r["lo"], r["hi"], r["mid"], r["paper"]) if x is not None]
        scale = max(vals) if vals and max(vals) > 0 else 1.0
        color = COLORS.get(r["verdict"], "k")
        # the claimed side of the null line, lightly shaded
        ax.fill_betweenx([y - 0.45, y + 0.45], 0, 1.1 * r["side"], color=color, alpha=0.07,
                         lw=0)
        if r["lo"] is not None:
            ax.plot([r["lo"] / scale, r["hi"] / scale], [y, y], color=color, lw=2.2,
                    solid_capstyle="butt")
            if r["mid"] is not None:
                ax.plot(r["mid"] / scale, y, "o", color=color, ms=5)
            else:
                ax.plot([r["lo"] / scale, r["hi"] / scale], [y, y], "s", color=color, ms=4)
        if r["paper"] is not None:
            ax.plot(r["paper"] / scale, y, "D", mfc="white", mec="k", ms=6, zorder=5)
        holm = f" (Holm: {r['holm']})" if r["holm"] and r["holm"] != r["verdict"] else ""
        ax.text(1.17, y, f"{r['verdict']}{holm}: {r['text']}", va="center", fontsize=7,
                color=color, clip_on=False)
    ax.axvline(0, color="k", lw=0.8)
    ax.set_yticks(range(n), [r["id"] for r in reversed(rows)] or [""], fontsize=7)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlim(-1.15, 1.15)
    ax.set_xticks([-1, 0, 1], ["-max", "0 (null)", "+max"], fontsize=7)
    ax.set_xlabel("difference the claim tests (left - right), 95% interval; each row scaled "
                  "to its own largest value", fontsize=7)
    ax.set_title(title, fontsize=9, loc="left")
    handles = [Patch(color=COLORS[v], label=v) for v in VERDICTS]
    handles.append(Patch(facecolor="#dddddd", label="shaded: the side the claim says"))
    if any(r["paper"] is not None for r in rows):
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], marker="D", ls="", mfc="white", mec="k",
                              label="the paper's value (its setting)"))
    ax.legend(handles=handles, fontsize=6.5, loc="lower left", bbox_to_anchor=(-0.45, 1.0),
              ncol=3, frameon=False, borderaxespad=1.6)
    save_figure(fig, path, fmt=fmt)


def count_verdicts(claims: Sequence[Mapping[str, Any]], holm: bool = False) -> dict[str, int]:
    key = "verdict_holm" if holm else "verdict"
    out = dict.fromkeys(VERDICTS, 0)
    for c in claims:
        v = c.get(key) or c["verdict"]
        out[v] = out.get(v, 0) + 1
    return out


def plot_summary(by_paper: Mapping[str, Sequence[Mapping[str, Any]]], path: str | Path,
                 title: str, fmt: str = "png") -> None:
    """Claims per paper by verdict (stacked bars; the Holm-adjusted verdicts hatched below
    each paper's bar)."""
    from matplotlib.patches import Patch

    from repro.core.plotting import save_figure, subplots

    papers = list(by_paper)
    fig, ax = subplots(figsize=(8.0, 1.3 + 0.55 * max(len(papers), 1)))
    for i, pid in enumerate(papers):
        for j, holm in enumerate((False, True)):
            y = len(papers) - 1 - i + 0.2 - 0.4 * j
            left = 0
            for v, k in count_verdicts(by_paper[pid], holm).items():
                if k:
                    ax.barh(y, k, left=left, height=0.36, color=COLORS[v],
                            hatch="///" if holm else None, edgecolor="white", lw=0.5)
                    ax.text(left + k / 2, y, str(k), ha="center", va="center", fontsize=6.5,
                            color="white")
                    left += k
    ax.set_yticks(range(len(papers)), [f"{p}\n(raw / Holm)" for p in reversed(papers)],
                  fontsize=7)
    total = max((len(c) for c in by_paper.values()), default=1)
    ax.set_xlim(0, total * 1.02 + 0.5)
    ax.set_xlabel("claims", fontsize=8)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_title(title, fontsize=9, loc="left")
    ax.legend(handles=[Patch(color=COLORS[v], label=v) for v in VERDICTS]
              + [Patch(facecolor="white", edgecolor="k", hatch="///",
                       label="Holm-adjusted (lower bar of each pair)")],
              fontsize=6.5, loc="lower right", frameon=False)
    save_figure(fig, path, fmt=fmt)
