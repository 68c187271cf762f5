// What filters cost, from this library's real sizing: a cuckoo filter's bits per item are read from the
// byteLength of a filter the library builds for a target rate; a Bloom filter's are the textbook optimum.
import { CuckooFilter } from '../dist/esm/index.js';

/**
 * The false-positive probability of a b-slot, f-bit table at a load: a lookup compares 2b slots, each
 * holding a match with probability load / (2^f - 1). The core's expected_fp_rate, written the same way
 * (the browser tests compare the two).
 */
export function expectedFpRate(slots, bits, load) {
  return 1 - Math.exp(2 * slots * load * Math.log1p(-1 / (2 ** bits - 1)));
}

/** The rate a full b-slot, f-bit table is sized for: the core's full_load_fp_bound, 2b / (2^f - 1). */
export function fullLoadBound(slots, bits) {
  return (2 * slots) / (2 ** bits - 1);
}

/**
 * The bytes of a filter's packed table, as export() writes it (docs/FORMAT.md): N buckets of b f-bit
 * slots, or, semi-sorted, of a 12-bit code and four (f - 4)-bit remainders, rounded up to whole bytes.
 * byteLength is larger: it also counts the padding the library keeps after the table in memory.
 */
export function tableBytes(filter) {
  const bucketBits = filter.semiSorted ? 12 + 4 * (filter.fingerprintBits - 4) : filter.bucketSize * filter.fingerprintBits;
  return Math.ceil((filter.bucketCount * bucketBits) / 8);
}

/** Bits per item of an optimal Bloom filter for a false-positive rate: log2(1/p) / ln 2. */
export function bloomBitsPerItem(rate) {
  return Math.log2(1 / rate) / Math.LN2;
}

const SIZING_CAPACITY = 100000;
const measured = new Map();

/**
 * What this library spends per item for a target rate and bucket size (and semi-sorted buckets, which
 * need 4 slots): a filter with that fpRate is created and its table measured (bits / capacity), with the
 * fingerprint width the library picked.
 */
export function cuckooSizing(rate, slots, semiSorted = false) {
  const id = `${slots}:${rate}:${semiSorted}`;
  let result = measured.get(id);
  if (result === undefined) {
    const filter = new CuckooFilter({ capacity: SIZING_CAPACITY, fpRate: rate, bucketSize: slots, semiSorted });
    result = { bitsPerItem: (filter.byteLength * 8) / filter.capacity, fingerprintBits: filter.fingerprintBits };
    filter.dispose();
    measured.set(id, result);
  }
  return result;
}

export const RATE_RANGE = [1e-6, 0.2];

/** Rates spread evenly on a log scale over RATE_RANGE, largest first. */
export function rateGrid(points = 240) {
  const [low, high] = RATE_RANGE.map(Math.log);
  return Array.from({ length: points }, (_, i) => Math.exp(high - ((high - low) * i) / (points - 1)));
}

/**
 * Where b-slot cuckoo filters become smaller than an optimal Bloom filter, on the grid: `first`, the
 * largest rate at which the cuckoo filter is not larger, and `always`, the largest rate below which it is
 * never larger (between the two they alternate: fingerprints grow in whole bits). Undefined: never.
 */
export function crossover(slots, grid = rateGrid(), semiSorted = false) {
  const smaller = grid.map((rate) => cuckooSizing(rate, slots, semiSorted).bitsPerItem <= bloomBitsPerItem(rate));
  const first = grid.find((_, i) => smaller[i]);
  let always;
  for (let i = grid.length - 1; i >= 0 && smaller[i]; i--) always = grid[i];
  return { first, always };
}

/** The load a table of b-slot buckets reaches before inserts start to fail (Fan et al., 2014). */
export const LOAD_REACHED = { 2: 0.84, 4: 0.95, 8: 0.98 };

/**
 * The textbook estimate of a cuckoo filter's bits per item: a lookup compares 2b fingerprints, so f-bit
 * fingerprints give a rate of about 2b / 2^f, f = log2(1/ε) + log2(2b), stored at load α. Semi-sorted
 * buckets save one bit of each fingerprint.
 */
export function formulaBitsPerItem(rate, slots, semiSorted = false) {
  return (Math.log2(1 / rate) + Math.log2(2 * slots) - (semiSorted ? 1 : 0)) / LOAD_REACHED[slots];
}

/** Where that estimate meets an optimal Bloom filter's log2(1/ε) / ln 2: log2(1/ε) = (log2(2b) − s) / (α / ln 2 − 1). */
export function formulaCrossover(slots, semiSorted = false) {
  const bits = (Math.log2(2 * slots) - (semiSorted ? 1 : 0)) / (LOAD_REACHED[slots] / Math.LN2 - 1);
  return 2 ** -bits;
}
