"""user_permission_audit's scripted solution: record the findings with SQL computed from the
catalog and the policy tables (nothing hard-coded), then repair the privileges."""

HELD = """
    SELECT grantee AS username, table_name, privilege_type AS privilege
    FROM information_schema.table_privileges
    WHERE table_schema = 'public'
      AND grantee IN (SELECT role_name FROM staff_accounts)
      AND table_name IN ('user_profiles', 'user_credentials', 'user_stat_analysis',
                         'product_catalog', 'order_management', 'financial_transactions',
                         'audit_logs')
      AND privilege_type IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE')"""
ALLOWED = """
    SELECT s.role_name AS username, a.table_name, a.privilege
    FROM staff_accounts s JOIN team_access a USING (team) WHERE s.active"""

AUDIT = f"""
CREATE TABLE security_audit_details (
    detail_id SERIAL PRIMARY KEY, username VARCHAR(63) NOT NULL,
    issue_type VARCHAR(50) NOT NULL, table_name VARCHAR(63), permission_type VARCHAR(20),
    expected_access BOOLEAN NOT NULL);
CREATE TABLE security_audit_results (
    audit_id SERIAL PRIMARY KEY, audit_type VARCHAR(50) NOT NULL,
    total_issues INTEGER NOT NULL, users_affected INTEGER NOT NULL,
    tables_affected INTEGER NOT NULL);
INSERT INTO security_audit_details (username, issue_type, table_name, permission_type,
                                    expected_access)
SELECT role_name, 'DANGLING_USER', NULL, NULL, false FROM staff_accounts WHERE NOT active
UNION ALL
SELECT username, 'MISSING_PERMISSION', table_name, privilege, true
FROM ({ALLOWED} EXCEPT {HELD}) m
UNION ALL
SELECT username, 'EXCESSIVE_PERMISSION', table_name, privilege, false
FROM ({HELD} EXCEPT {ALLOWED}) e;
INSERT INTO security_audit_results (audit_type, total_issues, users_affected, tables_affected)
SELECT CASE issue_type WHEN 'DANGLING_USER' THEN 'DANGLING_USERS'
                       WHEN 'MISSING_PERMISSION' THEN 'MISSING_PERMISSIONS'
                       ELSE 'EXCESSIVE_PERMISSIONS' END,
       count(*), count(DISTINCT username), count(DISTINCT table_name)
FROM security_audit_details GROUP BY issue_type;
"""

REPAIR = """
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT * FROM security_audit_details WHERE issue_type <> 'DANGLING_USER' LOOP
        IF r.expected_access THEN
            EXECUTE format('GRANT %s ON %I TO %I', r.permission_type, r.table_name, r.username);
        ELSE
            EXECUTE format('REVOKE %s ON %I FROM %I', r.permission_type, r.table_name,
                           r.username);
        END IF;
    END LOOP;
END $$;
"""


def solve(view: dict) -> list[dict]:
    return [{"name": "execute_sql", "arguments": {"sql": AUDIT}},
            {"name": "execute_sql", "arguments": {"sql": REPAIR}}]
