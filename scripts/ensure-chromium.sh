#!/usr/bin/env bash
# The e2e specs drive Debian's Chromium (/usr/bin/chromium) through playwright-core; Playwright's
# own browser download cannot be used here. Install the Debian package when it is missing.
# Quiet and non-interactive; needs root (CI and the project's machines run as root). Exits 0 when
# Chromium is there, 1 with a clear message when it is not and cannot be installed.
set -uo pipefail
chromium="${WEFT_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$chromium" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "weft: $chromium is missing and this shell is not root, so it cannot be installed here." >&2
  echo "      Install Debian's Chromium: sudo apt-get install -y chromium (or set WEFT_CHROMIUM)" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "weft: $chromium is missing and there is no apt-get to install it (set WEFT_CHROMIUM)" >&2
  exit 1
fi
echo "weft: installing Debian's chromium for the e2e specs (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || echo "weft: apt-get update failed; trying the install anyway" >&2
log="$(mktemp)"
if ! apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "weft: apt-get install chromium failed" >&2
  exit 1
fi
rm -f "$log"
[ -x "$chromium" ] || { echo "weft: chromium installed but $chromium is not there" >&2; exit 1; }
exit 0
