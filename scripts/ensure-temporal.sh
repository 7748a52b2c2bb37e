#!/usr/bin/env bash
# Builds the Temporal dev server (the `temporal` CLI) from the Go module proxy if it is not
# cached yet, into .tools/bin (ignored by git), and prints its path. Nothing else is downloaded.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${TEMPORAL_CLI_VERSION:-v1.5.1}" # a tag whose go.mod has no replace directive
bin="$root/.tools/bin/temporal"
if [[ ! -x "$bin" ]]; then
  # One build at a time: test files starting servers in parallel may all ask at once.
  mkdir -p "$root/.tools"
  exec 9>"$root/.tools/ensure-temporal.lock"
  flock 9
fi
if [[ ! -x "$bin" ]]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "ensure-temporal: 'go' is needed to build the Temporal dev server ($version)" >&2
    exit 1
  fi
  mkdir -p "$root/.tools/bin"
  echo "ensure-temporal: building temporal $version into .tools/bin (a few minutes, once)" >&2
  GOBIN="$root/.tools/bin" GOFLAGS=-mod=mod go install "github.com/temporalio/cli/cmd/temporal@$version"
fi
echo "$bin"
