# Sourced by scripts/browser.sh and scripts/speech.sh: make a Debian tool available.
#   debian_tool LABEL PACKAGE WHY_MISSING COMMAND [COMMAND ...]
# Returns 0 when one of the COMMANDs is on PATH (saying its version) or PACKAGE was just installed
# with apt-get (only as root, where apt-get exists); otherwise says what failed, and WHY_MISSING
# (what that means for the suite), on stderr and returns 1. The caller decides whether that fails.
debian_tool() {
  local label=$1 package=$2 why=$3 exe
  shift 3
  for exe in "$@"; do
    if command -v "$exe" >/dev/null; then
      echo "$label: $("$exe" --version 2>/dev/null | head -n 1)"
      return 0
    fi
  done
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package") \
        >/dev/null 2>&1; then
      echo "$label: installed $("$1" --version 2>/dev/null | head -n 1)"
      return 0
    fi
    echo "$label: apt-get install $package failed; $why" >&2
  else
    echo "$label: no $1 and not root with apt-get (apt-get install $package); $why" >&2
  fi
  return 1
}
