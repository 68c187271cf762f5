// cuckoo-wasm/lite: the sized filter in its own small module (cpp/wasm/lite_bindings.cpp). The same
// property test as the full filter's (model.test.ts), exports exchanged with the full entry both ways and
// byte for byte, and the errors for what it leaves out.
import { CuckooFilter as FullFilter, ready as fullReady, LineDeduper } from '../../js/src/index';
import { CuckooFilter, CuckooFilterError, ready } from '../../js/src/lite';
import { rng } from './helpers';

beforeAll(() => Promise.all([ready(), fullReady()]));

const keys = (n: number, prefix = 'k') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

function expectUnsupported(run: () => unknown, what: RegExp): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(CuckooFilterError);
  expect((thrown as CuckooFilterError).code).toBe('UNSUPPORTED');
  expect((thrown as Error).message).toMatch(what);
  expect((thrown as Error).message).toContain("from 'cuckoo-wasm'");
}

test.each([
  [4, 12, 5000],
  [2, 8, 1000],
  [8, 16, 4000],
  [4, 9, 2000],
  [4, 24, 3000],
])(
  'against an exact multiset: bucketSize %i, %i-bit fingerprints, capacity %i',
  (bucketSize, fingerprintBits, capacity) => {
    using f = new CuckooFilter({ capacity, bucketSize: bucketSize as 2 | 4 | 8, fingerprintBits, seed: 11 });
    const random = rng(bucketSize * 100 + fingerprintBits);
    const pool = Math.floor(capacity * 1.5);
    const model = new Map<number, number>();
    const present: number[] = [];
    let size = 0;
    let failedAdds = 0;
    for (let op = 0; op < 150_000; op++) {
      const roll = random();
      if (roll < 0.4) {
        const k = Math.floor(random() * pool);
        if (f.add(`m-${k}`)) {
          model.set(k, (model.get(k) ?? 0) + 1);
          present.push(k);
          size++;
        } else failedAdds++;
      } else if (roll < 0.45) {
        // addIfAbsent: false only for a key it finds (a model key, or a false positive), never a lost add.
        const k = Math.floor(random() * pool);
        let added: boolean;
        try {
          added = f.addIfAbsent(`m-${k}`);
        } catch (error) {
          expect((error as CuckooFilterError).code).toBe('CAPACITY_EXCEEDED');
          continue;
        }
        if (added) {
          model.set(k, (model.get(k) ?? 0) + 1);
          present.push(k);
          size++;
        } else expect(f.has(`m-${k}`)).toBe(true);
      } else if (roll < 0.75) {
        if (present.length === 0) continue;
        const pick = Math.floor(random() * present.length);
        const k = present[pick];
        present[pick] = present[present.length - 1];
        present.pop();
        expect(f.delete(`m-${k}`)).toBe(true);
        const left = model.get(k)! - 1;
        if (left === 0) model.delete(k);
        else model.set(k, left);
        size--;
      } else {
        const k = Math.floor(random() * pool);
        if (model.has(k)) expect(f.has(`m-${k}`)).toBe(true);
      }
      if (op % 25_000 === 0) {
        expect(f.size).toBe(size);
        const inModel = [...model.keys()];
        expect(f.hasMany(inModel.map((k) => `m-${k}`)).every(Boolean)).toBe(true);
        expect(f.hasMany(new BigUint64Array(0))).toEqual(new Uint8Array(0));
        for (const k of inModel.slice(0, 300)) expect(f.count(`m-${k}`)).toBeGreaterThanOrEqual(model.get(k)!);
      }
    }
    expect(failedAdds).toBeGreaterThan(0);
    expect(f.size).toBe(size);
    // The batches against the model too: delete every key once, then nothing is left of them.
    const once = [...model.keys()].map((k) => `m-${k}`);
    expect(f.deleteMany(once).every(Boolean)).toBe(true);
  },
);

test('integer batches: the same keys as single calls', () => {
  using f = new CuckooFilter({ capacity: 10_000, fpRate: 1e-6 });
  const ids = new BigUint64Array(5000).map((_, i) => BigInt(i) * 7919n);
  expect(f.addMany(ids).every((r) => r === 1)).toBe(true);
  expect(f.has(7919n)).toBe(true);
  expect(f.has(7919)).toBe(true);
  expect(f.hasMany(new Uint32Array([0, 7919, 7920]))).toEqual(new Uint8Array([1, 1, 0]));
  expect(f.deleteMany(ids).every((r) => r === 1)).toBe(true);
  expect(f.size).toBe(0);
});

test.each([
  [{ capacity: 1000 }],
  [{ capacity: 50_000, fpRate: 1e-5, seed: 7 }],
  [{ capacity: 3000, bucketSize: 8 as const, fingerprintBits: 11, maxKicks: 20 }],
])('a filter of %j: the same export as the full entry, and each reads the other', (options) => {
  using lite = new CuckooFilter(options);
  using full = new FullFilter(options);
  const some = keys(Math.floor(options.capacity * 0.9));
  expect(lite.addMany(some)).toEqual(full.addMany(some));
  expect(lite.deleteMany(some.slice(0, 100))).toEqual(full.deleteMany(some.slice(0, 100)));
  const fromLite = lite.export();
  // One core: the same table, byte for byte.
  expect(Buffer.from(fromLite).equals(Buffer.from(full.export()))).toBe(true);
  using inFull = FullFilter.import(fromLite);
  using inLite = CuckooFilter.import(full.export());
  const rest = some.slice(100);
  expect(inFull.hasMany(rest).every(Boolean)).toBe(true);
  expect(inLite.hasMany(rest).every(Boolean)).toBe(true);
  expect([
    inLite.size,
    inLite.capacity,
    inLite.fingerprintBits,
    inLite.bucketSize,
    inLite.seed,
    inLite.maxKicks,
  ]).toEqual([full.size, full.capacity, full.fingerprintBits, full.bucketSize, full.seed, full.maxKicks]);
  expect(inLite.expectedFpRate).toBe(full.expectedFpRate);
  expect(String(inLite)).toBe(String(full));
});

test('toJSON, fromJSON and the chunked export cross between the entries', async () => {
  using lite = new CuckooFilter({ capacity: 20_000 });
  lite.addMany(keys(15_000));
  using viaJson = FullFilter.fromJSON(JSON.stringify(lite));
  expect(viaJson.hasMany(keys(15_000)).every(Boolean)).toBe(true);
  using full = new FullFilter({ capacity: 20_000 });
  full.addMany(keys(15_000));
  using viaChunks = await CuckooFilter.importChunks(full.exportChunks(1000));
  expect(viaChunks.hasMany(keys(15_000)).every(Boolean)).toBe(true);
  using back = CuckooFilter.fromJSON(lite.toJSON());
  expect(back.size).toBe(15_000);
});

test('what only the full entry has throws UNSUPPORTED naming it, and changes nothing', () => {
  expectUnsupported(() => new CuckooFilter({ capacity: 100, growth: 2 }), /growth/);
  expectUnsupported(() => new CuckooFilter({ capacity: 100, growth: 4, maxSubFilters: 3 }), /growth/);
  expectUnsupported(() => new CuckooFilter({ capacity: 100, semiSorted: true }), /semiSorted/);
  using f = new CuckooFilter({ capacity: 100 });
  f.add('a');
  expectUnsupported(() => f.merge(f), /merge\(\)/);
  expectUnsupported(() => f.union(f), /union\(\)/);
  // An outside pass: "TypeError: f.addIfAbsentRanges is not a function".
  expectUnsupported(() => f.addIfAbsentRanges(new Uint8Array(1), Uint32Array.of(0, 1)), /addIfAbsentRanges\(\)/);
  // The same pass: the introspection calls were "TypeError: f.locate is not a function".
  // (Not in lite's declarations: a call through the full entry's type, as JavaScript makes it.)
  const untyped = f as unknown as FullFilter;
  expectUnsupported(() => untyped.locate('a'), /locate\(\)/);
  expectUnsupported(() => untyped.alternate(0, 1), /alternate\(\)/);
  expectUnsupported(() => untyped.slot(0, 0), /slot\(\)/);
  expectUnsupported(() => untyped.slots(), /slots\(\)/);
  expectUnsupported(() => untyped.addTraced('b'), /addTraced\(\)/);
  expectUnsupported(() => untyped.bucketCode(0), /^bucketCode\(\) is not in cuckoo-wasm\/lite: /);
  expect(untyped.locate.name).toBe('locate');
  expect(f.size).toBe(1);
  // Exports of filters the lite module leaves out: the reason, not a "bad format".
  using doubling = new FullFilter({ capacity: 100, growth: 2 }); // slots that widen: version 8
  using oneWidth = new FullFilter({ capacity: 100, growth: 2, fpRate: 0.01 });
  using chain = new FullFilter({ capacity: 100, growth: 2, maxSubFilters: 4 });
  using semi = new FullFilter({ capacity: 100, semiSorted: true });
  expectUnsupported(
    () => CuckooFilter.import(doubling.export()),
    /version 8: a filter that grows \(a table that doubles/,
  );
  expectUnsupported(
    () => CuckooFilter.import(oneWidth.export()),
    /version 7: a filter that grows \(a table that doubles/,
  );
  expectUnsupported(() => CuckooFilter.import(chain.export()), /version 4: a filter that grows \(a chain/);
  expectUnsupported(() => CuckooFilter.import(semi.export()), /semi-sorted/);
  // Options the lite entry has are checked as the full entry checks them.
  expect(() => new CuckooFilter({ capacity: 0 })).toThrow(/capacity/);
  expect(() => new CuckooFilter({ capacity: 10, fpRate: 2 })).toThrow(CuckooFilterError);
  // A rate the core refuses is named as given, with its value.
  expect(() => new CuckooFilter({ capacity: 10, fpRate: 1e-10 })).toThrow(
    /^fpRate is below what 32-bit fingerprints give with bucketSize 4 \(about 1.9e-9\); got fpRate 1e-10$/,
  );
});

test('bad bytes are BAD_FORMAT, and a disposed filter DISPOSED', () => {
  using f = new CuckooFilter({ capacity: 100 });
  f.add('x');
  const bytes = f.export();
  bytes[bytes.length - 1] ^= 1;
  expect(() => CuckooFilter.import(bytes)).toThrow(/checksum/);
  expect(() => CuckooFilter.import(bytes.subarray(0, 20))).toThrow(/truncated/);
  expect(() => CuckooFilter.import('x' as unknown as Uint8Array)).toThrow(TypeError);
  f.dispose();
  expect(() => f.has('x')).toThrow(expect.objectContaining({ code: 'DISPOSED' }));
  expect(String(f)).toBe('CuckooFilter { disposed }');
});

// An outside pass (2026-12-02): a flipped bit that turned a lite export's version into 7, or set its
// semi-sorted flag, was UNSUPPORTED ("use the full entry"), whose reader then said BAD_FORMAT. Damage is
// BAD_FORMAT in either entry; UNSUPPORTED is for an intact export of what lite leaves out.
test('every single-bit flip of an export is BAD_FORMAT here too, whole and in pieces', async () => {
  using f = new CuckooFilter({ capacity: 20, fingerprintBits: 8 });
  for (const key of keys(12)) f.add(key);
  const bytes = f.export();
  const codes = new Map<string, number>();
  for (let bit = 0; bit < bytes.length * 8; bit++) {
    const flipped = bytes.slice();
    flipped[bit >> 3] ^= 1 << (bit & 7);
    let code = 'accepted';
    try {
      CuckooFilter.import(flipped).dispose();
    } catch (error) {
      code = (error as CuckooFilterError).code;
    }
    codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  expect([...codes]).toEqual([['BAD_FORMAT', bytes.length * 8]]);
  for (const [byte, bit] of [
    [4, 2], // version 3 became 7
    [12, 0], // the semi-sorted flag
  ]) {
    const flipped = bytes.slice();
    flipped[byte] ^= 1 << bit;
    const pieces = Array.from({ length: Math.ceil(flipped.length / 7) }, (_, i) => flipped.subarray(i * 7, i * 7 + 7));
    await expect(CuckooFilter.importChunks(pieces)).rejects.toMatchObject({
      code: 'BAD_FORMAT',
      message: expect.stringMatching(/checksum mismatch/),
    });
  }
  // Short bytes that begin as an export lite leaves out: truncated, not UNSUPPORTED.
  const junk = Uint8Array.of(0x43, 0x4b, 0x4f, 0x4f, 4, 0, 0, 0, 0, 0); // "CKOO", version 4
  expect(() => CuckooFilter.import(junk)).toThrow(
    expect.objectContaining({ code: 'BAD_FORMAT', message: expect.stringMatching(/truncated: it ends before/) }),
  );
  // Intact exports of what lite leaves out stay UNSUPPORTED, whole and in pieces; damaged ones are not.
  using growing = new FullFilter({ capacity: 100, growth: 2 });
  for (const key of keys(300)) growing.add(key);
  using semi = new FullFilter({ capacity: 100, semiSorted: true });
  semi.add('a');
  for (const full of [growing.export(), semi.export()]) {
    const pieces = (b: Uint8Array) =>
      Array.from({ length: Math.ceil(b.length / 5) }, (_, i) => b.subarray(i * 5, i * 5 + 5));
    await expect(CuckooFilter.importChunks(pieces(full))).rejects.toMatchObject({ code: 'UNSUPPORTED' });
    const damaged = full.slice();
    damaged[damaged.length >> 1] ^= 0x10;
    expect(() => CuckooFilter.import(damaged)).toThrow(expect.objectContaining({ code: 'BAD_FORMAT' }));
    await expect(CuckooFilter.importChunks(pieces(damaged))).rejects.toMatchObject({ code: 'BAD_FORMAT' });
    expect(() => CuckooFilter.import(full.subarray(0, full.length - 1))).toThrow(
      expect.objectContaining({ code: 'BAD_FORMAT' }),
    );
  }
  // The reason reads as a sentence.
  expect(() => CuckooFilter.import(semi.export())).toThrow(
    /^a filter with semi-sorted buckets \(this export's header says so\) is not in cuckoo-wasm\/lite: import/,
  );
});

test('a full table: add() is false and changes nothing; addIfAbsent() throws CAPACITY_EXCEEDED', () => {
  using f = new CuckooFilter({ capacity: 50, maxKicks: 10 });
  let added = 0;
  for (let i = 0; i < 1000 && f.add(`x${i}`); i++) added++;
  const size = f.size;
  expect(size).toBe(added);
  const before = f.export();
  expect(f.add('another')).toBe(false);
  expect(Buffer.from(f.export()).equals(Buffer.from(before))).toBe(true);
  expect(() => {
    for (let i = 0; i < 1000; i++) f.addIfAbsent(`y${i}`);
  }).toThrow(expect.objectContaining({ code: 'CAPACITY_EXCEEDED' }));
  expect(f.hasMany(Array.from({ length: added }, (_, i) => `x${i}`)).every(Boolean)).toBe(true);
});

test('a table larger than the heap can hold: OUT_OF_MEMORY, and the module goes on working', () => {
  expect(() => new CuckooFilter({ capacity: 4e9, fpRate: 1e-6 })).toThrow(
    expect.objectContaining({ code: 'OUT_OF_MEMORY' }),
  );
  using f = new CuckooFilter({ capacity: 10 });
  expect(f.add('still')).toBe(true);
});

// The module's memory grows by an eighth at the least: grown by the pages each table needed, 256 MB of small
// filters took 4,274 growths (10.8 s, the full entry 1.7 s; found by an adversarial pass).
test('many filters: the memory grows in large steps, not one table at a time', () => {
  const filters: CuckooFilter[] = [];
  const buffer = () => (filters[0] as unknown as { m: { HEAPU8: Uint8Array } }).m.HEAPU8.buffer;
  let bytes = 0;
  let growths = 0;
  try {
    filters.push(new CuckooFilter({ capacity: 30_000 }));
    let seen = buffer();
    while (bytes < 96 * 2 ** 20) {
      const f = new CuckooFilter({ capacity: 30_000 });
      bytes += f.byteLength;
      filters.push(f);
      if (buffer() !== seen) {
        growths++;
        seen = buffer();
      }
    }
    expect(filters.length).toBeGreaterThan(1900);
    expect(growths).toBeLessThan(40);
  } finally {
    for (const f of filters) f.dispose();
  }
});

// Before: "other is a CuckooFilter of another copy of cuckoo-wasm (one loaded with import and one with require,
// or two installs...)" for a lite filter of the same install (found by an adversarial pass).
test("a lite filter given to the full entry's joins or LineDeduper is named as one, with the way to move it", () => {
  using lite = new CuckooFilter({ capacity: 100 });
  lite.add('from-lite');
  using full = new FullFilter({ capacity: 100 });
  expect(() => full.merge(lite as unknown as FullFilter)).toThrow(
    /other is a CuckooFilter of cuckoo-wasm\/lite .*move it as bytes: merge\(CuckooFilter.import\(other.export\(\)\)\)/,
  );
  expect(() => full.union(lite as unknown as FullFilter)).toThrow(TypeError);
  expect(() => new LineDeduper({ seen: lite as unknown as FullFilter })).toThrow(
    /seen is a CuckooFilter of cuckoo-wasm\/lite/,
  );
  full.merge(FullFilter.import(lite.export()));
  expect(full.has('from-lite')).toBe(true);
});
