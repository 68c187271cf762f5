#!/usr/bin/env bash
# `cuckoo dedup --window N` (default N = 1,000,000): memory fixed however long the stream, and speed
# against a plain run. Cases, one JSON line each (peak RSS of the command's largest process):
#   window_short / window_long: seq 1 SHORT | cuckoo dedup --window N | tail -1, and the same over LONG
#     lines (defaults 20 and 200 million): the peak RSS should be the same, within 10%;
#   fixed: the short case with a window of 1 (a run's fixed cost: the same input buffers, touched, and a
#     filter of one key; `echo a | cuckoo dedup` touches 7 MiB less): window_long should be at most N x 16
#     bytes above it;
#   plain_pipe / window_pipe: SHORT unique lines through a pipe without and with the window (a ratio);
#   plain_repeats / window_repeats: LOG lines (default 10 million, half of them repeats) from a file.
# Each speed case keeps the fastest of RUNS runs (default 3); the long case runs once.
set -euo pipefail
cd "$(dirname "$0")/.."
window="${WINDOW:-1000000}"
short="${SHORT:-20000000}"
long="${LONG:-200000000}"
log_lines="${LOG:-10000000}"
runs="${RUNS:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cuckoo="node js/dist/esm/cli/cuckoo.js"
source bench/lib.sh

# measure NAME RUNS COMMAND: the fastest run's seconds and the largest peak RSS, with the output's last line.
measure() {
  local name="$1" n="$2" command="$3"
  best_of "$n" "$command" "$work/out" "$work/time"
  printf '{"bench":"window","case":"%s","window":%s,"runs":%s,"seconds":%s,"peak_kib":%s,"last":"%s"}\n' \
    "$name" "$window" "$n" "$BEST" "$PEAK" "$(tail -c 40 "$work/out" | tr -d '\n"')" | tee -a "$work/results"
}

node -e '
const [n, path] = [Number(process.argv[1]), process.argv[2]];
const fs = require("fs");
const out = fs.openSync(path, "w");
let buffer = [];
for (let i = 0; i < n; i++) {
  const k = i % 2 ? i - 1 : i; // half repeats, each right after its first
  buffer.push(`2026-11-29T08:00:00Z user-${(Math.imul(k, 2654435761) >>> 0).toString(16)} GET /item/${k}`);
  if (buffer.length === 100000) { fs.writeSync(out, buffer.join("\n") + "\n"); buffer = []; }
}
if (buffer.length) fs.writeSync(out, buffer.join("\n") + "\n");
' "$log_lines" "$work/log.txt"

measure fixed "$runs" "seq 1 $short | $cuckoo dedup --no-progress --window 1 | tail -1"
measure window_short 1 "seq 1 $short | $cuckoo dedup --no-progress --window $window | tail -1"
measure window_long 1 "seq 1 $long | $cuckoo dedup --no-progress --window $window | tail -1"
measure plain_pipe "$runs" "seq 1 $short | $cuckoo dedup --no-progress | tail -1"
measure window_pipe "$runs" "seq 1 $short | $cuckoo dedup --no-progress --window $window | tail -1"
measure plain_repeats "$runs" "$cuckoo dedup --no-progress --threads 1 $work/log.txt | tail -1"
measure window_repeats "$runs" "$cuckoo dedup --no-progress --window $window $work/log.txt | tail -1"
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const r = Object.fromEntries(rows.map((x) => [x.case, x]));
const window = Number(process.argv[2]);
console.log(JSON.stringify({ bench: "window", case: "targets",
  long_over_short_memory: +(r.window_long.peak_kib / r.window_short.peak_kib).toFixed(3),
  long_above_fixed_bytes_per_key: +(((r.window_long.peak_kib - r.fixed.peak_kib) * 1024) / window).toFixed(2),
  window_over_plain_pipe_time: +(r.window_pipe.seconds / r.plain_pipe.seconds).toFixed(2),
  window_over_plain_repeats_time: +(r.window_repeats.seconds / r.plain_repeats.seconds).toFixed(2) }));
' "$work/results" "$window"
