"""Check one seed's charts against their controls: the stored graph, the renderer's own layout
output, and the triples read back from the graphviz source; per-difficulty statistics."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.papers.flowgen.render import look, to_dot
from repro.papers.flowgen.synth import CONNECTED, PART_OF, measured

EDGE_RE = re.compile(r"^\s*(\w+) -> (\w+) \[(.*)\];$")
LABEL_RE = re.compile(r'label=" (.*?) "')


def dot_triples(chart: dict[str, Any], dot: str) -> set[tuple[str, str, str]]:
    """Triples parsed back out of the DOT source (as the official triples parser does): branch
    points collapsed, subgraph membership from the cluster blocks."""
    lab = {n["id"]: n["label"] for n in chart["nodes"]}
    segs = []
    cluster, out = None, set()
    for line in dot.splitlines():
        m = re.match(r"\s*subgraph cluster_(\w+)", line)
        if m:
            cluster = next(g["label"] for g in chart["groups"] if g["id"] == m.group(1))
        elif line.strip() == "}":
            cluster = None
        elif cluster and re.match(r"\s*(N\d+) \[", line):
            out.add((lab[line.split()[0]], PART_OF, cluster))
        m = EDGE_RE.match(line)
        if m:
            lb = LABEL_RE.search(m.group(3))
            segs.append((m.group(1), lb.group(1) if lb else "", m.group(2)))
    # virtual points are named S<k> (split) and M<k> (merge) in the source
    into = {d: s for s, _, d in segs if d.startswith("S") and d not in lab}  # S <- its source
    out_of = {s: d for s, _, d in segs if s.startswith("M") and s not in lab}  # M -> target
    for s, r, d in segs:
        if s in lab and d in lab:
            out.add((lab[s], r or CONNECTED, lab[d]))
        elif s in into and d in lab:                        # split branch
            out.add((lab[into[s]], r or CONNECTED, lab[d]))
        elif s in lab and d in out_of:                      # merge branch
            out.add((lab[s], r or CONNECTED, lab[out_of[d]]))
    return out


def _inside(a: list[float], b: list[float], tol: float = 3.0) -> bool:
    return a[0] >= b[0] - tol and a[1] >= b[1] - tol and a[2] <= b[2] + tol and a[3] <= b[3] + tol


def check_chart(chart: dict[str, Any], images: list[dict[str, Any]], seed: int
                ) -> dict[str, Any]:
    c, m = chart["controls"], measured(chart)
    target = round(c["density"] * c["order"])
    extra = sum(e["kind"] == "extra" for e in chart["edges"])
    trunks = sum(e["kind"] == "trunk" for e in chart["edges"])
    unl = round(c["no_edge_label"] * m["size"])
    graph_ok = {
        "order": m["order"] == c["order"],
        "split_arrow": m["split_arrow"] == c["split_arrow"],
        "merge_arrow": m["merge_arrow"] == c["merge_arrow"],
        "branch": m["max_fan"] <= max(2, c["branch"]),
        "nest": m["nest"] == c["nest"],
        # the fill adds edges up to the target; structure alone may already pass it
        "density": m["size"] == target or (m["size"] > target and extra == 0),
        "no_edge_label": round(m["no_edge_label"] * m["size"]) == max(unl, trunks),
    }
    gold = {tuple(t) for t in chart["triples"]}
    dot = to_dot(chart, "clean", look(chart, "graphviz", seed))
    roundtrip = dot_triples(chart, dot) == gold
    layout_ok = []
    for rec in images:
        lay = rec["layout"]
        groups_ok = all(_inside(lay["nodes"][mm], lay["clusters"][g["id"]])
                        for g in chart["groups"] for mm in g["members"])
        layout_ok.append({
            "image": rec["image"],
            "nodes": len(lay["nodes"]) == m["real_nodes"],
            "points": len(lay["points"]) == m["split_arrow"] + m["merge_arrow"],
            "fan": lay["point_fan"] == {p["id"]: len(p["others"]) for p in chart["points"]},
            "subgraphs": len(lay["clusters"]) == m["nest"],
            "edges": lay["drawn_edges"] == m["size"],
            "members_inside": groups_ok,
        })
    ok = all(graph_ok.values()) and roundtrip and all(all(v for k, v in x.items()
                                                          if k != "image") for x in layout_ok)
    return {"chart": chart["id"], "level": chart["level"], "controls": c, "measured": m,
            "graph": graph_ok, "triples_roundtrip": roundtrip, "layout": layout_ok, "ok": ok}


def stats(checks: list[dict[str, Any]], images: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for lv in dict.fromkeys(c["level"] for c in checks):
        ms = [c["measured"] for c in checks if c["level"] == lv]
        sizes = [r["layout"]["size"] for r in images if r["level"] == lv]
        out[lv] = {"charts": len(ms),
                   **{k: float(np.mean([x[k] for x in ms])) for k in
                      ("order", "real_nodes", "size", "logical_edges", "split_arrow",
                       "merge_arrow", "max_fan", "nest", "density", "no_edge_label", "triples",
                       "part_of", "cycles")},
                   "image_megapixels": float(np.mean([w * h / 1e6 for w, h in sizes]))}
    return out


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("check one seed's charts against their controls")
    ap.add_argument("--index", required=True, type=Path)
    a = ap.parse_args(argv)
    index = read_json(a.index)
    checks = [check_chart(ch, [r for r in index["images"] if r["chart"] == ch["id"]],
                          index["seed"]) for ch in index["charts"]]
    bad = [c["chart"] for c in checks if not c["ok"]]
    write_json(a.out, {"seed": index["seed"], "controls_match": 1 - len(bad) / len(checks),
                       "failed": bad, "stats": stats(checks, index["images"]),
                       "checks": checks})


if __name__ == "__main__":
    main()
