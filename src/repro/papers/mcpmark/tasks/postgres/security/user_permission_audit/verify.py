"""user_permission_audit: the audit tables hold exactly the expected findings and summary, and
the accounts' privileges on the business tables now follow the policy; the roles, the policy
tables and the business data are untouched.

The expected findings are written out here, independently of how prepare_environment.py builds
the drift; the policy itself (ACCOUNTS, TEAM_ACCESS) is read from prepare_environment.py."""

import os
import sys
from pathlib import Path

import psycopg

sys.dont_write_bytecode = True  # leave no __pycache__ in the task folder
sys.path.insert(0, str(Path(__file__).parent))
from prepare_environment import ACCOUNTS, TABLES, TEAM_ACCESS  # noqa: E402

DANGLING = {"upa_contractor", "upa_former_staff", "upa_qa_test"}
MISSING = {
    ("upa_analytics", "order_management", "SELECT"),
    ("upa_marketing", "product_catalog", "SELECT"),
    ("upa_support", "order_management", "INSERT"),
    ("upa_finance", "user_profiles", "SELECT"),
    ("upa_product", "user_stat_analysis", "SELECT"),
    ("upa_security", "audit_logs", "SELECT"),
    ("upa_developer", "product_catalog", "SELECT"),
    ("upa_backup", "user_credentials", "SELECT"),
    ("upa_backup", "audit_logs", "SELECT"),
}
EXCESSIVE = {
    ("upa_analytics", "financial_transactions", "SELECT"),
    ("upa_marketing", "financial_transactions", "SELECT"),
    ("upa_marketing", "user_profiles", "UPDATE"),
    ("upa_support", "user_credentials", "SELECT"),
    ("upa_product", "financial_transactions", "SELECT"),
    ("upa_security", "financial_transactions", "UPDATE"),
    ("upa_developer", "user_credentials", "SELECT"),
    ("upa_developer", "order_management", "UPDATE"),
    ("upa_backup", "product_catalog", "DELETE"),
    ("upa_contractor", "product_catalog", "SELECT"),
    ("upa_contractor", "user_profiles", "SELECT"),
    ("upa_former_staff", "financial_transactions", "SELECT"),
    ("upa_former_staff", "order_management", "SELECT"),
    ("upa_former_staff", "user_profiles", "SELECT"),
    ("upa_former_staff", "audit_logs", "DELETE"),
    ("upa_qa_test", "user_profiles", "SELECT"),
    ("upa_qa_test", "product_catalog", "SELECT"),
}
ROW_COUNTS = {"user_profiles": 4, "user_credentials": 4, "user_stat_analysis": 3,
              "product_catalog": 3, "order_management": 3, "financial_transactions": 4,
              "audit_logs": 3}


def connect(db: str):
    return psycopg.connect(host=os.environ["POSTGRES_HOST"], port=os.environ["POSTGRES_PORT"],
                           user=os.environ["POSTGRES_USERNAME"],
                           password=os.environ["POSTGRES_PASSWORD"], dbname=db)


def check(c, problems: list) -> None:
    tables = {r[0] for r in c.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    for t in ("security_audit_details", "security_audit_results"):
        if t not in tables:
            problems.append(f"no table public.{t}")
    if not problems:
        details = c.execute("SELECT username, issue_type, table_name, permission_type, "
                            "expected_access FROM security_audit_details").fetchall()
        want = [(u, "DANGLING_USER", None, None, False) for u in DANGLING]
        want += [(u, "MISSING_PERMISSION", t, p, True) for u, t, p in MISSING]
        want += [(u, "EXCESSIVE_PERMISSION", t, p, False) for u, t, p in EXCESSIVE]
        extra = sorted(set(details) - set(want), key=repr)
        lacking = sorted(set(want) - set(details), key=repr)
        if extra or lacking or len(details) != len(want):
            problems.append(f"security_audit_details: {len(details)} rows, want {len(want)}; "
                            f"missing {lacking[:4]}, unexpected {extra[:4]}")
        summary = c.execute("SELECT audit_type, total_issues, users_affected, tables_affected "
                            "FROM security_audit_results ORDER BY audit_type").fetchall()
        want_s = sorted([
            ("DANGLING_USERS", len(DANGLING), len(DANGLING), 0),
            ("MISSING_PERMISSIONS", len(MISSING), len({u for u, _, _ in MISSING}),
             len({t for _, t, _ in MISSING})),
            ("EXCESSIVE_PERMISSIONS", len(EXCESSIVE), len({u for u, _, _ in EXCESSIVE}),
             len({t for _, t, _ in EXCESSIVE}))])
        if [tuple(r) for r in summary] != want_s:
            problems.append(f"security_audit_results {summary}, want {want_s}")
    held = {tuple(r) for r in c.execute(
        "SELECT grantee, table_name, privilege_type FROM information_schema.table_privileges "
        "WHERE table_schema = 'public' AND grantee = ANY(%s) AND table_name = ANY(%s)",
        (list(ACCOUNTS), TABLES))}
    policy = {(r, t, p) for r, (team, active) in ACCOUNTS.items() if active
              for t, p in TEAM_ACCESS[team]}
    if held != policy:
        problems.append(f"privileges after the repair: unexpected {sorted(held - policy)[:6]}, "
                        f"lacking {sorted(policy - held)[:6]}")
    roles = {r[0] for r in c.execute("SELECT rolname FROM pg_roles WHERE rolname = ANY(%s) "
                                     "AND rolcanlogin", (list(ACCOUNTS),))}
    if roles != set(ACCOUNTS):
        problems.append(f"login roles missing or altered: {sorted(set(ACCOUNTS) - roles)}")
    staff = set(c.execute("SELECT role_name, team, active FROM staff_accounts").fetchall())
    if staff != {(r, t, a) for r, (t, a) in ACCOUNTS.items()}:
        problems.append("staff_accounts was changed")
    access = set(c.execute("SELECT team, table_name, privilege FROM team_access").fetchall())
    if access != {(team, t, p) for team, rows in TEAM_ACCESS.items() for t, p in rows}:
        problems.append("team_access was changed")
    for t, n in ROW_COUNTS.items():
        got = c.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] if t in tables else None
        if got != n:
            problems.append(f"table {t}: {got} rows, want {n}")


def main() -> int:
    problems: list[str] = []
    with connect(os.environ["POSTGRES_DATABASE"]) as c:
        check(c, problems)
    for p in problems[:20]:
        print("FAIL:", p)
    if not problems:
        print(f"PASS: {len(DANGLING) + len(MISSING) + len(EXCESSIVE)} findings recorded, "
              "privileges repaired")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
