#!/usr/bin/env bash
# Headless Chromium for the report's browser test (tests/test_summary.py, driven by playwright,
# which is in the lock): Debian's `chromium`, installed with apt-get where it is missing and this
# runs as root. Never fails: where Chromium cannot be installed the test skips and says why.
set -uo pipefail
source "$(dirname "$0")/lib/debian_tool.sh"
debian_tool browser chromium "the browser test will skip" chromium chromium-browser
exit 0
