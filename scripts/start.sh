#!/usr/bin/env bash
# Installs what is missing, then starts Weft on its embedded defaults: the in-process runner,
# SQLite under data/, and the offline `mock:echo` model when no API key is set.
# Until the API server and editor land, "the app" is the `weft` CLI: with no arguments this
# runs the demo flow end to end and prints what to try next; with arguments it is `weft …`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/bootstrap.sh"
cd "$root"
if [ "$#" -gt 0 ]; then
  exec node apps/api/src/cli/main.ts "$@"
fi
node apps/api/src/cli/main.ts run examples/summarize-text.json --input @examples/summarize-text.input.json || true
cat >&2 <<'MSG'

Weft is ready. Try:
  pnpm weft run examples/support-triage.json --input @examples/support-triage.input.json --fixtures examples/support-triage.fixtures.json
  pnpm weft runs list
  pnpm weft --help
(pnpm and Node 24 live in .tools/node_modules/.bin — add it to PATH, or use scripts/start.sh <command>.)
MSG
