# shellcheck shell=bash disable=SC2034  # sourced; setup.sh reads the variables it sets
# Sourced by scripts/setup.sh: Debian's packages for the system programs the papers and the tests
# run. Each is found by what it provides (a command on PATH, tesseract's English data, a font
# fontconfig resolves), not by dpkg, so one installed otherwise counts too (nodesource's nodejs
# brings its own npm). Only checks: no apt-get where nothing is missing.
#   espeak-ng                            speech synthesis (src/repro/core/speech.py: lfst, pspm)
#   graphviz, tesseract-ocr(-eng),       flowgen's renderer, its OCR parser and the handwritten
#     fonts-urw-base35 (font Z003)         style's face (with fontconfig and DejaVu Sans)
#   postgresql, nodejs, npm              mcpmark: its own PostgreSQL clusters and the MCP servers
#   chromium                             the report's headless browser test (tests/test_summary.py)
#   procps                               `ps`, which stopping a job's process tree reads

SYSTEM_PACKAGES=(espeak-ng graphviz tesseract-ocr tesseract-ocr-eng fonts-urw-base35 postgresql
                 nodejs npm chromium)

_font() {  # FAMILY: fontconfig resolves FAMILY to itself, not a fallback (as flowgen's render.py)
  local got
  got=$(fc-match -f '%{family}' "$1" 2>/dev/null || true)
  [[ "${got,,}" == *"${1,,}"* ]]
}

_tesseract_eng() {  # tesseract has its English data
  local langs
  langs=$(tesseract --list-langs 2>/dev/null || true)
  grep -qx eng <<<"$langs"
}

system_check() {  # sets SYSTEM_MISSING: the Debian packages to install, none when all is there
  SYSTEM_MISSING=()
  command -v espeak-ng >/dev/null || SYSTEM_MISSING+=(espeak-ng)
  command -v dot >/dev/null || SYSTEM_MISSING+=(graphviz)
  if ! command -v tesseract >/dev/null; then
    SYSTEM_MISSING+=(tesseract-ocr tesseract-ocr-eng)
  elif ! _tesseract_eng; then
    SYSTEM_MISSING+=(tesseract-ocr-eng)
  fi
  if ! command -v fc-match >/dev/null; then
    SYSTEM_MISSING+=(fontconfig fonts-dejavu-core fonts-urw-base35)
  else
    _font "DejaVu Sans" || SYSTEM_MISSING+=(fonts-dejavu-core)
    _font Z003 || SYSTEM_MISSING+=(fonts-urw-base35)
  fi
  # where repro.papers.mcpmark.postgres.bindir() looks: Debian's versioned dirs, else PATH
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null \
    || SYSTEM_MISSING+=(postgresql)
  command -v node >/dev/null || SYSTEM_MISSING+=(nodejs)
  command -v npm >/dev/null || SYSTEM_MISSING+=(npm)
  [ -n "${REPRO_CHROMIUM:-}" ] || command -v chromium >/dev/null \
    || command -v chromium-browser >/dev/null || SYSTEM_MISSING+=(chromium)
  command -v ps >/dev/null || SYSTEM_MISSING+=(procps)
}

system_install() {  # PACKAGE...: one `apt-get update && apt-get install -y`, as root, else with
  # sudo (where it needs no password, or one can be typed at a terminal); apt's output goes to a
  # log shown only on failure. Returns 0 done, 1 apt-get failed, 2 no way to run apt-get (and
  # says why in SYSTEM_WHY).
  local -a as=()
  SYSTEM_WHY=""
  if ! command -v apt-get >/dev/null; then
    SYSTEM_WHY="no apt-get (not Debian or Ubuntu)"
    return 2
  fi
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null; then
      SYSTEM_WHY="not root, and no sudo"
      return 2
    fi
    if ! sudo -n true 2>/dev/null && [ ! -t 0 ]; then
      SYSTEM_WHY="not root, and sudo wants a password but there is no terminal to type it"
      return 2
    fi
    as=(sudo)
  fi
  local log
  log=$(mktemp)
  if "${as[@]}" env DEBIAN_FRONTEND=noninteractive sh -c \
      'apt-get update -qq && apt-get install -y -qq "$@"' apt-get "$@" >"$log" 2>&1; then
    rm -f "$log"
    return 0
  fi
  tail -n 25 "$log" >&2
  rm -f "$log"
  return 1
}

system_skips() {  # PACKAGE...: what cannot run until they are installed, comma-separated
  local p what out=""
  for p in "$@"; do
    case $p in
      espeak-ng) what="the speech tests (lfst, pspm)" ;;
      graphviz | tesseract-ocr* | fonts-* | fontconfig) what="flowgen's tests" ;;
      postgresql | nodejs | npm) what="mcpmark's tests" ;;
      chromium) what="the report's browser test" ;;
      procps) what="the tests that stop jobs (they need ps)" ;;
      *) what="" ;;
    esac
    [ -z "$what" ] || [[ "$out" == *"$what"* ]] || out="${out:+$out, }$what"
  done
  echo "$out"
}
