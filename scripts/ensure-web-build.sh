#!/usr/bin/env bash
# Builds the browser editor (apps/web → apps/web/dist, served by `weft serve`) when the build is
# missing or older than its sources. Expects PATH from scripts/bootstrap.sh. Quiet when fresh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
web=apps/web
index="$web/dist/index.html"
if ! grep -q '"build"' "$web/package.json" 2>/dev/null; then
  exit 0 # no web app to build yet
fi
if [ -f "$index" ] && [ -z "$(find "$web" packages/engine/src packages/engine/package.json \
  \( -name node_modules -o -name dist \) -prune -o -type f -newer "$index" -print 2>/dev/null | head -n1)" ]; then
  exit 0
fi
echo "weft: building the editor (pnpm --filter @weft/web build)" >&2
# Always React's production build: a caller's NODE_ENV (vitest sets `test`) would otherwise
# give a development bundle, slower by half on large runs, to every later `weft serve`.
NODE_ENV=production pnpm --filter @weft/web build >&2
