// The page's filter parameters: read and checked from the form (a bad field is named, and nothing is
// reset), written back, and turned into a real filter with exactly that many buckets.
import { CuckooFilter } from '../dist/esm/index.js';
import { $ } from './text.js';

export const LIMITS = { buckets: [8, 64], bits: [4, 16], kicks: [0, 500] };
const MAX_SEED = (1n << 64n) - 1n;

/**
 * A whole number from a form field, or an error naming the field.
 * @param {string} id
 * @param {string} name
 * @param {number[]} range [min, max]
 * @returns {{ value?: number | bigint, error?: string }}
 */
function integerField(id, name, [min, max]) {
  const text = $(id).value.trim();
  if (!/^\d+$/.test(text)) return { error: `${name} must be a whole number from ${min} to ${max}${text === '' ? ' (it is empty)' : ''}.` };
  const value = Number(text);
  if (value < min || value > max) return { error: `${name} must be from ${min} to ${max}, not ${text}.` };
  return { value };
}

/** The parameters in the form, or { error, field } naming the first field that is not valid. */
export function readParams() {
  /** @type {[string, { value?: number | bigint, error?: string }][]} */
  const fields = [
    ['param-buckets', integerField('param-buckets', 'Buckets', LIMITS.buckets)],
    ['param-bits', integerField('param-bits', 'Fingerprint bits', LIMITS.bits)],
    ['param-kicks', integerField('param-kicks', 'Max kicks', LIMITS.kicks)],
  ];
  const seedText = $('param-seed').value.trim();
  // Seeds are 64-bit: read as a BigInt, so 2^53 + 1 stays 2^53 + 1.
  const seed = /^\d+$/.test(seedText) ? BigInt(seedText) : undefined;
  fields.push(['param-seed', seed === undefined || seed > MAX_SEED
    ? { error: `Seed must be a whole number from 0 to 2^64 − 1 (18446744073709551615)${seedText === '' ? ' (it is empty)' : ''}.` }
    : { value: seed }]);
  for (const [id, result] of fields) {
    $(id).setAttribute('aria-invalid', result.error ? 'true' : 'false');
  }
  const bad = fields.find(([, result]) => result.error);
  if (bad) return { error: bad[1].error, field: bad[0] };
  const [buckets, bits, maxKicks] = fields.slice(0, 3).map(([, result]) => Number(result.value));
  const seedValue = fields[3][1].value;
  if (buckets % 2 !== 0) {
    $('param-buckets').setAttribute('aria-invalid', 'true');
    return { error: `Buckets must be even (the second-bucket formula needs an even count), not ${buckets}.`, field: 'param-buckets' };
  }
  const slots = Number($('param-slots').value);
  const semiSorted = $('param-semi').checked;
  if (semiSorted && slots !== 4) return { error: `Semi-sorted buckets have 4 slots, not ${slots}.`, field: 'param-slots' };
  if (semiSorted && bits < 5) {
    $('param-bits').setAttribute('aria-invalid', 'true');
    return { error: `Semi-sorted buckets need fingerprints of 5 bits or more, not ${bits}.`, field: 'param-bits' };
  }
  return { params: { buckets, slots, bits, seed: seedValue, maxKicks, semiSorted } };
}

export function writeParams(params) {
  $('param-buckets').value = String(params.buckets);
  $('param-slots').value = String(params.slots);
  $('param-bits').value = String(params.bits);
  $('param-seed').value = String(params.seed);
  $('param-kicks').value = String(params.maxKicks);
  $('param-semi').checked = Boolean(params.semiSorted);
  for (const id of ['param-buckets', 'param-bits', 'param-seed', 'param-kicks']) $(id).setAttribute('aria-invalid', 'false');
}

/**
 * The API sizes filters by capacity; the page wants an exact bucket count, so it searches the capacity
 * whose table has that many buckets (the count never decreases as the capacity grows, and a capacity of
 * buckets x slots already needs more buckets, so the search's steps start there).
 */
export function filterWithBuckets({ buckets, slots, bits, seed, maxKicks, semiSorted = false }) {
  const options = (capacity) => ({ capacity, bucketSize: slots, fingerprintBits: bits, seed, maxKicks, semiSorted });
  const bucketsFor = (capacity) => {
    const probe = new CuckooFilter(options(capacity));
    const count = probe.bucketCount;
    probe.dispose();
    return count;
  };
  // The largest capacity with at most that many buckets: what such a table is sized to hold.
  let capacity = 1;
  for (let step = buckets * slots; step >= 1; step = Math.floor(step / 2)) {
    if (bucketsFor(capacity + step) <= buckets) capacity += step;
  }
  const filter = new CuckooFilter(options(capacity));
  if (filter.bucketCount !== buckets) {
    filter.dispose();
    throw new Error(`no capacity gives exactly ${buckets} buckets of ${slots}`);
  }
  return filter;
}
