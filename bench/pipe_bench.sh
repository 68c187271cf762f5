#!/usr/bin/env bash
# Unknown sizes: `cuckoo dedup` of LINES lines (default 20 million), UNIQUE of them distinct (default: all;
# LINES=10000000 UNIQUE=5000000: half repeats; INPUT=FILE takes that file instead), from the file and
# from a pipe (cat FILE | cuckoo dedup), by default (two threads for a large file, one for a pipe), with
# --threads 1 and, through the pipe, --threads 2, against sort -u and huniq on the same input. huniq is
# measured only when HUNIQ names its binary (it is built by hand, never shipped: docs/PERFORMANCE.md says
# how); give the one whose output is buffered. Each command runs RUNS times (default 3) and keeps its
# fastest run. Then the memory case: a file of DUP_LINES lines (default 5 million) with DUP_UNIQUE unique
# ones (default 500,000), and the filter bytes per unique line at the default rate (from --stats). One
# JSON line per case (with the md5 of its output), then the ratios, and whether every cuckoo case wrote
# what --threads 1 from the file wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
lines="${LINES:-20000000}"
unique="${UNIQUE:-$lines}"
runs="${RUNS:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cuckoo="node js/dist/esm/cli/cuckoo.js"
source bench/lib.sh

# generate N PATH [UNIQUE]: N log-like lines, UNIQUE distinct ones (default: all), in a scrambled order
# (i * an odd constant mod 2^32 never repeats below 2^32).
generate() {
  node -e '
const [n, path] = [Number(process.argv[1]), process.argv[2]];
const unique = Number(process.argv[3] || n);
const fs = require("fs");
const out = fs.openSync(path, "w");
let buffer = [];
for (let i = 0; i < n; i++) {
  const id = (Math.imul(i % unique, 2654435761) >>> 0).toString(16);
  buffer.push(`2026-11-25T08:00:00Z user-${id} GET /item/${i % unique}`);
  if (buffer.length === 100000) { fs.writeSync(out, buffer.join("\n") + "\n"); buffer = []; }
}
if (buffer.length) fs.writeSync(out, buffer.join("\n") + "\n");
' "$@"
}
if [ -n "${INPUT:-}" ]; then
  # A file of the caller's instead (INPUT=/tmp/log10.txt): LINES and UNIQUE are counted from it.
  ln -s "$(realpath "$INPUT")" "$work/unique.txt"
  lines=$(wc -l < "$INPUT")
  unique=$(LC_ALL=C sort -u "$INPUT" | wc -l)
else
  generate "$lines" "$work/unique.txt" "$unique"
fi
sync

# measure NAME COMMAND: the fastest of $runs runs of `bash -c COMMAND` (which reads $work/unique.txt).
measure() {
  local name="$1" command="$2"
  best_of "$runs" "$command" "$work/out" "$work/time"
  local best="$BEST" peak="$PEAK" written md5; written=$(wc -l < "$work/out"); md5=$(md5sum < "$work/out" | cut -c1-32)
  # peak_kib: the largest peak RSS of the runs (of the command's largest process: node, not cat).
  printf '{"bench":"pipe","case":"%s","lines":%s,"unique":%s,"runs":%s,"seconds":%s,"peak_kib":%s,"output_lines":%s,"md5":"%s"}\n' \
    "$name" "$lines" "$unique" "$runs" "$best" "$peak" "$written" "$md5" | tee -a "$work/results"
}

measure cuckoo_file "$cuckoo dedup --no-progress $work/unique.txt"
measure cuckoo_pipe "cat $work/unique.txt | $cuckoo dedup --no-progress"
measure cuckoo_file_one_thread "$cuckoo dedup --no-progress --threads 1 $work/unique.txt"
measure cuckoo_pipe_one_thread "cat $work/unique.txt | $cuckoo dedup --no-progress --threads 1"
measure cuckoo_pipe_two_threads "cat $work/unique.txt | $cuckoo dedup --no-progress --threads 2"
measure sort_u_pipe "cat $work/unique.txt | sort -u"
if [ -n "${HUNIQ:-}" ]; then
  measure huniq_file "$HUNIQ < $work/unique.txt"
  measure huniq_pipe "cat $work/unique.txt | $HUNIQ"
fi
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const s = Object.fromEntries(rows.map((r) => [r.case, r.seconds]));
const kib = Object.fromEntries(rows.map((r) => [r.case, r.peak_kib]));
const ratio = (a, b, of = s) => (of[a] && of[b] ? +(of[a] / of[b]).toFixed(2) : null);
console.log(JSON.stringify({ bench: "pipe", case: "ratios", pipe_over_file: ratio("cuckoo_pipe", "cuckoo_file"),
  one_thread_over_default_file: ratio("cuckoo_file_one_thread", "cuckoo_file"),
  one_thread_over_default_pipe: ratio("cuckoo_pipe_one_thread", "cuckoo_pipe"),
  default_memory_over_one_thread_file: ratio("cuckoo_file", "cuckoo_file_one_thread", kib),
  default_memory_over_one_thread_pipe: ratio("cuckoo_pipe", "cuckoo_pipe_one_thread", kib),
  sort_u_pipe_over_cuckoo_pipe: ratio("sort_u_pipe", "cuckoo_pipe"),
  huniq_file_over_cuckoo_file: ratio("huniq_file", "cuckoo_file"), huniq_pipe_over_cuckoo_pipe: ratio("huniq_pipe", "cuckoo_pipe"),
  huniq_pipe_over_cuckoo_pipe_two_threads: ratio("huniq_pipe", "cuckoo_pipe_two_threads"),
  huniq_memory_over_cuckoo_file: ratio("huniq_file", "cuckoo_file", kib),
  same_output_as_one_thread: rows.filter((r) => r.case.startsWith("cuckoo_")).every((r) => r.md5 === rows.find((o) => o.case === "cuckoo_file_one_thread").md5) }));
' "$work/results"

# Memory: most lines repeat; the filter starts small and doubles with the unique lines.
dup_lines="${DUP_LINES:-5000000}"
dup_unique="${DUP_UNIQUE:-500000}"
generate "$dup_lines" "$work/dups.txt" "$dup_unique"
$cuckoo dedup --no-progress --stats "$work/dups.txt" 2> "$work/stats" > "$work/out"
bytes=$(sed -n 's/.*slots, \([0-9]*\) bytes$/\1/p' "$work/stats")
unique=$(wc -l < "$work/out")
printf '{"bench":"pipe","case":"memory","lines":%s,"unique":%s,"filter_bytes":%s,"bytes_per_unique_line":%s}\n' \
  "$dup_lines" "$unique" "$bytes" "$(awk -v b="$bytes" -v u="$unique" 'BEGIN { printf "%.2f", b / u }')"
