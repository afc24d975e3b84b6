#!/usr/bin/env bash
# espeak-ng for the synthesised speech corpora (src/repro/core/speech.py; the lfst and pspm
# papers): Debian's `espeak-ng`, installed with apt-get where it is missing and this runs as
# root. Fails where it cannot be installed: the speech tests and those papers' DAGs need it.
set -uo pipefail
source "$(dirname "$0")/lib/debian_tool.sh"
debian_tool speech espeak-ng "the speech tests and the speech papers need it" espeak-ng
