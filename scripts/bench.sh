#!/usr/bin/env bash
# `npm run bench`: the native and the Node benchmarks, one JSON line per case. Sizes: BENCH_SIZES
# (default "1000000"; docs/PERFORMANCE.md also reports 10000000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh >/dev/null
./build/native/cuckoo_bench
node --expose-gc --max-old-space-size=16000 bench/node_bench.mjs ${BENCH_SIZES:-1000000}
