#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite: lint, type-check, every test, then
# the browser specs (e2e/, against the built editor in Debian's Chromium).
# With arguments, they go to the unit run (`scripts/test.sh --project engine`) and the browser
# specs are left out; WEFT_E2E=0 leaves them out too.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/bootstrap.sh"
cd "$root"
scripts/ensure-postgres.sh
e2e=1
if [ "$#" -gt 0 ] || [ "${WEFT_E2E:-1}" = "0" ]; then e2e=0; fi
if [ "$e2e" = 1 ]; then scripts/ensure-chromium.sh; fi
# The real Temporal and Inngest dev servers the tests start: built once, before any test asks.
scripts/ensure-temporal.sh >/dev/null
scripts/ensure-inngest.sh >/dev/null
pnpm lint
pnpm typecheck
pnpm test "$@"
if [ "$e2e" = 1 ]; then pnpm test:e2e; fi
