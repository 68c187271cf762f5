// Scale in one Node process: a filter of N keys (default 100 million) built through addMany, its bytes
// per item, lookup rate, export and import time and throughput, and peak memory; then (with --max) the
// largest filter one wasm instance holds, 1 billion keys at 12-bit fingerprints (12.6 bits per key).
// One JSON line per case. Not part of npm test: it takes minutes and gigabytes.
//   node --expose-gc bench/scale_bench.mjs [N] [--max]
import { ready, CuckooFilter } from '../js/dist/esm/index.js';

const args = process.argv.slice(2);
const n = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000_000);
const withMax = args.includes('--max');
const BATCH = 8192;

const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;
let peakRss = 0;
const sample = () => { peakRss = Math.max(peakRss, process.memoryUsage().rss); };
const sampler = setInterval(sample, 100);

// Keys are made batch by batch, so the test holds no array of n strings.
function keysFrom(start, count, prefix) {
  const keys = new Array(count);
  for (let i = 0; i < count; i++) keys[i] = `${prefix}${start + i}`;
  return keys;
}

function run(label, items, options) {
  peakRss = 0;
  let f = new CuckooFilter({ capacity: items, ...options });
  let start = process.hrtime.bigint();
  let failed = 0;
  for (let i = 0; i < items; i += BATCH) {
    for (const ok of f.addMany(keysFrom(i, Math.min(BATCH, items - i), 'k'))) failed += ok ? 0 : 1;
    if ((i / BATCH) % 64 === 0) sample();
  }
  const build = seconds(start);
  const lookups = Math.min(items, 10_000_000);
  start = process.hrtime.bigint();
  let missing = 0;
  for (let i = 0; i < lookups; i += BATCH) for (const ok of f.hasMany(keysFrom(i, Math.min(BATCH, lookups - i), 'k'))) missing += ok ? 0 : 1;
  const lookup = seconds(start);
  start = process.hrtime.bigint();
  let falsePositives = 0;
  for (let i = 0; i < lookups; i += BATCH) for (const ok of f.hasMany(keysFrom(i, Math.min(BATCH, lookups - i), 'absent'))) falsePositives += ok ? 1 : 0;
  const negative = seconds(start);
  const byteLength = f.byteLength;
  const size = f.size;
  start = process.hrtime.bigint();
  const bytes = f.export();
  const exportSeconds = seconds(start);
  sample();
  // Free the original first: the wasm heap (4 GiB) must hold the import's copy of the bytes and its table.
  f.dispose();
  start = process.hrtime.bigint();
  f = CuckooFilter.import(bytes);
  const importSeconds = seconds(start);
  sample();
  const sameSize = f.size === size;
  const stillThere = f.hasMany(keysFrom(0, 1000, 'k')).every(Boolean);
  f.dispose();
  console.log(JSON.stringify({
    bench: 'scale', case: label, items, failed_adds: failed, build_s: +build.toFixed(2),
    add_ops_s: Math.round(items / build), bits_per_item: +((byteLength * 8) / items).toFixed(3),
    lookup_ops_s: Math.round(lookups / lookup), negative_lookup_ops_s: Math.round(lookups / negative),
    false_negatives: missing, fpr: falsePositives / lookups, export_bytes: bytes.length,
    export_s: +exportSeconds.toFixed(2), export_mb_s: Math.round(bytes.length / 1e6 / exportSeconds),
    import_s: +importSeconds.toFixed(2), import_mb_s: Math.round(bytes.length / 1e6 / importSeconds),
    import_round_trip_ok: sameSize && stillThere, peak_rss_mb: Math.round(peakRss / 2 ** 20),
  }));
}

await ready();
run(`${n} keys, fpRate 0.001`, n, { fpRate: 0.001 });
if (withMax) run('1e9 keys, 12-bit fingerprints (largest in one wasm instance)', 1_000_000_000, { fingerprintBits: 12 });
clearInterval(sampler);
