#!/usr/bin/env bash
# Deduplicating a generated file of LINES lines (default 10 million), about half of them duplicates:
# `cuckoo dedup` against awk '!seen[$0]++', sort -u, and the Node script a JavaScript user would write
# with a Set. One JSON line per tool: seconds, lines/s, peak resident memory (GNU time), output lines;
# then a line of ratios (cuckoo over each), and bench/dedup_bench.mjs on the same file (the engine
# against the wasm core's addMany on the same keys, and a 64 MiB against a 256 MiB line), and two dedup
# features over plain dedup (keys from a field, a second --seen run), and the CSV cases (the same lines as
# CSV: plain dedup of that file, -t, -f 2 and --csv -f user, as ratios over the plain run; every fourth
# record has a quoted field with a comma in it). HUNIQ=path/to/huniq adds huniq (stdin to stdout). The two fast
# tools, cuckoo and sort -u, run FAST_RUNS times each (default 3) and keep their fastest run: a single
# run of either varied by 10% on the 2-core machine; awk and the Set script run once (20 s each).
set -euo pipefail
cd "$(dirname "$0")/.."
lines="${LINES:-10000000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
input="$work/input.txt"

# Half the lines are new ids, half repeat an earlier one, in random order.
node -e '
const n = Number(process.argv[1]);
const fs = require("fs");
const out = fs.openSync(process.argv[2], "w");
let seed = 12345;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
let next = 0, buffer = [];
for (let i = 0; i < n; i++) {
  const id = next === 0 || random() < 0.5 ? next++ : Math.floor(random() * next);
  buffer.push(`2026-11-22T08:00:00Z user-${id} GET /item/${id * 7919 % 100003}`);
  if (buffer.length === 100000) { fs.writeSync(out, buffer.join("\n") + "\n"); buffer = []; }
}
if (buffer.length) fs.writeSync(out, buffer.join("\n") + "\n");
' "$lines" "$input"

# The generated file's pages are written back now, not during the first tool's run (which was cuckoo's).
sync

cat > "$work/set.js" <<'JS'
const seen = new Set();
const rl = require('readline').createInterface({ input: require('fs').createReadStream(process.argv[2]) });
rl.on('line', (line) => { if (!seen.has(line)) { seen.add(line); process.stdout.write(line + '\n'); } });
JS

fast_runs="${FAST_RUNS:-3}"

# measure NAME RUNS COMMAND...: the fastest of RUNS runs, and the highest peak memory of them.
measure() {
  local name="$1" runs="$2"; shift 2
  local seconds="" kilobytes=0 s kb
  for ((run = 0; run < runs; run++)); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" < "$input" > "$work/out"
    read -r s kb < "$work/time"
    if [ -z "$seconds" ] || awk -v a="$s" -v b="$seconds" 'BEGIN { exit !(a < b) }'; then seconds="$s"; fi
    if [ "$kb" -gt "$kilobytes" ]; then kilobytes="$kb"; fi
  done
  local written; written=$(wc -l < "$work/out")
  node -e 'const [name, runs, s, kb, lines, out] = process.argv.slice(1);
    console.log(JSON.stringify({ bench: "cli", case: name, lines: +lines, runs: +runs, seconds: +s,
      lines_per_s: Math.round(lines / s), peak_rss_mb: Math.round(kb / 1024), output_lines: +out }));' \
    "$name" "$runs" "$seconds" "$kilobytes" "$lines" "$written" | tee -a "$work/results"
}

export LC_ALL=C
measure "cuckoo dedup" "$fast_runs" node js/dist/esm/cli/cuckoo.js dedup "$input"
measure "awk '!seen[\$0]++'" 1 awk '!seen[$0]++' "$input"
measure "sort -u" "$fast_runs" sort -u "$input"
measure "node Set script" 1 node "$work/set.js" "$input"
if [ -n "${HUNIQ:-}" ]; then measure "huniq" "$fast_runs" "$HUNIQ"; fi
node -e 'const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
  const [cuckoo, ...others] = rows;
  const ratios = Object.fromEntries(others.map((r) => [r.case, { speed: +(cuckoo.lines_per_s / r.lines_per_s).toFixed(2),
    memory: +(cuckoo.peak_rss_mb / r.peak_rss_mb).toFixed(3) }]));
  console.log(JSON.stringify({ bench: "cli", case: "ratios: cuckoo dedup over each (speed, peak memory)", ...ratios }));' "$work/results"
# The dedup features against plain dedup of the same file: one thread, keys from a field (the user id), and a second
# run with --seen over the same file (its state made by a first run, not measured), which reads and
# rewrites the state file.
: > "$work/features"
cp "$work/results" "$work/all"
# The count of the file's distinct keys on one thread, against the default (a thread a 128 MiB, up to the
# cores): the same output, the time of the count's share.
measure "cuckoo dedup --threads 1" "$fast_runs" node js/dist/esm/cli/cuckoo.js dedup --threads 1 "$input" | tee -a "$work/features" >/dev/null
measure "cuckoo dedup -t ' ' -f 2" "$fast_runs" node js/dist/esm/cli/cuckoo.js dedup -t ' ' -f 2 "$input" | tee -a "$work/features" >/dev/null
node js/dist/esm/cli/cuckoo.js dedup --seen "$work/state.cuckoo" "$input" > /dev/null
measure "cuckoo dedup --seen (second run)" "$fast_runs" node js/dist/esm/cli/cuckoo.js dedup --seen "$work/state.cuckoo" "$input" |
  tee -a "$work/features" >/dev/null
cat "$work/features"
node -e 'const fs = require("fs");
  const plain = JSON.parse(fs.readFileSync(process.argv[1], "utf8").trim().split("\n")[0]);
  const rows = fs.readFileSync(process.argv[2], "utf8").trim().split("\n").map(JSON.parse);
  console.log(JSON.stringify({ bench: "cli", case: "ratios: each feature over plain cuckoo dedup (speed)",
    ...Object.fromEntries(rows.map((r) => [r.case, +(r.lines_per_s / plain.lines_per_s).toFixed(2)])) }));' "$work/all" "$work/features"
node bench/dedup_bench.mjs "$input"
# CSV: the same lines as fields, a header, and every fourth record with a quoted field holding a comma.
awk -v OFS=, 'BEGIN { print "time,user,method,path" } { print $1, $2, $3, (NR % 4 == 0 ? "\"" $4 ", v2\"" : $4) }' "$input" > "$work/input.csv"
mv "$work/input.csv" "$input"
measure "csv: cuckoo dedup (plain, the baseline of the csv ratios)" "$fast_runs" node js/dist/esm/cli/cuckoo.js dedup "$input" | tee -a "$work/csv" >/dev/null
measure "csv: cuckoo dedup -t, -f 2" "$fast_runs" node js/dist/esm/cli/cuckoo.js dedup -t, -f 2 "$input" | tee -a "$work/csv" >/dev/null
measure "csv: cuckoo dedup --csv -f user" "$fast_runs" node js/dist/esm/cli/cuckoo.js dedup --csv -f user "$input" | tee -a "$work/csv" >/dev/null
measure "csv: cuckoo dedup --csv (whole records)" "$fast_runs" node js/dist/esm/cli/cuckoo.js dedup --csv "$input" | tee -a "$work/csv" >/dev/null
cat "$work/csv"
node -e 'const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
  const [plain, ...others] = rows;
  console.log(JSON.stringify({ bench: "cli", case: "ratios: each csv case over plain cuckoo dedup of the csv file (speed)",
    ...Object.fromEntries(others.map((r) => [r.case, +(r.lines_per_s / plain.lines_per_s).toFixed(2)])) }));' "$work/csv"
