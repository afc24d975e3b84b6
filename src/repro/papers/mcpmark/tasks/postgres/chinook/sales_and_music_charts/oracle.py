"""sales_and_music_charts' scripted solution: one call per table."""

MONTHLY = """
CREATE TABLE monthly_sales_summary (
    year_month varchar(7) PRIMARY KEY, total_invoices integer, total_revenue numeric(12, 2),
    total_tracks_sold integer, average_invoice_value numeric(12, 2), unique_customers integer);
INSERT INTO monthly_sales_summary
SELECT to_char(i."InvoiceDate", 'YYYY-MM'), count(*), sum(i."Total"),
       coalesce(sum((SELECT sum("Quantity") FROM "InvoiceLine" l
                     WHERE l."InvoiceId" = i."InvoiceId")), 0),
       round(avg(i."Total"), 2), count(DISTINCT i."CustomerId")
FROM "Invoice" i GROUP BY 1;
"""

CHARTS = """
CREATE TABLE top_music_charts (
    chart_type varchar(20), rank_position integer, item_id integer, item_name varchar(200),
    total_revenue numeric(12, 2));
WITH lines AS (
    SELECT t."TrackId", t."Name" AS track, al."AlbumId", al."Title" AS album, ar."ArtistId",
           ar."Name" AS artist, il."Quantity" AS q, il."UnitPrice" * il."Quantity" AS rev
    FROM "InvoiceLine" il JOIN "Track" t ON t."TrackId" = il."TrackId"
         JOIN "Album" al ON al."AlbumId" = t."AlbumId"
         JOIN "Artist" ar ON ar."ArtistId" = al."ArtistId"),
agg AS (
    SELECT 'top_tracks' AS chart, "TrackId" AS id, track AS name, sum(q) AS k, sum(rev) AS rev
    FROM lines GROUP BY 2, 3
    UNION ALL
    SELECT 'top_albums', "AlbumId", album, sum(rev), sum(rev) FROM lines GROUP BY 2, 3
    UNION ALL
    SELECT 'top_artists', "ArtistId", artist, sum(rev), sum(rev) FROM lines GROUP BY 2, 3),
ranked AS (
    SELECT *, row_number() OVER (PARTITION BY chart ORDER BY k DESC, name, id) AS pos
    FROM agg WHERE k > 0)
INSERT INTO top_music_charts SELECT chart, pos, id, name, rev FROM ranked WHERE pos <= 10;
"""


def solve(view: dict) -> list[dict]:
    return [{"name": "execute_sql", "arguments": {"sql": MONTHLY}},
            {"name": "execute_sql", "arguments": {"sql": CHARTS}}]
