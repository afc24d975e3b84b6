#!/usr/bin/env bash
# Headless Chromium for the report's browser test (tests/test_summary.py, driven by playwright,
# which is in the lock): Debian's `chromium`, installed with apt-get where it is missing and this
# runs as root. Never fails: where Chromium cannot be installed the test skips and says why.
set -uo pipefail
for exe in chromium chromium-browser; do
  if command -v "$exe" >/dev/null; then
    echo "browser: $("$exe" --version 2>/dev/null | head -n 1)"
    exit 0
  fi
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
      >/dev/null 2>&1; then
    echo "browser: installed $(chromium --version 2>/dev/null | head -n 1)"
    exit 0
  fi
  echo "browser: apt-get install chromium failed; the browser test will skip" >&2
else
  echo "browser: no chromium and not root with apt-get; the browser test will skip" >&2
fi
exit 0
