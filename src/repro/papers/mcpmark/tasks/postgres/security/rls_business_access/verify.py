"""rls_business_access: acting as an ordinary role (created inside a transaction that is rolled
back, so nothing is left on the server), with app.current_user_id set per attempt, every read
sees exactly the rows the rules allow and every write is allowed or refused as the rules say;
the helper functions answer correctly, RLS is enabled on the five tables, the indexes exist,
and the data is unchanged."""

import hashlib
import os
import sys
from pathlib import Path

import psycopg
from psycopg import sql

sys.dont_write_bytecode = True  # leave no __pycache__ in the task folder
sys.path.insert(0, str(Path(__file__).parent))
from prepare_environment import CHANNELS, COMMENTS, MODERATORS, POSTS, USERS, C, M, P, U  # noqa: E402

TABLES = ["users", "channels", "channel_moderators", "posts", "comments"]
ANON = ""
ALL = [ANON, *U]
OPEN_CH = {C["general"], C["engineering"]}
OPEN_POSTS = {P[1], P[2], P[3]}
OPEN_COMMENTS = {M[1], M[2], M[3], M[4]}
INSIDERS = {"chen", "emil"}  # owner and moderator of the private channel

NEW = "40000000-0000-0000-0000-000000000001"
# (actor, statement, allowed?) ; actor is a user name or ANON
ACTIONS = [
    ("ada", f"UPDATE users SET email = 'ada@new.org' WHERE id = '{U['ada']}'", True),
    ("ada", f"UPDATE users SET email = 'x@new.org' WHERE id = '{U['bruno']}'", False),
    (ANON, f"UPDATE users SET email = 'x@new.org' WHERE id = '{U['ada']}'", False),
    ("bruno", f"DELETE FROM users WHERE id = '{U['bruno']}'", True),
    ("bruno", f"DELETE FROM users WHERE id = '{U['ada']}'", False),
    ("ada", f"INSERT INTO users (id, username, email) VALUES ('{NEW}', 'zed', 'z@x.org')", False),
    ("dara", f"INSERT INTO channels (id, name, is_public, owner_id) "
             f"VALUES ('{NEW}', 'music', true, '{U['dara']}')", True),
    ("dara", f"INSERT INTO channels (id, name, is_public, owner_id) "
             f"VALUES ('{NEW}', 'music', true, '{U['ada']}')", False),
    (ANON, f"INSERT INTO channels (id, name, is_public, owner_id) "
           f"VALUES ('{NEW}', 'music', true, '{U['ada']}')", False),
    ("ada", f"UPDATE channels SET description = 'new' WHERE id = '{C['general']}'", True),
    ("bruno", f"UPDATE channels SET description = 'new' WHERE id = '{C['general']}'", False),
    ("ada", f"UPDATE channels SET description = 'new' WHERE id = '{C['engineering']}'", False),
    ("chen", f"DELETE FROM channels WHERE id = '{C['founders']}'", True),
    ("emil", f"DELETE FROM channels WHERE id = '{C['founders']}'", False),
    ("ada", f"INSERT INTO channel_moderators (channel_id, user_id) "
            f"VALUES ('{C['general']}', '{U['dara']}')", True),
    ("bruno", f"INSERT INTO channel_moderators (channel_id, user_id) "
              f"VALUES ('{C['general']}', '{U['emil']}')", False),
    ("dara", f"INSERT INTO channel_moderators (channel_id, user_id) "
             f"VALUES ('{C['engineering']}', '{U['emil']}')", False),
    ("bruno", f"DELETE FROM channel_moderators WHERE channel_id = '{C['general']}' "
              f"AND user_id = '{U['bruno']}'", True),
    ("ada", f"DELETE FROM channel_moderators WHERE channel_id = '{C['general']}' "
            f"AND user_id = '{U['bruno']}'", True),
    ("dara", f"DELETE FROM channel_moderators WHERE channel_id = '{C['general']}' "
             f"AND user_id = '{U['bruno']}'", False),
    ("bruno", f"UPDATE channel_moderators SET created_at = now() "
              f"WHERE channel_id = '{C['general']}'", False),
    ("dara", f"INSERT INTO posts (id, channel_id, author_id, title) "
             f"VALUES ('{NEW}', '{C['general']}', '{U['dara']}', 'hi')", True),
    ("dara", f"INSERT INTO posts (id, channel_id, author_id, title) "
             f"VALUES ('{NEW}', '{C['general']}', '{U['ada']}', 'hi')", False),
    ("dara", f"INSERT INTO posts (id, channel_id, author_id, title) "
             f"VALUES ('{NEW}', '{C['founders']}', '{U['dara']}', 'hi')", False),
    ("emil", f"INSERT INTO posts (id, channel_id, author_id, title) "
             f"VALUES ('{NEW}', '{C['founders']}', '{U['emil']}', 'hi')", True),
    (ANON, f"INSERT INTO posts (id, channel_id, author_id, title) "
           f"VALUES ('{NEW}', '{C['general']}', '{U['ada']}', 'hi')", False),
    ("chen", f"UPDATE posts SET content = 'edited' WHERE id = '{P[2]}'", True),
    ("bruno", f"UPDATE posts SET content = 'edited' WHERE id = '{P[2]}'", True),
    ("ada", f"UPDATE posts SET title = 'edited' WHERE id = '{P[2]}'", True),
    ("dara", f"UPDATE posts SET content = 'edited' WHERE id = '{P[2]}'", False),
    ("dara", f"UPDATE posts SET content = 'edited' WHERE id = '{P[3]}'", True),
    ("emil", f"UPDATE posts SET content = 'edited' WHERE id = '{P[3]}'", False),
    ("bruno", f"DELETE FROM posts WHERE id = '{P[1]}'", True),
    ("dara", f"DELETE FROM posts WHERE id = '{P[1]}'", False),
    ("ada", f"DELETE FROM posts WHERE id = '{P[3]}'", False),
    ("emil", f"DELETE FROM posts WHERE id = '{P[4]}'", True),
    ("dara", f"INSERT INTO comments (id, post_id, author_id, content) "
             f"VALUES ('{NEW}', '{P[1]}', '{U['dara']}', 'nice')", True),
    ("dara", f"INSERT INTO comments (id, post_id, author_id, content) "
             f"VALUES ('{NEW}', '{P[4]}', '{U['dara']}', 'nice')", False),
    ("dara", f"INSERT INTO comments (id, post_id, author_id, content) "
             f"VALUES ('{NEW}', '{P[1]}', '{U['ada']}', 'nice')", False),
    (ANON, f"INSERT INTO comments (id, post_id, author_id, content) "
           f"VALUES ('{NEW}', '{P[1]}', '{U['ada']}', 'nice')", False),
    ("bruno", f"UPDATE comments SET content = 'edited' WHERE id = '{M[1]}'", True),
    ("chen", f"UPDATE comments SET content = 'edited' WHERE id = '{M[4]}'", True),
    ("dara", f"UPDATE comments SET content = 'edited' WHERE id = '{M[4]}'", False),
    ("emil", f"UPDATE comments SET content = 'edited' WHERE id = '{M[4]}'", False),
    ("bruno", f"UPDATE comments SET content = 'edited' WHERE id = '{M[4]}'", True),
    ("chen", f"UPDATE comments SET content = 'edited' WHERE id = '{M[3]}'", False),
    ("dara", f"UPDATE comments SET content = 'edited' WHERE id = '{M[3]}'", True),
    ("emil", f"DELETE FROM comments WHERE id = '{M[5]}'", True),
    ("chen", f"DELETE FROM comments WHERE id = '{M[5]}'", True),
    ("ada", f"DELETE FROM comments WHERE id = '{M[5]}'", False),
    ("bruno", f"DELETE FROM comments WHERE id = '{M[2]}'", True),
    ("dara", f"DELETE FROM comments WHERE id = '{M[2]}'", False),
    ("chen", f"DELETE FROM comments WHERE id = '{M[1]}'", False),
]
HELPERS = [
    ("is_channel_owner", "general", "ada", True), ("is_channel_owner", "general", "bruno", False),
    ("is_channel_owner", "founders", "chen", True),
    ("is_channel_moderator", "general", "bruno", True),
    ("is_channel_moderator", "general", "ada", False),
    ("is_channel_moderator", "founders", "emil", True),
    ("can_moderate_channel", "general", "ada", True),
    ("can_moderate_channel", "general", "bruno", True),
    ("can_moderate_channel", "general", "dara", False),
    ("can_moderate_channel", "engineering", "dara", True),
    ("can_moderate_channel", "founders", "ada", False),
]
INDEXED = [("channels", "owner_id"), ("channel_moderators", "user_id"), ("posts", "channel_id"),
           ("posts", "author_id"), ("comments", "post_id"), ("comments", "author_id")]


def connect(db: str):
    return psycopg.connect(host=os.environ["POSTGRES_HOST"], port=os.environ["POSTGRES_PORT"],
                           user=os.environ["POSTGRES_USERNAME"],
                           password=os.environ["POSTGRES_PASSWORD"], dbname=db)


def expected_visible(actor: str) -> dict:
    inside = actor in INSIDERS
    return {"users": set(U.values()),
            "channel_moderators": {(c, u) for c, u in MODERATORS},
            "channels": set(C.values()) if inside else OPEN_CH,
            "posts": set(P.values()) if inside else OPEN_POSTS,
            "comments": set(M.values()) if inside else OPEN_COMMENTS}


def as_actor(c, probe: sql.Identifier, actor: str):
    c.execute(sql.SQL("SET LOCAL ROLE {}").format(probe))
    c.execute("SELECT set_config('app.current_user_id', %s, true)",
              (U[actor] if actor else "",))


class Refused(Exception):
    pass


def attempt(c, probe, actor: str, statement: str) -> tuple[bool, str]:
    """Run one write as the actor and roll it back: (allowed, how it went)."""
    try:
        with c.transaction():
            as_actor(c, probe, actor)
            n = c.execute(statement).rowcount
            raise Refused(n)
    except Refused as r:
        return r.args[0] > 0, f"{r.args[0]} rows"
    except psycopg.Error as e:
        return False, f"error: {str(e).strip().splitlines()[0][:120]}"


def snapshot(c) -> dict:
    return {t: sorted(map(repr, c.execute(f"SELECT * FROM {t}").fetchall())) for t in TABLES}


def main() -> int:
    problems: list[str] = []
    db = os.environ["POSTGRES_DATABASE"]
    probe = sql.Identifier("rls_probe_" + hashlib.sha1(db.encode()).hexdigest()[:16])
    with connect(db) as c:
        c.execute("SET statement_timeout = '10s'")
        rls = dict(c.execute("SELECT relname, relrowsecurity FROM pg_class WHERE relkind = 'r' "
                             "AND relnamespace = 'public'::regnamespace "
                             "AND relname = ANY(%s)", (TABLES,)).fetchall())
        for t in TABLES:
            if not rls.get(t):
                problems.append(f"row level security is not enabled on {t}")
        for t, col in INDEXED:
            n = c.execute(
                "SELECT count(*) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                "AND a.attnum = i.indkey[0] WHERE i.indrelid = %s::regclass AND a.attname = %s",
                (f"public.{t}", col)).fetchone()[0]
            if n == 0:
                problems.append(f"no index starting with {t}.{col}")
        for fn, ch, user, want in HELPERS:
            try:
                with c.transaction():
                    got = c.execute(sql.SQL("SELECT public.{}(%s::uuid, %s::uuid)").format(
                        sql.Identifier(fn)), (C[ch], U[user])).fetchone()[0]
            except psycopg.Error as e:
                got = f"error: {str(e).strip().splitlines()[0][:120]}"
            if got is not want:
                problems.append(f"{fn}({ch}, {user}) = {got}, want {want}")
        before = snapshot(c)
        initial = {"users": ("id, username, email", USERS),
                   "channels": ("id, name, description, is_public, owner_id", CHANNELS),
                   "channel_moderators": ("channel_id, user_id", MODERATORS),
                   "posts": ("id, channel_id, author_id, title, content", POSTS),
                   "comments": ("id, post_id, author_id, content", COMMENTS)}
        for t, (cols, rows) in initial.items():
            got = {tuple(v if isinstance(v, bool) or v is None else str(v) for v in r)
                   for r in c.execute(f"SELECT {cols} FROM {t}").fetchall()}
            if got != {tuple(r) for r in rows}:
                problems.append(f"{t}: the rows differ from the initial ones")
        with c.transaction(force_rollback=True):
            c.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(probe))
            c.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(probe))
            c.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(
                sql.SQL(", ").join(sql.Identifier(t) for t in TABLES), probe))
            for actor in ALL:
                want = expected_visible(actor)
                for t in TABLES:
                    cols = "channel_id, user_id" if t == "channel_moderators" else "id"
                    try:
                        with c.transaction():
                            as_actor(c, probe, actor)
                            rows = c.execute(f"SELECT {cols} FROM {t}").fetchall()
                            got = {tuple(map(str, r)) if len(r) > 1 else str(r[0])
                                   for r in rows}
                            c.execute("RESET ROLE")
                    except psycopg.Error as e:
                        got = f"error: {str(e).strip().splitlines()[0][:120]}"
                    if got != want[t]:
                        shown = sorted(got) if isinstance(got, set) else got
                        problems.append(f"{actor or 'anonymous'} reading {t}: sees {shown}, "
                                        f"want {sorted(want[t])}")
            for actor, statement, allowed in ACTIONS:
                ok, how = attempt(c, probe, actor, statement)
                if ok != allowed:
                    problems.append(f"{actor or 'anonymous'}: {statement[:90]!r} "
                                    f"{'allowed' if ok else 'refused'} ({how}), want "
                                    f"{'allowed' if allowed else 'refused'}")
        if snapshot(c) != before:
            problems.append("the data changed during the checks (a write was not rolled back)")
    for p in problems[:25]:
        print("FAIL:", p)
    if len(problems) > 25:
        print(f"FAIL: ... and {len(problems) - 25} more")
    if not problems:
        print(f"PASS: RLS on {len(TABLES)} tables, {len(ACTIONS)} writes and "
              f"{len(ALL) * len(TABLES)} reads as required")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
