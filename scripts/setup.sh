#!/usr/bin/env bash
# Set up .venv with the `repro` package, Snakemake and the test tools. Idempotent: a second
# run only checks. Works on a fresh Debian with Python 3.11 (installs python3-venv if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
  if ! "$PY" -m venv .venv 2>/dev/null; then
    rm -rf .venv
    echo "setup: python3 -m venv failed; installing python3-venv with apt-get" >&2
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
    "$PY" -m venv .venv
  fi
fi
# torch first, pinned only so pip takes the CPU build shipped on these machines' local disk
# (an unpinned torch pulls a multi-GB CUDA build). Override with TORCH_SPEC=... on a GPU box.
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  .venv/bin/pip install -q "${TORCH_SPEC:-torch==2.13.0}"
fi
.venv/bin/pip install -q -e ".[dev]"
echo "setup: ok ($(.venv/bin/python -c 'import torch, snakemake; print("torch", torch.__version__, "snakemake", snakemake.__version__)'))"
