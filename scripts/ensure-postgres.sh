#!/usr/bin/env bash
# Starts the machine's PostgreSQL server for the tests (installing it with apt
# where it is missing) and makes sure the role `vigil` (password `vigil`, allowed
# to create databases) exists. Prints the server's URL for that role.
set -euo pipefail
log() { echo "[postgres] $*" >&2; }

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  log "installing PostgreSQL with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) >&2
fi
version=$(ls /etc/postgresql | sort -V | tail -n 1)
if ! pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" && $4=="online"' | grep -q .; then
  log "starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2
fi
port=$(pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $3}')
su postgres -c "psql -p $port -qtAc \"SELECT 1 FROM pg_roles WHERE rolname='vigil'\"" | grep -q 1 ||
  su postgres -c "psql -p $port -qc \"CREATE ROLE vigil LOGIN CREATEDB PASSWORD 'vigil'\"" >&2
echo "postgresql://vigil:vigil@127.0.0.1:$port/postgres"
