#!/usr/bin/env bash
# Refresh requirements.lock from pyproject.toml (and environment.yml's pins from the lock):
# exact versions and sha256 hashes of everything `pip install -e ".[dev]"` installs, on any
# Python >= 3.11 (a universal resolution: entries carry markers where Pythons differ), with the
# torch builds of scripts/lock-constraints.txt (the CPU build on 3.11, PyPI's on newer Pythons).
#
#   bash scripts/lock.sh                                   # keep every pin the lock can keep
#   bash scripts/lock.sh --upgrade-package transformers    # move one package (and what it needs)
#   bash scripts/lock.sh --upgrade                         # move everything to the newest
#
# Arguments go to `uv pip compile`. uv is taken from PATH, else ($UV) installed once into
# ${TMPDIR:-/tmp}/repro-uv (a throwaway venv; .venv is untouched). The torch wheel is looked
# for in TORCH_WHEELS (default: /opt/wheels where it holds a torch wheel, else PyTorch's
# download index); its hash is that file's. Then: bash scripts/setup.sh, run the tests, commit.
set -euo pipefail
cd "$(dirname "$0")/.."
UV_VERSION=0.13.9
UV=${UV:-$(command -v uv || true)}
if [ -z "$UV" ]; then
  tools="${TMPDIR:-/tmp}/repro-uv"
  if [ ! -x "$tools/bin/uv" ]; then
    "${PYTHON:-python3}" -m venv "$tools"
    "$tools/bin/pip" install -q "uv==$UV_VERSION"
  fi
  UV="$tools/bin/uv"
fi
if [ -z "${TORCH_WHEELS:-}" ]; then
  if compgen -G "/opt/wheels/torch-*.whl" >/dev/null; then
    TORCH_WHEELS=/opt/wheels
  else
    TORCH_WHEELS=https://download.pytorch.org/whl/torch/
  fi
fi
"$UV" pip compile pyproject.toml --extra dev --generate-hashes \
  --universal --python-version 3.11 \
  --constraints scripts/lock-constraints.txt --find-links "$TORCH_WHEELS" \
  --custom-compile-command "bash scripts/lock.sh" --output-file requirements.lock --quiet "$@"
"${PYTHON:-python3}" src/repro/core/lockfile.py conda requirements.lock >environment.yml
echo "lock: requirements.lock ($(grep -c '==' requirements.lock) pins) and environment.yml written"
