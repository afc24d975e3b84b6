"""mcpmark: one method on one seed's sample of the data."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.seeding import seed_everything
from repro.papers.mcpmark.method import estimate
from repro.papers.mcpmark.settings import load


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("fit one mcpmark method on one seed")
    ap.add_argument("--method", required=True)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--data", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    rng = seed_everything(a.seed)
    pool = np.load(a.data)["x"]
    sample = rng.choice(pool, size=cfg.train.sample_size, replace=False)
    write_json(a.out, {"method": a.method, "seed": a.seed, "loc": cfg.data.loc,
                       "estimate": estimate(a.method, sample)})


if __name__ == "__main__":
    main()
