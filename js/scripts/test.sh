#!/usr/bin/env bash
# `npm test`: installs what is missing, builds, and runs every suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash js/scripts/ensure-deps.sh
bash js/scripts/build.sh

echo "[test] Catch2, native"
ctest --test-dir build/native --output-on-failure -j 2
echo "[test] Catch2, wasm (node)"
ctest --test-dir build/wasm --output-on-failure -j 2
echo "[test] tsc --noEmit"
npx tsc --noEmit -p tsconfig.json
echo "[test] Jest"
npx jest --ci
