"""The controllable flowchart graph, built the way FlowGen's generator builds it.

Controls (the official `difficulty.py` names): `order` (total nodes, virtual split/merge points
included), `split_arrow` / `merge_arrow` (branched arrows, drawn through a virtual point),
`branch` (their largest fan-out / fan-in), `nest` (subgraphs), `density` (edges per node) and
`no_edge_label` (share of edges left unlabelled). The algorithm follows the official generator
(nju-websoft/FlowGen, Synthesizer/graph_generator.py at c82ec30, read, not copied): a main chain
with start and end, subgraph chains entered from and leaving to the main chain, split and merge
points over non-adjacent main nodes, random extra edges up to the density, then labels removed
at the ratio. Ground truth is computed from the graph: triples `<head, relation, tail>` with
`connectedTo` for an unlabelled edge and `<node, partOf, subgraph>` for membership, the virtual
points collapsed (parent -> each child with the labelled segment's label), as the official
triples parser writes them. QA pairs are ours (the repository has no FlowGen QA): FlowLearn-
style arrow questions and FlowVQA-like local and global questions, answered from the graph.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import networkx as nx
import numpy as np

VERBS = ("Check", "Send", "Load", "Validate", "Compute", "Update", "Review", "Approve", "Store",
         "Parse", "Notify", "Merge", "Sort", "Filter", "Print", "Read", "Write", "Open", "Close",
         "Scan", "Create", "Delete", "Assign", "Record", "Verify", "Build", "Collect", "Export")
OBJECTS = ("order", "invoice", "data", "user", "record", "file", "report", "payment", "request",
           "account", "input", "result", "queue", "log", "table", "image", "form", "token",
           "cart", "ticket", "batch", "email", "budget", "sample", "model", "score", "claim")
EDGE_VERBS = ("approve", "reject", "submit", "forward", "retry", "confirm", "notify", "assign",
              "escalate", "archive", "validate", "complete", "cancel", "return", "review",
              "deliver", "request", "update", "dispatch", "verify")
CONNECTED = "connectedTo"
PART_OF = "partOf"
SIZES = {"small": (8, 12), "medium": (13, 20), "large": (20, 30)}
"""total nodes per order (the official generator's code; its YAML comment differs)"""


@dataclass
class Level:
    """One difficulty level: ranges [lo, hi] drawn per chart (ints inclusive)."""

    order: str
    split_arrow: list[int]
    merge_arrow: list[int]
    branch: list[int]
    nest: list[int]
    density: list[float]
    no_edge_label: list[float]


@dataclass
class Controls:
    """The drawn controls of one chart (what its structure must show)."""

    order: int
    split_arrow: int
    merge_arrow: int
    branch: int
    nest: int
    density: float
    no_edge_label: float


def draw_controls(level: Level, rng: np.random.Generator) -> Controls:
    def pick(r: list[int]) -> int:
        return int(rng.integers(r[0], r[1] + 1))

    def pickf(r: list[float]) -> float:
        return round(float(rng.uniform(r[0], r[1])), 2)

    if level.order not in SIZES:
        raise ValueError(f"order {level.order!r}: one of {sorted(SIZES)}")
    lo, hi = SIZES[level.order]
    return Controls(order=int(rng.integers(lo, hi + 1)), split_arrow=pick(level.split_arrow),
                    merge_arrow=pick(level.merge_arrow), branch=pick(level.branch),
                    nest=pick(level.nest), density=pickf(level.density),
                    no_edge_label=pickf(level.no_edge_label))


def make_chart(level: Level, rng: np.random.Generator, chart_id: str) -> dict[str, Any]:
    """One chart's ground truth: controls, nodes, virtual points, drawn edges, subgraphs,
    triples and QA pairs."""
    c = draw_controls(level, rng)
    names = iter(rng.permutation([f"{v} {o}" for v in VERBS for o in OBJECTS]).tolist())
    verbs = list(EDGE_VERBS)
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    have: set[tuple[str, str]] = set()

    def node(kind: str, group: str | None = None) -> str:
        nid = f"N{len(nodes)}"
        label = {"start": "Start", "end": "End"}.get(kind) or next(names)
        nodes.append({"id": nid, "label": label, "kind": kind, "group": group})
        return nid

    def edge(u: str, v: str, kind: str) -> None:
        lab = verbs[int(rng.integers(len(verbs)))]
        edges.append({"src": u, "dst": v, "label": lab, "kind": kind})
        have.add((u, v))

    # 1. the node budget: virtual points count; each subgraph holds 2-4 nodes
    avail = c.order - c.split_arrow - c.merge_arrow
    group_sizes = []
    for _ in range(c.nest):
        room = min(4, avail - 2 - 3)  # the main chain keeps at least start, end and one more
        if room < 2:
            break
        k = int(rng.integers(2, room + 1))
        group_sizes.append(k)
        avail -= k
    main = [node("start")] + [node("step") for _ in range(avail - 2)] + [node("end")]
    for a, b in zip(main, main[1:], strict=False):
        edge(a, b, "main")
    # 2. subgraphs: chains entered from a main node (not the first or last), leaving to a main
    #    node other than the first
    groups = []
    for g, k in enumerate(group_sizes):
        gid = f"G{g}"
        groups.append({"id": gid, "label": next(names), "members": []})
        chain = [node("step", gid) for _ in range(k)]
        groups[-1]["members"] = chain
        for a, b in zip(chain, chain[1:], strict=False):
            edge(a, b, "group")
        edge(main[int(rng.integers(1, len(main) - 1))], chain[0], "enter")
        edge(chain[-1], main[int(rng.integers(1, len(main)))], "leave")
    # 3-4. split and merge points over non-adjacent main nodes
    points = []
    for kind, n in (("split", c.split_arrow), ("merge", c.merge_arrow)):
        for _ in range(n):
            pid = f"{'S' if kind == 'split' else 'M'}{len(points)}"
            if kind == "split":
                i = int(rng.integers(0, len(main) - 2))
                pool = main[i + 2:]
            else:
                i = int(rng.integers(2, len(main)))
                pool = main[:i - 1]
            if len(pool) < 2:
                pool = [m for m in main if m != main[i]]
            k = int(rng.integers(2, max(2, min(c.branch, len(pool))) + 1))
            others = [pool[j] for j in sorted(rng.choice(len(pool), k, replace=False))]
            points.append({"id": pid, "kind": kind, "at": main[i], "others": others})
            if kind == "split":
                edges.append({"src": main[i], "dst": pid, "label": "", "kind": "trunk"})
                for t in others:
                    edge(pid, t, "branch")
            else:
                for s in others:
                    edge(s, pid, "branch")
                edges.append({"src": pid, "dst": main[i], "label": "", "kind": "trunk"})
    # 5. density: random extra edges between distinct real nodes, no pair twice
    real = [n["id"] for n in nodes]
    target = round(c.density * c.order)
    tries = 0
    while len(edges) < target and tries < 2000:
        tries += 1
        u, v = rng.choice(real, 2, replace=False).tolist()
        if (u, v) in have or u == main[-1] or v == main[0]:
            continue
        edge(u, v, "extra")
    # 6. labels removed at the ratio (trunks of branched arrows never carry one)
    labelled = [i for i, e in enumerate(edges) if e["label"]]
    drop = round(c.no_edge_label * len(edges)) - (len(edges) - len(labelled))
    for i in rng.permutation(labelled)[:max(0, drop)]:
        edges[int(i)]["label"] = ""
    chart = {"id": chart_id, "controls": asdict(c), "nodes": nodes, "points": points,
             "edges": edges, "groups": groups}
    chart["triples"] = triples(chart)
    chart["qa"] = qa_pairs(chart, rng)
    return chart


# --------------------------------------------------------------------------- ground truth
def logical_edges(chart: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(src id, label, dst id) per edge between real nodes, branched arrows collapsed."""
    kinds = {p["id"]: p for p in chart["points"]}
    out = []
    for e in chart["edges"]:
        if e["src"] in kinds or e["dst"] in kinds:
            if e["kind"] != "branch":
                continue
            p = kinds[e["src"]] if e["src"] in kinds else kinds[e["dst"]]
            out.append((p["at"], e["label"], e["dst"]) if p["kind"] == "split"
                       else (e["src"], e["label"], p["at"]))
        else:
            out.append((e["src"], e["label"], e["dst"]))
    return out


def triples(chart: dict[str, Any]) -> list[list[str]]:
    lab = {n["id"]: n["label"] for n in chart["nodes"]}
    out = [[lab[u], r or CONNECTED, lab[v]] for u, r, v in logical_edges(chart)]
    for g in chart["groups"]:
        out.extend([lab[m], PART_OF, g["label"]] for m in g["members"])
    return out


def graph_from_triples(ts: list[list[str]]) -> nx.MultiDiGraph:
    """A label-keyed graph (all a parser knows); partOf triples become node attributes."""
    g = nx.MultiDiGraph()
    for h, r, t in ts:
        if r == PART_OF:
            g.add_node(h)
            g.nodes[h]["group"] = t
        else:
            g.add_edge(h, t, label=r)
    return g


def _join(xs: set[str]) -> str:
    return ", ".join(sorted(xs))


def answer(g: nx.MultiDiGraph, qtype: str, args: list[str]) -> str:
    """The answer to one QA template on a label-keyed graph; "" where the graph lacks a node
    the question names (a parser that missed it cannot answer)."""
    if qtype == "count_nodes":
        return str(sum(1 for n in g if g.degree(n) > 0))
    if any(a not in g for a in args):
        return "No" if qtype == "arrow" else ""
    if qtype == "arrow":
        return "Yes" if g.has_edge(args[0], args[1]) else "No"
    if qtype == "successors":
        return _join({t for _, t in g.out_edges(args[0])})
    if qtype == "predecessors":
        return _join({h for h, _ in g.in_edges(args[0])})
    if qtype == "edge_label":
        labs = {d["label"] for _, t, d in g.out_edges(args[0], data=True) if t == args[1]}
        return _join(labs)
    if qtype == "group":
        return g.nodes[args[0]].get("group", "none")
    raise ValueError(f"unknown QA type {qtype!r}")


QA_TEMPLATES = {
    "arrow": "Is there an arrow from \"{0}\" to \"{1}\"? Answer Yes or No.",
    "successors": "Which node(s) does \"{0}\" point to directly?",
    "predecessors": "Which node(s) point directly to \"{0}\"?",
    "edge_label": "What is the label on the arrow from \"{0}\" to \"{1}\"?",
    "group": "Which subgraph contains \"{0}\"? Answer none if it is in no subgraph.",
    "count_nodes": "How many nodes does the flowchart have (not counting subgraph titles)?",
}
QA_TYPES = tuple(QA_TEMPLATES)


def qa_pairs(chart: dict[str, Any], rng: np.random.Generator) -> list[dict[str, Any]]:
    """One question per template (the arrow question twice: one true pair, one false)."""
    g = graph_from_triples(chart["triples"])
    labels = [n["label"] for n in chart["nodes"]]
    pairs = [(h, t) for h, r, t in chart["triples"] if r != PART_OF]
    out: list[dict[str, Any]] = []

    def add(qtype: str, args: list[str]) -> None:
        out.append({"type": qtype, "args": args, "question": QA_TEMPLATES[qtype].format(*args),
                    "answer": answer(g, qtype, args)})

    h, t = pairs[int(rng.integers(len(pairs)))]
    add("arrow", [h, t])
    non = [(a, b) for a in labels for b in labels if a != b and not g.has_edge(a, b)]
    a, b = non[int(rng.integers(len(non)))]
    add("arrow", [a, b])
    add("successors", [labels[int(rng.integers(0, len(labels) - 1))]])
    add("predecessors", [labels[int(rng.integers(1, len(labels)))]])
    once = {p for p in pairs if pairs.count(p) == 1}
    lab_pairs = [(h, t) for h, r, t in chart["triples"]
                 if r not in (PART_OF, CONNECTED) and (h, t) in once]
    if lab_pairs:
        add("edge_label", list(lab_pairs[int(rng.integers(len(lab_pairs)))]))
    add("group", [labels[int(rng.integers(1, len(labels) - 1))]])
    add("count_nodes", [])
    return out


def measured(chart: dict[str, Any]) -> dict[str, Any]:
    """What the stored graph shows, to hold against its controls."""
    pts = chart["points"]
    fan = [len(p["others"]) for p in pts]
    real_edges = logical_edges(chart)
    return {
        "order": len(chart["nodes"]) + len(pts),
        "size": len(chart["edges"]),
        "split_arrow": sum(p["kind"] == "split" for p in pts),
        "merge_arrow": sum(p["kind"] == "merge" for p in pts),
        "max_fan": max(fan, default=0),
        "nest": len(chart["groups"]),
        "density": len(chart["edges"]) / (len(chart["nodes"]) + len(pts)),
        "no_edge_label": sum(not e["label"] for e in chart["edges"]) / len(chart["edges"]),
        "real_nodes": len(chart["nodes"]),
        "logical_edges": len(real_edges),
        "triples": len(chart["triples"]),
        "part_of": sum(r == PART_OF for _, r, _ in chart["triples"]),
        "cycles": int(not nx.is_directed_acyclic_graph(
            nx.DiGraph([(u, v) for u, _, v in real_edges]))),
    }
