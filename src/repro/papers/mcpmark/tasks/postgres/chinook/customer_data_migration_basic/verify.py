"""customer_data_migration_basic: exactly the customers of customers.json were added, with
consecutive ids after the last original one, SupportRepId 3 and Fax NULL; the original
customers and every other table are untouched (compared with the template database)."""

import sys
from pathlib import Path

# the category's shared checks (_common.py beside the task folders)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import verify_migration  # noqa: E402

if __name__ == "__main__":
    sys.exit(verify_migration(Path(__file__).parent))
