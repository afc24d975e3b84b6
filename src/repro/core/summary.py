"""results/<scale>/summary.md: one row per paper and claim, from each paper's claims.json, and
results/<scale>/summary.png: claims per paper by verdict (repro.core.forest.plot_summary)."""

from __future__ import annotations

import argparse
from pathlib import Path

from repro.core.claims import VERDICTS, diff_text, read_claims
from repro.core.io import write_text
from repro.core.provenance import footer_text


def _totals(label: str, counts: dict[str, int]) -> str:
    """Counts in the ledger's verdict order, zeros included, so totals compare across runs."""
    known = [f"{k}: {counts.get(k, 0)}" for k in VERDICTS]
    other = [f"{k}: {n}" for k, n in sorted(counts.items()) if k not in VERDICTS]
    return f"{label}: " + ", ".join(known + other)


def summary_markdown(scale: str, papers: list[str], claim_files: list[str]) -> str:
    """One row per claim with its verdict and its Holm verdict (Holm within each paper)."""
    lines = [
        f"# Claims summary (scale `{scale}`)",
        "",
        "| paper | claim | verdict | Holm | comparison | ours: diff [95% CI] |",
        "|---|---|---|---|---|---|",
    ]
    counts: dict[str, int] = {}
    counts_holm: dict[str, int] = {}
    stamps = []
    for pid, path in zip(papers, claim_files, strict=True):
        claims, prov = read_claims(path)
        if prov:
            stamps.append(f"- {footer_text(prov)}")
        for c in claims:
            v = c["values"]
            diff = diff_text(v) or v.get("reason", "-")
            holm = c.get("verdict_holm", "-")
            counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
            counts_holm[holm] = counts_holm.get(holm, 0) + 1
            lines.append(
                f"| {pid} | {c['claim']} | **{c['verdict']}** | {holm} | `{c['comparison']}` "
                f"| {diff} |"
            )
    lines += ["", _totals("Totals", counts), "", _totals("Totals after Holm", counts_holm)]
    if stamps:
        lines += ["", "Where each paper's results come from:", "", *stamps]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    from repro.core.progress import job_footer

    job_footer()
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scale", required=True)
    ap.add_argument("--papers", nargs="+", required=True)
    ap.add_argument("--claims", nargs="+", required=True, help="claims.json, one per paper")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--figure", type=Path, help="summary.png: claims per paper by verdict")
    a = ap.parse_args(argv)
    if len(a.papers) != len(a.claims):
        ap.error("--papers and --claims must have the same length")
    write_text(a.out, summary_markdown(a.scale, a.papers, a.claims))
    if a.figure:
        from repro.core.forest import plot_summary

        plot_summary({p: read_claims(f)[0] for p, f in zip(a.papers, a.claims, strict=True)},
                     a.figure, f"Claims per paper by verdict (scale {a.scale})")


if __name__ == "__main__":
    main()
