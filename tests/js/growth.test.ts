// Growth and merge through the TypeScript API.
import { CuckooFilter, ready } from '../../js/src/index';
import { errorOf, rng } from './helpers';
const utf8 = (s: string) => new TextEncoder().encode(s);

beforeAll(() => ready());

const keys = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `${prefix}${from + i}`);

describe('growth', () => {
  test('a growing filter never refuses a key below its limit', () => {
    using f = new CuckooFilter({ capacity: 100, fpRate: 0.01, growth: 2, maxSubFilters: 16 });
    expect(f.growth).toBe(2);
    expect(f.subFilterCount).toBe(1);
    expect(f.fingerprintBits).toBe(11); // half the rate goes to the first sub-filter
    expect(f.addMany(keys('g', 5000)).every(Boolean)).toBe(true);
    expect(f.subFilterCount).toBeGreaterThanOrEqual(6);
    expect(f.capacity).toBe(100 * (2 ** f.subFilterCount - 1));
    expect(f.size).toBe(5000);
    expect(f.hasMany(keys('g', 5000)).every(Boolean)).toBe(true);
    expect(f.expectedFpRate).toBeLessThan(0.01);
  });

  test('a chain takes 2b copies of a key in each sub-filter (README, "Duplicates"), a table that doubles 2b', () => {
    // An outside pass found the ninth copy taken once the chain had grown; README now says so.
    using chain = new CuckooFilter({ capacity: 100, growth: 4 });
    using doubling = new CuckooFilter({ capacity: 100, growth: 2 });
    for (const f of [chain, doubling]) {
      for (let i = 0; i < 8; i++) expect(f.add('x')).toBe(true);
      expect(f.add('x')).toBe(false);
      f.addMany(keys('other', 1000));
    }
    expect(chain.subFilterCount).toBeGreaterThan(1);
    expect(chain.add('x')).toBe(true);
    expect(chain.count('x')).toBe(9);
    expect(doubling.add('x')).toBe(false);
    expect(doubling.count('x')).toBe(8);
  });

  test.each([
    ['a chain', { maxSubFilters: 16 }],
    ['in place', {}],
  ])('over 100x the initial capacity (%s): no false negatives, measured FPR within the rate', (_kind, extra) => {
    using f = new CuckooFilter({ capacity: 500, fpRate: 0.01, growth: 2, ...extra });
    const random = rng(3);
    const added: string[] = [];
    for (let i = 0; i < 60_000; i++) {
      const key = random() < 0.1 && added.length > 0 ? added[Math.floor(random() * added.length)] : `k${i}`;
      if (f.count(key) >= 2 * f.bucketSize) continue;
      expect(f.add(key)).toBe(true);
      added.push(key);
    }
    expect(f.capacity).toBeGreaterThanOrEqual(100 * 500);
    expect(f.size).toBe(added.length);
    expect(f.hasMany(added).every(Boolean)).toBe(true);
    const probes = keys('never', 200_000);
    const measured = f.hasMany(probes).filter(Boolean).length / probes.length;
    expect(measured).toBeLessThanOrEqual(0.01);
  });

  test('at the chain limit, add throws CAPACITY_EXCEEDED and changes nothing', () => {
    using f = new CuckooFilter({ capacity: 10, fpRate: 0.01, growth: 2, maxSubFilters: 2 });
    expect(f.maxSubFilters).toBe(2);
    let i = 0;
    let error = 'no error';
    for (; i < 10_000 && error === 'no error'; i++) {
      const before = f.export();
      error = errorOf(() => f.add(`limit-${i}`));
      if (error !== 'no error') expect(f.export()).toEqual(before);
    }
    expect(error).toMatch(/^CAPACITY_EXCEEDED: the filter reached its limit of 2 sub-filters, full at \d+ keys,/);
    expect(f.subFilterCount).toBe(2);
    // The key that failed fails again by every path, and changes nothing (a new key might still find a
    // free slot: the walk failed for this key's buckets, not for all of them).
    const failed = `limit-${i - 1}`;
    const atLimit = f.export();
    expect(f.has(failed)).toBe(false); // so addIfAbsent has to try to add it
    expect(errorOf(() => f.addIfAbsent(failed))).toMatch(/^CAPACITY_EXCEEDED/);
    expect(errorOf(() => f.addMany([failed, `x-${i}`]))).toMatch(
      /^CAPACITY_EXCEEDED: keys\[0\]: the filter reached its limit/,
    );
    expect(f.export()).toEqual(atLimit);
    // Everything added before the limit is still there.
    expect(f.hasMany(keys('limit-', i - 1)).every(Boolean)).toBe(true);
  });

  test('addIfAbsentRanges at the chain limit: 3 for the key that stopped the batch, 4 for the ones not tried', () => {
    using f = new CuckooFilter({ capacity: 10, fpRate: 0.01, growth: 2, maxSubFilters: 2 });
    let i = 0;
    while (errorOf(() => f.add(`limit-${i}`)) === 'no error') i++;
    const failed = `limit-${i}`;
    const text = utf8(`${failed}limit-0fresh`);
    const atLimit = f.export();
    const codes = f.addIfAbsentRanges(
      text,
      new Uint32Array([0, failed.length, failed.length, failed.length + 7, failed.length + 7, text.length]),
    );
    // Before this, "no room" and "not tried" were both 2.
    expect([...codes]).toEqual([3, 4, 4]);
    expect(f.export()).toEqual(atLimit);
  });

  test('growth options are validated', () => {
    for (const [options, mention] of [
      [{ capacity: 10, growth: 1 }, 'growth must be an integer from 2 to 16'],
      [{ capacity: 10, growth: 2.5 }, 'growth'],
      [{ capacity: 10, growth: 17 }, 'growth'],
      [{ capacity: 10, maxSubFilters: 4 }, 'maxSubFilters needs growth'],
      [{ capacity: 10, growth: 2, maxSubFilters: 0 }, 'maxSubFilters must be an integer from 1 to 32'],
      [{ capacity: 10, growth: 2, maxSubFilters: 33 }, 'maxSubFilters'],
    ] as const) {
      expect(errorOf(() => new CuckooFilter(options as never))).toContain(`INVALID_ARGUMENT: ${mention}`);
    }
  });

  test('a chain exports as format version 4 and imports whole', () => {
    using f = new CuckooFilter({ capacity: 50, fpRate: 0.001, growth: 3, seed: 8n });
    f.addMany(keys('e', 2000));
    const bytes = f.export();
    expect(bytes[4]).toBe(4);
    using g = CuckooFilter.import(bytes);
    expect(g.subFilterCount).toBe(f.subFilterCount);
    expect(g.growth).toBe(3);
    expect(g.export()).toEqual(bytes);
    expect(g.hasMany(keys('e', 2000)).every(Boolean)).toBe(true);
    // Truncated or damaged chains are refused.
    expect(errorOf(() => CuckooFilter.import(bytes.subarray(0, bytes.length - 9)))).toMatch(/^BAD_FORMAT/);
    const damaged = bytes.slice();
    damaged[40] ^= 1;
    expect(errorOf(() => CuckooFilter.import(damaged))).toMatch(/^BAD_FORMAT/);
  });

  test('clear drops the grown sub-filters', () => {
    using f = new CuckooFilter({ capacity: 10, growth: 2, maxSubFilters: 16 });
    f.addMany(keys('c', 200));
    expect(f.subFilterCount).toBeGreaterThan(1);
    f.clear();
    expect(f.subFilterCount).toBe(1);
    expect(f.size).toBe(0);
  });
});

describe('merge', () => {
  test('filters built from disjoint and overlapping parts answer for every key', () => {
    for (const overlap of [0, 400]) {
      using a = new CuckooFilter({ capacity: 5000, fpRate: 0.001 });
      using b = new CuckooFilter({ capacity: 5000, fpRate: 0.001 });
      using all = new CuckooFilter({ capacity: 5000, fpRate: 0.001 });
      const partA = keys('m', 2000);
      const partB = keys('m', 2000, 2000 - overlap);
      a.addMany(partA);
      b.addMany(partB);
      all.addMany([...partA, ...partB]);
      a.merge(b);
      expect(a.size).toBe(all.size);
      const every = [...partA, ...partB];
      expect(a.hasMany(every).every(Boolean)).toBe(true);
      expect(every.map((k) => a.count(k))).toEqual(every.map((k) => all.count(k)));
      expect(b.size).toBe(2000);
    }
  });

  test('a filter made elsewhere (exported, imported) merges like a local one', () => {
    using a = new CuckooFilter({ capacity: 3000, seed: 5 });
    using remote = new CuckooFilter({ capacity: 3000, seed: 5 });
    remote.addMany(keys('r', 1000));
    using b = CuckooFilter.import(remote.export());
    a.addMany(keys('l', 1000));
    a.merge(b);
    expect(a.hasMany([...keys('l', 1000), ...keys('r', 1000)]).every(Boolean)).toBe(true);
  });

  test('incompatible filters are refused, naming the difference, and nothing changes', () => {
    using a = new CuckooFilter({ capacity: 1000, seed: 1 });
    a.add('x');
    const before = a.export();
    const cases: Array<[object, string]> = [
      [{ capacity: 1000, seed: 2 }, 'different seeds'],
      [{ capacity: 2000, seed: 1 }, 'different capacities (1000 and 2000)'],
      [{ capacity: 1000, seed: 1, bucketSize: 2 }, 'different bucket sizes (4 and 2)'],
      [{ capacity: 1000, seed: 1, fpRate: 0.0001 }, 'different fingerprint bits (13 and 17)'],
      [{ capacity: 1000, seed: 1, growth: 2 }, 'different growth settings (growth 0 and 2)'],
    ];
    for (const [options, message] of cases) {
      using other = new CuckooFilter(options as never);
      expect(errorOf(() => a.merge(other))).toBe(`INVALID_ARGUMENT: cannot merge filters with ${message}`);
    }
    expect(a.export()).toEqual(before);
    expect(errorOf(() => a.merge({} as never))).toMatch(/^TypeError: other must be a CuckooFilter/);
    const gone = new CuckooFilter({ capacity: 1000, seed: 1 });
    gone.dispose();
    expect(errorOf(() => a.merge(gone))).toMatch(/^DISPOSED/);
  });

  test('a merge that does not fit throws CAPACITY_EXCEEDED and leaves the filter as it was', () => {
    using a = new CuckooFilter({ capacity: 1000 });
    using b = new CuckooFilter({ capacity: 1000 });
    a.addMany(keys('a', 700));
    b.addMany(keys('b', 700));
    const before = a.export();
    expect(errorOf(() => a.merge(b))).toMatch(/^CAPACITY_EXCEEDED: the merged fingerprints do not fit/);
    expect(a.export()).toEqual(before);
  });

  test("with growth, a merge that does not fit in place takes the other's sub-filters", () => {
    using a = new CuckooFilter({ capacity: 100, growth: 2, maxSubFilters: 16 });
    using b = new CuckooFilter({ capacity: 100, growth: 2, maxSubFilters: 16 });
    a.addMany(keys('a', 150));
    b.addMany(keys('b', 1000));
    a.merge(b);
    expect(a.size).toBe(1150);
    expect(a.hasMany([...keys('a', 150), ...keys('b', 1000)]).every(Boolean)).toBe(true);
    expect(a.subFilterCount).toBeGreaterThan(b.subFilterCount);
  });
});

/** A rate at which a table of 40-bit slots from 256 buckets doubles 7 times: rate_bound(7) = 6.2e-11 <= it < rate_bound(8). */
const LIMIT_7_RATE = 6.5e-11;

describe('growth in place (growth 2)', () => {
  test('one table that doubles: every key kept, the getters and the summary say so', () => {
    using f = new CuckooFilter({ capacity: 1000, growth: 2 });
    // At the default rate, 0.001: 16-bit slots while the table is small, 20 from its sixth doubling (20 bits
    // are the narrowest that double 23 times within it; the first doublings leave rate for narrower ones).
    expect([f.growsInPlace, f.growth, f.fingerprintBits, f.doublings, f.maxDoublings, f.subFilterCount]).toEqual([
      true,
      2,
      16,
      0,
      23,
      1,
    ]);
    const bucketsAtFirst = f.bucketCount;
    expect(f.addMany(keys('p', 30_000)).every(Boolean)).toBe(true);
    expect(f.doublings).toBe(5);
    expect(f.bucketCount).toBe(bucketsAtFirst * 32);
    expect(f.capacity).toBeGreaterThanOrEqual(30_000);
    expect(f.hasMany(keys('p', 30_000)).every(Boolean)).toBe(true);
    expect(f.expectedFpRate).toBeLessThan(0.001);
    expect(String(f)).toContain('growth: 2, doublings: 5/23');
    expect(f.fingerprintBits).toBe(16);
    expect(f.addMany(keys('q', 40_000)).every(Boolean)).toBe(true);
    expect([f.doublings, f.fingerprintBits]).toEqual([7, 20]);
    expect(f.hasMany(keys('p', 30_000)).every(Boolean)).toBe(true);
    // The width from the rate: 16 bits from about 0.0028 up, 20 from 1.9e-4, 24 from 1.2e-5, 32 from 4.5e-8,
    // else 40; below about 2e-9, fewer doublings. Where the first doublings leave rate to spare the first
    // table's slots are 4 bits narrower, and widen as it doubles (0.001: 16 bits, 20 from the sixth
    // doubling; 1e-4: 20, 24 from the twelfth).
    const widths = [0.01, 0.001, 1e-4, 1e-6, 1e-8].map((fpRate) => {
      using w = new CuckooFilter({ capacity: 1000, fpRate, growth: 2 });
      return [w.fingerprintBits, w.maxDoublings];
    });
    expect(widths).toEqual([
      [16, 23],
      [16, 23],
      [20, 23],
      [32, 23],
      [40, 23],
    ]);
    using low = new CuckooFilter({ capacity: 1000, fpRate: 1e-10, growth: 2 });
    expect([low.fingerprintBits, low.maxDoublings]).toEqual([40, 12]);
    // What a chain has: the options that keep one, and the getters of a filter without growth.
    using chain = new CuckooFilter({ capacity: 1000, growth: 2, maxSubFilters: 4 });
    expect([chain.growsInPlace, chain.doublings, chain.maxDoublings]).toEqual([false, 0, 0]);
    using plain = new CuckooFilter({ capacity: 1000 });
    expect([plain.growsInPlace, plain.doublings, plain.maxDoublings]).toEqual([false, 0, 0]);
    expect(errorOf(() => new CuckooFilter({ capacity: 10, fpRate: 2e-11, growth: 2 }))).toBe(
      'INVALID_ARGUMENT: fpRate is below what a filter that grows in place gives (about 2.1e-11, more for a first table past 2^24 buckets: even its 40-bit slots could not double once); got fpRate 2e-11',
    );
  });

  test('slots() and slot() show the 40-bit entries whole (an adversarial review: slots() kept their low 32 bits)', () => {
    using f = new CuckooFilter({ capacity: 100, growth: 2, fpRate: 1e-9 });
    f.addMany(keys('s', 50));
    const all = f.slots();
    expect(all).toBeInstanceOf(Float64Array);
    let occupied = 0;
    for (let i = 0; i < all.length; i++) {
      expect(all[i]).toBe(f.slot(Math.floor(i / 4), i % 4));
      if (all[i] !== 0) occupied++;
    }
    expect(occupied).toBe(50);
    // The 16 fixed bits lie at bits 24-39: nearly every entry is past 2^32.
    expect(Array.from(all).filter((v) => v >= 2 ** 32).length).toBeGreaterThan(40);
    expect(Math.max(...all)).toBeLessThan(2 ** 40);
    expect(f.locate('s-1').fingerprint).toBeGreaterThanOrEqual(2 ** 32);
  });

  test('at its last doubling an add throws CAPACITY_EXCEEDED naming the limit, and changes nothing', () => {
    // A rate that allows 7 doublings (40-bit slots double 23 times from about 2e-9 up: far past the heap).
    using f = new CuckooFilter({ capacity: 1, growth: 2, fpRate: LIMIT_7_RATE });
    let n = 0;
    const error = errorOf(() => {
      for (;;) f.add(`l${n++}`);
    });
    expect(error).toMatch(
      /^CAPACITY_EXCEEDED: the filter reached its limit of 7 doublings, full at \d+ keys, and cannot grow further; nothing was added$/,
    );
    expect(f.size).toBe(n - 1);
    expect(f.doublings).toBe(7);
    expect(f.hasMany(keys('l', n - 1)).every(Boolean)).toBe(true);
    // A batch stops at that key and names it.
    using g = new CuckooFilter({ capacity: 1, growth: 2, fpRate: LIMIT_7_RATE });
    expect(errorOf(() => g.addMany(keys('l', n + 10)))).toMatch(
      new RegExp(`^CAPACITY_EXCEEDED: keys\\[${n - 1}\\]: the filter reached its limit of 7 doublings`),
    );
    expect(g.export()).toEqual(f.export());
  });

  test('export (format version 8), chunks and JSON round-trip, and the copy grows like the original', async () => {
    using f = new CuckooFilter({ capacity: 300, growth: 2, seed: 5n });
    f.addMany(keys('e', 4000));
    f.deleteMany(keys('e', 1000));
    const bytes = f.export();
    expect(bytes[4]).toBe(8); // slots that widen (16 bits now, 20 from the sixth doubling): bytes 58 and 59
    expect([bytes[58], bytes[59]]).toEqual([6, 0]);
    using g = CuckooFilter.import(bytes);
    expect([g.growsInPlace, g.doublings, g.size]).toEqual([true, f.doublings, 3000]);
    using h = await CuckooFilter.importChunks(f.exportChunks(333));
    expect(h.export()).toEqual(bytes);
    using j = CuckooFilter.fromJSON(JSON.stringify(f));
    expect(j.export()).toEqual(bytes);
    expect(g.addMany(keys('e', 9000, 4000))).toEqual(f.addMany(keys('e', 9000, 4000)));
    expect(g.export()).toEqual(f.export());
    const damaged = bytes.slice();
    damaged[56] = 9; // doublings past the most
    expect(errorOf(() => CuckooFilter.import(damaged))).toMatch(/^BAD_FORMAT/);
  });

  test('merge and union keep every key of both; a repeated union changes nothing', () => {
    using a = new CuckooFilter({ capacity: 100, growth: 2 });
    using b = new CuckooFilter({ capacity: 100, growth: 2 });
    a.addMany(keys('a', 150));
    b.addMany(keys('b', 3000));
    a.union(b);
    const once = a.export();
    a.union(b);
    expect(a.export()).toEqual(once);
    expect(a.hasMany([...keys('a', 150), ...keys('b', 3000)]).every(Boolean)).toBe(true);
    using c = new CuckooFilter({ capacity: 100, growth: 2 });
    c.addMany(keys('c', 500));
    c.merge(b);
    expect(c.size).toBe(3500);
    expect(c.hasMany([...keys('c', 500), ...keys('b', 3000)]).every(Boolean)).toBe(true);
    using chain = new CuckooFilter({ capacity: 100, growth: 2, maxSubFilters: 16 });
    expect(errorOf(() => c.merge(chain))).toBe(
      'INVALID_ARGUMENT: cannot merge a filter that doubles in place and a chain of sub-filters',
    );
  });

  test('alternate() and addTraced() are refused: they describe a table of plain fingerprints', () => {
    using f = new CuckooFilter({ capacity: 100, growth: 2 });
    expect(errorOf(() => f.alternate(0, 1))).toMatch(
      /^INVALID_ARGUMENT: alternate\(\) describes a table of plain fingerprints; this filter doubles in place/,
    );
    expect(errorOf(() => f.addTraced('x'))).toMatch(/^INVALID_ARGUMENT: addTraced\(\)/);
    expect(f.size).toBe(0);
  });
});
