"""employee_hierarchy_management: the whole Employee and Customer tables equal the template's
with the seven steps applied, employee_performance holds exactly the two required rows (with a
foreign key to Employee), the salary column is numeric with the required values, and no other
table changed."""

import datetime as dt
import os
import sys
from decimal import Decimal

import psycopg

NEW = {
    9: {"EmployeeId": 9, "LastName": "Johnson", "FirstName": "Sarah",
        "Title": "Sales Support Agent", "ReportsTo": 2, "BirthDate": dt.datetime(1985, 3, 15),
        "HireDate": dt.datetime(2009, 1, 10), "Address": "123 Oak Street", "City": "Calgary",
        "State": "AB", "Country": "Canada", "PostalCode": "T2P 5G3",
        "Phone": "+1 (403) 555-0123", "Fax": "+1 (403) 555-0124",
        "Email": "sarah.johnson@chinookcorp.com"},
    10: {"EmployeeId": 10, "LastName": "Chen", "FirstName": "Mike",
         "Title": "Sales Support Agent", "ReportsTo": 2, "BirthDate": dt.datetime(1982, 8, 22),
         "HireDate": dt.datetime(2009, 1, 10), "Address": "456 Pine Ave", "City": "Calgary",
         "State": "AB", "Country": "Canada", "PostalCode": "T2P 5G4",
         "Phone": "+1 (403) 555-0125", "Fax": "+1 (403) 555-0126",
         "Email": "mike.chen@chinookcorp.com"},
}


def connect(db: str):
    return psycopg.connect(host=os.environ["POSTGRES_HOST"], port=os.environ["POSTGRES_PORT"],
                           user=os.environ["POSTGRES_USERNAME"],
                           password=os.environ["POSTGRES_PASSWORD"], dbname=db)


def rows(c, table: str, key: str) -> dict:
    cur = c.execute(f'SELECT * FROM "{table}" ORDER BY "{key}"')
    cols = [d.name for d in cur.description]
    return {r[0]: dict(zip(cols, r, strict=True)) for r in cur.fetchall()}


def table_counts(c) -> dict:
    names = [r[0] for r in c.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")]
    return {n: c.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}


def expected(emp: dict, cust: dict) -> tuple[dict, dict, dict]:
    """The end state, replaying the steps on the template's rows."""
    emp = {k: dict(v) for k, v in emp.items()}
    cust = {k: dict(v) for k, v in cust.items()}
    for k, v in NEW.items():                                    # 1
        emp[k] = dict(v)
    emp[1]["Title"] = "CEO"                                     # 2
    emp[2]["Phone"] = "+1 (403) 555-9999"
    for e in emp.values():
        if e["Title"] == "IT Staff":
            e["Title"] = "IT Specialist"
    for k in (1, 2, 3):                                         # 3
        cust[k]["SupportRepId"] = 9
    for k in (4, 5, 6):
        cust[k]["SupportRepId"] = 10
    emp[9]["ReportsTo"] = emp[10]["ReportsTo"] = 1              # 4
    perf = {k: sum(1 for c in cust.values() if c["SupportRepId"] == k) for k in (9, 10)}  # 5
    boss = emp[7]["ReportsTo"]                                  # 6
    for e in emp.values():
        if e["ReportsTo"] == 7:
            e["ReportsTo"] = boss
    for c in cust.values():
        if c["SupportRepId"] == 7:
            c["SupportRepId"] = boss
    del emp[7]
    emp[8]["Title"] = "Senior IT Specialist"                    # 7
    for k, e in emp.items():
        e["salary"] = Decimal("75000.00") if k == 8 else Decimal("50000.00")
    return emp, cust, perf


def compare(what: str, got: dict, want: dict, problems: list) -> None:
    if set(got) != set(want):
        problems.append(f"{what} ids {sorted(got)}, want {sorted(want)}")
    for k in sorted(set(got) & set(want)):
        for col, v in want[k].items():
            if col not in got[k]:
                problems.append(f"{what} {k}: no column {col}")
            elif got[k][col] != v:
                problems.append(f"{what} {k} {col}: {got[k][col]!r}, want {v!r}")
        extra = set(got[k]) - set(want[k])
        if extra:
            problems.append(f"{what} {k}: unexpected columns {sorted(extra)}")


def main() -> int:
    with connect(os.environ["MCPMARK_TEMPLATE_DATABASE"]) as c:
        emp0, cust0 = rows(c, "Employee", "EmployeeId"), rows(c, "Customer", "CustomerId")
        counts0 = table_counts(c)
    emp_want, cust_want, perf_want = expected(emp0, cust0)
    problems: list[str] = []
    with connect(os.environ["POSTGRES_DATABASE"]) as c:
        emp, cust, counts = rows(c, "Employee", "EmployeeId"), rows(c, "Customer", "CustomerId"), \
            table_counts(c)
        compare("employee", emp, emp_want, problems)
        compare("customer", cust, cust_want, problems)
        salary_type = c.execute(
            "SELECT data_type FROM information_schema.columns WHERE table_schema = 'public' "
            "AND table_name = 'Employee' AND column_name = 'salary'").fetchone()
        if salary_type is None or salary_type[0] != "numeric":
            problems.append(f"Employee.salary type {salary_type}, want numeric")
        if "employee_performance" not in counts:
            problems.append("no table public.employee_performance")
        else:
            cols = dict(c.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'public' AND table_name = 'employee_performance'"))
            typed = True
            for col, typ in (("employee_id", "integer"), ("customers_assigned", "integer"),
                             ("performance_score", "numeric")):
                if cols.get(col) != typ:
                    typed = False
                    problems.append(f"employee_performance.{col}: type {cols.get(col)}, "
                                    f"want {typ}")
            fk = c.execute(
                "SELECT count(*) FROM pg_constraint WHERE contype = 'f' "
                "AND conrelid = 'public.employee_performance'::regclass "
                "AND confrelid = 'public.\"Employee\"'::regclass").fetchone()[0]
            if fk < 1:
                problems.append("employee_performance has no foreign key to \"Employee\"")
            if typed:
                got = c.execute("SELECT employee_id, customers_assigned, performance_score "
                                "FROM employee_performance ORDER BY 1, 2, 3").fetchall()
                want = [(9, perf_want[9], Decimal("4.5")), (10, perf_want[10], Decimal("4.2"))]
                ok = len(got) == 2 and all(
                    g[0] == w[0] and g[1] == w[1] and g[2] is not None
                    and abs(Decimal(g[2]) - w[2]) <= Decimal("0.01")
                    for g, w in zip(got, want, strict=False))
                if not ok:
                    problems.append(f"employee_performance rows {got}, want {want}")
    for t in sorted(set(counts0) | set(counts)):
        if t not in ("Employee", "Customer", "employee_performance") and \
                counts0.get(t) != counts.get(t):
            problems.append(f"table {t}: {counts.get(t)} rows, want {counts0.get(t)}")
    for p in problems[:20]:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(emp)} employees, customers and employee_performance as required")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
