"""sales_and_music_charts: monthly_sales_summary and top_music_charts hold exactly the rows that
this verifier's own SQL computes on the same database (amounts within 0.01), with the column
types the description names, and the Chinook tables are untouched."""

import os
import sys
from decimal import Decimal

import psycopg

MONTHLY = """
WITH inv AS (
    SELECT to_char("InvoiceDate", 'YYYY-MM') AS ym, "InvoiceId", "CustomerId", "Total"
    FROM "Invoice"),
lines AS (
    SELECT inv.ym, sum(il."Quantity") AS qty
    FROM inv JOIN "InvoiceLine" il USING ("InvoiceId") GROUP BY inv.ym)
SELECT inv.ym, count(*), sum(inv."Total"), coalesce(max(lines.qty), 0), avg(inv."Total"),
       count(DISTINCT inv."CustomerId")
FROM inv LEFT JOIN lines USING (ym) GROUP BY inv.ym ORDER BY inv.ym
"""

CHART = """
WITH s AS (
    SELECT {id} AS item_id, {name} AS item_name, sum(il."Quantity") AS qty,
           sum(il."UnitPrice" * il."Quantity") AS revenue
    FROM "InvoiceLine" il JOIN "Track" t USING ("TrackId")
         JOIN "Album" al USING ("AlbumId") JOIN "Artist" ar USING ("ArtistId")
    GROUP BY 1, 2 HAVING sum(il."Quantity") > 0),
r AS (SELECT *, row_number() OVER (ORDER BY {key} DESC, item_name, item_id) AS pos FROM s)
SELECT '{chart}', pos, item_id, item_name, revenue FROM r WHERE pos <= 10 ORDER BY pos
"""
CHARTS = {"top_tracks": ('t."TrackId"', 't."Name"', "qty"),
          "top_albums": ('al."AlbumId"', 'al."Title"', "revenue"),
          "top_artists": ('ar."ArtistId"', 'ar."Name"', "revenue")}

INTS = {"smallint", "integer", "bigint"}
TEXT = {"character varying", "text"}
TYPES = {
    "monthly_sales_summary": {"year_month": TEXT, "total_invoices": INTS,
                              "total_revenue": {"numeric"}, "total_tracks_sold": INTS,
                              "average_invoice_value": {"numeric"}, "unique_customers": INTS},
    "top_music_charts": {"chart_type": TEXT, "rank_position": INTS, "item_id": INTS,
                         "item_name": TEXT, "total_revenue": {"numeric"}},
}


def connect(db: str):
    return psycopg.connect(host=os.environ["POSTGRES_HOST"], port=os.environ["POSTGRES_PORT"],
                           user=os.environ["POSTGRES_USERNAME"],
                           password=os.environ["POSTGRES_PASSWORD"], dbname=db)


def table_counts(c) -> dict:
    names = [r[0] for r in c.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")]
    return {n: c.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}


def close(a, b) -> bool:
    if isinstance(b, Decimal):
        return a is not None and abs(Decimal(str(a)) - b) <= Decimal("0.01")
    return a == b


def compare(what: str, got: list, want: list, problems: list) -> None:
    if len(got) != len(want):
        problems.append(f"{what}: {len(got)} rows, want {len(want)}")
    for g, w in zip(got, want, strict=False):
        if len(g) != len(w) or not all(close(a, b) for a, b in zip(g, w, strict=True)):
            problems.append(f"{what}: row {g!r}, want {w!r}")


def main() -> int:
    with connect(os.environ["MCPMARK_TEMPLATE_DATABASE"]) as c:
        counts0 = table_counts(c)
    problems: list[str] = []
    with connect(os.environ["POSTGRES_DATABASE"]) as c:
        counts = table_counts(c)
        ok = True
        for table, cols in TYPES.items():
            types = dict(c.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'public' AND table_name = %s", (table,)))
            if not types:
                problems.append(f"no table public.{table}")
                ok = False
                continue
            for col, allowed in cols.items():
                if types.get(col) not in allowed:
                    problems.append(f"{table}.{col}: type {types.get(col)}, want one of "
                                    f"{sorted(allowed)}")
                    ok = False
        if ok:
            want_m = [tuple(r) for r in c.execute(MONTHLY)]
            got_m = c.execute(
                "SELECT year_month, total_invoices, total_revenue, total_tracks_sold, "
                "average_invoice_value, unique_customers FROM monthly_sales_summary "
                "ORDER BY year_month").fetchall()
            compare("monthly_sales_summary", got_m, want_m, problems)
            want_c = []
            for chart, (ident, name, key) in CHARTS.items():
                want_c += [tuple(r) for r in c.execute(
                    CHART.format(id=ident, name=name, key=key, chart=chart))]
            want_c.sort(key=lambda r: (r[0], r[1]))
            got_c = c.execute(
                "SELECT chart_type, rank_position, item_id, item_name, total_revenue "
                "FROM top_music_charts ORDER BY chart_type, rank_position, item_id").fetchall()
            compare("top_music_charts", got_c, want_c, problems)
    for t in sorted(set(counts0) | set(counts)):
        if t not in TYPES and counts0.get(t) != counts.get(t):
            problems.append(f"table {t}: {counts.get(t)} rows, want {counts0.get(t)}")
    for p in problems[:20]:
        print("FAIL:", p)
    if not problems:
        print("PASS: monthly_sales_summary and top_music_charts as required")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
