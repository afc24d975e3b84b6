#!/usr/bin/env bash
# Debian tools for the flowgen paper (src/repro/papers/flowgen): graphviz's `dot` (one of its two
# renderers), tesseract with English data (its OCR parser) and the URW base-35 fonts (Z003, the
# handwritten style's script face), installed with apt-get where missing and this runs as root.
# Fails where they cannot be installed: the flowgen tests and DAG need them.
set -uo pipefail
source "$(dirname "$0")/lib/debian_tool.sh"
ok=0
debian_tool flowgen graphviz "flowgen's graphviz renderer needs it" dot || ok=1
debian_tool flowgen tesseract-ocr "flowgen's OCR parser needs it" tesseract || ok=1
apt_install() {  # apt_install PACKAGE: as root with apt-get, quietly; 1 where it cannot
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null \
    && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1") \
       >/dev/null 2>&1
}
if ! tesseract --list-langs 2>/dev/null | grep -qx eng; then
  apt_install tesseract-ocr-eng && echo "flowgen: installed tesseract-ocr-eng" || {
    echo "flowgen: no English data for tesseract (apt-get install tesseract-ocr-eng)" >&2; ok=1; }
fi
if ! fc-list : family 2>/dev/null | grep -qx Z003; then
  apt_install fonts-urw-base35 && echo "flowgen: installed fonts-urw-base35 (Z003)" || {
    echo "flowgen: no font Z003 (apt-get install fonts-urw-base35); the handwritten style" \
         "needs it" >&2; ok=1; }
fi
exit $ok
