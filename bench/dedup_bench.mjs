// The line-dedup engine against the wasm core on the same keys, and its time against a line's length.
// Usage: node bench/dedup_bench.mjs FILE   (bench/cli_bench.sh passes its generated file)
// Prints one JSON line per case:
// - "engine": LineDeduper over the file's bytes in 1 MiB blocks (already in memory: no reading, no
//   writing), lines/s;
// - "core addMany": the same lines already split and packed in the wasm heap, addMany in batches of 4096
//   on a filter of the engine's plan (what the engine's own splitting, add-if-absent and gathering
//   compare with), lines/s, and the ratio engine / core;
// - "long line": one line of 64 MiB and one of 256 MiB without a newline until the end, pushed in 1 MiB
//   blocks: the fastest of three runs each, after a first 256 MiB run, and their ratio (4 means linear).
import { readFileSync } from 'node:fs';
import { ready, CuckooFilter, LineDeduper } from '../js/dist/esm/node.js';

const BLOCK = 1 << 20;
const BATCH = 4096;
const file = process.argv[2];
if (!file) throw new Error('usage: node bench/dedup_bench.mjs FILE');
await ready();
const data = readFileSync(file);
const line = (o) => console.log(JSON.stringify({ bench: 'dedup', ...o }));
const seconds = (f) => {
  const start = process.hrtime.bigint();
  const result = f();
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, result };
};

function engine() {
  const d = new LineDeduper({ inputBytes: data.length });
  let written = 0;
  const t = seconds(() => {
    for (let at = 0; at < data.length; at += BLOCK) written += d.push(data.subarray(at, at + BLOCK)).length;
    written += d.end().length;
  });
  const stats = d.stats;
  d.dispose();
  return { seconds: t.seconds, lines: stats.lines, unique: stats.unique, written, plan: stats.plan };
}

function coreAddMany(plan) {
  const filter = new CuckooFilter({ capacity: plan.capacity, fpRate: plan.fpRate, growth: plan.growth, maxSubFilters: plan.maxSubFilters });
  const { m, handle } = /** @type {any} */ (filter); // the module behind the API, which users never need
  // The lines without their endings, packed as the batch calls take them (the split is not timed).
  const offsets = [0];
  const parts = [];
  let total = 0;
  for (let start = 0; start < data.length;) {
    let end = data.indexOf(10, start);
    if (end === -1) end = data.length;
    const stop = end > start && data[end - 1] === 13 ? end - 1 : end;
    parts.push(data.subarray(start, stop));
    total += stop - start;
    offsets.push(total);
    start = end + 1;
  }
  const n = parts.length;
  const bytes = m._malloc(total) >>> 0;
  const offs = m._malloc(offsets.length * 4) >>> 0;
  const results = m._malloc(n) >>> 0;
  let at = bytes;
  for (const p of parts) {
    m.HEAPU8.set(p, at);
    at += p.length;
  }
  new Uint32Array(m.HEAPU8.buffer, offs, offsets.length).set(offsets);
  const t = seconds(() => {
    for (let i = 0; i < n; i += BATCH) m.addMany(handle, bytes, offs + i * 4, Math.min(BATCH, n - i), results + i);
  });
  for (const address of [bytes, offs, results]) m._free(address);
  filter.dispose();
  return { seconds: t.seconds, lines: n };
}

function longLine(mib) {
  const block = new Uint8Array(BLOCK).fill(0x61);
  const d = new LineDeduper({ capacity: 10 });
  const t = seconds(() => {
    for (let i = 0; i < mib; i++) d.push(block);
    d.push(new Uint8Array([10]));
    return d.end();
  });
  d.dispose();
  return t.seconds;
}

// Warm-up (the wasm tiers up while it runs), then the measured runs, alternating.
engine();
const runs = Number(process.env.BENCH_REPEATS ?? 3);
let best;
let bestCore;
for (let r = 0; r < runs; r++) {
  const e = engine();
  if (!best || e.seconds < best.seconds) best = e;
  const c = coreAddMany(e.plan);
  if (!bestCore || c.seconds < bestCore.seconds) bestCore = c;
}
line({ case: 'engine (LineDeduper, 1 MiB blocks in memory)', lines: best.lines, unique: best.unique, seconds: best.seconds,
  lines_per_s: Math.round(best.lines / best.seconds) });
line({ case: 'wasm core addMany, the same lines packed in the heap', lines: bestCore.lines, seconds: bestCore.seconds,
  lines_per_s: Math.round(bestCore.lines / bestCore.seconds), engine_over_core: +(bestCore.seconds / best.seconds).toFixed(3) });
// The 256 MiB line once first: growing the heap for the line's copy (and touching its fresh pages) went to
// whichever line came first, and made the 64 MiB one take 0.2 s instead of 0.09 in some runs.
longLine(256);
const fastest = (mib) => Math.min(...Array.from({ length: 3 }, () => longLine(mib)));
const short = fastest(64);
const long = fastest(256);
line({ case: 'one long line, 64 MiB then 256 MiB, in 1 MiB blocks', seconds_64mib: short, seconds_256mib: long,
  ratio: +(long / short).toFixed(2) });
