#!/usr/bin/env bash
# `npm start`: installs what is missing, builds, and serves the demo (PORT, default 8080).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash js/scripts/ensure-deps.sh
bash js/scripts/build.sh
exec node js/scripts/serve.mjs
