"""Two real renderers and three styles; each render returns its own layout output.

`graphviz`: the chart as DOT, laid out and drawn by Debian's `dot` (PNG plus its `json0` layout,
the positions graphviz itself chose). `matplotlib`: our layered layout drawn with matplotlib
patches and arrows (its layout output: every artist's window extent after drawing). Styles:
`clean` as drawn; `handwritten` a script font (URW Z003), sketchy strokes where the renderer
has them (matplotlib's path sketch) and a smooth elastic warp of the page; `scanned` a small
rotation, blur, paper tint, sensor noise, specks and a JPEG round trip. Node boxes in the layout
output follow every geometric change, so they locate nodes in the final image.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageFilter

RENDERERS = ("graphviz", "matplotlib")
STYLES = ("clean", "handwritten", "scanned")
DPI = 100
CLEAN_FONT = "DejaVu Sans"
HAND_FONT = "Z003"
CLUSTER_FILL = "#eef2f8"
CLUSTER_PEN = "#b8c0cc"
FILLS = ("#fde2e4", "#e2ece9", "#dfe7fd", "#fff1c1", "#e8dff5", "#d7f9f1", "#fce1c4",
         "#e4f0d0", "#f1e3d3", "#dbe9f6")
"""light fills sampled three per chart (the official palette draws three of 90)"""
PENS = ("#000000", "#1f3b73", "#7a1f1f", "#1d5b2a", "#4b2a6b")
GV_SHAPES = ("box", "ellipse", "diamond", "parallelogram", "hexagon", "octagon", "cylinder",
             "note", "component", "box3d", "trapezium", "house", "invhouse", "tab", "folder",
             "rect")
MPL_SHAPES = ("box", "ellipse", "diamond", "parallelogram", "hexagon", "rounded")
DIRECTIONS = {"graphviz": ("TB", "LR", "BT", "RL"), "matplotlib": ("TB", "BT")}


def look(chart: dict[str, Any], renderer: str, seed: int) -> dict[str, Any]:
    """The chart's drawn look (shapes, colours, arrow style, direction): random per chart and
    renderer, as the official backends draw it."""
    rng = np.random.default_rng([seed, int(chart["id"].rsplit("-", 1)[-1]
                                           if chart["id"].rsplit("-", 1)[-1].isdigit() else 0),
                                 RENDERERS.index(renderer)])
    shapes = GV_SHAPES if renderer == "graphviz" else MPL_SHAPES
    fills = rng.choice(FILLS, 3, replace=False).tolist()
    return {"shapes": {n["id"]: str(rng.choice(shapes)) for n in chart["nodes"]},
            "fills": {n["id"]: fills[int(rng.integers(3))] for n in chart["nodes"]},
            "pen": str(rng.choice(PENS)), "dashed": bool(rng.random() < 0.3),
            "direction": str(rng.choice(DIRECTIONS[renderer]))}



def need_tools() -> None:
    """Refuse early, with the fix, where Debian's graphviz is missing."""
    if shutil.which("dot") is None:
        raise RuntimeError("graphviz's `dot` is not on PATH: apt-get install graphviz "
                           "(bash scripts/setup.sh does it)")


def font(style: str) -> str:
    return HAND_FONT if style == "handwritten" else CLEAN_FONT


def _mpl_font(family: str) -> str:
    """Register the system font fontconfig resolves `family` to with matplotlib (its cache
    may predate the font's install), refusing where fontconfig falls back to another family."""
    from matplotlib import font_manager

    out = subprocess.run(["fc-match", "-f", "%{family}\t%{file}", family], capture_output=True,
                         text=True, check=True).stdout
    fam, path = out.split("\t", 1)
    if family.lower() not in fam.lower():
        raise RuntimeError(f"font {family!r} is not installed (fontconfig offers {fam!r}): "
                           "apt-get install fonts-urw-base35 (bash scripts/setup.sh)")
    font_manager.fontManager.addfont(path)
    return font_manager.FontProperties(fname=path).get_name()


# --------------------------------------------------------------------------- graphviz
def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(chart: dict[str, Any], style: str, lk: dict[str, Any]) -> str:
    f = font(style)
    size = 16 if style == "handwritten" else 14
    estyle = "dashed" if lk["dashed"] else "solid"
    lines = ["digraph G {",
             f"  graph [rankdir={lk['direction']}, dpi={DPI}, pad=0.25, nodesep=0.45, "
             f"ranksep=0.5, fontname={_q(f)}, fontsize={size}, bgcolor=white];",
             f"  node [fontname={_q(f)}, fontsize={size}, penwidth=1.6, style=filled, "
             f"margin=\"0.15,0.06\"];",
             f"  edge [fontname={_q(f)}, fontsize={size - 2}, penwidth=1.4, arrowsize=0.9, "
             f"color={_q(lk['pen'])}, style={estyle}];"]

    def node_line(n: dict[str, Any]) -> str:
        return (f"  {n['id']} [label={_q(n['label'])}, shape={lk['shapes'][n['id']]}, "
                f"fillcolor={_q(lk['fills'][n['id']])}];")

    for n in chart["nodes"]:
        if n["group"] is None:
            lines.append(node_line(n))
    for g in chart["groups"]:
        lines.append(f"  subgraph cluster_{g['id']} {{")
        lines.append(f"    label={_q(g['label'])}; style=\"rounded,filled,dashed\"; "
                     f"fillcolor=\"{CLUSTER_FILL}\"; color=\"{CLUSTER_PEN}\";")
        lines.extend("  " + node_line(n) for n in chart["nodes"] if n["group"] == g["id"])
        lines.append("  }")
    for p in chart["points"]:
        lines.append(f"  {p['id']} [shape=point, width=0.08, label=\"\", "
                     f"color={_q(lk['pen'])}];")
    for e in chart["edges"]:
        attrs = []
        if e["label"]:
            attrs.append(f"label={_q(' ' + e['label'] + ' ')}")
        if e["dst"].startswith(("S", "M")) and e["dst"][1:].isdigit():
            attrs.append("arrowhead=none")  # into a branch point: the trunk has no head
        lines.append(f"  {e['src']} -> {e['dst']} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines)


def render_graphviz(chart: dict[str, Any], style: str, lk: dict[str, Any]
                    ) -> tuple[Image.Image, dict[str, Any]]:
    need_tools()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "g.dot"
        src.write_text(to_dot(chart, style, lk))
        subprocess.run(["dot", "-Tpng", "-o", f"{tmp}/g.png", "-Tjson0", "-o", f"{tmp}/g.json",
                        str(src)], check=True, capture_output=True, timeout=120)
        img = Image.open(f"{tmp}/g.png").convert("RGB")
        img.load()
        lay = json.loads(Path(f"{tmp}/g.json").read_text())
    return img, _graphviz_layout(lay, img.size)


def _graphviz_layout(lay: dict[str, Any], size: tuple[int, int]) -> dict[str, Any]:
    """graphviz's own positions (points, y up) as boxes in image pixels (y down)."""
    x0, y0, x1, y1 = (float(v) for v in lay["bb"].split(","))
    s = DPI / 72.0
    pad_x = (size[0] - (x1 - x0) * s) / 2
    pad_y = (size[1] - (y1 - y0) * s) / 2

    def px(x: float, y: float) -> tuple[float, float]:
        return pad_x + (x - x0) * s, pad_y + (y1 - y) * s

    nodes, points, clusters = {}, {}, {}
    for o in lay.get("objects", []):
        name = o.get("name", "")
        if name.startswith("cluster_"):
            a, b, c, d = (float(v) for v in o["bb"].split(","))
            (ax, ay), (cx, cy) = px(a, d), px(c, b)
            clusters[name.removeprefix("cluster_")] = [ax, ay, cx, cy]
        elif "pos" in o:
            x, y = (float(v) for v in o["pos"].split(","))
            w, h = float(o["width"]) * DPI / 2, float(o["height"]) * DPI / 2
            cx, cy = px(x, y)
            (points if o.get("shape") == "point" else nodes)[name] = [cx - w, cy - h,
                                                                     cx + w, cy + h]
    names = {o["_gvid"]: o.get("name", "") for o in lay.get("objects", [])}
    degree: dict[str, int] = {}
    for e in lay.get("edges", []):  # a branch point's fan: its drawn edges, less its trunk
        for end in (names.get(e["tail"]), names.get(e["head"])):
            if end in points:
                degree[end] = degree.get(end, 0) + 1
    return {"nodes": nodes, "points": points, "clusters": clusters,
            "point_fan": {p: d - 1 for p, d in degree.items()},
            "drawn_edges": len(lay.get("edges", [])), "size": list(size)}


# --------------------------------------------------------------------------- matplotlib
def _layers(chart: dict[str, Any]) -> dict[str, int]:
    """Longest-path layering over a spanning DAG of the flow (edges closing a cycle left out
    of the layering, drawn round the side)."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(n["id"] for n in chart["nodes"])
    g.add_nodes_from(p["id"] for p in chart["points"])
    for e in chart["edges"]:
        g.add_edge(e["src"], e["dst"])
        if not nx.is_directed_acyclic_graph(g):
            g.remove_edge(e["src"], e["dst"])
    layer: dict[str, int] = {}
    for v in nx.topological_sort(g):
        layer[v] = max((layer[u] + 1 for u in g.predecessors(v)), default=0)
    return layer


def _text_width(label: str, fs: float) -> float:
    return 0.62 * fs / 72 * len(label)  # inches: DejaVu's mean advance ~0.6 em


def _side(w: str, x: float, y: float, sgn: int, kind: dict[str, Any], width: dict[str, float],
          lk: dict[str, Any]) -> tuple[float, float]:
    """Where a side-routed arrow leaves or enters node `w`: its left or right edge (a diamond's
    side vertex is half-way in), or a branch point's centre."""
    if w not in kind:
        return x, y
    f = 0.5 if lk["shapes"][w] == "diamond" else 1.0
    return x + sgn * width[w] / 2 * f, y


def render_matplotlib(chart: dict[str, Any], style: str, lk: dict[str, Any]
                      ) -> tuple[Image.Image, dict[str, Any]]:
    import logging

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import patches

    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    fs = 13 if style == "handwritten" else 11
    layer = _layers(chart)
    flip = -1.0 if lk["direction"] == "BT" else 1.0
    kind = {n["id"]: n for n in chart["nodes"]}
    order_key = {n["id"]: i for i, n in enumerate(chart["nodes"])}
    for p in chart["points"]:
        order_key[p["id"]] = order_key[p["at"]] + 0.5
    by_layer: dict[int, list[str]] = {}
    for v, k in sorted(layer.items(), key=lambda kv: (kv[1], kind.get(kv[0], {}).get("group")
                                                         or "", order_key[kv[0]])):
        by_layer.setdefault(k, []).append(v)
    width = {v: (0.12 if v not in kind else _text_width(kind[v]["label"], fs) + 0.35)
             for v in layer}
    for v in kind:
        if lk["shapes"][v] == "diamond":
            width[v] *= 1.45
    pos: dict[str, tuple[float, float]] = {}
    gap = 0.45
    group = {v: kind[v]["group"] if v in kind else None for v in layer}
    for k, vs in by_layer.items():  # the main flow centred, subgraphs in bands to its right
        vs = [v for v in vs if group[v] is None]
        total = sum(width[v] for v in vs) + gap * (len(vs) - 1)
        x = -total / 2
        for v in vs:
            pos[v] = (x + width[v] / 2, -1.05 * k * flip)
            x += width[v] + gap
    band = max((p[0] + width[v] / 2 for v, p in pos.items()), default=0.0) + 0.9
    for g in chart["groups"]:
        bw = max(width[m] for m in g["members"])
        for m in g["members"]:
            pos[m] = (band + bw / 2, -1.05 * layer[m] * flip)
        band += bw + 0.9
    # edges: adjacent-layer ones straight; the rest round the side, back edges left
    segs = []
    lanes = {"left": 0, "right": 0}
    for e in chart["edges"]:
        u, v = e["src"], e["dst"]
        head = not (v.startswith(("S", "M")) and v not in kind)
        straight = layer[v] - layer[u] == 1
        if straight:
            segs.append((e, head, None, None))
            continue
        side = "left" if layer[v] <= layer[u] else "right"
        sgn = -1 if side == "left" else 1
        lo, hi = sorted((layer[u], layer[v]))
        span = [pos[w][0] + sgn * width[w] / 2 for w in pos if lo <= layer[w] <= hi]
        lanes[side] += 1
        x_lane = (max(span) if sgn > 0 else min(span)) + sgn * (0.25 + 0.22 * lanes[side])
        segs.append((e, head, sgn, x_lane))
    xmin = min(p[0] - width[v] / 2 for v, p in pos.items()) - 0.45 - 0.22 * lanes["left"]
    xmax = max(p[0] + width[v] / 2 for v, p in pos.items()) + 0.85 + 0.22 * lanes["right"]
    ys = [p[1] for p in pos.values()]
    margin = 0.8
    W, H = min(xmax - xmin, 60.0), min(max(ys) - min(ys) + 2 * margin, 60.0)
    fam = _mpl_font(font(style))
    ctx = {"path.sketch": (1.0, 80.0, 8.0)} if style == "handwritten" else {}
    pen, ls = lk["pen"], ("--" if lk["dashed"] else "-")
    with plt.rc_context({"font.family": fam, **ctx}):
        fig = plt.figure(figsize=(W, H), dpi=DPI)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(xmin, xmin + W)
        ax.set_ylim(min(ys) - margin, min(ys) - margin + H)
        ax.axis("off")
        h = 0.42
        artists: dict[str, Any] = {}
        for v, (x, y) in pos.items():
            if v not in kind:
                artists[v] = patches.Circle((x, y), 0.05, color=pen, zorder=3)
                ax.add_patch(artists[v])
                continue
            w, shape = width[v], lk["shapes"][v]
            hh = h * (1.5 if shape == "diamond" else 1.0)
            kw = {"fc": lk["fills"][v], "ec": "black", "lw": 1.5}
            d = 0.15
            if shape == "ellipse":
                p = patches.Ellipse((x, y), w, hh, **kw)
            elif shape == "diamond":
                p = patches.Polygon([(x - w / 2, y), (x, y + hh / 2), (x + w / 2, y),
                                     (x, y - hh / 2)], closed=True, **kw)
            elif shape == "parallelogram":
                p = patches.Polygon([(x - w / 2 + d, y + hh / 2), (x + w / 2 + d, y + hh / 2),
                                     (x + w / 2 - d, y - hh / 2), (x - w / 2 - d, y - hh / 2)],
                                    closed=True, **kw)
            elif shape == "hexagon":
                p = patches.Polygon([(x - w / 2, y), (x - w / 2 + d, y + hh / 2),
                                     (x + w / 2 - d, y + hh / 2), (x + w / 2, y),
                                     (x + w / 2 - d, y - hh / 2), (x - w / 2 + d, y - hh / 2)],
                                    closed=True, **kw)
            else:
                bs = "round,pad=0.02,rounding_size=0.12" if shape == "rounded" \
                    else "square,pad=0.0"
                p = patches.FancyBboxPatch((x - w / 2, y - hh / 2), w, hh, boxstyle=bs, **kw)
            p.set_zorder(2)
            ax.add_patch(p)
            artists[v] = p
            ax.text(x, y, kind[v]["label"], ha="center", va="center", fontsize=fs, zorder=4)
        cl_boxes: dict[str, list[float]] = {}
        for g in chart["groups"]:
            mem = g["members"]
            x0 = min(pos[m][0] - width[m] / 2 for m in mem) - 0.25
            x1 = max(pos[m][0] + width[m] / 2 for m in mem) + 0.25
            y0 = min(pos[m][1] for m in mem) - h - 0.15
            y1 = max(pos[m][1] for m in mem) + h + 0.35
            cl_boxes[g["id"]] = [x0, y0, x1, y1]
            ax.add_patch(patches.FancyBboxPatch(
                (x0, y0), x1 - x0, y1 - y0, boxstyle="round,pad=0,rounding_size=0.08",
                fc=CLUSTER_FILL, ec=CLUSTER_PEN, lw=1.0, ls="--", zorder=0))
            ax.text(x0 + 0.08, y1 - 0.08, g["label"], ha="left", va="top", fontsize=fs - 1,
                    zorder=1)
        n_arrows = 0
        for e, head, sgn, x_lane in segs:
            u, v = e["src"], e["dst"]
            (xu, yu), (xv, yv) = pos[u], pos[v]
            style_a = "-|>" if head else "-"
            if sgn is None:
                a = patches.FancyArrowPatch(
                    (xu, yu), (xv, yv), patchA=artists[u], patchB=artists[v],
                    arrowstyle=style_a, mutation_scale=16, lw=1.4, color=pen, ls=ls,
                    zorder=1.5, shrinkA=0, shrinkB=0)
                lx, ly = (xu + xv) / 2 + 0.08, (yu + yv) / 2
            else:
                au, av = (_side(w, x, y, sgn, kind, width, lk)
                          for w, x, y in ((u, xu, yu), (v, xv, yv)))
                ax.plot([au[0], x_lane, x_lane], [au[1], au[1], av[1]], color=pen, lw=1.4,
                        ls=ls, zorder=1.5, solid_capstyle="butt")
                a = patches.FancyArrowPatch((x_lane, av[1]), av, arrowstyle=style_a,
                                            mutation_scale=16, lw=1.4, color=pen, zorder=1.5,
                                            shrinkA=0, shrinkB=0)
                lx, ly = x_lane + 0.06, (yu + yv) / 2
            ax.add_patch(a)
            n_arrows += 1
            if e["label"]:
                ax.text(lx, ly, e["label"], ha="left", va="center", fontsize=fs - 2, zorder=4)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        Hpx = fig.bbox.height

        def ext(artist: Any) -> list[float]:
            bb = artist.get_window_extent(renderer)
            return [float(bb.x0), float(Hpx - bb.y1), float(bb.x1), float(Hpx - bb.y0)]

        fan: dict[str, int] = {}
        for e, _, _, _ in segs:
            for end in (e["src"], e["dst"]):
                if end not in kind:
                    fan[end] = fan.get(end, 0) + 1
        layout = {"nodes": {v: ext(artists[v]) for v in kind},
                  "point_fan": {p: d - 1 for p, d in fan.items()},
                  "points": {v: ext(artists[v]) for v in pos if v not in kind},
                  "clusters": {}, "drawn_edges": n_arrows}
        for cid, (x0, y0, x1, y1) in cl_boxes.items():
            (a0, b0), (c0, d0) = ax.transData.transform([(x0, y1), (x1, y0)])
            layout["clusters"][cid] = [float(a0), float(Hpx - b0), float(c0), float(Hpx - d0)]
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, facecolor="white")
        plt.close(fig)
    buf.seek(0)
    img = Image.open(buf).convert("RGB")
    layout["size"] = list(img.size)
    return img, layout


# --------------------------------------------------------------------------- styles
def _boxes_map(layout: dict[str, Any], fn: Any) -> None:
    for key in ("nodes", "points", "clusters"):
        for k, (x0, y0, x1, y1) in list(layout[key].items()):
            pts = fn(np.array([[x0, y0], [x1, y0], [x0, y1], [x1, y1]], dtype=float))
            layout[key][k] = [float(pts[:, 0].min()), float(pts[:, 1].min()),
                              float(pts[:, 0].max()), float(pts[:, 1].max())]


def _elastic(img: Image.Image, rng: np.random.Generator, amp: float = 2.5,
             smooth: float = 14.0) -> Image.Image:
    from scipy.ndimage import gaussian_filter, map_coordinates

    a = np.asarray(img).astype(np.float32)
    h, w = a.shape[:2]
    dx = gaussian_filter(rng.standard_normal((h, w)), smooth)
    dy = gaussian_filter(rng.standard_normal((h, w)), smooth)
    dx *= amp / (np.abs(dx).max() + 1e-9)
    dy *= amp / (np.abs(dy).max() + 1e-9)
    yy, xx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    out = np.stack([map_coordinates(a[..., c], [yy + dy, xx + dx], order=1, mode="nearest")
                    for c in range(a.shape[2])], axis=-1)
    return Image.fromarray(out.clip(0, 255).astype(np.uint8))


SCANNED = {
    "easy": {"blur": 0.8, "vignette": 0.1, "rotation": 1.0, "tint": "yellowish",
             "noise": 0.005, "jpeg": 90},
    "medium": {"blur": 1.0, "vignette": 0.3, "rotation": 1.2, "tint": "yellowish",
               "noise": 0.008, "jpeg": 70},
    "hard": {"blur": 1.2, "vignette": 0.5, "rotation": 1.5, "tint": "gray", "noise": 0.015,
             "jpeg": 40},
}
"""the official scanned levels (Synthesizer, apply_scanned_style); the hard level's 3% corner
perspective jitter is left out (boxes stay axis-aligned under a rotation only)"""


def _scanned(img: Image.Image, layout: dict[str, Any], rng: np.random.Generator,
             level: str) -> Image.Image:
    from PIL import ImageEnhance

    p = SCANNED[level]
    img = img.filter(ImageFilter.GaussianBlur(radius=p["blur"]))
    angle = float(rng.uniform(-p["rotation"], p["rotation"]))
    w, h = img.size
    img = img.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=(255, 255, 255))
    W, H = img.size
    t = np.deg2rad(angle)  # PIL rotates counter-clockwise about the centre

    def rot(q: np.ndarray) -> np.ndarray:
        c = q - [w / 2, h / 2]
        x = c[:, 0] * np.cos(t) + c[:, 1] * np.sin(t)
        y = -c[:, 0] * np.sin(t) + c[:, 1] * np.cos(t)
        return np.stack([x + W / 2, y + H / 2], axis=1)

    _boxes_map(layout, rot)
    img = ImageEnhance.Color(img).enhance(0.9)
    a = np.asarray(img).astype(np.float32)
    tint = (255, 255, 200) if p["tint"] == "yellowish" else (215, 215, 215)
    a = 0.85 * a + 0.15 * np.array(tint, dtype=np.float32)
    salt = rng.random(a.shape[:2]) < p["noise"]
    a[salt] = rng.uniform(80, 150, (int(salt.sum()), 1))
    yy, xx = np.meshgrid(np.linspace(-1, 1, H), np.linspace(-1, 1, W), indexing="ij")
    a *= np.clip(1 - p["vignette"] * (xx**2 + yy**2), 0.5, 1.0)[..., None]
    img = Image.fromarray(a.clip(0, 255).astype(np.uint8))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=p["jpeg"])
    buf.seek(0)
    out = Image.open(buf).convert("RGB")
    out.load()
    layout["size"] = list(out.size)
    return out


def render(chart: dict[str, Any], renderer: str, style: str, seed: int,
           level: str = "medium") -> tuple[Image.Image, dict[str, Any]]:
    """The chart drawn by `renderer` in `style` (scanned at the chart's difficulty `level`),
    with the layout located in the final image."""
    if renderer not in RENDERERS or style not in STYLES:
        raise ValueError(f"unknown renderer/style {renderer}/{style}: "
                         f"renderers {RENDERERS}, styles {STYLES}")
    lk = look(chart, renderer, seed)
    draw = render_graphviz if renderer == "graphviz" else render_matplotlib
    img, layout = draw(chart, style, lk)
    rng = np.random.default_rng([seed, STYLES.index(style), RENDERERS.index(renderer)])
    if style == "handwritten":
        img = _elastic(img, rng)
    elif style == "scanned":
        img = _scanned(img, layout, rng, level)
    layout.update(renderer=renderer, style=style, look=lk)
    return img, layout
