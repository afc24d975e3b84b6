"""Synthesize one seed's split: charts from the difficulty levels, each drawn by every renderer
in every style, stored with its ground truth (graph, triples, QA) and the renderer's layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable
from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.papers.flowgen.render import render
from repro.papers.flowgen.settings import Settings, load
from repro.papers.flowgen.synth import make_chart

log = get_logger("flowgen.synthesize")
SPLITS = ("train", "test")


def plan(cfg: Settings, seed: int, split: str) -> list[dict[str, Any]]:
    """The charts of one split: (level, index) with the renderers and styles each is drawn in."""
    n = cfg.data.n_test if split == "test" else cfg.data.n_train
    renderers = cfg.renderers if split == "test" else cfg.train_renderers
    return [{"level": lv, "i": i, "renderers": renderers, "styles": cfg.styles,
             "seed": seed, "split": split} for lv in cfg.used() for i in range(n)]


def make(cfg: Settings, item: dict[str, Any], images: Path) -> dict[str, Any]:
    lv, i, seed, split = item["level"], item["i"], item["seed"], item["split"]
    li = list(cfg.levels).index(lv)
    rng = np.random.default_rng([seed, SPLITS.index(split), li, i])
    chart = make_chart(cfg.level(lv), rng, f"{split}-{lv}-{i}")
    chart["level"] = lv
    recs = []
    for r in item["renderers"]:
        for s in item["styles"]:
            img, layout = render(chart, r, s, seed=seed * 1_000_003 + li * 10_007 + i, level=lv)
            name = f"{chart['id']}_{r}_{s}.png"
            img.save(images / name, optimize=False)
            recs.append({"chart": chart["id"], "level": lv, "renderer": r, "style": s,
                         "image": name, "layout": layout})
    return {"chart": chart, "images": recs}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("synthesize one seed's flowchart split")
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--split", required=True, choices=SPLITS)
    ap.add_argument("--images", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    a.images.mkdir(parents=True, exist_ok=True)
    items = plan(cfg, a.seed, a.split)

    def one(item: dict[str, Any]) -> dict[str, Any]:
        out = make(cfg, item, a.images)
        log.info("%s seed %d: chart %s (%d images)", a.split, a.seed, out["chart"]["id"],
                 len(out["images"]))
        return out

    with Resumable(a.out, {"seed": a.seed, "split": a.split, "cfg": str(cfg)}, every=1,
                   what=f"synthesize {a.split} seed {a.seed}") as run:
        done = run.map(one, items)
    write_json(a.out, {"seed": a.seed, "split": a.split, "images_dir": str(a.images),
                       "charts": [d["chart"] for d in done],
                       "images": [r for d in done for r in d["images"]]})


if __name__ == "__main__":
    main()
