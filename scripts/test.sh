#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite: lint, type-check, every test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/bootstrap.sh"
cd "$root"
scripts/ensure-postgres.sh
pnpm lint
pnpm typecheck
pnpm test "$@"
