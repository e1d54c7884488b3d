#!/usr/bin/env bash
# Runs every test: installs and builds, starts PostgreSQL for the data-layer
# tests, then Jest. Extra arguments go to Jest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [[ ! -x /usr/bin/chromium ]]; then
  # The status pages' browser tests drive Debian's Chromium: Playwright cannot download its own here.
  echo "[test] installing chromium with apt-get" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) >&2
fi
if ! command -v promtool >/dev/null; then
  # The alert rules are checked with promtool, from Debian's prometheus package.
  echo "[test] installing promtool (prometheus) with apt-get" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null) >&2
fi
if ! command -v terraform >/dev/null; then
  # The Terraform provider's tests drive the real binary; it cannot be downloaded here.
  echo "[test] the Terraform provider's tests need terraform (1.11 or later) on PATH" >&2
  exit 1
fi
echo "[test] typechecking sources, tests and benchmarks" >&2
pnpm exec tsc -p tsconfig.json
VIGIL_TEST_POSTGRES_URL=${VIGIL_TEST_POSTGRES_URL:-$(bash scripts/ensure-postgres.sh)}
export VIGIL_TEST_POSTGRES_URL
VIGIL_TEST_REDIS_URL=${VIGIL_TEST_REDIS_URL:-$(VIGIL_REDIS_DIR=/tmp/vigil-test-redis VIGIL_REDIS_PORT=6391 REDIS_URL= bash scripts/ensure-redis.sh)}; export VIGIL_TEST_REDIS_URL
# Prisma's client and the schema engine load ES modules with import().
export NODE_OPTIONS="--experimental-vm-modules --no-warnings=ExperimentalWarning ${NODE_OPTIONS:-}"
exec pnpm exec jest --ci "$@"
