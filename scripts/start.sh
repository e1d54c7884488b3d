#!/usr/bin/env bash
# Starts Vigil on its embedded defaults, all on this machine: Redis (REDIS_URL,
# or a redis-server started here), the control plane (PGlite in .vigil/data, or
# DATABASE_URL; the API on PORT, 8080) and one agent per region in
# AGENT_REGIONS (hostA-ams). Ctrl-C stops them all.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

REDIS_URL=${REDIS_URL:-$(bash scripts/ensure-redis.sh)}
export REDIS_URL
read -r -a regions <<<"${AGENT_REGIONS:-hostA-ams}"
# Monitors without regions of their own are checked where the local agents run.
export DEFAULT_REGIONS=${DEFAULT_REGIONS:-$(IFS=,; echo "${regions[*]}")}

pids=()
stop() {
  trap - INT TERM EXIT
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
}
trap stop INT TERM EXIT

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
