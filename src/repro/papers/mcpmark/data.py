"""mcpmark data. The skeleton draws its data from a seeded generator; a real paper fetches its
data set here (the real source at full, an offline mirror or a registry package below) and
checks each file against config/manifests/mcpmark.json before it reads it
(`Manifest.for_config(a.config).verify(key, path)`, repro.core.manifest)."""

from __future__ import annotations

import io

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.papers.mcpmark.settings import load


def main(argv: list[str] | None = None) -> None:
    a = job_parser("draw the mcpmark data set").parse_args(argv)
    cfg = load(a.config, a.scale)
    x = np.random.default_rng(cfg.data.seed).normal(cfg.data.loc, 1.0, size=cfg.data.n)
    buf = io.BytesIO()
    np.savez(buf, x=x)
    with atomic_path(a.out) as tmp:
        tmp.write_bytes(buf.getvalue())
    write_json(a.out.with_name("source.json"),
               {"source": "generator", "seed": cfg.data.seed, "n": cfg.data.n})


if __name__ == "__main__":
    main()
