#!/usr/bin/env bash
# Makes sure a Redis server answers and prints its URL. REDIS_URL, when set, is
# used as is. Otherwise a local redis-server is installed with apt-get where it
# is missing and started (once) on 127.0.0.1:${VIGIL_REDIS_PORT:-6390}, with its
# data, pid file and log in ${VIGIL_REDIS_DIR:-.vigil/redis} (relative to the
# repository's root). Append-only persistence is on, so queued check jobs and
# unread results survive a Redis restart.
# With VIGIL_REDIS_REPORT_START=1, when it starts the server itself it prints
# the server's pid on a second line, so that its caller can stop it again
# (a server that already answered is left alone: it belongs to someone else).
set -euo pipefail
log() { echo "[redis] $*" >&2; }

if [[ -n "${REDIS_URL:-}" ]]; then
  echo "$REDIS_URL"
  exit 0
fi

root=$(cd "$(dirname "$0")/.." && pwd)
port=${VIGIL_REDIS_PORT:-6390}
dir=${VIGIL_REDIS_DIR:-.vigil/redis}
[[ "$dir" == /* ]] || dir="$root/$dir"

if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  log "installing redis-server with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null) >&2
fi

answers() { [[ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" == "PONG" ]]; }

started_pid=
if ! answers; then
  mkdir -p "$dir"
  log "starting redis-server on 127.0.0.1:$port (data in $dir)"
  # Absolute paths: Redis changes into --dir before it opens the other files.
  redis-server --bind 127.0.0.1 --port "$port" --daemonize yes \
    --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
    --appendonly yes >&2
  for _ in $(seq 1 100); do
    answers && break
    sleep 0.1
  done
  if ! answers; then
    log "redis-server did not answer on port $port; the end of $dir/redis.log:"
    tail -n 20 "$dir/redis.log" >&2 || true
    exit 1
  fi
  # Redis writes its pid file before it serves, so the file is complete by now.
  started_pid=$(<"$dir/redis.pid")
fi
echo "redis://127.0.0.1:$port"
if [[ -n "${VIGIL_REDIS_REPORT_START:-}" && -n "$started_pid" ]]; then
  echo "$started_pid"
fi
