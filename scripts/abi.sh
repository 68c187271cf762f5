#!/usr/bin/env bash
# `npm run abi`: writes js/src/abi.ts again from the C++ definitions (cpp/wasm/abi.hpp and the core's
# enums and limits), after a change to any of them. The native test `abi` fails until this is run.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j "$(nproc)" --target cuckoo_abi
./build/native/cuckoo_abi > js/src/abi.ts
echo "wrote js/src/abi.ts"
