#!/usr/bin/env bash
# `npm start`: installs what is missing, builds, and serves the demo (PORT, default 8080).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh --package
exec node scripts/serve.mjs
