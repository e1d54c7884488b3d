#!/usr/bin/env bash
# Starts Vigil on its embedded defaults, all on this machine: Redis (REDIS_URL,
# or a redis-server started here), the control plane (PGlite in .vigil/data, or
# DATABASE_URL; the API on PORT, 8080) and one agent per region in
# AGENT_REGIONS (hostA-ams). Ctrl-C stops them all, and the redis-server too if
# this script started it (not a Redis that already answered on its port).
# VIGIL_SKIP_SETUP=1 skips installing and building (scripts/setup.sh), for a
# tree that is built already.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[start] $*" >&2; }
[[ -n "${VIGIL_SKIP_SETUP:-}" ]] || bash scripts/setup.sh

pids=()
redis_pid=
stop() {
  # A second Ctrl-C reaches the services themselves (they share this process
  # group) and must not cut this clean-up short.
  trap '' INT TERM
  trap - EXIT
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  # Last, so that the services can still reach Redis while they stop.
  [[ -z "$redis_pid" ]] || stop_redis
}
stop_redis() {
  log "stopping the redis-server started here (pid $redis_pid)"
  # On SIGTERM Redis syncs its append-only file and saves a snapshot before it exits.
  kill -TERM "$redis_pid" 2>/dev/null || return 0
  for _ in $(seq 1 300); do
    kill -0 "$redis_pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "redis-server (pid $redis_pid) is still running after 30 s; see the log in its data folder"
}
trap stop INT TERM EXIT

if [[ -z "${REDIS_URL:-}" ]]; then
  redis=$(VIGIL_REDIS_REPORT_START=1 bash scripts/ensure-redis.sh)
  { read -r REDIS_URL; read -r redis_pid || true; } <<<"$redis"
fi
export REDIS_URL
# Run on one machine, Vigil mostly checks that machine and its network, which the
# SSRF guard refuses by default (docs/outbound-guard.md): open the private ranges
# unless the caller chose otherwise.
export ALLOW_PRIVATE_TARGETS=${ALLOW_PRIVATE_TARGETS:-true}
if [[ "$ALLOW_PRIVATE_TARGETS" == true ]]; then
  log "ALLOW_PRIVATE_TARGETS=true: checks and webhooks may reach loopback and private addresses (see docs/outbound-guard.md)"
fi
read -r -a regions <<<"${AGENT_REGIONS:-hostA-ams}"
# Monitors without regions of their own are checked where the local agents run.
export DEFAULT_REGIONS=${DEFAULT_REGIONS:-$(IFS=,; echo "${regions[*]}")}
# React renders the status pages and mails; its development build is several times slower.
export NODE_ENV=${NODE_ENV:-production}

node apps/control-plane/dist/main.js &
pids+=($!)
port=${AGENT_HEALTH_PORT:-8081}
for region in "${regions[@]}"; do
  REGION=$region HEALTH_PORT=$port node apps/agent/dist/main.js &
  pids+=($!)
  port=$((port + 1))
done
# If any of them exits, stop the others rather than run half a service.
wait -n "${pids[@]}"
