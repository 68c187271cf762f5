import { CuckooFilter, CuckooFilterError, ready } from '../../js/src/index';

beforeAll(() => ready());

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('single-key operations', () => {
  test('add, has, count, delete on a few keys', () => {
    using f = new CuckooFilter({ capacity: 1000, fingerprintBits: 16 });
    expect(f.size).toBe(0);
    expect(f.has('apple')).toBe(false);
    expect(f.add('apple')).toBe(true);
    expect(f.has('apple')).toBe(true);
    expect(f.count('apple')).toBe(1);
    expect(f.add('apple')).toBe(true);
    expect(f.count('apple')).toBe(2);
    expect(f.size).toBe(2);
    expect(f.delete('apple')).toBe(true);
    expect(f.has('apple')).toBe(true);
    expect(f.delete('apple')).toBe(true);
    expect(f.has('apple')).toBe(false);
    expect(f.delete('apple')).toBe(false);
    expect(f.size).toBe(0);
  });

  test('a string and the Uint8Array of its UTF-8 bytes are the same key', () => {
    using f = new CuckooFilter({ capacity: 1000 });
    for (const key of ['plain-ascii', 'grüße', '日本語のキー', 'emoji 😀 key', '', 'a\u0000b']) {
      expect(f.locate(key)).toEqual(f.locate(utf8(key)));
      expect(f.add(key)).toBe(true);
      expect(f.has(utf8(key))).toBe(true);
      expect(f.count(utf8(key))).toBe(1);
      expect(f.delete(utf8(key))).toBe(true);
      expect(f.has(key)).toBe(false);
    }
  });

  test('a lone surrogate is encoded like TextEncoder does (U+FFFD)', () => {
    using f = new CuckooFilter({ capacity: 100 });
    expect(f.locate('x\ud800y')).toEqual(f.locate(utf8('x\ud800y')));
    expect(f.locate('x\ud800y')).toEqual(f.locate('x\ufffdy'));
  });

  test('long keys (larger than the scratch area) work and are distinct', () => {
    using f = new CuckooFilter({ capacity: 100, fingerprintBits: 32 });
    const long = 'k'.repeat(100_000);
    const longUnicode = 'ü'.repeat(50_000);
    expect(f.add(long)).toBe(true);
    expect(f.add(longUnicode)).toBe(true);
    expect(f.has(long)).toBe(true);
    expect(f.has(longUnicode)).toBe(true);
    expect(f.has(long + 'x')).toBe(false);
    expect(f.has(utf8(longUnicode))).toBe(true);
  });

  test('addIfAbsent adds only keys that are not there', () => {
    using f = new CuckooFilter({ capacity: 1000, fingerprintBits: 20 });
    expect(f.addIfAbsent('x')).toBe(true);
    expect(f.addIfAbsent('x')).toBe(false);
    expect(f.count('x')).toBe(1);
    expect(f.addIfAbsent(utf8('x'))).toBe(false);
  });

  test('the same key can be added 2 x bucketSize times, then add returns false and changes nothing', () => {
    for (const bucketSize of [2, 4, 8]) {
      using f = new CuckooFilter({ capacity: 1000, bucketSize: bucketSize as 2 | 4 | 8, fingerprintBits: 12 });
      for (let i = 0; i < 2 * bucketSize; i++) expect(f.add('dup')).toBe(true);
      const before = f.export();
      expect(f.add('dup')).toBe(false);
      expect(f.export()).toEqual(before);
      expect(f.count('dup')).toBe(2 * bucketSize);
    }
  });

  test('a full filter refuses adds without losing anything', () => {
    using f = new CuckooFilter({ capacity: 100, fingerprintBits: 12, maxKicks: 50 });
    const added: string[] = [];
    let failures = 0;
    for (let i = 0; failures < 10 && i < 10_000; i++) {
      const before = f.export();
      if (f.add(`k${i}`)) added.push(`k${i}`);
      else {
        failures++;
        expect(f.export()).toEqual(before);
      }
    }
    expect(failures).toBe(10);
    expect(f.size).toBe(added.length);
    for (const k of added) expect(f.has(k)).toBe(true);
  });

  test('clear empties the filter and keeps its options', () => {
    using f = new CuckooFilter({ capacity: 500, fpRate: 0.01, seed: 5 });
    f.addMany(Array.from({ length: 300 }, (_, i) => `c${i}`));
    const bytes = f.byteLength;
    f.clear();
    expect(f.size).toBe(0);
    expect(f.byteLength).toBe(bytes);
    expect(f.seed).toBe(5n);
    expect(f.hasMany(Array.from({ length: 300 }, (_, i) => `c${i}`)).some(Boolean)).toBe(false);
  });
});

describe('properties', () => {
  test('describe the table', () => {
    using f = new CuckooFilter({ capacity: 1_000_000, fpRate: 0.001 });
    expect(f.capacity).toBe(1_000_000);
    expect(f.bucketSize).toBe(4);
    expect(f.fingerprintBits).toBe(13);
    expect(f.bucketCount).toBe(263158);
    expect(f.maxKicks).toBe(500);
    expect(f.seed).toBe(0x9e3779b97f4a7c15n);
    expect(f.byteLength).toBe(Math.ceil((263158 * 4 * 13) / 8) + 8);
    expect(f.loadFactor).toBe(0);
    expect(f.expectedFpRate).toBe(0);
    f.addMany(Array.from({ length: 10_000 }, (_, i) => `p${i}`));
    expect(f.size).toBe(10_000);
    expect(f.loadFactor).toBeCloseTo(10_000 / (263158 * 4), 12);
    expect(f.expectedFpRate).toBeCloseTo((8 * f.loadFactor) / 8191, 6);
  });

  test('seeds up to 2^64 - 1 round-trip, as numbers or bigints', () => {
    for (const seed of [0, 1, 2 ** 53 - 1, 0n, 2n ** 64n - 1n, 0x123456789abcdef0n]) {
      using f = new CuckooFilter({ capacity: 10, seed });
      expect(f.seed).toBe(BigInt(seed));
    }
  });

  test('fpRate picks the smallest fingerprint with 2b / (2^f - 1) <= fpRate', () => {
    const cases: Array<[number, number, number]> = [
      [0.001, 4, 13],
      [0.01, 4, 10],
      [0.5, 4, 5],
      [1e-6, 4, 23],
      [0.001, 2, 12],
      [0.001, 8, 14],
    ];
    for (const [fpRate, bucketSize, bits] of cases) {
      using f = new CuckooFilter({ capacity: 1000, fpRate, bucketSize: bucketSize as 2 | 4 | 8 });
      expect(f.fingerprintBits).toBe(bits);
    }
  });
});

describe('batches', () => {
  test('addMany, hasMany and deleteMany agree with single calls, key for key', () => {
    const options = { capacity: 3000, fingerprintBits: 10, bucketSize: 4 as const, maxKicks: 100 };
    using single = new CuckooFilter(options);
    using batched = new CuckooFilter(options);
    // More keys than the capacity (some adds fail), repeats, non-ASCII and byte keys, several chunks.
    const keys: Array<string | Uint8Array> = [];
    for (let i = 0; i < 9000; i++) {
      const n = i % 4200;
      keys.push(n % 7 === 0 ? `ключ-${n}` : n % 5 === 0 ? utf8(`key-${n}`) : `key-${n}`);
    }
    const added = batched.addMany(keys);
    expect(added).toHaveLength(keys.length);
    expect(added).toEqual(keys.map((k) => single.add(k)));
    expect(added.includes(false)).toBe(true);
    expect(batched.export()).toEqual(single.export());
    const probes = [...keys, ...Array.from({ length: 2000 }, (_, i) => `absent-${i}`)];
    expect(batched.hasMany(probes)).toEqual(probes.map((k) => single.has(k)));
    const removals = keys.slice(0, 4000);
    expect(batched.deleteMany(removals)).toEqual(removals.map((k) => single.delete(k)));
    expect(batched.export()).toEqual(single.export());
  });

  test('all-ASCII and mixed chunks are packed the same way', () => {
    using f = new CuckooFilter({ capacity: 100, fingerprintBits: 32 });
    f.addMany(['abc', 'déf', 'ghi']);
    expect(f.hasMany(['abc', 'ghi', 'déf', 'abcdéf'])).toEqual([true, true, true, false]);
    expect(f.hasMany([utf8('abc'), 'ghi', utf8('déf')])).toEqual([true, true, true]);
  });

  test('string-only batches of several chunks agree with single calls', () => {
    // Chunks of plain ASCII strings take the one-join path; the chunk holding a non-ASCII key (here only
    // the second and the last) must fall back without shifting any key's bytes.
    const options = { capacity: 20000, fingerprintBits: 16 };
    using single = new CuckooFilter(options);
    using batched = new CuckooFilter(options);
    const keys = Array.from({ length: 10000 }, (_, i) =>
      i === 5000 ? 'zwölf-5000' : i === 9999 ? '🦆-9999' : `k${'x'.repeat(i % 13)}-${i}`,
    );
    expect(batched.addMany(keys)).toEqual(keys.map((k) => single.add(k)));
    expect(batched.export()).toEqual(single.export());
    const probes = [...keys.slice(4000, 6000), 'zwölf-5001', ...keys.slice(0, 10)];
    expect(batched.hasMany(probes)).toEqual(probes.map((k) => single.has(k)));
    expect(batched.hasMany(keys).every(Boolean)).toBe(true);
    expect(batched.deleteMany(keys.slice(0, 4500))).toEqual(keys.slice(0, 4500).map((k) => single.delete(k)));
    expect(batched.export()).toEqual(single.export());
  });

  test('huge keys split a batch into several chunks', () => {
    using f = new CuckooFilter({ capacity: 100, fingerprintBits: 32 });
    const keys = Array.from({ length: 10 }, (_, i) => `${i}`.repeat(300_000));
    expect(f.addMany(keys)).toEqual(keys.map(() => true));
    expect(f.hasMany(keys)).toEqual(keys.map(() => true));
  });

  test('an empty batch does nothing', () => {
    using f = new CuckooFilter({ capacity: 10 });
    expect(f.addMany([])).toEqual([]);
    expect(f.hasMany([])).toEqual([]);
    expect(f.deleteMany([])).toEqual([]);
    expect(f.size).toBe(0);
  });
});

describe('lifecycle', () => {
  test('CuckooFilter.create loads the module and builds a filter', async () => {
    const f = await CuckooFilter.create({ capacity: 100 });
    expect(f.add('x')).toBe(true);
    f.dispose();
  });

  test('ready() is idempotent', async () => {
    await Promise.all([ready(), ready()]);
    await expect(ready()).resolves.toBeUndefined();
  });

  test('`using` disposes at the end of the block', () => {
    let escaped: CuckooFilter;
    {
      using f = new CuckooFilter({ capacity: 10 });
      escaped = f;
      expect(f.add('a')).toBe(true);
    }
    expect(() => escaped.has('a')).toThrow(CuckooFilterError);
  });
});

describe('addIfAbsentRanges', () => {
  test('adds each new key of a block once and leaves separators out', () => {
    using f = new CuckooFilter({ capacity: 100, fingerprintBits: 24 });
    const text = utf8('x\ny\r\nx\n\nzü\n');
    const ranges = new Uint32Array([0, 1, 2, 3, 5, 6, 7, 7, 8, 11]);
    expect([...f.addIfAbsentRanges(text, ranges)]).toEqual([1, 1, 0, 1, 1]);
    expect(f.has('y')).toBe(true);
    expect(f.has('zü')).toBe(true);
    expect(f.has('')).toBe(true);
    expect(f.size).toBe(4);
    expect([...f.addIfAbsentRanges(text, new Uint32Array([0, 1]))]).toEqual([0]);
  });

  test('reports keys that find no room with 2 and changes nothing for them', () => {
    using f = new CuckooFilter({ capacity: 10, fingerprintBits: 16, maxKicks: 20 });
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
    const text = utf8(keys.join(''));
    const ranges = new Uint32Array(keys.length * 2);
    let at = 0;
    keys.forEach((k, i) => {
      ranges[2 * i] = at;
      at += k.length;
      ranges[2 * i + 1] = at;
    });
    const codes = f.addIfAbsentRanges(text, ranges);
    expect(codes.includes(2)).toBe(true);
    expect(f.size).toBe(codes.filter((c) => c === 1).length);
    keys.forEach((k, i) => {
      if (codes[i] === 1) expect(f.has(k)).toBe(true);
    });
  });

  test('refuses ranges outside the buffer and odd-length ranges, changing nothing', () => {
    using f = new CuckooFilter({ capacity: 10 });
    expect(() => f.addIfAbsentRanges(utf8('abc'), new Uint32Array([0, 4]))).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => f.addIfAbsentRanges(utf8('abc'), new Uint32Array([2, 1]))).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => f.addIfAbsentRanges(utf8('abc'), new Uint32Array([0]))).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => f.addIfAbsentRanges('abc' as never, new Uint32Array([0, 1]))).toThrow(TypeError);
    expect(f.size).toBe(0);
  });
});

describe('introspection: alternate()', () => {
  test('agrees with locate() for keys, is an involution, and is where every kick sends the evicted fingerprint', () => {
    using f = new CuckooFilter({ capacity: 60, bucketSize: 2, fingerprintBits: 6, seed: 3 });
    for (let i = 0; i < 200; i++) {
      const at = f.locate(`k${i}`);
      const there = f.alternate(at.index, at.fingerprint);
      expect(there).toEqual({ alternateOffset: at.alternateOffset, alternateIndex: at.alternateIndex });
      expect(f.alternate(there.alternateIndex, at.fingerprint).alternateIndex).toBe(at.index);
    }
    let kicks = 0;
    for (let i = 0; i < 200 && kicks < 20; i++) {
      const { steps } = f.addTraced(`fill${i}`);
      for (let s = 0; s + 1 < steps.length; s++) {
        if (steps[s].kind !== 'kick' || steps[s + 1].kind === 'undo') continue;
        kicks++;
        expect(f.alternate(steps[s].bucket, steps[s].fingerprintOut).alternateIndex).toBe(steps[s + 1].bucket);
      }
    }
    expect(kicks).toBeGreaterThan(0);
  });

  test('refuses a bucket or fingerprint outside the table', () => {
    using f = new CuckooFilter({ capacity: 60, bucketSize: 4, fingerprintBits: 8 });
    const n = f.bucketCount;
    expect(() => f.alternate(n, 1)).toThrow(`bucket must be an integer from 0 to ${n - 1}, got the number ${n}`);
    expect(() => f.alternate(0, 0)).toThrow('fingerprint must be an integer from 1 to 255, got the number 0');
    expect(() => f.alternate(0, 256)).toThrow('fingerprint must be an integer from 1 to 255, got the number 256');
  });
});
