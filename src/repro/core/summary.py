"""results/<scale>/summary.md: one row per paper and claim, from each paper's claims.json."""

from __future__ import annotations

import argparse
from pathlib import Path

from repro.core.io import read_json, write_text


def summary_markdown(scale: str, papers: list[str], claim_files: list[str]) -> str:
    lines = [
        f"# Claims summary (scale `{scale}`)",
        "",
        "| paper | claim | verdict | comparison | ours: diff [95% CI] |",
        "|---|---|---|---|---|",
    ]
    counts: dict[str, int] = {}
    for pid, path in zip(papers, claim_files, strict=True):
        for c in read_json(path):
            v = c["values"]
            if "diff_mean" in v:
                lo, hi = v["diff_ci95"]
                diff = f"{v['diff_mean']:+.3g} [{lo:+.3g}, {hi:+.3g}]"
            else:
                diff = v.get("reason", "-")
            counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
            lines.append(
                f"| {pid} | {c['claim']} | **{c['verdict']}** | `{c['comparison']}` | {diff} |"
            )
    lines += ["", "Totals: " + ", ".join(f"{k}: {n}" for k, n in sorted(counts.items()))]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scale", required=True)
    ap.add_argument("--papers", nargs="+", required=True)
    ap.add_argument("--claims", nargs="+", required=True, help="claims.json, one per paper")
    ap.add_argument("--out", required=True, type=Path)
    a = ap.parse_args(argv)
    if len(a.papers) != len(a.claims):
        ap.error("--papers and --claims must have the same length")
    write_text(a.out, summary_markdown(a.scale, a.papers, a.claims))


if __name__ == "__main__":
    main()
