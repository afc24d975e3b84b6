# shellcheck shell=bash
# Sourced by scripts/setup.sh: the real MCP servers MCPMark (src/repro/papers/mcpmark) runs its
# agents against, installed where missing; a rerun that finds them only checks.
#   - @modelcontextprotocol/server-filesystem, the version of tools/mcp/package-lock.json
#     (npm ci; integrity-checked) into tools/mcp/node_modules;
#   - crystaldba's postgres-mcp 0.3.0, the server MCPMark's PostgreSQL tasks use, in its own venv
#     tools/mcp/postgres-venv from tools/mcp/postgres.lock (hash-checked): it needs mcp < 2 (.venv
#     has mcp 2), and it pins pglast==7.2.0, which the registry does not hold: the lock overrides
#     it with pglast 7.22 (same major: the PG 17 parser), which is all unrestricted mode imports.
#     Python: $MCP_PYTHON, else the one .venv is made with ($PYTHON, else python3).
#     postgres-mcp declares Python >= 3.12, which Debian 12 lacks (and no package registry
#     offers), but the one thing it takes from 3.12 is typing.override, a decorator that only
#     marks a method (postgres_mcp/index/dta_calc.py, llm_opt.py; all 26 modules compile on
#     3.11). On 3.11 it is installed with --ignore-requires-python, and a .pth in its venv makes
#     typing.override typing_extensions.override. The lock serves 3.11 to 3.13 alike: compiled
#     for 3.11 (same inputs), uv picks the same 64 dependencies with the same hashes.
# Refresh the lock with uv pip compile (see the header of tools/mcp/postgres.lock).

MCP_DIR=tools/mcp
MCP_BACKPORT='import typing, typing_extensions; typing.override = getattr(typing, "override", typing_extensions.override)'

mcp_setup() {  # sets MCP_DID (what it installed), MCP_MISSING (what it could not), MCP_HAVE
  MCP_DID=() MCP_MISSING=() MCP_HAVE=()
  local want have
  local fs=$MCP_DIR/node_modules/@modelcontextprotocol/server-filesystem/package.json
  if command -v npm >/dev/null && command -v node >/dev/null; then
    want=$(sed -n 's/.*"@modelcontextprotocol\/server-filesystem": "\(.*\)".*/\1/p' \
      "$MCP_DIR/package.json")
    have=$(node -p "require('./$fs').version" 2>/dev/null || true)
    if [ "$have" != "$want" ]; then
      npm ci --prefix "$MCP_DIR" --loglevel=error --no-audit --no-fund >/dev/null
      have=$(node -p "require('./$fs').version")
      MCP_DID+=("npm ci $MCP_DIR")
    fi
    MCP_HAVE+=("server-filesystem $have")
  else
    MCP_MISSING+=("server-filesystem (no node and npm)")
  fi

  local venv=$MCP_DIR/postgres-venv lock=$MCP_DIR/postgres.lock
  local -a older=()
  if ! { [ -x "$venv/bin/python" ] && [ -x "$venv/bin/postgres-mcp" ] \
         && cmp -s "$lock" "$venv/.lock"; }; then
    rm -rf "$venv"
    "${MCP_PYTHON:-$PY}" -m venv "$venv"
    "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 12))' \
      || older=(--ignore-requires-python)
    quiet_pip "$venv/bin/pip" install -q --no-deps --require-hashes "${older[@]}" -r "$lock"
    if [ ${#older[@]} -gt 0 ]; then
      echo "$MCP_BACKPORT" >"$("$venv/bin/python" -c \
        'import sysconfig; print(sysconfig.get_path("purelib"))')/typing_override_backport.pth"
    fi
    "$venv/bin/postgres-mcp" --help >/dev/null  # it imports every module it serves with
    cp "$lock" "$venv/.lock"
    MCP_DID+=("postgres-mcp venv ($("$venv/bin/python" --version))")
  fi
  MCP_HAVE+=("$(grep -o '^postgres-mcp==[^ ]*' "$lock" | sed 's/==/ /')")
}
