#!/usr/bin/env bash
# The PostgreSQL tests need the machine's server at 127.0.0.1:5432. Start it if it stopped.
set -uo pipefail
if command -v pg_isready >/dev/null && ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    echo "weft: starting the local PostgreSQL cluster" >&2
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
fi
exit 0
