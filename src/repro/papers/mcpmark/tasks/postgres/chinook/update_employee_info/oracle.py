"""update_employee_info's scripted solution: one execute_sql call with the three updates."""


def solve(view: dict) -> list[dict]:
    sql = ("UPDATE \"Employee\" SET \"Title\" = 'CEO' WHERE \"EmployeeId\" = 1; "
           "UPDATE \"Employee\" SET \"Phone\" = '+1 (403) 555-9999' WHERE \"EmployeeId\" = 2; "
           "UPDATE \"Employee\" SET \"Title\" = 'IT Specialist' WHERE \"Title\" = 'IT Staff';")
    return [{"name": "execute_sql", "arguments": {"sql": sql}}]
