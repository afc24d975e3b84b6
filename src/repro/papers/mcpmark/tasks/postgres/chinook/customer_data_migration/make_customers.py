"""Builds this task's data: N made-up MelodyMart customers (fixed seed) written to
customers.json, and description.md with those rows as a Markdown table.

Run from anywhere: `python make_customers.py`; the output is committed, so the task never
depends on running this again. Every value is non-empty, ASCII, free of '|', and fits its
"Customer" column (FirstName 40, LastName 20, Company 80, Address 70, City 40, State 40,
Country 40, PostalCode 10, Phone 24, Email 60).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

N = 200
SEED = 20250917
HERE = Path(__file__).parent

FIRST = ["Aaron", "Abigail", "Adrian", "Alicia", "Amber", "Andre", "Angela", "Ben", "Bianca",
         "Brandon", "Brooke", "Caleb", "Camila", "Carl", "Chloe", "Colin", "Dana", "Darius",
         "Derek", "Diane", "Eddie", "Elena", "Elliot", "Erin", "Felix", "Fiona", "Gavin",
         "Grace", "Hannah", "Hector", "Ian", "Irene", "Jack", "Jade", "Jason", "Joanna",
         "Kara", "Keith", "Kyle", "Laura", "Leon", "Lydia", "Marcus", "Maya", "Miles",
         "Monica", "Nadia", "Nathan", "Nina", "Owen", "Paige", "Pedro", "Priya", "Quinn",
         "Rachel", "Ramon", "Rosa", "Ryan", "Sabrina", "Sean", "Sofia", "Tara", "Trevor",
         "Uma", "Vera", "Victor", "Wade", "Wendy", "Xavier", "Yara", "Zach", "Zoe"]
LAST = ["Abbott", "Alvarez", "Baker", "Barnes", "Bishop", "Brooks", "Carter", "Castillo",
        "Chang", "Coleman", "Crawford", "Delgado", "Dixon", "Ellis", "Ferguson", "Fischer",
        "Foster", "Garrison", "Gibson", "Gomez", "Hale", "Harper", "Hayes", "Holt", "Ibarra",
        "Jacobs", "Jensen", "Keller", "Kim", "Lambert", "Larsen", "Lowe", "Marsh", "Meyer",
        "Nash", "Nguyen", "Novak", "O'Brien", "O'Neill", "Ortega", "Parks", "Patel", "Quist",
        "Ramirez", "Reyes", "Rhodes", "Santos", "Schmidt", "Shaw", "Singh", "Sullivan",
        "Tanaka", "Thornton", "Vance", "Vargas", "Wagner", "Walsh", "Weber", "Yates", "Zimmer"]
COMPANY_WORDS = ["Acme", "Blue Harbor", "Brightline", "Cedar", "Copperleaf", "Evergreen",
                 "Falcon", "Granite", "Harbor", "Ironwood", "Juniper", "Keystone", "Lakeside",
                 "Maple", "Northwind", "Oakridge", "Pinnacle", "Quarry", "Redwood", "Silverline",
                 "Summit", "Tidewater", "Union", "Vista", "Westfield"]
COMPANY_KIND = ["Records", "Media", "Audio", "Studios", "Labs", "Holdings", "Group", "Partners",
                "Consulting", "Logistics", "Foods", "Outfitters", "Sound Co.", "Design",
                "Systems"]
SUFFIX = ["LLC", "Inc.", "Ltd.", "& Co.", "GmbH", "Corp."]
STREETS = ["Maple", "Oak", "Cedar", "Elm", "Willow", "Birch", "Lake", "Hill", "River", "Park",
           "Sunset", "Highland", "Meadow", "Forest", "Church", "Mill", "Spring", "Harbor",
           "Ridge", "Valley"]
STREET_KIND = ["Street", "Avenue", "Road", "Lane", "Drive", "Court", "Boulevard", "Way",
               "Place", "Terrace"]
# (country, state, city, postal-code pattern, phone prefix); # = digit, A = capital letter
PLACES = [
    ("USA", "CA", "Sacramento", "9####", "+1 (916)"), ("USA", "CA", "Fresno", "93###", "+1 (559)"),
    ("USA", "TX", "Austin", "787##", "+1 (512)"), ("USA", "TX", "El Paso", "799##", "+1 (915)"),
    ("USA", "NY", "Albany", "122##", "+1 (518)"), ("USA", "NY", "Buffalo", "142##", "+1 (716)"),
    ("USA", "WA", "Spokane", "992##", "+1 (509)"), ("USA", "OR", "Eugene", "974##", "+1 (541)"),
    ("USA", "IL", "Peoria", "616##", "+1 (309)"), ("USA", "OH", "Dayton", "454##", "+1 (937)"),
    ("USA", "FL", "Tampa", "336##", "+1 (813)"), ("USA", "GA", "Savannah", "314##", "+1 (912)"),
    ("USA", "CO", "Boulder", "803##", "+1 (303)"), ("USA", "MN", "Duluth", "558##", "+1 (218)"),
    ("Canada", "ON", "Ottawa", "K1A #A#", "+1 (613)"),
    ("Canada", "BC", "Victoria", "V8W #A#", "+1 (250)"),
    ("Canada", "QC", "Quebec City", "G1R #A#", "+1 (418)"),
    ("Canada", "AB", "Red Deer", "T4N #A#", "+1 (403)"),
    ("Australia", "NSW", "Newcastle", "2300", "+61 (02)"),
    ("Australia", "VIC", "Geelong", "3220", "+61 (03)"),
    ("Brazil", "SP", "Campinas", "130##-###", "+55 (19)"),
    ("Brazil", "RJ", "Niteroi", "240##-###", "+55 (21)"),
    ("Mexico", "JAL", "Zapopan", "451##", "+52 (33)"),
    ("India", "KA", "Mysore", "5700##", "+91 (821)"),
]
DOMAINS = ["com", "net", "org", "io"]


def _fill(rng: random.Random, pattern: str) -> str:
    return "".join(str(rng.randrange(10)) if ch == "#" else
                   rng.choice("ABCEGHJKLMNPRSTVXY") if ch == "A" else ch for ch in pattern)


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def customers(n: int = N, seed: int = SEED) -> list[dict]:
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < n:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        kind = rng.randrange(3)
        word = rng.choice(COMPANY_WORDS)
        company = (f"{word} {rng.choice(COMPANY_KIND)}" if kind == 0 else
                   f"{last} {rng.choice(SUFFIX)}" if kind == 1 else
                   f"{word} & {rng.choice(LAST)} {rng.choice(SUFFIX)}")
        address = f"{rng.randrange(1, 9999)} {rng.choice(STREETS)} {rng.choice(STREET_KIND)}"
        if rng.random() < 0.25:
            address += f" {rng.choice(['Apt.', 'Suite', 'Unit'])} {rng.randrange(1, 999)}"
        country, state, city, postal, prefix = rng.choice(PLACES)
        phone = f"{prefix} {rng.randrange(200, 999)}-{rng.randrange(10000):04d}"
        sep = rng.choice([".", "_", ""])
        local = f"{_slug(first)}{sep}{_slug(last)}" if rng.random() < 0.7 else \
            f"{_slug(first)[0]}{sep}{_slug(last)}"
        email = f"{local}@{_slug(company.split()[0])}.{rng.choice(DOMAINS)}"
        row = {"FirstName": first, "LastName": last, "Company": company, "Address": address,
               "City": city, "State": state, "Country": country,
               "PostalCode": _fill(rng, postal), "Phone": phone, "Email": email}
        if email in seen:
            continue
        seen.add(email)
        out.append(row)
    return out


COLUMNS = ["FirstName", "LastName", "Company", "Address", "City", "State", "Country",
           "PostalCode", "Phone", "Email"]

DESCRIPTION = """\
Chinook has bought the music retailer "MelodyMart", and MelodyMart's customers must be
migrated into Chinook's `"Customer"` table (the tables use quoted PascalCase names such as
`"Customer"` and `"CustomerId"`).

## Rules

1. Insert every row of the table below as a new customer, copying the ten values exactly as
   written (they are all present; none is empty).
2. `"CustomerId"` has no default: give the new customers consecutive ids that start right
   after the largest `"CustomerId"` now in the table (the order of the rows among those ids
   does not matter).
3. Every migrated customer gets `"SupportRepId"` = 3 and `"Fax"` = NULL.
4. Load the data with bulk operations (for example multi-row `INSERT ... VALUES` statements)
   rather than one `INSERT` per customer.
5. Change nothing else: the existing customers and all other tables stay as they are.

## MelodyMart customers ({n} rows)

"""


def render(rows: list[dict], intro: str = DESCRIPTION) -> str:
    lines = [intro.format(n=len(rows)).rstrip("\n") + "\n", "| " + " | ".join(COLUMNS) + " |",
             "|" + "|".join("---" for _ in COLUMNS) + "|"]
    lines += ["| " + " | ".join(r[c] for c in COLUMNS) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    rows = customers()
    limits = {"FirstName": 40, "LastName": 20, "Company": 80, "Address": 70, "City": 40,
              "State": 40, "Country": 40, "PostalCode": 10, "Phone": 24, "Email": 60}
    for r in rows:
        for c, v in r.items():
            assert v and len(v) <= limits[c] and "|" not in v and v.isascii(), (c, v)
    (HERE / "customers.json").write_text(json.dumps(rows, indent=1) + "\n")
    (HERE / "description.md").write_text(render(rows))


if __name__ == "__main__":
    main()
