#!/usr/bin/env bash
# Makes sure PgBouncer is installed (with apt where it is missing), for the test
# that runs the PostgreSQL change feed behind a pool in transaction mode.
# Prints the path of its binary.
set -euo pipefail
if ! command -v pgbouncer >/dev/null 2>&1; then
  echo "[pgbouncer] installing PgBouncer with apt-get" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null) >&2
  # The package starts a service of its own; the test starts the PgBouncer it needs.
  (service pgbouncer stop || true) >/dev/null 2>&1
fi
command -v pgbouncer
