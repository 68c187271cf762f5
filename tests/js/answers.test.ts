// Honest answers at the package's surface: addIfAbsent when full, union against merge, JSON and inspect,
// any iterable as a batch, keys from another realm or with lying getters, a filter disposed mid-call,
// errors that name what they got, and export/import in chunks.
import { inspect } from 'node:util';
import { runInNewContext } from 'node:vm';
import { Readable } from 'node:stream';
import { CuckooFilter, type CuckooFilterError, ready } from '../../js/src/index';
import { errorOf, rng } from './helpers';

beforeAll(() => ready());

describe('addIfAbsent never answers false for a key it did not find', () => {
  test('a full filter throws CAPACITY_EXCEEDED and changes nothing', () => {
    using f = new CuckooFilter({ capacity: 8, bucketSize: 2, maxKicks: 10 });
    const added: string[] = [];
    let failure = '';
    for (let i = 0; i < 1000 && !failure; i++) {
      const key = `k${i}`;
      const before = f.export();
      try {
        expect(f.addIfAbsent(key)).toBe(true);
        added.push(key);
      } catch (error) {
        failure = `${(error as CuckooFilterError).code}`;
        expect(f.export()).toEqual(before);
      }
    }
    expect(failure).toBe('CAPACITY_EXCEEDED');
    for (const key of added) expect(f.has(key)).toBe(true);
    // A key that is there still answers false: that false now only ever means "already there".
    expect(f.addIfAbsent(added[0])).toBe(false);
  });
});

describe('union and merge', () => {
  const fill = (f: CuckooFilter, keys: string[]) => f.addMany(keys);
  test('the union with itself or a subset changes nothing; merge adds the multisets', () => {
    using all = new CuckooFilter({ capacity: 5000 });
    using part = new CuckooFilter({ capacity: 5000 });
    const keys = Array.from({ length: 2000 }, (_, i) => `key-${i}`);
    fill(all, keys);
    fill(
      part,
      keys.filter((_, i) => i % 4 === 0),
    );
    const before = all.export();
    all.union(all);
    expect(all.export()).toEqual(before);
    all.union(part);
    expect(all.export()).toEqual(before);
    all.merge(part);
    expect(all.size).toBe(2000 + 500);
  });

  test('union of random overlapping sets: no false negatives, no key counted twice', () => {
    const random = rng(7);
    for (let round = 0; round < 5; round++) {
      using a = new CuckooFilter({ capacity: 4000, fingerprintBits: 16 });
      using b = new CuckooFilter({ capacity: 4000, fingerprintBits: 16 });
      const inA = new Set<string>();
      const inB = new Set<string>();
      for (let i = 0; i < 1500; i++) {
        const key = `u${Math.floor(random() * 2000)}`;
        if (random() < 0.5) inA.add(key);
        else inB.add(key);
      }
      fill(a, [...inA]);
      fill(b, [...inB]);
      a.union(b);
      const union = new Set([...inA, ...inB]);
      for (const key of union) expect(a.has(key)).toBe(true);
      // 16-bit fingerprints: distinct keys almost never share a fingerprint and a bucket pair.
      expect(Math.abs(a.size - union.size)).toBeLessThanOrEqual(2);
    }
  });

  test('union refuses an incompatible filter and leaves this one as it was', () => {
    using a = new CuckooFilter({ capacity: 100 });
    using b = new CuckooFilter({ capacity: 100, seed: 5 });
    a.add('x');
    const before = a.export();
    expect(errorOf(() => a.union(b))).toMatch(/^INVALID_ARGUMENT: .*seeds/);
    expect(errorOf(() => a.union({} as never))).toBe('TypeError: other must be a CuckooFilter, got an object');
    expect(a.export()).toEqual(before);
  });
});

describe('JSON and inspection', () => {
  test('toJSON / fromJSON round-trip, as an object or as text', () => {
    using f = new CuckooFilter({ capacity: 1000, growth: 2 });
    f.addMany(Array.from({ length: 3000 }, (_, i) => `j${i}`));
    const text = JSON.stringify({ seen: f });
    const value = JSON.parse(text).seen;
    expect(value.type).toBe('cuckoo-wasm/CuckooFilter');
    using a = CuckooFilter.fromJSON(value);
    using b = CuckooFilter.fromJSON(JSON.stringify(f));
    expect(a.export()).toEqual(f.export());
    expect(b.export()).toEqual(f.export());
    expect(errorOf(() => CuckooFilter.fromJSON('{"type":"x"}'))).toMatch(
      /^BAD_FORMAT: expected \{ type: 'cuckoo-wasm\/CuckooFilter'.*, got an object whose type is the string 'x'$/,
    );
    // The field that is wrong is named (an outside pass: both said only "got an object").
    expect(errorOf(() => CuckooFilter.fromJSON({ type: 'cuckoo-wasm/CuckooFilter', data: 5 } as never))).toMatch(
      /got an object whose data is the number 5$/,
    );
    expect(errorOf(() => CuckooFilter.fromJSON({ type: 'CuckooFilter', data: 'AAAA' } as never))).toMatch(
      /got an object whose type is the string 'CuckooFilter'$/,
    );
    expect(errorOf(() => CuckooFilter.fromJSON('[1]'))).toMatch(/got an array$/);
    expect(errorOf(() => CuckooFilter.fromJSON({ data: 'AAAA' } as never))).toMatch(/whose type is undefined$/);
    expect(errorOf(() => CuckooFilter.fromJSON({ type: 'cuckoo-wasm/CuckooFilter', data: '@@@@' }))).toBe(
      'BAD_FORMAT: the data is not base64',
    );
    expect(errorOf(() => CuckooFilter.fromJSON('not json'))).toMatch(/^BAD_FORMAT: not JSON/);
  });

  test('console.log and util.inspect show a one-line summary, not the module', () => {
    const f = new CuckooFilter({ capacity: 1000 });
    f.add('a');
    const shown = inspect(f);
    expect(shown).toMatch(/^CuckooFilter \{ size: 1, capacity: 1000, fingerprintBits: 13, bucketSize: 4, .* \}$/);
    expect(shown).not.toMatch(/\n|HEAP|_malloc/);
    expect(inspect({ nested: [f] })).toContain('CuckooFilter { size: 1');
    f.dispose();
    expect(inspect(f)).toBe('CuckooFilter { disposed }');
  });
});

describe('batches take any iterable, and keys are checked as the engine sees them', () => {
  test('a Set, a generator, Map keys', () => {
    using f = new CuckooFilter({ capacity: 100 });
    expect(f.addMany(new Set(['a', 'b']))).toEqual([true, true]);
    function* keys() {
      yield 'c';
      yield new Uint8Array([1, 2]);
    }
    expect(f.addMany(keys())).toEqual([true, true]);
    expect(
      f.hasMany(
        new Map([
          ['a', 1],
          ['zz', 2],
        ]).keys(),
      ),
    ).toEqual([true, false]);
    expect(f.deleteMany(new Set(['a']))).toEqual([true]);
  });

  test("a Uint8Array from another realm is a key, the same as this realm's", () => {
    using f = new CuckooFilter({ capacity: 100 });
    const foreign = runInNewContext('new Uint8Array([104, 105])') as Uint8Array;
    expect(foreign instanceof Uint8Array).toBe(false);
    expect(f.add(foreign)).toBe(true);
    expect(f.has('hi')).toBe(true);
    expect(f.addMany([foreign])).toEqual([true]);
    expect(f.count('hi')).toBe(2);
    using g = CuckooFilter.import(runInNewContext('(b) => new Uint8Array(b)')(Array.from(f.export())) as Uint8Array);
    expect(g.has('hi')).toBe(true);
  });

  test('a subclass whose length getter lies cannot make the library write past its buffer', () => {
    class Liar extends Uint8Array {
      override get length(): number {
        return 50_000_000;
      }
    }
    using bystander = new CuckooFilter({ capacity: 1000 });
    bystander.addMany(Array.from({ length: 500 }, (_, i) => `b${i}`));
    const before = bystander.export();
    using f = new CuckooFilter({ capacity: 100 });
    const liar = new Liar([104, 105]);
    expect(f.add(liar)).toBe(true);
    expect(f.addMany([liar, 'x'])).toEqual([true, true]);
    expect(f.count('hi')).toBe(2);
    expect(bystander.export()).toEqual(before);
  });

  test('a filter disposed while its batch is read reports DISPOSED, never a trap', () => {
    const f = new CuckooFilter({ capacity: 100 });
    const keys = ['a', 'b'];
    Object.defineProperty(keys, 1, {
      get: () => {
        f.dispose();
        return 'b';
      },
    });
    expect(errorOf(() => f.addMany(keys))).toBe('DISPOSED: this CuckooFilter was disposed');
    const g = new CuckooFilter({ capacity: 100 });
    function* disposing() {
      yield 'a';
      g.dispose();
      yield 'b';
    }
    expect(errorOf(() => g.hasMany(disposing()))).toBe('DISPOSED: this CuckooFilter was disposed');
  });

  test('errors name the type of the value they got', () => {
    expect(errorOf(() => new CuckooFilter({ capacity: '10' } as never))).toBe(
      "INVALID_ARGUMENT: capacity must be an integer from 1 to 2^53 - 1, got the string '10'",
    );
    expect(errorOf(() => new CuckooFilter({} as never))).toBe(
      'INVALID_ARGUMENT: capacity must be an integer from 1 to 2^53 - 1, got undefined',
    );
    expect(errorOf(() => new CuckooFilter({ capacity: 10, bucketSize: 3 } as never))).toBe(
      'INVALID_ARGUMENT: bucketSize must be 2, 4 or 8, got the number 3',
    );
    using f = new CuckooFilter({ capacity: 10 });
    expect(errorOf(() => f.add(undefined as never))).toBe(
      'TypeError: key must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), got undefined',
    );
    expect(errorOf(() => f.add(new Uint16Array(2) as never))).toBe(
      'TypeError: key must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), got a Uint16Array',
    );
    expect(errorOf(() => f.add(12.5 as never))).toBe(
      'TypeError: key must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), got the number 12.5',
    );
  });

  test('a lone surrogate hashes as U+FFFD (documented)', () => {
    using f = new CuckooFilter({ capacity: 10 });
    f.add('a\uD800b');
    expect(f.has('a\uFFFDb')).toBe(true);
    expect(f.has(new TextEncoder().encode('a\uFFFDb'))).toBe(true);
  });
});

describe('export and import in chunks', () => {
  test('exportChunks gives export() in pieces; importChunks reads them from an iterable or a stream', async () => {
    using f = new CuckooFilter({ capacity: 5000, growth: 2 });
    f.addMany(Array.from({ length: 20000 }, (_, i) => `c${i}`));
    const whole = f.export();
    for (const size of [1, 1000, 65536, whole.length + 1]) {
      const chunks = [...f.exportChunks(size)];
      expect(chunks.every((c) => c.length <= size)).toBe(true);
      expect(Buffer.concat(chunks)).toEqual(Buffer.from(whole));
    }
    using fromArray = await CuckooFilter.importChunks(f.exportChunks(777));
    expect(fromArray.export()).toEqual(whole);
    using fromStream = await CuckooFilter.importChunks(Readable.from([...f.exportChunks(4096)]));
    expect(fromStream.export()).toEqual(whole);
  });

  test('a change during exportChunks is refused; damaged or short input is BAD_FORMAT', async () => {
    using f = new CuckooFilter({ capacity: 5000 });
    f.add('a');
    const chunks = f.exportChunks(100);
    chunks.next();
    f.add('b');
    expect(errorOf(() => chunks.next())).toBe(
      'INVALID_ARGUMENT: the filter changed during exportChunks(): export it again',
    );
    const whole = f.export();
    await expect(CuckooFilter.importChunks([whole.subarray(0, 100)])).rejects.toThrow(
      /truncated: 100 bytes, but the header describes/,
    );
    await expect(CuckooFilter.importChunks([whole, new Uint8Array(1)])).rejects.toThrow(/trailing data/);
    await expect(CuckooFilter.importChunks(['x' as never])).rejects.toThrow(
      "chunk 0 must be a Uint8Array, got the string 'x'",
    );
    expect(errorOf(() => f.exportChunks(0))).toMatch(/^INVALID_ARGUMENT: chunkBytes must be an integer/);
  });
});
