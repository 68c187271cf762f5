#!/usr/bin/env bash
# Installs what the build and the tests need, when it is missing: Debian packages (apt-get, as root or
# through sudo) and node_modules (npm ci, when absent or older than package-lock.json). Idempotent and
# quick on a machine that has everything.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# emscripten: the wasm build (Debian's 3.1.6); libxxhash-dev: XXH3; catch2: the C++ suites; chromium:
# the browser tests; firefox-esr: a subset of them (tests/e2e/firefox.test.ts); cmake/g++: the native
# build; clang-14 and its runtime: fuzzing and sanitizers; clang-format-14: the C++ style (.clang-format);
# zopfli: deflates the wasm binaries inlined in the package (scripts/inline-wasm.mjs); python3: its csv
# module is the reference of `cuckoo dedup --csv` (tests/js/cli.test.ts); strace: cli.test.ts holds an fsync and
# fails a rename with it, to stop a run at those points.
packages=(cmake g++ emscripten libxxhash-dev catch2 chromium firefox-esr clang-14 libclang-rt-14-dev clang-format-14 zopfli python3 strace)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "[deps] installing Debian packages: ${missing[*]}"
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then sudo=(sudo); else
      echo "[deps] need root to run: apt-get install ${missing[*]}" >&2
      exit 1
    fi
  fi
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# node_modules: `npm ci` when it is missing or was installed from another package-lock.json.
stamp="$root/node_modules/.cuckoo-wasm-lock.sha256"
want="$(sha256sum "$root/package-lock.json" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[deps] npm ci"
  (cd "$root" && npm ci --no-audit --no-fund)
  echo "$want" > "$stamp"
fi
