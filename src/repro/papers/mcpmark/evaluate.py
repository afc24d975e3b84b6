"""mcpmark: score one trained run."""

from __future__ import annotations

from pathlib import Path

from repro.core.config import job_parser
from repro.core.io import read_json, write_json


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("evaluate one mcpmark run")
    ap.add_argument("--run", required=True, type=Path)
    a = ap.parse_args(argv)
    run = read_json(a.run)
    write_json(a.out, {"method": run["method"], "seed": run["seed"],
                       "sq_error": (run["estimate"] - run["loc"]) ** 2})


if __name__ == "__main__":
    main()
