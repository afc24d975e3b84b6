"""rls_business_access's initial state, built in the run's empty database: the five tables of a
small discussion platform (users, channels, channel_moderators, posts, comments) with fixed
UUIDs, and nothing else: no row level security, no helper functions, no extra indexes. It
creates no roles, so runs never share anything on the server."""

import os
import sys

import psycopg

U = {n: f"{d * 8}-{d * 4}-{d * 4}-{d * 4}-{d * 12}" for n, d in
     [("ada", "a"), ("bruno", "b"), ("chen", "c"), ("dara", "d"), ("emil", "e")]}
C = {"general": "10000000-0000-0000-0000-000000000001",
     "engineering": "10000000-0000-0000-0000-000000000002",
     "founders": "10000000-0000-0000-0000-000000000003"}
P = {i: f"20000000-0000-0000-0000-00000000000{i}" for i in range(1, 6)}
M = {i: f"30000000-0000-0000-0000-00000000000{i}" for i in range(1, 6)}

SCHEMA = """
CREATE TABLE users (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(), username varchar(50) UNIQUE NOT NULL,
    email varchar(100) UNIQUE NOT NULL, created_at timestamp DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE channels (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(), name varchar(100) NOT NULL,
    description text, is_public boolean NOT NULL DEFAULT true,
    owner_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamp DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE channel_moderators (
    channel_id uuid REFERENCES channels (id) ON DELETE CASCADE,
    user_id uuid REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamp DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (channel_id, user_id));
CREATE TABLE posts (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    channel_id uuid NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    author_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title varchar(200) NOT NULL, content text,
    created_at timestamp DEFAULT CURRENT_TIMESTAMP, updated_at timestamp DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE comments (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    author_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    content text NOT NULL,
    created_at timestamp DEFAULT CURRENT_TIMESTAMP, updated_at timestamp DEFAULT CURRENT_TIMESTAMP);
"""

USERS = [(U[n], n, f"{n}@example.org") for n in U]
CHANNELS = [(C["general"], "general", "Everything and anything", True, U["ada"]),
            (C["engineering"], "engineering", "Build talk", True, U["bruno"]),
            (C["founders"], "founders", "Private planning", False, U["chen"])]
MODERATORS = [(C["general"], U["bruno"]), (C["engineering"], U["dara"]),
              (C["founders"], U["emil"])]
POSTS = [(P[1], C["general"], U["ada"], "Welcome", "Say hello here"),
         (P[2], C["general"], U["chen"], "Introductions", "I am Chen"),
         (P[3], C["engineering"], U["bruno"], "Release plan", "Shipping on Friday"),
         (P[4], C["founders"], U["chen"], "Budget", "Q3 numbers"),
         (P[5], C["founders"], U["emil"], "Hiring", "Two openings")]
COMMENTS = [(M[1], P[1], U["bruno"], "Hello!"),
            (M[2], P[1], U["chen"], "Glad to be here"),
            (M[3], P[3], U["dara"], "Friday works"),
            (M[4], P[2], U["ada"], "Welcome Chen"),
            (M[5], P[4], U["emil"], "Looks fine")]


def main() -> int:
    with psycopg.connect(host=os.environ["POSTGRES_HOST"], port=os.environ["POSTGRES_PORT"],
                         user=os.environ["POSTGRES_USERNAME"],
                         password=os.environ["POSTGRES_PASSWORD"],
                         dbname=os.environ["POSTGRES_DATABASE"]) as c:
        c.execute(SCHEMA)
        with c.cursor() as cur:
            cur.executemany("INSERT INTO users (id, username, email) VALUES (%s, %s, %s)",
                            USERS)
            cur.executemany("INSERT INTO channels (id, name, description, is_public, owner_id) "
                            "VALUES (%s, %s, %s, %s, %s)", CHANNELS)
            cur.executemany("INSERT INTO channel_moderators (channel_id, user_id) "
                            "VALUES (%s, %s)", MODERATORS)
            cur.executemany("INSERT INTO posts (id, channel_id, author_id, title, content) "
                            "VALUES (%s, %s, %s, %s, %s)", POSTS)
            cur.executemany("INSERT INTO comments (id, post_id, author_id, content) "
                            "VALUES (%s, %s, %s, %s)", COMMENTS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
