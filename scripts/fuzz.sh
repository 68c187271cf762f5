#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang-14, with AddressSanitizer and UBSan) and runs each for
# SECONDS seconds (first argument, or FUZZ_SECONDS; default 20). `npm test` runs them briefly;
# `npm run fuzz -- 600` runs them for ten minutes each. The corpus grows in build/fuzz/corpus.
# The targets build and run side by side (one core each: the machine has two), their output printed in
# turn once both are done.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-${FUZZ_SECONDS:-20}}"
mkdir -p build/fuzz
node tests/fuzz/make_seeds.mjs build/fuzz/seeds
targets=(deserialize operations)

fuzz() {
  local target="$1"
  clang++-14 -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -I cpp/include tests/fuzz/fuzz_"$target".cpp -o build/fuzz/fuzz_"$target"
  mkdir -p build/fuzz/corpus/"$target"
  echo "[fuzz] $target for ${seconds}s"
  # -print_final_stats: executions and exec/s at the end. A crash exits non-zero: the log's tail is
  # printed and the run fails (the crashing input is saved as build/fuzz/crash-*).
  local log=build/fuzz/"$target".log
  if ! build/fuzz/fuzz_"$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 \
      -artifact_prefix=build/fuzz/ build/fuzz/corpus/"$target" build/fuzz/seeds/"$target" > "$log" 2>&1; then
    tail -40 "$log"
    echo "[fuzz] $target FAILED (input saved under build/fuzz/)"
    return 1
  fi
  grep -E "^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added)" "$log"
}

pids=()
for target in "${targets[@]}"; do
  fuzz "$target" > build/fuzz/"$target".out 2>&1 &
  pids+=("$!")
done
failed=0
for i in "${!targets[@]}"; do
  wait "${pids[$i]}" || failed=1
done
for target in "${targets[@]}"; do cat build/fuzz/"$target".out; done
exit "$failed"
