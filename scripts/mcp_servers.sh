#!/usr/bin/env bash
# The real MCP servers and the PostgreSQL that MCPMark (src/repro/papers/mcpmark) runs its agents
# against, installed where missing; idempotent (a rerun that finds them only checks).
#   - @modelcontextprotocol/server-filesystem, the version of tools/mcp/package-lock.json
#     (npm ci; integrity-checked) into tools/mcp/node_modules;
#   - crystaldba's postgres-mcp 0.3.0, the server MCPMark's PostgreSQL tasks use, in its own venv
#     tools/mcp/postgres-venv from tools/mcp/postgres.lock (hash-checked). It needs Python >= 3.12
#     and mcp < 2 (this project's .venv has 3.11 and mcp 2), and it pins pglast==7.2.0, which the
#     registry does not hold: the lock overrides it with pglast 7.22 (same major: the PG 17
#     parser), which is all unrestricted mode imports. Python: $MCP_PYTHON, else the newest
#     python3.12+ on PATH or under ~/.pyenv/versions.
#   - Debian's PostgreSQL server (initdb, pg_ctl), apt-get installed where missing and root.
# Refresh the postgres lock with: uv pip compile (see the header of tools/mcp/postgres.lock).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=tools/mcp
status=0

if command -v npm >/dev/null; then
  want=$(sed -n 's/.*"@modelcontextprotocol\/server-filesystem": "\(.*\)".*/\1/p' $dir/package.json | head -1)
  have=$(node -p "require('./$dir/node_modules/@modelcontextprotocol/server-filesystem/package.json').version" 2>/dev/null || true)
  if [ "$have" != "$want" ]; then
    npm ci --prefix "$dir" --silent --no-audit --no-fund >/dev/null
    have=$(node -p "require('./$dir/node_modules/@modelcontextprotocol/server-filesystem/package.json').version")
  fi
  echo "mcp: server-filesystem $have (node $(node --version))"
else
  echo "mcp: no npm: the filesystem MCP server cannot be installed (apt-get install nodejs npm)" >&2
  status=1
fi

py=${MCP_PYTHON:-}
if [ -z "$py" ]; then
  for cand in python3.12 python3.13 python3.14 $(ls -d "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -V); do
    if "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      py=$cand
      break
    fi
  done
fi
venv=$dir/postgres-venv
if [ -x "$venv/bin/postgres-mcp" ] && cmp -s $dir/postgres.lock "$venv/.lock"; then
  echo "mcp: postgres-mcp $("$venv/bin/python" -c 'from importlib.metadata import version; print(version("postgres-mcp"))') (already matched the lock)"
elif [ -n "$py" ]; then
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --no-deps --require-hashes -r $dir/postgres.lock \
    2> >(grep -v "^WARNING: Location" >&2)
  cp $dir/postgres.lock "$venv/.lock"
  echo "mcp: postgres-mcp installed with $("$venv/bin/python" --version)"
else
  echo "mcp: no Python >= 3.12 (set MCP_PYTHON): postgres-mcp cannot be installed" >&2
  status=1
fi

if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && ! command -v initdb >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >/dev/null 2>&1 \
      || { echo "mcp: apt-get install postgresql failed" >&2; status=1; }
  else
    echo "mcp: no PostgreSQL server and not root with apt-get (apt-get install postgresql)" >&2
    status=1
  fi
fi
initdb=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1 || true)
[ -n "$initdb" ] || initdb=$(command -v initdb || true)
[ -n "$initdb" ] && echo "mcp: $("$initdb" --version)"
exit $status
