#!/usr/bin/env bash
# Set up everything the default scale and the test suite need, where missing:
#   - Debian's packages for the system programs the papers and tests run
#     (scripts/lib/system_packages.sh): espeak-ng, graphviz, tesseract-ocr + tesseract-ocr-eng,
#     fonts-urw-base35, postgresql, nodejs + npm, chromium (and python3.X-venv for .venv), all
#     that are missing in one `apt-get update && apt-get install -y`: as root directly, else
#     with sudo. With neither it installs nothing with apt-get, prints the command that would,
#     and goes on: the tests that need a missing program skip, saying so.
#     REPRO_SETUP_APT=0 leaves apt alone the same way (say, on a cluster's login node).
#   - .venv with the `repro` package, Snakemake and the test tools, at the exact versions of
#     the committed lock (requirements.lock, sha256-checked; refresh it with scripts/lock.sh);
#   - MCPMark's MCP servers (scripts/lib/mcp_servers.sh): npm ci in tools/mcp, and the
#     postgres-mcp venv tools/mcp/postgres-venv from tools/mcp/postgres.lock.
# Idempotent: a rerun that finds everything in place only checks (under a second). It says
# in one line what it did; pip's, npm's and apt's chatter is kept out, their errors are not.
# Works on a fresh Debian or Ubuntu with Python >= 3.11 ($PYTHON, else python3.11 where python3
# is another version and python3.11 is on PATH, else python3).
#
# The lock's torch on Python 3.11 is the CPU build: from pip's configured find-links where they
# hold it (these machines: /opt/wheels), else from PyTorch's CPU index (TORCH_CPU_INDEX). On 3.12
# and newer it is PyPI's build of the same release (CUDA libraries included, a few GB; it runs
# on the CPU). A GPU box chooses its own torch:
#   TORCH_SPEC="torch==2.13.0+cu128" PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cu128 \
#     bash scripts/setup.sh
# installs the lock less torch (hash-checked), then TORCH_SPEC with pip's ordinary resolution;
# each result's provenance lists the packages that then differ from the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
LOCK=requirements.lock
TORCH_CPU_INDEX=${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu/torch/}
is311() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; }
old_python() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] >= (3, 11))' 2>/dev/null; }
# the lock holds every Python >= 3.11; on 3.11 its torch is the small CPU build, so where python3
# is another version and python3.11 is on PATH, take that
if [ -z "${PYTHON:-}" ] && ! is311 python3 && command -v python3.11 >/dev/null; then
  PY=python3.11
fi
# shellcheck source=scripts/lib/system_packages.sh
source scripts/lib/system_packages.sh
# shellcheck source=scripts/lib/mcp_servers.sh
source scripts/lib/mcp_servers.sh

join() {  # SEPARATOR WORD...: the words joined by SEPARATOR
  local sep=$1 out=$2 w
  shift 2
  for w in "$@"; do out+="$sep$w"; done
  echo "$out"
}

quiet_pip() {  # pip, less two warnings: one per location pip.conf names that does not exist
  # (hundreds here), and older pips' one per sdist it builds the legacy way (Debian 12's 23.0)
  "$@" 2> >(grep -v -e "^WARNING: Location '" -e "^ *DEPRECATION: .* legacy 'setup.py install'" >&2)
}

# ---------------------------------------------------------------- Debian's packages, in one go
system_check
venv_pkg=""
if [ ! -x .venv/bin/python ]; then
  if ! command -v "$PY" >/dev/null; then
    SYSTEM_MISSING+=(python3 python3-venv)
  elif ! "$PY" -c 'import ensurepip' 2>/dev/null; then  # Debian's python3 without its venv
    venv_pkg=$("$PY" -c 'import sys; print("python3.%d-venv" % sys.version_info[1])')
    SYSTEM_MISSING+=("$venv_pkg")
  fi
fi
if [ ${#SYSTEM_MISSING[@]} -eq 0 ]; then
  system="system: ${SYSTEM_PACKAGES[*]} present"
else
  rc=0
  if [ "${REPRO_SETUP_APT:-1}" = 0 ]; then
    SYSTEM_WHY="REPRO_SETUP_APT=0"
    rc=2
  else
    system_install "${SYSTEM_MISSING[@]}" || rc=$?
    [ "$rc" != 1 ] || { echo "setup: apt-get install ${SYSTEM_MISSING[*]} failed" >&2; exit 1; }
  fi
  if [ "$rc" = 0 ]; then
    system="apt installed ${SYSTEM_MISSING[*]}"
    system_check
    if [ ${#SYSTEM_MISSING[@]} -gt 0 ]; then
      echo "setup: still missing after apt-get: ${SYSTEM_MISSING[*]}" >&2
      system="$system (still missing: ${SYSTEM_MISSING[*]})"
    fi
  else
    skips=$(system_skips "${SYSTEM_MISSING[@]}")
    [ -z "$skips" ] || skips=" Until then these skip, saying why: $skips."
    {
      echo "setup: installed nothing with apt-get ($SYSTEM_WHY); the missing packages install with"
      echo "    sudo apt-get update && sudo apt-get install -y ${SYSTEM_MISSING[*]}"
      echo "(as root: the same without sudo); then run bash scripts/setup.sh again.$skips"
    } >&2
    system="system: missing ${SYSTEM_MISSING[*]} ($SYSTEM_WHY; see above)"
  fi
fi

# ------------------------------------------------------------------------- .venv, from the lock
if [ ! -x .venv/bin/python ]; then
  if command -v "$PY" >/dev/null && old_python "$PY"; then
    echo "setup: the project needs Python >= 3.11 and $PY is $("$PY" -V 2>&1); install one" \
         "(python3.11 on PATH is used) or run PYTHON=/path/to/python3.11 bash scripts/setup.sh" >&2
    exit 1
  fi
  if ! "$PY" -m venv .venv 2>/dev/null; then
    rm -rf .venv
    echo "setup: $PY -m venv failed${venv_pkg:+ (Debian: apt-get install $venv_pkg)}" >&2
    exit 1
  fi
fi
check=(.venv/bin/python src/repro/core/lockfile.py check "$LOCK" --editable .)
nodeps=(.venv/bin/python src/repro/core/lockfile.py check requirements-nodeps.lock)
if [ -n "${TORCH_SPEC:-}" ]; then
  check+=(--ignore torch)
fi
# torch's CPU build is not on PyPI: where pip's find-links do not hold the locked wheel, add
# PyTorch's CPU index (the lock's hash still decides what is installed)
torch_links=()
cpu_torch=$(grep -o '^torch==[^ ;]*+cpu' "$LOCK" | cut -d= -f3 || true)
if [ -n "$cpu_torch" ] && [ -z "${TORCH_SPEC:-}" ] && is311 .venv/bin/python; then
  links="$(.venv/bin/pip config get global.find-links 2>/dev/null || true) ${PIP_FIND_LINKS:-}"
  found=""
  for d in $links; do
    if compgen -G "${d#file://}/torch-$cpu_torch-cp311-*.whl" >/dev/null; then found=1; fi
  done
  [ -n "$found" ] || torch_links=(--find-links "$TORCH_CPU_INDEX")
fi
if "${check[@]}" -q && "${nodeps[@]}" -q; then
  venv=".venv matched the lock"
else
  if [ -n "${TORCH_SPEC:-}" ]; then
    reqs=$(mktemp)
    trap 'rm -f "$reqs"' EXIT
    .venv/bin/python src/repro/core/lockfile.py without "$LOCK" torch >"$reqs"
    quiet_pip .venv/bin/pip install -q --require-hashes -r "$reqs"
  else
    quiet_pip .venv/bin/pip install -q --require-hashes -r "$LOCK" "${torch_links[@]}"
  fi
  # exact pins whose declared dependencies cannot join the lock (requirements-nodeps.lock says why)
  quiet_pip .venv/bin/pip install -q --no-deps --require-hashes -r requirements-nodeps.lock
  # the package itself, editable, without touching the locked dependencies; setuptools is in the
  # lock, so no isolated build environment is fetched
  quiet_pip .venv/bin/pip install -q --no-deps --no-build-isolation -e .
  venv="installed .venv from the lock"
  recheck=1
fi
if [ -n "${TORCH_SPEC:-}" ]; then
  # a no-op when it is installed already; may move torch's own dependencies off the lock
  quiet_pip .venv/bin/pip install -q "$TORCH_SPEC"
  venv="$venv, torch from TORCH_SPEC"
  recheck=1
fi
if [ -n "${recheck:-}" ]; then
  "${check[@]}" || echo "setup: note: .venv differs from $LOCK as listed (provenance records it)" >&2
fi
venv="$venv ($(.venv/bin/python -c 'from importlib.metadata import version as v
print("torch", v("torch") + ", snakemake", v("snakemake"))'))"

# -------------------------------------------------------------------------- the MCP servers
mcp_setup
if [ ${#MCP_DID[@]} -gt 0 ]; then
  mcp=$(join "; " "${MCP_DID[@]}")
else
  mcp="mcp servers present ($(join ", " "${MCP_HAVE[@]}"))"
fi
if [ ${#MCP_MISSING[@]} -gt 0 ]; then
  mcp="$mcp; not installed: ${MCP_MISSING[*]}"
fi

echo "setup: ok: $venv; $system; $mcp"
