#!/usr/bin/env bash
# Installs what is missing, then starts Weft on its embedded defaults: the in-process runner,
# SQLite under data/, and the offline `mock:echo` model when no API key is set.
# With no arguments: builds the browser editor if its build is missing or stale, runs the demo
# flow once through the CLI, then starts the server (`weft serve`: the editor at /, tRPC at /trpc,
# GET /health; PORT, default 3001), which prints the editor's URL. With arguments this is `weft …`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/bootstrap.sh"
cd "$root"
if [ "$#" -gt 0 ]; then
  exec node apps/api/src/cli/main.ts "$@"
fi
scripts/ensure-web-build.sh || echo "weft: the editor could not be built; the API starts anyway" >&2
# The demo run goes into the same store the server opens next (WEFT_DATA or DATABASE_URL, read
# by both), so it is in the runs screen; its id (the last line of --json) makes a direct link.
demo_run="$(node apps/api/src/cli/main.ts run examples/summarize-text.json --input @examples/summarize-text.input.json --json |
  tail -n 1 | sed -n 's/^{"runId":"\(run_[A-Za-z0-9]*\)".*/\1/p')" || true
cat >&2 <<MSG

Weft is ready. Starting the server: open the editor at http://127.0.0.1:${PORT:-3001}/ (Ctrl-C
stops it): the flow list shows the examples, to run or copy. ${demo_run:+The demo run just made:
  http://127.0.0.1:${PORT:-3001}/#/runs/${demo_run}   (every run: http://127.0.0.1:${PORT:-3001}/#/runs)
}Meanwhile, in another shell:
  curl http://127.0.0.1:${PORT:-3001}/health
  pnpm weft run examples/support-triage.json --input @examples/support-triage.input.json --fixtures examples/support-triage.fixtures.json
  pnpm weft runs list
  pnpm weft --help
(pnpm and Node 24 live in .tools/node_modules/.bin — add it to PATH, or use scripts/start.sh <command>.)

MSG
# The local demo lets its chat clients send recorded model turns, an engine and run input
# (a plain `weft serve` refuses them: --chat-client-overrides); WEFT_CHAT_CLIENT_OVERRIDES wins.
exec node apps/api/src/cli/main.ts serve --chat-client-overrides "${WEFT_CHAT_CLIENT_OVERRIDES-all}"
