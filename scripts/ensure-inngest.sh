#!/usr/bin/env bash
# Builds the Inngest dev server from the Go module proxy if it is not cached yet, into
# .tools/bin (ignored by git), and prints its path. Nothing else is downloaded.
#
# `go install` refuses the module (its go.mod has a replace directive), so: download the
# tagged module zip, copy its source out of the read-only module cache, and build ./cmd.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${INNGEST_VERSION:-v1.12.1}"
bin="$root/.tools/bin/inngest-$version"
if [[ ! -x "$bin" ]]; then
  # One build at a time: test files starting servers in parallel may all ask at once.
  mkdir -p "$root/.tools"
  exec 9>"$root/.tools/ensure-inngest.lock"
  flock 9
fi
if [[ ! -x "$bin" ]]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "ensure-inngest: 'go' is needed to build the Inngest dev server ($version)" >&2
    exit 1
  fi
  echo "ensure-inngest: building the Inngest dev server $version into .tools/bin (several minutes, once)" >&2
  dir="$(go mod download -json "github.com/inngest/inngest@$version" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')"
  if [[ -z "$dir" || ! -d "$dir" ]]; then
    echo "ensure-inngest: the Go module proxy did not give github.com/inngest/inngest@$version" >&2
    exit 1
  fi
  src="$root/.tools/src/inngest-$version"
  rm -rf "$src"
  mkdir -p "$src" "$root/.tools/bin"
  cp -R "$dir/." "$src/"
  chmod -R u+w "$src"
  # The zip keeps vendor/modules.txt without the vendored code; build from the module proxy.
  rm -rf "$src/vendor"
  # internal/embeddocs embeds generated docs that are not in the module zip.
  if [[ -d "$src/internal/embeddocs" ]]; then
    for pattern in $(sed -n 's|^//go:embed \(.*\)$|\1|p' "$src"/internal/embeddocs/*.go); do
      case "$pattern" in
        */*) mkdir -p "$src/internal/embeddocs/${pattern%/*}" ;;
      esac
      target="$src/internal/embeddocs/${pattern//\*/placeholder.md}"
      [[ -e "$target" ]] || echo "# placeholder" >"$target"
    done
  fi
  (cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o "$bin.tmp" ./cmd)
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
