#!/usr/bin/env bash
# `npm test`: installs what is missing, builds, and runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh

echo "[test] Catch2, native"
ctest --test-dir build/native --output-on-failure -j 2
echo "[test] Catch2, wasm (node)"
ctest --test-dir build/wasm --output-on-failure -j 2
echo "[test] Catch2, native with AddressSanitizer and UndefinedBehaviorSanitizer"
# -O1 and line tables only (what AddressSanitizer's documentation suggests, and its reports name the lines):
# the build took 4.5 minutes at -O2 -g, 2.2-2.6 at this, and its suites 51-58 s, not 64 (2026-11-30).
# Its default target is the suites, the ABI check and the golden vectors' generator, built together on
# both cores.
CXX=clang++-14 cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUCKOO_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" >/dev/null
cmake --build build/sanitize -j "$(nproc)"
ctest --test-dir build/sanitize --output-on-failure -j 2
echo "[test] Catch2, native with ThreadSanitizer: lookups of one filter from several threads"
CXX=clang++-14 cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUCKOO_BUILD_BENCH=OFF \
  -DCUCKOO_BUILD_WASM_MODULE=OFF -DCMAKE_CXX_FLAGS="-fsanitize=thread" >/dev/null
cmake --build build/tsan --target cuckoo_thread_tests
TSAN_OPTIONS=halt_on_error=1 ./build/tsan/cuckoo_thread_tests
echo "[test] fuzzing (short runs; npm run fuzz -- SECONDS for long ones)"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
echo "[test] clang-format: the C++ as .clang-format has it (clang-format-14 -i on the files to fix)"
git ls-files 'cpp/*.hpp' 'cpp/*.cpp' 'tests/cpp/*.cpp' 'tests/cpp/*.hpp' 'tests/fuzz/*.cpp' 'bench/*.cpp' |
  xargs clang-format-14 --dry-run -Werror
echo "[test] Biome: the TypeScript's format and lint rules (biome.json; npx biome check --write fixes the format)"
npx biome check js/src tests/js tests/e2e
echo "[test] tsc --noEmit: the TypeScript, and the JavaScript from its JSDoc"
# Side by side; each prints its errors, and either failing fails the suite once both have ended.
npx tsc --noEmit -p tsconfig.json &
typescript=$!
javascript=0
npx tsc -p tsconfig.js.json || javascript=$?
wait "$typescript"
[ "$javascript" -eq 0 ]
echo "[test] Jest"
# Two workers on the two cores (Jest's default is one fewer than the cores: one here). The suites were
# written to pass on a busy machine, which this makes them: 547 s for all of them against 717-765 s with
# one worker (2026-11-27).
npx jest --ci --maxWorkers=2
echo "[test] runtimes: the packed package in Node 18, 20 and 22, Bun and Deno"
bash scripts/runtimes.sh
