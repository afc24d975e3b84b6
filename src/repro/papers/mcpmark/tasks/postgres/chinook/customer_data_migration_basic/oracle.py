"""customer_data_migration_basic's scripted solution: read the largest id, then one multi-row
INSERT of customers.json with ids after it."""

import json
from pathlib import Path


def _lit(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


COLUMNS = ["FirstName", "LastName", "Company", "Address", "City", "State", "Country",
           "PostalCode", "Phone", "Email"]


def solve(view: dict) -> list[dict]:
    import psycopg

    rows = json.loads((Path(__file__).parent / "customers.json").read_text())
    with psycopg.connect(view["dsn"]) as c:
        last = c.execute('SELECT max("CustomerId") FROM "Customer"').fetchone()[0]
    values = ",\n".join(
        f"({last + i}, " + ", ".join(_lit(r[c]) for c in COLUMNS) + ", NULL, 3)"
        for i, r in enumerate(rows, 1))
    cols = ", ".join(f'"{c}"' for c in ["CustomerId", *COLUMNS, "Fax", "SupportRepId"])
    return [{"name": "execute_sql",
             "arguments": {"sql": 'SELECT max("CustomerId") FROM "Customer"'}},
            {"name": "execute_sql",
             "arguments": {"sql": f'INSERT INTO "Customer" ({cols}) VALUES\n{values};'}}]
