#!/usr/bin/env bash
# Installs what Vigil needs on a fresh machine and builds it: pnpm (through
# npm), the workspace's packages, generated code (buf, Prisma) and the apps.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[setup] $*" >&2; }
export TURBO_TELEMETRY_DISABLED=1

if ! command -v pnpm >/dev/null 2>&1; then
  log "installing pnpm"
  npm install -g pnpm@10 >&2
fi
log "installing packages"
pnpm install --frozen-lockfile --reporter=append-only >&2
log "generating code and building"
pnpm exec turbo run build --output-logs=errors-only >&2
