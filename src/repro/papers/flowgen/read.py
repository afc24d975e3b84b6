"""Read every image of one split once (binarise, OCR, segment): the slow step both offline
parsers share, resumable image by image."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from repro.core.checkpoint import Resumable
from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger
from repro.papers.flowgen.parse import need_tesseract, page_json, read_page

log = get_logger("flowgen.read")


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("OCR and segment one split's flowchart images")
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--images", required=True, type=Path)
    a = ap.parse_args(argv)
    need_tesseract()
    index = read_json(a.index)
    recs = index["images"]

    def one(rec: dict[str, Any]) -> dict[str, Any]:
        page = page_json(read_page(Image.open(a.images / rec["image"])))
        log.info("read %s: %d text lines, %d nodes, %d arrows", rec["image"],
                 len(page["lines"]), len(page["nodes"]), len(page["comps"]))
        return page

    with Resumable(a.out, {"index": index["seed"], "split": index["split"]}, every=1,
                   inputs=[a.index], what=f"read {index['split']} seed {index['seed']}") as run:
        pages = run.map(one, recs)
    write_json(a.out, {"seed": index["seed"], "split": index["split"], "pages": pages})


if __name__ == "__main__":
    main()
