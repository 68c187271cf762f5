// Semi-sorted buckets through the TypeScript API: the option and its errors, the space it saves, the
// export flag, and what the demo reads (slots in ascending order, the bucket's code, the trace).
import { CuckooFilter, ready } from '../../js/src/index';
import { errorOf } from './helpers';

beforeAll(() => ready());

const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

test('semiSorted: one bit less per fingerprint at the same width and false-positive bound', () => {
  using plain = new CuckooFilter({ capacity: 1_000_000, fpRate: 0.001 });
  using sorted = new CuckooFilter({ capacity: 1_000_000, fpRate: 0.001, semiSorted: true });
  expect(plain.semiSorted).toBe(false);
  expect(sorted.semiSorted).toBe(true);
  expect(sorted.fingerprintBits).toBe(plain.fingerprintBits);
  const tableBits = (f: CuckooFilter) => (f.export().length - 56 - 8) * 8;
  expect(tableBits(plain) / 1_000_000).toBeCloseTo(13 / 0.95, 2); // 13.68 bits per item
  expect(tableBits(sorted) / 1_000_000).toBeCloseTo(12 / 0.95, 2); // 12.63
  expect(sorted.toString()).toContain('semiSorted: true');
  expect(plain.toString()).not.toContain('semiSorted');
});

test('semiSorted errors name the option and change nothing', () => {
  expect(errorOf(() => new CuckooFilter({ capacity: 10, semiSorted: 1 as unknown as boolean }))).toBe(
    'INVALID_ARGUMENT: semiSorted must be true or false, got the number 1',
  );
  expect(errorOf(() => new CuckooFilter({ capacity: 10, semiSorted: true, bucketSize: 8 }))).toBe(
    'INVALID_ARGUMENT: semiSorted needs bucketSize 4, got the number 8',
  );
  expect(errorOf(() => new CuckooFilter({ capacity: 10, semiSorted: true, fingerprintBits: 4 }))).toBe(
    'INVALID_ARGUMENT: semiSorted needs fingerprintBits from 5 to 32, got the number 4',
  );
  // A rate that 4-bit fingerprints meet gets 5 bits with semi-sorted buckets.
  using coarse = new CuckooFilter({ capacity: 10, fpRate: 0.6, semiSorted: true });
  expect(coarse.fingerprintBits).toBe(5);
});

test('adds, lookups, deletes, batches and a failed add that changes nothing', () => {
  using f = new CuckooFilter({ capacity: 300, fingerprintBits: 11, semiSorted: true, maxKicks: 100 });
  const added = keys('s', 400).filter((k) => f.add(k));
  expect(added.length).toBeGreaterThanOrEqual(285);
  expect(added.length).toBeLessThan(400);
  expect(f.hasMany(added).every(Boolean)).toBe(true);
  const before = f.export();
  expect(f.add('one more key, no room')).toBe(false);
  expect(f.export()).toEqual(before);
  expect(f.deleteMany(added.slice(0, 100)).every(Boolean)).toBe(true);
  expect(f.size).toBe(added.length - 100);
  expect(f.hasMany(added.slice(100)).every(Boolean)).toBe(true);
  const ints = BigUint64Array.from({ length: 50 }, (_, i) => BigInt(i) * 977n);
  expect(f.addMany(ints).every(Boolean)).toBe(true);
  expect(f.hasMany(ints).every(Boolean)).toBe(true);
});

test('export and import keep the flag; merging a plain and a semi-sorted filter is refused', () => {
  using a = new CuckooFilter({ capacity: 1000, fpRate: 0.01, semiSorted: true });
  a.addMany(keys('a', 600));
  const bytes = a.export();
  expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true)).toBe(1); // flags: bit 0
  using back = CuckooFilter.import(bytes);
  expect(back.semiSorted).toBe(true);
  expect(back.hasMany(keys('a', 600)).every(Boolean)).toBe(true);
  expect(back.export()).toEqual(bytes);
  using plain = new CuckooFilter({ capacity: 1000, fpRate: 0.01 });
  expect(errorOf(() => plain.merge(a))).toContain('semi-sorted');
  using twin = new CuckooFilter({ capacity: 1000, fpRate: 0.01, semiSorted: true });
  twin.addMany(keys('b', 300));
  twin.merge(a);
  expect(twin.hasMany([...keys('a', 600), ...keys('b', 300)]).every(Boolean)).toBe(true);
});

test('a bucket reads back in ascending order, with the code of its high nibbles', () => {
  using f = new CuckooFilter({ capacity: 40, fingerprintBits: 8, semiSorted: true, bucketSize: 4 });
  f.addMany(keys('c', 36));
  let full = 0;
  for (let b = 0; b < f.bucketCount; b++) {
    const slots = [0, 1, 2, 3].map((s) => f.slot(b, s));
    expect(slots).toEqual([...slots].sort((x, y) => x - y));
    // The code is the rank of the sorted top nibbles n0 <= n1 <= n2 <= n3: C(n0, 1) + C(n1 + 1, 2) + ...
    const binomial = (n: number, k: number): number => (k > n ? 0 : k === 0 ? 1 : (binomial(n - 1, k - 1) * n) / k);
    const nibbles = slots.map((fp) => fp >> 4);
    expect(f.bucketCode(b)).toBe(nibbles.reduce((code, n, i) => code + binomial(n + i, i + 1), 0));
    full += slots.every((fp) => fp !== 0) ? 1 : 0;
  }
  expect(full).toBeGreaterThan(0);
  using plain = new CuckooFilter({ capacity: 40, fingerprintBits: 8 });
  expect(plain.bucketCode(0)).toBe(0);
  expect(errorOf(() => f.bucketCode(f.bucketCount))).toContain('bucket must be an integer from 0 to');
});

test('a traced insert into semi-sorted buckets says where each fingerprint lands once the bucket is re-sorted', () => {
  using f = new CuckooFilter({ capacity: 30, fingerprintBits: 8, semiSorted: true, maxKicks: 50 });
  let kicks = 0;
  for (const key of keys('t', 60)) {
    const table = Array.from(f.slots());
    const trace = f.addTraced(key);
    for (const step of trace.steps) {
      const bucket = table.slice(step.bucket * 4, step.bucket * 4 + 4);
      const leaving = step.kind === 'place' ? 0 : step.fingerprintOut;
      const at = bucket.indexOf(leaving);
      expect(at).toBeGreaterThanOrEqual(0);
      bucket[at] = step.fingerprintIn;
      bucket.sort((x, y) => x - y);
      expect(bucket[step.slot]).toBe(step.fingerprintIn);
      table.splice(step.bucket * 4, 4, ...bucket);
      if (step.kind === 'kick') kicks++;
    }
    expect(table).toEqual(Array.from(f.slots()));
  }
  expect(kicks).toBeGreaterThan(0);
});
