#!/usr/bin/env bash
# Starts Vigil on its embedded defaults: PGlite in .vigil/data (or DATABASE_URL),
# the API on PORT (8080).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node apps/control-plane/dist/main.js
