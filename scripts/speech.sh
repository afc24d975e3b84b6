#!/usr/bin/env bash
# espeak-ng for the synthesised speech corpora (src/repro/core/speech.py; the lfst and pspm
# papers): Debian's `espeak-ng`, installed with apt-get where it is missing and this runs as
# root. Fails where it cannot be installed: the speech tests and those papers' DAGs need it.
set -uo pipefail
if command -v espeak-ng >/dev/null; then
  echo "speech: $(espeak-ng --version 2>/dev/null | head -n 1)"
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq espeak-ng) \
      >/dev/null 2>&1; then
    echo "speech: installed $(espeak-ng --version 2>/dev/null | head -n 1)"
    exit 0
  fi
  echo "speech: apt-get install espeak-ng failed" >&2
else
  echo "speech: espeak-ng is missing; install it with: apt-get install espeak-ng (as root)" >&2
fi
exit 1
