#!/usr/bin/env bash
# Builds everything: the native core with its tests and benchmark, the wasm module and the Catch2 suites
# as wasm, and the TypeScript package (js/dist: ESM, CommonJS, .d.ts, and the one wasm glue module).
# `build.sh --package` builds only the wasm module and the package: what `npm start` serves.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
# emcc's JS optimizer needs Debian's acorn, which Node does not find by itself.
export NODE_PATH=/usr/share/nodejs
package_only=false
if [ "${1:-}" = "--package" ]; then package_only=true; fi

if ! $package_only; then
  echo "[build] native"
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j "$jobs"
fi

echo "[build] wasm"
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DCUCKOO_BUILD_BENCH=OFF >/dev/null
if $package_only; then
  cmake --build build/wasm -j "$jobs" --target cuckoo_wasm cuckoo_wasm_cjs cuckoo_redis_wasm cuckoo_redis_wasm_cjs cuckoo_lite_wasm
else
  cmake --build build/wasm -j "$jobs"
  # The main module linked again with its functions' names, for scripts/wasm-sizes.mjs (and its test).
  cmake --build build/wasm -j "$jobs" --target cuckoo_wasm_names
fi

echo "[build] TypeScript package"
rm -rf js/dist
# Each format with its own declarations (an ES module build's .d.ts are ES modules, a CommonJS build's are
# CommonJS: each entry in package.json's exports names its own). The shipped JavaScript is minified
# (package size); the declarations keep the documentation.
npx tsc -p js/tsconfig.esm.json
npx tsc -p js/tsconfig.cjs.json
# sideEffects: a bundler drops a module none of whose exports an app uses (a bundler reads the package.json
# nearest to a module, so the package's own does not reach these): an app that never deduplicates lines
# does not carry dedup.js. The Node entry's own statement (it hands the loader node:zlib's inflater) must
# run although its exports are index.js's. (The command's modules, js/dist/esm/cli, are under the first:
# its top-level statements sit in modules whose exports it uses, so a bundler keeps them.)
echo '{ "type": "module", "sideEffects": ["./node.js", "./node_unpacker.js"] }' > js/dist/esm/package.json
echo '{ "type": "commonjs", "sideEffects": ["./node.js", "./node_unpacker.js"] }' > js/dist/cjs/package.json
# Each wasm module's Emscripten glue and binary module, each build's own beside it (wasm_module.ts imports
# ./generated/cuckoo_wasm.js and ./generated/cuckoo_wasm_binary.js; redis_module.ts the cuckoo_redis_wasm ones;
# lite_module.ts cuckoo_lite_wasm_binary.js).
mkdir -p js/dist/esm/generated js/dist/cjs/generated
for module in cuckoo_wasm cuckoo_redis_wasm cuckoo_lite_wasm; do
  # The lite module has no glue (lite_module.ts instantiates it), only its binary.
  if [ "$module" != cuckoo_lite_wasm ]; then
    cp "js/generated/${module}.mjs" "js/dist/esm/generated/${module}.js"
    cp "js/generated/${module}_cjs.cjs" "js/dist/cjs/generated/${module}.js"
  fi
  cp "js/generated/${module}_binary.mjs" "js/dist/esm/generated/${module}_binary.js"
  cp "js/generated/${module}_binary_cjs.cjs" "js/dist/cjs/generated/${module}_binary.js"
done
# Where each build's Node helper thread of a partitioned run is (node_helper.ts): import.meta.url in the one,
# __dirname in the other, neither of which compiles in both.
cp js/src/formats/helper_url.mjs js/dist/esm/generated/helper_url.js
cp js/src/formats/helper_url.cjs js/dist/cjs/generated/helper_url.js
node scripts/minify.mjs js/dist/esm/*.js js/dist/esm/generated/*.js js/dist/esm/cli/*.js js/dist/cjs/*.js \
  js/dist/cjs/generated/*.js
# The command-line tool (js/src/cli) is compiled with the ES module build and imports it as it is.
chmod +x js/dist/esm/cli/cuckoo.js
