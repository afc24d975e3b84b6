"""Offline parsers that read the chart image itself (never the renderer's source).

The page: a local-background binarisation; the text layer is the small connected components
(characters), read by Debian's tesseract; the stroke layer is the rest. A text line whose
surrounding background is a small closed region is a node (the region is its shape); any other
text is free text (an edge label or a subgraph title). Arrows are the stroke components left
once node shapes are masked out: the nodes a component touches are its ends, and an end whose
neighbourhood holds many stroke pixels (a filled arrowhead) is a head. A branched arrow is one
component with one tail and several heads (or the reverse), so it yields one edge per pair.

`ocr`: that rule as written. `trained`: the same page, with two things learned from FlowGen's
training split (the paper's "training on FlowGen helps", in miniature): a gradient-boosted
classifier over candidate node pairs that decides edge and direction from the geometry of the
component they share, and the training split's vocabulary, to which OCR words are snapped.
Both answer QA by running the question's program on the graph they parsed. Full scale swaps in
MLLMs (mllm.py) behind the same interface.
"""

from __future__ import annotations

import io
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

from repro.papers.flowgen.score import similarity
from repro.papers.flowgen.synth import CONNECTED, answer, graph_from_triples

CHAR_MAX = (28, 40)
"""largest character component (height, width) in pixels at the renderers' 100 dpi"""
BRIDGE = 4
"""dilation (px) that joins a dashed arrow's dashes into one component"""
HEAD_R = 9
"""radius (px) round an arrow's end in which a filled head shows as extra stroke pixels"""


@dataclass
class Line:
    text: str
    box: tuple[int, int, int, int]  # x0, y0, x1, y1


@dataclass
class Page:
    """One image's reading: text lines, nodes (with their masks) and arrow components."""

    shape: tuple[int, int]
    lines: list[Line]
    nodes: list[dict[str, Any]] = field(default_factory=list)
    free: list[Line] = field(default_factory=list)
    comps: list[dict[str, Any]] = field(default_factory=list)


def need_tesseract() -> None:
    """Refuse early, with the fix, where Debian's tesseract is missing."""
    import shutil

    if shutil.which("tesseract") is None:
        raise RuntimeError("tesseract is not on PATH: apt-get install tesseract-ocr "
                           "tesseract-ocr-eng (bash scripts/setup.sh does it)")


def binarize(img: Image.Image) -> np.ndarray:
    g = np.asarray(img.convert("L")).astype(np.float32)
    bg = ndi.gaussian_filter(ndi.maximum_filter(ndi.gaussian_filter(g, 2), 25), 10)
    return g < bg - 60


def tesseract_words(mask: np.ndarray) -> list[Line]:
    im = Image.fromarray(np.where(mask, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    # one thread: jobs run side by side, and tesseract's OpenMP threads only contend
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    out = subprocess.run(["tesseract", "stdin", "stdout", "--psm", "11", "tsv"],
                         input=buf.getvalue(), capture_output=True, check=True, timeout=300,
                         env=env).stdout.decode("utf-8", "replace")
    words = []
    for row in out.splitlines()[1:]:
        f = row.split("\t")
        if len(f) != 12 or not f[11].strip() or float(f[10]) < 30:
            continue
        text = "".join(ch for ch in f[11] if ch.isalnum() or ch in "?-'")
        if not any(ch.isalpha() for ch in text):
            continue
        x, y, w, h = (int(v) for v in f[6:10])
        words.append(Line(text, (x, y, x + w, y + h)))
    return words


def group_lines(words: list[Line]) -> list[Line]:
    """Words on one baseline and close together form a line."""
    words = sorted(words, key=lambda w: (w.box[1], w.box[0]))
    lines: list[list[Line]] = []
    for w in words:
        h = w.box[3] - w.box[1]
        for ln in lines:
            last = ln[-1]
            lh = last.box[3] - last.box[1]
            overlap = min(w.box[3], last.box[3]) - max(w.box[1], last.box[1])
            gap = w.box[0] - last.box[2]
            if overlap > 0.5 * min(h, lh) and -2 <= gap <= 1.2 * max(h, lh):
                ln.append(w)
                break
        else:
            lines.append([w])
    out = []
    for ln in lines:
        ln.sort(key=lambda w: w.box[0])
        b = np.array([w.box for w in ln])
        box = (int(b[:, 0].min()), int(b[:, 1].min()), int(b[:, 2].max()), int(b[:, 3].max()))
        out.append(Line(" ".join(w.text for w in ln), box))
    return out


def read_page(img: Image.Image) -> Page:
    """Binarise, OCR and segment one image (the expensive part, shared by both parsers)."""
    dark = binarize(img)
    lab, n = ndi.label(dark, structure=np.ones((3, 3)))
    small = np.zeros(n + 1, bool)
    for i, s in enumerate(ndi.find_objects(lab)):
        small[i + 1] = (s[0].stop - s[0].start <= CHAR_MAX[0]
                        and s[1].stop - s[1].start <= CHAR_MAX[1])
    lines = group_lines(tesseract_words(small[lab]))
    page = Page(shape=dark.shape, lines=lines)
    text_px = np.zeros_like(dark)
    for ln in lines:
        x0, y0, x1, y1 = ln.box
        text_px[max(0, y0 - 1):y1 + 2, max(0, x0 - 1):x1 + 2] = True
    strokes = ndi.binary_closing(dark & ~text_px, structure=np.ones((5, 5))) & ~text_px
    strokes |= dark & ~text_px
    _segment(page, strokes)
    return page


def _segment(page: Page, strokes: np.ndarray) -> None:
    H, W = strokes.shape
    bg, _ = ndi.label(~strokes)
    sizes = np.bincount(bg.ravel())
    border = set(np.unique(np.concatenate([bg[0], bg[-1], bg[:, 0], bg[:, -1]])).tolist())
    by_region: dict[int, list[Line]] = {}
    for ln in page.lines:
        x0, y0, x1, y1 = ln.box
        cy, cx = (y0 + y1) // 2, (x0 + x1) // 2
        r = int(bg[min(cy, H - 1), min(cx, W - 1)])
        area = (x1 - x0 + 1) * (y1 - y0 + 1)
        if r and r not in border and sizes[r] < 12 * area + 4000:
            by_region.setdefault(r, []).append(ln)
        else:
            page.free.append(ln)
    node_mask = np.zeros(strokes.shape, np.int32)
    for k, (r, lns) in enumerate(sorted(by_region.items(), key=lambda kv: kv[1][0].box[1:2])):
        lns.sort(key=lambda ln: (ln.box[1], ln.box[0]))
        region = ndi.binary_dilation(bg == r, iterations=4)
        node_mask[region & (node_mask == 0)] = k + 1
        ys, xs = np.nonzero(region)
        page.nodes.append({"text": " ".join(ln.text for ln in lns),
                           "box": [int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())],
                           "center": [float(xs.mean()), float(ys.mean())]})
    arrows = strokes & (node_mask == 0)
    # dashed arrows: pieces within BRIDGE px of each other belong to one component
    joined, n = ndi.label(ndi.binary_dilation(arrows, structure=np.ones((3, 3)),
                                              iterations=BRIDGE) & (node_mask == 0),
                          structure=np.ones((3, 3)))
    lab = np.where(arrows, joined, 0)
    if n == 0 or not page.nodes:
        return
    touch = ndi.grey_dilation(node_mask, size=(7, 7))
    objs = ndi.find_objects(lab)
    for c in range(1, n + 1):
        sl = objs[c - 1]
        comp = lab[sl] == c
        npx = int(comp.sum())
        if npx < 15:
            continue
        t = touch[sl][comp]
        ends = []
        ys, xs = np.nonzero(comp)
        for node in np.unique(t[t > 0]):
            sel = t == node
            cy, cx = ys[sel].mean(), xs[sel].mean()
            near = ((ys - cy) ** 2 + (xs - cx) ** 2) <= HEAD_R ** 2
            ends.append({"node": int(node) - 1, "at": [float(cx + sl[1].start),
                                                       float(cy + sl[0].start)],
                         "score": int(near.sum()), "contact": int(sel.sum())})
        if len(ends) >= 2:
            page.comps.append({"ends": ends, "pixels": npx,
                               "box": [sl[1].start, sl[0].start, sl[1].stop, sl[0].stop],
                               "mask_ys": (ys + sl[0].start).tolist(),
                               "mask_xs": (xs + sl[1].start).tolist()})
    _attach_labels(page)


def _attach_labels(page: Page) -> None:
    """Each free text goes to the nearest arrow component within a few text heights."""
    for ln in page.free:
        x0, y0, x1, y1 = ln.box
        cx, cy, h = (x0 + x1) / 2, (y0 + y1) / 2, max(8, y1 - y0)
        best, bd = None, 2.5 * h
        for i, c in enumerate(page.comps):
            ys, xs = np.asarray(c["mask_ys"]), np.asarray(c["mask_xs"])
            d = float(np.sqrt(((xs - cx) ** 2 + (ys - cy) ** 2).min())) - (x1 - x0) / 2
            d = max(d, 0.0)
            if d < bd:
                best, bd = i, d
        if best is not None:
            page.comps[best].setdefault("labels", []).append({"text": ln.text,
                                                             "at": [cx, cy]})


def page_json(page: Page) -> dict[str, Any]:
    """What later jobs need of a page (the component masks are dropped)."""
    return {"shape": list(page.shape), "lines": [[ln.text, list(ln.box)] for ln in page.lines],
            "nodes": page.nodes, "free": [[ln.text, list(ln.box)] for ln in page.free],
            "comps": [{k: v for k, v in c.items() if not k.startswith("mask_")}
                      for c in page.comps]}


# --------------------------------------------------------------------------- decoding
def _seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / (np.dot(ab, ab) + 1e-9), 0, 1))
    return float(np.linalg.norm(p - (a + t * ab)))


def _label_for(comp: dict[str, Any], src: dict[str, Any], dst: dict[str, Any],
               pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """The component's label nearest this pair's segment (a label is used once)."""
    labels = comp.get("labels", [])
    if not labels:
        return ""
    a, b = np.asarray(src["at"]), np.asarray(dst["at"])
    mine = []
    for lb in labels:
        p = np.asarray(lb["at"])
        d = [_seg_dist(p, np.asarray(s["at"]), np.asarray(t["at"])) for s, t in pairs]
        if d and _seg_dist(p, a, b) <= min(d) + 1e-6:
            mine.append((_seg_dist(p, a, b), lb["text"]))
    return min(mine)[1] if mine else ""


def heuristic_pairs(comp: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    ends = comp["ends"]
    s = np.array([e["score"] for e in ends], dtype=float)
    heads = [i for i in range(len(ends)) if s[i] >= 1.6 * s.min() and s[i] >= 30]
    if not heads:
        heads = [int(s.argmax())]
    tails = [i for i in range(len(ends)) if i not in heads] or [int(s.argmin())]
    heads = [h for h in heads if h not in tails]
    return [(ends[t], ends[h]) for t in tails for h in heads]


def triples_from_pairs(page: dict[str, Any], chosen: list[tuple[int, dict[str, Any],
                                                               dict[str, Any]]],
                       fix: Any = None) -> list[list[str]]:
    names = [fix(n["text"]) if fix else n["text"] for n in page["nodes"]]
    out, seen = [], set()
    by_comp: dict[int, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for ci, s, t in chosen:
        by_comp.setdefault(ci, []).append((s, t))
    for ci, pairs in by_comp.items():
        comp = page["comps"][ci]
        for s, t in pairs:
            if s["node"] == t["node"]:
                continue
            lab = _label_for(comp, s, t, pairs)
            lab = fix(lab) if (fix and lab) else lab
            key = (s["node"], t["node"], lab)
            if key in seen:
                continue
            seen.add(key)
            out.append([names[s["node"]], lab or CONNECTED, names[t["node"]]])
    return out


def ocr_parse(page: dict[str, Any]) -> list[list[str]]:
    chosen = [(ci, s, t) for ci, c in enumerate(page["comps"]) for s, t in heuristic_pairs(c)]
    return triples_from_pairs(page, chosen)


def pair_features(page: dict[str, Any], comp: dict[str, Any], s: dict[str, Any],
                  t: dict[str, Any]) -> list[float]:
    """Geometry of one ordered (tail, head) candidate inside one arrow component."""
    H, W = page["shape"]
    diag = float(np.hypot(H, W))
    sc = np.array([e["score"] for e in comp["ends"]], dtype=float)
    (sx, sy), (tx, ty) = s["at"], t["at"]
    ns, nt = page["nodes"][s["node"]], page["nodes"][t["node"]]
    dist = float(np.hypot(tx - sx, ty - sy))
    return [s["score"], t["score"], t["score"] - s["score"], t["score"] / max(1, s["score"]),
            (t["score"] - sc.min()) / max(1.0, sc.max() - sc.min()),
            (s["score"] - sc.min()) / max(1.0, sc.max() - sc.min()),
            len(comp["ends"]), comp["pixels"] / max(1.0, dist), dist / diag,
            (tx - sx) / max(1.0, dist), (ty - sy) / max(1.0, dist),
            s["contact"], t["contact"], float(t["score"] == sc.max()),
            float(s["score"] == sc.min()),
            (nt["center"][1] - ns["center"][1]) / diag, (nt["center"][0] - ns["center"][0]) / diag]


def candidates(page: dict[str, Any]) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    return [(ci, s, t) for ci, c in enumerate(page["comps"]) for s in c["ends"]
            for t in c["ends"] if s["node"] != t["node"]]


class Vocabulary:
    """Words seen in the training split's node names and edge labels; OCR words are snapped
    to the closest one when it is close enough (learned text prior)."""

    def __init__(self, words: set[str], threshold: float = 0.7) -> None:
        self.words = sorted(words)
        self.lower = {w.lower(): w for w in self.words}
        self.threshold = threshold

    def word(self, w: str) -> str:
        if w.lower() in self.lower:
            return self.lower[w.lower()]
        best = max(self.words, key=lambda v: similarity(v.lower(), w.lower()), default=None)
        if best is not None and similarity(best.lower(), w.lower()) >= self.threshold:
            return best
        return w

    def __call__(self, text: str) -> str:
        return " ".join(self.word(w) for w in text.split())


def trained_parse(page: dict[str, Any], model: Any, vocab: Vocabulary,
                  threshold: float = 0.5) -> list[list[str]]:
    cands = candidates(page)
    if not cands:
        return []
    X = np.array([pair_features(page, page["comps"][ci], s, t) for ci, s, t in cands])
    p = model.predict_proba(X)[:, 1]
    chosen = [c for c, pi in zip(cands, p, strict=True) if pi >= threshold]
    return triples_from_pairs(page, chosen, fix=vocab)


# --------------------------------------------------------------------------- readers
class Reader(Protocol):
    """Any model that reads a chart: the image (and, for the offline parsers, the front-end's
    reading of it) and the questions in; triples and one answer per question out."""

    def read(self, image: Path, page: dict[str, Any], qa: list[dict[str, Any]]
             ) -> tuple[list[list[str]], list[str]]: ...


class OcrReader:
    def read(self, image: Path, page: dict[str, Any], qa: list[dict[str, Any]]
             ) -> tuple[list[list[str]], list[str]]:
        pred = ocr_parse(page)
        return pred, [answer_from_triples(pred, q) for q in qa]


class TrainedReader:
    def __init__(self, model: Any, vocab: Vocabulary, threshold: float) -> None:
        self.model, self.vocab, self.threshold = model, vocab, threshold

    def read(self, image: Path, page: dict[str, Any], qa: list[dict[str, Any]]
             ) -> tuple[list[list[str]], list[str]]:
        pred = trained_parse(page, self.model, self.vocab, self.threshold)
        return pred, [answer_from_triples(pred, q) for q in qa]


# --------------------------------------------------------------------------- QA
def answer_from_triples(triples: list[list[str]], qa: dict[str, Any]) -> str:
    """Answer one question from a parsed graph: the names the question gives are matched to the
    closest parsed node name (the parser reads the question too)."""
    g = graph_from_triples(triples)
    names = list(g.nodes)
    args = []
    for a in qa["args"]:
        best = max(names, key=lambda n: similarity(n.lower(), a.lower()), default=None)
        args.append(best if best is not None and similarity(best.lower(), a.lower()) >= 0.8
                    else a)
    return answer(g, qa["type"], args)
