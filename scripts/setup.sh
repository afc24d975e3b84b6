#!/usr/bin/env bash
# Set up .venv with the `repro` package, Snakemake and the test tools, at the exact versions of
# the committed lock (requirements.lock, sha256-checked; refresh it with scripts/lock.sh).
# Idempotent: a rerun that finds .venv matching the lock only checks (well under a second).
# Works on a fresh Debian with Python 3.11 (installs python3-venv if missing).
#
# The lock's torch is the CPU build (on these machines from /opt/wheels; elsewhere add
# PIP_FIND_LINKS=https://download.pytorch.org/whl/torch/). A GPU box chooses its own torch:
#   TORCH_SPEC="torch==2.13.0+cu128" PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cu128 \
#     bash scripts/setup.sh
# installs the lock less torch (hash-checked), then TORCH_SPEC with pip's ordinary resolution;
# each result's provenance lists the packages that then differ from the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
LOCK=requirements.lock

if [ ! -x .venv/bin/python ]; then
  if ! "$PY" -m venv .venv 2>/dev/null; then
    rm -rf .venv
    echo "setup: python3 -m venv failed; installing python3-venv with apt-get" >&2
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
    "$PY" -m venv .venv
  fi
fi
check=(.venv/bin/python src/repro/core/lockfile.py check "$LOCK" --editable .)
nodeps=(.venv/bin/python src/repro/core/lockfile.py check requirements-nodeps.lock)
if [ -n "${TORCH_SPEC:-}" ]; then
  check+=(--ignore torch)
fi
if "${check[@]}" -q && "${nodeps[@]}" -q; then
  state="already matched the lock"
else
  if [ -n "${TORCH_SPEC:-}" ]; then
    reqs=$(mktemp)
    trap 'rm -f "$reqs"' EXIT
    .venv/bin/python src/repro/core/lockfile.py without "$LOCK" torch >"$reqs"
    .venv/bin/pip install -q --require-hashes -r "$reqs"
  else
    .venv/bin/pip install -q --require-hashes -r "$LOCK"
  fi
  # exact pins whose declared dependencies cannot join the lock (requirements-nodeps.lock says why)
  .venv/bin/pip install -q --no-deps --require-hashes -r requirements-nodeps.lock
  # the package itself, editable, without touching the locked dependencies; setuptools is in the
  # lock, so no isolated build environment is fetched
  .venv/bin/pip install -q --no-deps --no-build-isolation -e .
  state="installed from the lock"
fi
if [ -n "${TORCH_SPEC:-}" ]; then
  # a no-op when it is installed already; may move torch's own dependencies off the lock
  .venv/bin/pip install -q "$TORCH_SPEC"
  state="$state, torch from TORCH_SPEC"
fi
"${check[@]}" || echo "setup: note: .venv differs from $LOCK as listed (provenance records it)" >&2
echo "setup: ok, $state ($(.venv/bin/python -c 'from importlib.metadata import version as v
print("torch", v("torch"), "snakemake", v("snakemake"))'))"
