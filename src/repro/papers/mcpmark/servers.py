"""The real MCP servers MCPMark's agents talk to, as stdio launch parameters.

filesystem: @modelcontextprotocol/server-filesystem over the run's sandbox folder (MCPMark runs
`npx -y @modelcontextprotocol/server-filesystem <dir>`; we run the version npm ci installed from
tools/mcp/package-lock.json, so a rerun gets the same server). postgres: crystaldba's
postgres-mcp in unrestricted mode with DATABASE_URI of the run's database (MCPMark: `pipx run
postgres-mcp --access-mode=unrestricted`), from its own venv (scripts/lib/mcp_servers.sh says why).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
TOOLS = Path(os.environ.get("REPRO_MCP_TOOLS", REPO / "tools" / "mcp"))
FS_PACKAGE = "@modelcontextprotocol/server-filesystem"


class ServerMissing(RuntimeError):
    pass


def filesystem_entry() -> Path:
    entry = TOOLS / "node_modules" / FS_PACKAGE / "dist" / "index.js"
    if not entry.exists():
        raise ServerMissing(f"{FS_PACKAGE} is not installed under {TOOLS}: run "
                            "bash scripts/setup.sh")
    return entry


def postgres_entry() -> Path:
    entry = TOOLS / "postgres-venv" / "bin" / "postgres-mcp"
    if not entry.exists():
        raise ServerMissing(f"postgres-mcp is not installed under {TOOLS}: run "
                            "bash scripts/setup.sh")
    return entry


def versions() -> dict[str, str]:
    """The servers' versions, for each result's provenance."""
    out = {}
    try:
        pkg = filesystem_entry().parents[1] / "package.json"
        out["server-filesystem"] = json.loads(pkg.read_text())["version"]
    except (ServerMissing, OSError, KeyError):
        pass
    lock = TOOLS / "postgres-venv" / ".lock"
    if lock.exists():
        for line in lock.read_text().splitlines():
            if line.startswith("postgres-mcp=="):
                out["postgres-mcp"] = line.split("==")[1].split()[0]
    return out


def _base_env() -> dict[str, str]:
    """What the child needs to run and nothing secret: no LLM keys reach the tool servers."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    return {k: os.environ[k] for k in keep if k in os.environ}


def filesystem(sandbox: Path):
    from mcp import StdioServerParameters

    node = shutil.which("node")
    if node is None:
        raise ServerMissing("no node on PATH: apt-get install nodejs (bash scripts/setup.sh "
                            "does it)")
    # TZ=UTC: get_file_info prints times in the server's zone; the tasks speak UTC
    return StdioServerParameters(command=node, args=[str(filesystem_entry()), str(sandbox)],
                                 env={**_base_env(), "TZ": "UTC"}, cwd=str(sandbox))


def postgres(database_uri: str):
    from mcp import StdioServerParameters

    return StdioServerParameters(command=str(postgres_entry()),
                                 args=["--access-mode=unrestricted"],
                                 env={**_base_env(), "DATABASE_URI": database_uri})
