"""update_employee_info: the three updates made, every other Employee value untouched."""

import os
import sys

import psycopg


def connect(db: str):
    return psycopg.connect(host=os.environ["POSTGRES_HOST"], port=os.environ["POSTGRES_PORT"],
                           user=os.environ["POSTGRES_USERNAME"],
                           password=os.environ["POSTGRES_PASSWORD"], dbname=db)


def rows(db: str) -> dict:
    with connect(db) as c:
        cur = c.execute('SELECT * FROM "Employee" ORDER BY "EmployeeId"')
        cols = [d.name for d in cur.description]
        return {r[0]: dict(zip(cols, r, strict=True)) for r in cur.fetchall()}


def main() -> int:
    before = rows(os.environ["MCPMARK_TEMPLATE_DATABASE"])
    after = rows(os.environ["POSTGRES_DATABASE"])
    want = {k: dict(v) for k, v in before.items()}
    want[1]["Title"] = "CEO"
    want[2]["Phone"] = "+1 (403) 555-9999"
    for r in want.values():
        if r["Title"] == "IT Staff":
            r["Title"] = "IT Specialist"
    problems = []
    if set(after) != set(want):
        problems.append(f"employee ids {sorted(after)} != {sorted(want)}")
    for k in sorted(set(after) & set(want)):
        for col, v in want[k].items():
            if after[k].get(col) != v:
                problems.append(f"employee {k} {col}: {after[k].get(col)!r}, want {v!r}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(after)} employees as required")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
