#!/usr/bin/env bash
# Installs what a fresh machine is missing, then leaves PATH pointing at the project's own
# Node 24 and pnpm. Sourced by scripts/start.sh and scripts/test.sh (and by developers:
# `source scripts/bootstrap.sh`); safe to run repeatedly. It sets no shell options, so
# sourcing it into an interactive shell leaves that shell as it was; failures return 1.
# Why a local toolchain: the machines ship Node 20 (end of life); Weft targets Node 24 LTS,
# which the npm registry publishes as the `node` package. Nothing is installed globally.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"
node_version="24"
pnpm_version="10.34.9"

if [ ! -x "$tools/node_modules/.bin/node" ] || ! "$tools/node_modules/.bin/node" -v | grep -q "^v${node_version}\." \
  || [ ! -x "$tools/node_modules/.bin/pnpm" ]; then
  echo "weft: installing Node ${node_version} and pnpm ${pnpm_version} into .tools/ (from the npm registry)" >&2
  mkdir -p "$tools"
  [ -f "$tools/package.json" ] || echo '{ "name": "weft-tools", "private": true }' >"$tools/package.json"
  npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "node@${node_version}" "pnpm@${pnpm_version}" >&2 \
    || { echo "weft: could not install Node ${node_version} from the npm registry" >&2; return 1 2>/dev/null || exit 1; }
fi
export PATH="$tools/node_modules/.bin:$root/node_modules/.bin:$PATH"

stamp="$root/node_modules/.weft-install-stamp"
if [ ! -f "$stamp" ] || [ "$root/pnpm-lock.yaml" -nt "$stamp" ] || [ "$root/package.json" -nt "$stamp" ]; then
  echo "weft: installing dependencies (pnpm install)" >&2
  (cd "$root" && { pnpm install --frozen-lockfile --reporter=append-only >&2 || pnpm install --reporter=append-only >&2; }) \
    || { echo "weft: pnpm install failed" >&2; return 1 2>/dev/null || exit 1; }
  touch "$stamp"
fi
