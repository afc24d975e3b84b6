"""desktop_template: a researcher's messy home folder (MCPMark's tree: Archives/, Desktop/,
Documents/{Personal,Projects,Work}/, Downloads/, Temp/ holding CSV files of contacts, taxes,
budgets, expenses, price comparisons, timesheets and logs, and eight loose .txt files).

What the three tasks need: personal expense files (an `Amount` column, or per-store `Price ...`
columns) next to work ones with the same columns; contact entries in three CSV files and in
`Name:` blocks of a text file, with exactly one person listed twice with different phone numbers;
file names and first lines that the arrangement rules sort by. Two loose notes files get
seed-chosen names and first lines.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

FIRST = ("Alice", "Ben", "Carla", "Dev", "Elena", "Frank", "Grace", "Hugo", "Irene", "Jack",
         "Kim", "Leo", "Maya", "Noah", "Olga", "Paul", "Rita", "Sam", "Tina", "Victor")
LAST = ("Adler", "Brooks", "Chen", "Diaz", "Evans", "Ford", "Gupta", "Hale", "Ivanova",
        "Jones", "Khan", "Lund", "Moss", "Nolan", "Ortiz", "Price", "Reyes", "Stone")
RELATION = ("friend", "sister", "brother", "neighbour", "cousin", "colleague", "dentist",
            "landlord")
COMPANY = ("Acme Labs", "Northwind", "Blue Harbor", "Quanta Systems", "Redwood Analytics",
           "Helix Bio")
INDUSTRY = ("software", "biotech", "finance", "retail", "logistics")
SHOP = ("FreshMart", "CityGrocer", "ValueStore", "CornerShop")
GOODS = ("coffee beans", "olive oil", "laundry detergent", "rice 5kg", "printer paper",
         "toothpaste", "dog food", "shampoo")
PURCHASES = ("groceries", "internet bill", "phone bill", "electricity", "pharmacy",
             "haircut", "gym membership", "train ticket", "books", "water bill")
BUDGET_CATS = ("rent", "food", "utilities", "transport", "insurance", "entertainment")
WORDS = ("maple", "harbor", "quartz", "lumen", "cedar", "orbit", "tundra", "willow")
FIRST_LINES = ("Personal notes", "Project notes", "Misc notes")


def _money(rng: np.random.Generator, lo: float, hi: float, whole: bool = False) -> str:
    cents = int(rng.integers(int(lo * 100), int(hi * 100)))
    if whole:
        return str(cents // 100)
    return f"{cents / 100:.2f}" if rng.random() < 0.7 else f"{cents / 100:g}"


def _people(rng: np.random.Generator, n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if name not in out:
            out.append(name)
    return out


def _phone(rng: np.random.Generator) -> str:
    return f"555-{int(rng.integers(100, 1000)):03d}-{int(rng.integers(0, 10000)):04d}"


def _email(name: str, domain: str) -> str:
    first, last = name.lower().split()
    return f"{first}.{last}@{domain}"


def _csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(",".join(r) for r in [header] + rows) + "\n")


def build(root: Path, rng: np.random.Generator) -> None:
    d = {k: root / k for k in ("Archives", "Desktop", "Documents", "Downloads", "Temp")}
    for sub in ("Personal", "Projects", "Work"):
        (d["Documents"] / sub).mkdir(parents=True)
    for p in d.values():
        p.mkdir(exist_ok=True)

    # contacts: personal (Desktop), old backup (Archives), clients (Work), emergency (txt)
    people = _people(rng, 18)
    personal, clients, emergency = people[:7], people[7:11], people[11:14]
    phone = {p: _phone(rng) for p in people}
    _csv(d["Desktop"] / "contacts.csv", ["Name", "Email", "Phone", "Relationship"],
         [[p, _email(p, "mail.com"), phone[p], str(rng.choice(RELATION))] for p in personal])
    # the backup repeats some personal contacts; exactly one of them with an old phone number
    backed = [personal[i] for i in rng.choice(len(personal), 3, replace=False)]
    moved = backed[0]
    old = _phone(rng)
    while old == phone[moved]:
        old = _phone(rng)
    rows = []
    for p in backed + [people[14]]:
        rows.append([p, _email(p, "oldmail.net") if rng.random() < 0.5 else _email(p, "mail.com"),
                     old if p == moved else phone[p]])
    _csv(d["Archives"] / "backup_contacts.csv", ["Name", "Email", "Phone"], rows)
    _csv(d["Documents"] / "Work" / "client_list.csv",
         ["Name", "Company", "Email", "Phone", "Industry"],
         [[p, c, _email(p, c.lower().replace(" ", "") + ".com"), phone[p],
           str(rng.choice(INDUSTRY))] for p, c in zip(clients, rng.choice(COMPANY, len(clients),
                                                                         replace=False),
                                                      strict=True)])
    blocks = ["Personal emergency contacts", ""]
    for i, p in enumerate(emergency):
        blocks += [f"Name: {p}", f"Relationship: {rng.choice(RELATION)}", f"Phone: {phone[p]}"]
        if i != 1:  # one of them has no e-mail address
            blocks.append(f"Email: {_email(p, 'mail.com')}")
        blocks.append("")
    (root / "emergency_contacts.txt").write_text("\n".join(blocks))

    # personal expenses
    _csv(d["Archives"] / "tax_documents_2022.csv", ["Date", "Description", "Amount"],
         [[f"2022-{m:02d}-15", t, _money(rng, 200, 3000)] for m, t in
          zip((1, 4, 7, 10), ("income tax", "property tax", "income tax", "vehicle tax"),
              strict=True)][:int(rng.integers(3, 5))])
    _csv(d["Documents"] / "Personal" / "tax_info_2023.csv", ["Date", "Description", "Amount"],
         [[f"2023-{m:02d}-15", t, _money(rng, 200, 3000)] for m, t in
          zip((2, 5, 9), ("income tax", "property tax", "income tax"), strict=True)])
    cats = [str(c) for c in rng.permutation(BUDGET_CATS)]
    rows = [["2024-03", "salary", "income", _money(rng, 3000, 6000, whole=True)]]
    rows += [["2024-03", c, "expense", _money(rng, 30, 1500, whole=bool(rng.random() < 0.4))]
             for c in cats[:int(rng.integers(4, 7))]]
    rows.insert(int(rng.integers(1, len(rows))), ["2024-03", "freelance", "income",
                                                  _money(rng, 200, 900)])
    _csv(d["Documents"] / "budget.csv", ["Month", "Category", "Type", "Amount"], rows)
    items = [str(x) for x in rng.choice(PURCHASES, int(rng.integers(4, 7)), replace=False)]
    _csv(d["Downloads"] / "expenses.csv", ["Date", "Item", "Amount"],
         [[f"2024-04-{i + 3:02d}", x, _money(rng, 5, 180)] for i, x in enumerate(items)])
    shops = [str(s) for s in rng.choice(SHOP, 3, replace=False)]
    goods = [str(x) for x in rng.choice(GOODS, int(rng.integers(3, 5)), replace=False)]
    _csv(d["Downloads"] / "price_comparisons.csv", ["Item"] + [f"Price {s}" for s in shops],
         [[g] + [_money(rng, 2, 40) for _ in shops] for g in goods])

    # work and other files (same kinds of columns, not personal)
    projects = [f"Project {w.title()}" for w in rng.choice(WORDS, 3, replace=False)]
    _csv(d["Documents"] / "Projects" / "budget_tracker.csv", ["Project", "Item", "Amount"],
         [[str(rng.choice(projects)), x, _money(rng, 50, 5000)] for x in
          ("GPU hours", "conference travel", "annotation", "cloud storage", "licences")])
    _csv(d["Documents"] / "Work" / "timesheet.csv", ["Date", "Project", "Hours"],
         [[f"2024-05-{i + 1:02d}", str(rng.choice(projects)), str(int(rng.integers(2, 9)))]
          for i in range(6)])
    _csv(d["Documents"] / "important_dates.csv", ["Date", "Event"],
         [[f"2024-{int(rng.integers(1, 13)):02d}-{int(rng.integers(1, 29)):02d}", e] for e in
          ("dentist appointment", "car service", "passport renewal", "birthday party")])
    _csv(d["Downloads"] / "fitness_log.csv", ["Date", "Activity", "Minutes", "Calories"],
         [[f"2024-06-{i + 1:02d}", str(rng.choice(("run", "swim", "cycle", "yoga"))),
           str(int(rng.integers(20, 90))), str(int(rng.integers(100, 700)))] for i in range(6)])
    _csv(d["Temp"] / "test_data.csv", ["id", "value", "flag"],
         [[str(i), f"{rng.random():.4f}", str(int(rng.integers(0, 2)))] for i in range(8)])

    loose = {
        "book_list.txt": "Personal reading list\n" + "\n".join(
            f"- {t}" for t in rng.choice(("Dune", "Middlemarch", "The Overstory", "Piranesi",
                                          "Stoner", "Educated", "Klara and the Sun"), 4,
                                         replace=False)),
        "bookmark_export.txt": "Bookmarks exported from the browser\n"
        "https://arxiv.org/list/cs.LG/recent\nhttps://news.ycombinator.com\n",
        "calculations.txt": ("Project cost calculations" if rng.random() < 0.5 else
                             "Scratch calculations") + f"\n{int(rng.integers(10, 99))} * 12 = ?\n",
        "correspondence_2023.txt": "Letters sent and received in 2023\nDear Sir or Madam, ...\n",
        "draft_letter.txt": "Dear landlord,\nI am writing about the heating ...\n",
        "example.txt": "This is an example file.\n",
        "experiment_results.txt": "Experiment results, run " + str(int(rng.integers(1, 50)))
        + f"\naccuracy: {rng.uniform(0.6, 0.95):.3f}\n",
    }
    for name, text in loose.items():
        (root / name).write_text(text if text.endswith("\n") else text + "\n")
    # two notes files with seed-chosen names and first lines
    w = [str(x) for x in rng.choice(WORDS, 2, replace=False)]
    for folder, name in ((d["Desktop"], f"{w[0]}_notes.txt"),
                         (d["Downloads"], f"{w[1]}_notes.txt")):
        (folder / name).write_text(f"{rng.choice(FIRST_LINES)}\n- remember to check the {w[0]} "
                                   f"files\n")
