"""A throwaway PostgreSQL cluster on loopback for MCPMark's database tasks.

MCPMark runs one server (Docker, pg17) and gives every task run its own database cloned from a
template (`CREATE DATABASE ... TEMPLATE <category>`), dropped afterwards, so runs never see each
other's changes. Here the pipeline and the tests own the server too: `Cluster` runs initdb into a
temporary folder, starts the Debian binaries on a free loopback port with a random password
(scram), loads the template databases, and stops and removes everything on exit, even after an
error. Root cannot run postgres: as root the server runs as the `postgres` user.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path


class PostgresError(RuntimeError):
    pass


def bindir() -> Path:
    """The newest installed server's binaries (Debian puts them off PATH)."""
    env = os.environ.get("REPRO_PG_BINDIR")
    found = [Path(env)] if env else [
        Path(p).parent for p in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                                       key=lambda p: int(Path(p).parts[-3]))]
    if not found and shutil.which("initdb"):
        found = [Path(shutil.which("initdb")).parent]
    if not found or not (found[-1] / "pg_ctl").exists():
        raise PostgresError("no PostgreSQL server binaries (initdb, pg_ctl): run "
                            "bash scripts/setup.sh (apt-get install postgresql) or set "
                            "REPRO_PG_BINDIR")
    return found[-1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass
class Cluster:
    """A running server: connection facts and the admin operations the harness needs."""

    root: Path
    port: int
    password: str = field(repr=False)
    user: str = "postgres"
    host: str = "127.0.0.1"
    version: str = ""
    templates: set[str] = field(default_factory=set)
    """the template databases loaded"""

    def dsn(self, database: str = "postgres") -> str:
        """libpq URI with the password (for the MCP server's DATABASE_URI; never logged)."""
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{database}"

    def env(self, database: str) -> dict[str, str]:
        """MCPMark's verifier environment for one task database."""
        return {"POSTGRES_HOST": self.host, "POSTGRES_PORT": str(self.port),
                "POSTGRES_DATABASE": database, "POSTGRES_USERNAME": self.user,
                "POSTGRES_PASSWORD": self.password}

    def connect(self, database: str = "postgres", autocommit: bool = True):
        import psycopg

        return psycopg.connect(host=self.host, port=self.port, user=self.user,
                               password=self.password, dbname=database, autocommit=autocommit,
                               connect_timeout=10)

    def databases(self) -> list[str]:
        with self.connect() as c:
            return [r[0] for r in c.execute(
                "SELECT datname FROM pg_database WHERE NOT datistemplate ORDER BY 1")]

    def load(self, name: str, sql: Path) -> None:
        """A template database from a dump: plain SQL (psql, stop at the first error) or
        pg_restore's custom format (MCPMark's own .backup files)."""
        with self.connect() as c:
            c.execute(f"CREATE DATABASE {quote_ident(name)}")
        conn = ["-h", self.host, "-p", str(self.port), "-U", self.user, "-d", name]
        with open(sql, "rb") as f:
            archive = f.read(5) == b"PGDMP"  # pg_dump's custom format
        if archive:
            cmd = [str(bindir() / "pg_restore"), "--no-owner", "--exit-on-error", *conn, str(sql)]
        else:
            cmd = [str(bindir() / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", *conn,
                   "-f", str(sql)]
        r = subprocess.run(cmd, env={**os.environ, "PGPASSWORD": self.password},
                           capture_output=True, text=True)
        if r.returncode:
            raise PostgresError(f"loading {sql} into {name} failed: {r.stderr.strip()[-2000:]}")
        self.templates.add(name)

    def clone(self, template: str, name: str) -> str:
        """A fresh database copied from `template` (nobody may be connected to the template)."""
        with self.connect() as c:
            c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = %s AND pid <> pg_backend_pid()", (template,))
            c.execute(f"CREATE DATABASE {quote_ident(name)} TEMPLATE {quote_ident(template)}")
        return name

    def create_empty(self, name: str) -> str:
        with self.connect() as c:
            c.execute(f"CREATE DATABASE {quote_ident(name)}")
        return name

    def drop(self, name: str) -> None:
        with self.connect() as c:
            c.execute(f"DROP DATABASE IF EXISTS {quote_ident(name)} WITH (FORCE)")

    @contextmanager
    def fresh(self, template: str | None, prefix: str = "run") -> Iterator[str]:
        """One task run's database: cloned from the template (or empty), dropped afterwards."""
        name = f"{prefix}_{secrets.token_hex(4)}"
        if template:
            self.clone(template, name)
        else:
            self.create_empty(name)
        try:
            yield name
        finally:
            self.drop(name)


def _runner() -> tuple[list[str], str | None]:
    """How to run the server binaries: as ourselves, or (as root) as the postgres user."""
    if os.geteuid() != 0:
        return [], None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresError("running as root and there is no `postgres` user to run the "
                            "server as (apt-get install postgresql creates it)") from None
    return ["runuser", "-u", "postgres", "--"], "postgres"


def _run(cmd: list[str], what: str) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise PostgresError(f"{what} failed ({r.returncode}): {(r.stderr or r.stdout).strip()}")
    return r.stdout


@contextmanager
def cluster(templates: dict[str, Path] | None = None, parent: Path | None = None
            ) -> Iterator[Cluster]:
    """Start a private server, load `templates` ({database: plain SQL dump}), yield it, then
    stop it and delete its files. The data folder lives under `parent` (default: $TMPDIR)."""
    b = bindir()
    prefix, owner = _runner()
    root = Path(tempfile.mkdtemp(prefix="repro-pg-", dir=parent))
    os.chmod(root, 0o755)
    if owner:
        shutil.chown(root, owner)
    data, sock = root / "data", root
    password = secrets.token_urlsafe(18)
    pwfile = root / "pw"
    pwfile.write_text(password + "\n")
    os.chmod(pwfile, 0o600)
    if owner:
        shutil.chown(pwfile, owner)
    started = False
    try:
        _run([*prefix, str(b / "initdb"), "-D", str(data), "-U", "postgres", "-E", "UTF8",
              "--locale=C.UTF-8", "--auth=scram-sha-256", f"--pwfile={pwfile}"], "initdb")
        pwfile.unlink()
        port, err = free_port(), ""
        for _ in range(5):  # another process may take the port between the probe and the bind
            opts = (f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off "
                    "-c synchronous_commit=off -c full_page_writes=off -c max_connections=50")
            r = subprocess.run([*prefix, str(b / "pg_ctl"), "-D", str(data), "-o", opts,
                                "-l", str(root / "server.log"), "-w", "-t", "60", "start"],
                               capture_output=True, text=True)
            if r.returncode == 0:
                started = True
                break
            err = (root / "server.log").read_text() if (root / "server.log").exists() else r.stderr
            port = free_port()
            time.sleep(0.2)
        if not started:
            raise PostgresError(f"pg_ctl start failed: {err.strip()[-2000:]}")
        version = _run([str(b / "postgres"), "--version"], "postgres --version").strip()
        c = Cluster(root=root, port=port, password=password, version=version)
        for name, sql in (templates or {}).items():
            c.load(name, Path(sql))
        yield c
    finally:
        if started:
            subprocess.run([*prefix, str(b / "pg_ctl"), "-D", str(data), "-m", "immediate",
                            "-w", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
