// What a filter that doubles costs at each rate, through the package (wasm), against a filter sized for
// the same keys at the same rate, in the same run (issue 57's targets). For each fpRate r and growth t:
// { capacity: 1000, fpRate: r, growth: 2 } given 1000 t distinct string keys (addMany, batches of 8,192),
// and { capacity: 1000 t, fpRate: r } given the same. One JSON line per (r, t): the slot width, doublings,
// bits per item of both and their ratio, the false-positive rate measured on 1M absent keys (hasMany)
// and the rate the filter expects, keys missing (0: no false negative), and lookups of present and absent
// keys in batches and in single calls (has), as ratios grown / sized (best of REPEATS passes, default 3).
// Then, per rate, adds of new keys into a table that has doubled 4 times (from a capacity of 100,000, so
// that the adds take long enough to time) against adds into a sized filter at the same load (the same
// slots, filled to the same share), best of REPEATS.
//   node bench/growth_rates_bench.mjs [--rates 0.01,0.001,0.0001] [--times 10,100,1000,10000] [--module path]
//     [--adds-only]
// --module: another build's js/dist/esm/index.js, to measure before and after with one script.
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rates = arg('--rates', '0.01,0.001,0.0001').split(',').map(Number);
const times = arg('--times', '10,100,1000,10000').split(',').map(Number);
const modulePath = arg('--module', new URL('../js/dist/esm/index.js', import.meta.url).pathname);
const { ready, CuckooFilter } = await import(pathToFileURL(modulePath).href);
const FIRST = 1000;
const ADDS_FIRST = 100_000;
const BATCH = 8192;
const ABSENT = 1_000_000;
const SINGLE = 200_000; // has() calls a pass, over at most this many keys
const REPEATS = Number(process.env.REPEATS ?? 3);

await ready();

const keysFrom = (prefix, start, count) => Array.from({ length: count }, (_, i) => `${prefix}${start + i}`);
const now = () => process.hrtime.bigint();
const seconds = (start) => Number(now() - start) / 1e9;
const trues = (answers) => answers.reduce((sum, yes) => sum + (yes ? 1 : 0), 0);

function addAll(f, prefix, n) {
  for (let i = 0; i < n; i += BATCH) f.addMany(keysFrom(prefix, i, Math.min(BATCH, n - i)));
}
// Seconds for hasMany over n keys of `prefix` (key arrays made outside the timing), and the trues.
function batchLookups(f, prefix, n) {
  let spent = 0;
  let found = 0;
  for (let i = 0; i < n; i += BATCH) {
    const keys = keysFrom(prefix, i, Math.min(BATCH, n - i));
    const start = now();
    found += trues(f.hasMany(keys));
    spent += seconds(start);
  }
  return { spent, found };
}
// Seconds for SINGLE has() calls, over `keys` as many times as that takes (at 10x there are 10,000 keys: one
// pass of them was a millisecond, and the ratios of such passes swung from 0.33 to 0.63 between runs).
function singleLookups(f, keys) {
  const rounds = Math.ceil(SINGLE / keys.length);
  const start = now();
  let found = 0;
  for (let r = 0; r < rounds; r++) for (const k of keys) found += f.has(k) ? 1 : 0;
  return { spent: seconds(start), found };
}
// The best of REPEATS passes of fn on the grown and on the sized filter, passes alternating (after one
// pass of each untimed): measured one filter after the other, the first paid for the code's warming up,
// and the ratios for single calls came out at half their value.
const bestOfBoth = (fn, grown, sized) => {
  fn(grown);
  fn(sized);
  let g;
  let s;
  for (let r = 0; r < REPEATS; r++) {
    // Which goes first alternates too.
    const [a, b] = r % 2 === 0 ? [fn(grown), fn(sized)] : [fn(sized), fn(grown)].reverse();
    if (g === undefined || a.spent < g.spent) g = a;
    if (s === undefined || b.spent < s.spent) s = b;
  }
  return { g, s };
};
const round = (x, digits = 3) => +x.toFixed(digits);

for (const rate of rates) {
  for (const t of args.includes('--adds-only') ? [] : times) {
    const n = FIRST * t;
    const grown = new CuckooFilter({ capacity: FIRST, fpRate: rate, growth: 2 });
    const sized = new CuckooFilter({ capacity: n, fpRate: rate });
    addAll(grown, 'key-', n);
    addAll(sized, 'key-', n);
    const missing = n - batchLookups(grown, 'key-', n).found;
    const falsePositives = batchLookups(grown, 'absent-', ABSENT).found;
    const presentKeys = Array.from({ length: Math.min(n, SINGLE) }, (_, i) => `key-${(i * 7919) % n}`);
    const absentKeys = keysFrom('none-', 0, Math.min(n, SINGLE));
    const p = bestOfBoth((f) => batchLookups(f, 'key-', Math.min(n, 2_000_000)), grown, sized);
    const a = bestOfBoth((f) => batchLookups(f, 'absent-', Math.min(n, 2_000_000)), grown, sized);
    const sp = bestOfBoth((f) => singleLookups(f, presentKeys), grown, sized);
    const sa = bestOfBoth((f) => singleLookups(f, absentKeys), grown, sized);
    const g = { p: p.g, a: a.g, sp: sp.g, sa: sa.g };
    const s = { p: p.s, a: a.s, sp: sp.s, sa: sa.s };
    const bitsGrown = (grown.byteLength * 8) / n;
    const bitsSized = (sized.byteLength * 8) / n;
    console.log(
      JSON.stringify({
        bench: 'growth_rates', fp_rate: rate, grown_times: t, items: n, slot_bits: grown.fingerprintBits,
        doublings: grown.doublings, bits_per_item: round(bitsGrown, 2), sized_bits_per_item: round(bitsSized, 2),
        bits_ratio: round(bitsGrown / bitsSized), measured_fpr: round(falsePositives / ABSENT, 6),
        expected_fpr: Number(grown.expectedFpRate.toPrecision(3)), missing,
        // speed ratios: the sized filter's time over the grown one's (above 1: the grown one is faster)
        present_batch: round(s.p.spent / g.p.spent), absent_batch: round(s.a.spent / g.a.spent),
        present_single: round(s.sp.spent / g.sp.spent), absent_single: round(s.sa.spent / g.sa.spent),
      }),
    );
    grown.dispose();
    sized.dispose();
  }
  // Adds of new keys after 4 doublings: the grown table at the load it has then, against a sized filter
  // of the same slots filled to the same load; then each takes the same 20% more new keys (each pass on
  // fresh filters of that state: an add changes it).
  let grownBest = Infinity;
  let sizedBest = Infinity;
  let shape;
  for (let r = 0; r < REPEATS; r++) {
    const grown = new CuckooFilter({ capacity: ADDS_FIRST, fpRate: rate, growth: 2 });
    let n = 0;
    while (grown.doublings < 4) {
      grown.addMany(keysFrom('key-', n, BATCH));
      n += BATCH;
    }
    const slots = grown.bucketCount * 4;
    const sized = new CuckooFilter({ capacity: Math.floor(slots * 0.95), fpRate: rate });
    addAll(sized, 'key-', grown.size);
    const more = Math.floor(slots * 0.2);
    const timeAdds = (f) => {
      let spent = 0;
      for (let i = 0; i < more; i += BATCH) {
        const keys = keysFrom('more-', i, Math.min(BATCH, more - i));
        const start = now();
        f.addMany(keys);
        spent += seconds(start);
      }
      return spent;
    };
    // Which goes first alternates.
    const [g, s] = r % 2 === 0 ? [timeAdds(grown), timeAdds(sized)] : [timeAdds(sized), timeAdds(grown)].reverse();
    grownBest = Math.min(grownBest, g);
    sizedBest = Math.min(sizedBest, s);
    shape = { load: round(grown.size / slots), new_keys: more, doublings_after: grown.doublings };
    grown.dispose();
    sized.dispose();
  }
  console.log(
    JSON.stringify({
      bench: 'growth_rates_adds_after_4_doublings', fp_rate: rate, ...shape, adds_ratio: round(sizedBest / grownBest),
    }),
  );
}
