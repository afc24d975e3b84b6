"""user_permission_audit's initial state, built in the run's empty database: seven business
tables with a few rows, the access policy as data (staff_accounts, team_access), and eleven
login roles (cluster-wide, so created only when missing and reset on every run: attributes and
memberships) holding a deliberately inconsistent set of table privileges in this database.

Roles outlive the database (the harness drops only the database), so the names carry a fixed
`upa_` prefix and setup never drops a role: rerunning on the same cluster, even while another
run of the task is live, gives the same state."""

import os
import sys

import psycopg
from psycopg import errors, sql

TABLES = ["user_profiles", "user_credentials", "user_stat_analysis", "product_catalog",
          "order_management", "financial_transactions", "audit_logs"]

# role -> (team, active)
ACCOUNTS = {
    "upa_analytics": ("Analytics", True),
    "upa_marketing": ("Marketing", True),
    "upa_support": ("Customer Service", True),
    "upa_finance": ("Finance", True),
    "upa_product": ("Product Management", True),
    "upa_security": ("Security", True),
    "upa_developer": ("Development", True),
    "upa_backup": ("Backup", True),
    "upa_contractor": ("Contractors", False),
    "upa_former_staff": ("Finance", False),
    "upa_qa_test": ("Development", False),
}

TEAM_ACCESS = {
    "Analytics": [("user_profiles", "SELECT"), ("user_stat_analysis", "SELECT"),
                  ("product_catalog", "SELECT"), ("order_management", "SELECT")],
    "Marketing": [("user_profiles", "SELECT"), ("user_stat_analysis", "SELECT"),
                  ("product_catalog", "SELECT")],
    "Customer Service": [("user_profiles", "SELECT"), ("user_profiles", "UPDATE"),
                         ("order_management", "SELECT"), ("order_management", "INSERT"),
                         ("order_management", "UPDATE"), ("product_catalog", "SELECT")],
    "Finance": [("financial_transactions", "SELECT"), ("order_management", "SELECT"),
                ("user_profiles", "SELECT")],
    "Product Management": [("product_catalog", "SELECT"), ("product_catalog", "INSERT"),
                           ("product_catalog", "UPDATE"), ("product_catalog", "DELETE"),
                           ("order_management", "SELECT"), ("user_stat_analysis", "SELECT")],
    "Security": [("audit_logs", "SELECT"), ("user_credentials", "SELECT"),
                 ("user_profiles", "SELECT")],
    "Development": [("user_profiles", "SELECT"), ("product_catalog", "SELECT")],
    "Backup": [(t, "SELECT") for t in TABLES],
    "Contractors": [("product_catalog", "SELECT")],
}

# Drift from the policy: granted on top of it, and policy privileges left out.
EXTRA_GRANTS = [
    ("upa_analytics", "financial_transactions", "SELECT"),
    ("upa_marketing", "financial_transactions", "SELECT"),
    ("upa_marketing", "user_profiles", "UPDATE"),
    ("upa_support", "user_credentials", "SELECT"),
    ("upa_product", "financial_transactions", "SELECT"),
    ("upa_security", "financial_transactions", "UPDATE"),
    ("upa_developer", "user_credentials", "SELECT"),
    ("upa_developer", "order_management", "UPDATE"),
    ("upa_backup", "product_catalog", "DELETE"),
    ("upa_contractor", "user_profiles", "SELECT"),
    ("upa_former_staff", "financial_transactions", "SELECT"),
    ("upa_former_staff", "audit_logs", "DELETE"),
]
LEFT_OUT = [
    ("upa_analytics", "order_management", "SELECT"),
    ("upa_marketing", "product_catalog", "SELECT"),
    ("upa_support", "order_management", "INSERT"),
    ("upa_finance", "user_profiles", "SELECT"),
    ("upa_product", "user_stat_analysis", "SELECT"),
    ("upa_security", "audit_logs", "SELECT"),
    ("upa_developer", "product_catalog", "SELECT"),
    ("upa_backup", "user_credentials", "SELECT"),
    ("upa_backup", "audit_logs", "SELECT"),
]

SCHEMA = """
CREATE TABLE user_profiles (
    user_id serial PRIMARY KEY, username varchar(50) UNIQUE NOT NULL,
    email varchar(100) UNIQUE NOT NULL, first_name varchar(50) NOT NULL,
    last_name varchar(50) NOT NULL, city varchar(50), is_active boolean DEFAULT true);
CREATE TABLE user_credentials (
    credential_id serial PRIMARY KEY,
    user_id integer REFERENCES user_profiles (user_id) ON DELETE CASCADE,
    password_hash varchar(255) NOT NULL, login_attempts integer DEFAULT 0,
    is_locked boolean DEFAULT false);
CREATE TABLE user_stat_analysis (
    analysis_id serial PRIMARY KEY,
    user_id integer REFERENCES user_profiles (user_id) ON DELETE CASCADE,
    page_views integer DEFAULT 0, time_spent_minutes integer DEFAULT 0, analysis_date date);
CREATE TABLE product_catalog (
    product_id serial PRIMARY KEY, product_name varchar(100) NOT NULL,
    category varchar(50), price numeric(10, 2) NOT NULL, inventory_count integer DEFAULT 0);
CREATE TABLE order_management (
    order_id serial PRIMARY KEY, user_id integer REFERENCES user_profiles (user_id),
    order_number varchar(50) UNIQUE NOT NULL, order_status varchar(20) DEFAULT 'pending',
    total_amount numeric(12, 2) NOT NULL, order_date date);
CREATE TABLE financial_transactions (
    transaction_id serial PRIMARY KEY, order_id integer REFERENCES order_management (order_id),
    transaction_type varchar(20) NOT NULL, amount numeric(12, 2) NOT NULL,
    transaction_status varchar(20) DEFAULT 'pending');
CREATE TABLE audit_logs (
    log_id serial PRIMARY KEY, user_id integer REFERENCES user_profiles (user_id),
    action_type varchar(50) NOT NULL, table_name varchar(50), logged_at date);
CREATE TABLE staff_accounts (
    role_name varchar(63) PRIMARY KEY, team varchar(50) NOT NULL, active boolean NOT NULL);
CREATE TABLE team_access (
    team varchar(50) NOT NULL, table_name varchar(63) NOT NULL, privilege varchar(10) NOT NULL,
    PRIMARY KEY (team, table_name, privilege));

INSERT INTO user_profiles (username, email, first_name, last_name, city, is_active) VALUES
 ('jdoe', 'jdoe@example.com', 'Jane', 'Doe', 'Austin', true),
 ('msmith', 'msmith@example.com', 'Mark', 'Smith', 'Denver', true),
 ('alee', 'alee@example.com', 'Amy', 'Lee', 'Boston', false),
 ('rkhan', 'rkhan@example.com', 'Raj', 'Khan', 'Seattle', true);
INSERT INTO user_credentials (user_id, password_hash, login_attempts, is_locked) VALUES
 (1, 'scrypt$a1', 0, false), (2, 'scrypt$b2', 3, false), (3, 'scrypt$c3', 7, true),
 (4, 'scrypt$d4', 0, false);
INSERT INTO user_stat_analysis (user_id, page_views, time_spent_minutes, analysis_date) VALUES
 (1, 120, 45, '2025-06-01'), (2, 15, 4, '2025-06-01'), (4, 300, 88, '2025-06-02');
INSERT INTO product_catalog (product_name, category, price, inventory_count) VALUES
 ('Studio Headphones', 'audio', 149.00, 40), ('USB Microphone', 'audio', 89.50, 25),
 ('Vinyl Cleaner', 'accessories', 12.99, 300);
INSERT INTO order_management (user_id, order_number, order_status, total_amount, order_date)
VALUES (1, 'ORD-1001', 'shipped', 161.99, '2025-06-03'),
       (2, 'ORD-1002', 'pending', 89.50, '2025-06-04'),
       (4, 'ORD-1003', 'delivered', 298.00, '2025-06-05');
INSERT INTO financial_transactions (order_id, transaction_type, amount, transaction_status)
VALUES (1, 'payment', 161.99, 'settled'), (2, 'payment', 89.50, 'pending'),
       (3, 'payment', 298.00, 'settled'), (3, 'refund', 149.00, 'settled');
INSERT INTO audit_logs (user_id, action_type, table_name, logged_at) VALUES
 (1, 'LOGIN', NULL, '2025-06-01'), (3, 'PASSWORD_RESET', 'user_credentials', '2025-06-02'),
 (2, 'UPDATE', 'order_management', '2025-06-04');
"""


def ensure_roles(c) -> None:
    """Create the roles that are missing and reset the rest to the same cluster-wide state."""
    for role in ACCOUNTS:
        try:
            with c.transaction():
                c.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        except (errors.DuplicateObject, errors.UniqueViolation):
            pass  # made by an earlier (or a concurrent) run
        c.execute(sql.SQL("ALTER ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
                          "NOREPLICATION NOBYPASSRLS INHERIT CONNECTION LIMIT -1 "
                          "PASSWORD NULL VALID UNTIL 'infinity'").format(sql.Identifier(role)))
    members = c.execute(
        "SELECT r.rolname, m.rolname FROM pg_auth_members a "
        "JOIN pg_roles r ON r.oid = a.roleid JOIN pg_roles m ON m.oid = a.member "
        "WHERE r.rolname = ANY(%(n)s) OR m.rolname = ANY(%(n)s)",
        {"n": list(ACCOUNTS)}).fetchall()
    for group, member in members:
        c.execute(sql.SQL("REVOKE {} FROM {}").format(sql.Identifier(group),
                                                      sql.Identifier(member)))


def grant(c, verb: str, role: str, table: str, privilege: str) -> None:
    assert privilege in ("SELECT", "INSERT", "UPDATE", "DELETE")
    c.execute(sql.SQL(f"{verb} {privilege} ON {{}} {'TO' if verb == 'GRANT' else 'FROM'} {{}}")
              .format(sql.Identifier(table), sql.Identifier(role)))


def main() -> int:
    with psycopg.connect(host=os.environ["POSTGRES_HOST"], port=os.environ["POSTGRES_PORT"],
                         user=os.environ["POSTGRES_USERNAME"],
                         password=os.environ["POSTGRES_PASSWORD"],
                         dbname=os.environ["POSTGRES_DATABASE"], autocommit=True) as c:
        c.execute(SCHEMA)
        with c.cursor() as cur:
            cur.executemany("INSERT INTO staff_accounts VALUES (%s, %s, %s)",
                            [(r, t, a) for r, (t, a) in ACCOUNTS.items()])
            cur.executemany("INSERT INTO team_access VALUES (%s, %s, %s)",
                            [(team, t, p) for team, rows in TEAM_ACCESS.items()
                             for t, p in rows])
        ensure_roles(c)
        for role, (team, _active) in ACCOUNTS.items():
            for table, privilege in TEAM_ACCESS[team]:
                grant(c, "GRANT", role, table, privilege)
        for role, table, privilege in EXTRA_GRANTS:
            grant(c, "GRANT", role, table, privilege)
        for role, table, privilege in LEFT_OUT:
            grant(c, "REVOKE", role, table, privilege)
    return 0


if __name__ == "__main__":
    sys.exit(main())
