// Growth through the package (wasm), as a user grows a filter: from 100,000 keys at fpRate 0.001 to 10x,
// 30x and 100x that, in place (growth: 2) and as a chain (growth: 2, maxSubFilters: 16), against a
// filter sized right for the same keys, in the same run. String keys in batches (addMany / hasMany of
// 8,192). One JSON line per filter: adds, lookups of present and of absent keys (million keys/s, best of
// REPEATS lookup passes, default 3), bits per item, the measured false-positive rate, and how many of
// the other half of the keys went missing after deleting half; then a line of ratios per size.
//   node bench/growth_bench.mjs [--sizes 10,30,100]
import { ready, CuckooFilter } from '../js/dist/esm/index.js';

const args = process.argv.slice(2);
const sizesArg = args[args.indexOf('--sizes') + 1];
const times = args.includes('--sizes') ? sizesArg.split(',').map(Number) : [10, 30, 100];
const INITIAL = 100_000;
const BATCH = 8192;
const REPEATS = Number(process.env.REPEATS ?? 3);

await ready();

const keysFrom = (prefix, start, count) => Array.from({ length: count }, (_, i) => `${prefix}${start + i}`);
const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;

// Runs fn over all n keys of `prefix` in batches; returns seconds and what fn counted.
function pass(n, prefix, fn) {
  let counted = 0;
  let spent = 0;
  for (let i = 0; i < n; i += BATCH) {
    const keys = keysFrom(prefix, i, Math.min(BATCH, n - i));
    const start = process.hrtime.bigint();
    counted += fn(keys);
    spent += seconds(start);
  }
  return { spent, counted };
}

const trues = (answers) => answers.reduce((sum, yes) => sum + (yes ? 1 : 0), 0);

function measure(kind, n, options) {
  const f = new CuckooFilter(options);
  const add = pass(n, 'key-', (keys) => trues(f.addMany(keys)));
  let present = Infinity;
  let absent = Infinity;
  let found = 0;
  let falsePositives = 0;
  for (let r = 0; r < REPEATS; r++) {
    const p = pass(n, 'key-', (keys) => trues(f.hasMany(keys)));
    const a = pass(n, 'absent-', (keys) => trues(f.hasMany(keys)));
    present = Math.min(present, p.spent);
    absent = Math.min(absent, a.spent);
    found = p.counted;
    falsePositives = a.counted;
  }
  const bytes = f.byteLength;
  const tables = f.growsInPlace ? f.doublings : f.subFilterCount;
  let lost = null;
  if (kind !== 'sized_right') {
    // Delete the even keys, then look for the odd ones.
    for (let i = 0; i < n; i += 2 * BATCH) {
      f.deleteMany(keysFrom('key-', i, Math.min(2 * BATCH, n - i)).filter((_, j) => j % 2 === 0));
    }
    lost = 0;
    for (let i = 0; i < n; i += 2 * BATCH) {
      const odd = keysFrom('key-', i, Math.min(2 * BATCH, n - i)).filter((_, j) => j % 2 === 1);
      lost += odd.length - trues(f.hasMany(odd));
    }
  }
  f.dispose();
  const result = {
    bench: 'growth', kind, initial_capacity: options.capacity, items: n, added: add.counted, found,
    tables_or_doublings: tables, add_mops: +(n / add.spent / 1e6).toFixed(2),
    present_mops: +(n / present / 1e6).toFixed(2), absent_mops: +(n / absent / 1e6).toFixed(2),
    bits_per_item: +((bytes * 8) / n).toFixed(3), fpr: +(falsePositives / n).toFixed(6), lost_after_deleting_half: lost,
  };
  console.log(JSON.stringify(result));
  return result;
}

for (const t of times) {
  const n = INITIAL * t;
  const sized = measure('sized_right', n, { capacity: n, fpRate: 0.001 });
  const inPlace = measure('in_place', n, { capacity: INITIAL, fpRate: 0.001, growth: 2 });
  const chain = measure('chain', n, { capacity: INITIAL, fpRate: 0.001, growth: 2, maxSubFilters: 16 });
  const ratio = (x, y) => +(x / y).toFixed(2);
  console.log(JSON.stringify({
    bench: 'growth', case: 'ratios', grown: t,
    in_place_present_vs_sized: ratio(inPlace.present_mops, sized.present_mops),
    in_place_absent_vs_sized: ratio(inPlace.absent_mops, sized.absent_mops),
    in_place_adds_time_vs_sized: ratio(sized.add_mops, inPlace.add_mops),
    chain_present_vs_sized: ratio(chain.present_mops, sized.present_mops),
    chain_absent_vs_sized: ratio(chain.absent_mops, sized.absent_mops),
  }));
}
