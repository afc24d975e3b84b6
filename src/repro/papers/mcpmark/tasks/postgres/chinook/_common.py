"""Shared by the chinook customer-migration tasks (standard and basic): the verifier and the
oracle's calls, both reading the task's customers.json."""

import json
import os
from pathlib import Path

import psycopg

COLUMNS = ["FirstName", "LastName", "Company", "Address", "City", "State", "Country",
           "PostalCode", "Phone", "Email"]


def connect(db: str):
    return psycopg.connect(host=os.environ["POSTGRES_HOST"], port=os.environ["POSTGRES_PORT"],
                           user=os.environ["POSTGRES_USERNAME"],
                           password=os.environ["POSTGRES_PASSWORD"], dbname=db)


def customers(c) -> dict:
    cur = c.execute('SELECT * FROM "Customer" ORDER BY "CustomerId"')
    cols = [d.name for d in cur.description]
    return {r[0]: dict(zip(cols, r, strict=True)) for r in cur.fetchall()}


def table_counts(c) -> dict:
    names = [r[0] for r in c.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")]
    return {n: c.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}


def verify_migration(task: Path) -> int:
    """The migration tasks' verdict: task is the folder holding customers.json."""
    want = json.loads((task / "customers.json").read_text())
    with connect(os.environ["MCPMARK_TEMPLATE_DATABASE"]) as c:
        before, counts_before = customers(c), table_counts(c)
    with connect(os.environ["POSTGRES_DATABASE"]) as c:
        after, counts_after = customers(c), table_counts(c)
    problems = []
    last = max(before)
    for k, row in before.items():
        if after.get(k) != row:
            problems.append(f"original customer {k} changed or missing: {after.get(k)!r}")
    new = {k: v for k, v in after.items() if k not in before}
    want_ids = set(range(last + 1, last + 1 + len(want)))
    if set(new) != want_ids:
        problems.append(f"new customer ids {sorted(new)[:5]}... ({len(new)} rows), want "
                        f"{last + 1}..{last + len(want)} ({len(want)} rows)")
    for k, r in sorted(new.items()):
        if r["SupportRepId"] != 3:
            problems.append(f"customer {k}: SupportRepId {r['SupportRepId']!r}, want 3")
        if r["Fax"] is not None:
            problems.append(f"customer {k}: Fax {r['Fax']!r}, want NULL")
    got = [tuple(r[c] for c in COLUMNS) for r in new.values()]
    expected = [tuple(r[c] for c in COLUMNS) for r in want]
    if sorted(got, key=repr) != sorted(expected, key=repr):
        missing = set(expected) - set(got)
        extra = set(got) - set(expected)
        problems.append(f"new rows differ from the table: {len(missing)} missing "
                        f"(e.g. {sorted(missing)[:2]}), {len(extra)} unexpected "
                        f"(e.g. {sorted(extra, key=repr)[:2]})")
    for t in sorted(set(counts_before) | set(counts_after)):
        if t == "Customer":
            continue
        if counts_before.get(t) != counts_after.get(t):
            problems.append(f"table {t}: {counts_after.get(t)} rows, want {counts_before.get(t)}")
    for p in problems[:20]:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(new)} customers migrated, {len(before)} originals untouched")
    return 1 if problems else 0


def _lit(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def migration_calls(task: Path, view: dict) -> list[dict]:
    """The oracle's calls: read the largest id, then one multi-row INSERT of task/customers.json."""
    rows = json.loads((task / "customers.json").read_text())
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
