"""Builds this task's data: 3 made-up MelodyMart customers, from the generator of the sibling
task customer_data_migration (another seed), written to customers.json and to description.md.
The output is committed; run `python make_customers.py` only to rebuild it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

HERE = Path(__file__).parent
N = 3
SEED = 7

DESCRIPTION = """\
Chinook has bought the music retailer "MelodyMart". Add MelodyMart's customers, listed below,
to Chinook's `"Customer"` table (the tables use quoted PascalCase names such as `"Customer"`
and `"CustomerId"`).

- Copy the ten values of each row exactly as written.
- `"CustomerId"` has no default: give the new customers consecutive ids that start right after
  the largest `"CustomerId"` now in the table.
- Every new customer gets `"SupportRepId"` = 3 and `"Fax"` = NULL.
- Change nothing else.

## MelodyMart customers ({n} rows)
"""


def main() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_customers_full", HERE.parent / "customer_data_migration" / "make_customers.py")
    full = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(full)
    rows = full.customers(N, SEED)
    (HERE / "customers.json").write_text(json.dumps(rows, indent=1) + "\n")
    (HERE / "description.md").write_text(full.render(rows, DESCRIPTION))


if __name__ == "__main__":
    main()
