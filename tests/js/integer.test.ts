// Integer keys through the TypeScript API: numbers (safe integers) and bigints are the same keys as their
// 8 little-endian bytes; typed arrays of integers are batches that are not turned into JavaScript values.
import { CuckooFilter, ready } from '../../js/src/index';
import { errorOf, rng } from './helpers';

beforeAll(() => ready());

const le = (v: bigint): Uint8Array => {
  const out = new Uint8Array(8);
  let x = BigInt.asUintN(64, v);
  for (let i = 0; i < 8; i++, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
};

test('a number, its bigint and its 8 little-endian bytes are one key; its decimal string is another', () => {
  using f = new CuckooFilter({ capacity: 10_000 });
  for (const v of [0, 1, 42, 2 ** 32, 2 ** 53 - 1, -1, -42, -(2 ** 53) + 1]) {
    const at = f.locate(v);
    expect([v, f.locate(BigInt(v)).hash, f.locate(le(BigInt(v))).hash]).toEqual([v, at.hash, at.hash]);
    expect(f.locate(String(v)).hash).not.toBe(at.hash);
  }
  expect(f.add(-1)).toBe(true);
  expect([f.has(2n ** 64n - 1n), f.has(-1n), f.has(new Uint8Array(8).fill(255)), f.has('-1')]).toEqual([
    true,
    true,
    true,
    false,
  ]);
  expect(f.add(2n ** 63n)).toBe(true);
  expect(f.has(-(2n ** 63n))).toBe(true); // the same 64 bits
  expect(f.count(42)).toBe(0);
  expect(f.delete(-1n)).toBe(true);
  expect(f.has(-1)).toBe(false);
});

test('non-integers and out-of-range bigints are typed errors naming the value, and change nothing', () => {
  using f = new CuckooFilter({ capacity: 100 });
  f.add(1);
  const before = f.export();
  for (const [key, message] of [
    [
      1.5,
      'TypeError: key must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), got the number 1.5',
    ],
    [
      NaN,
      'TypeError: key must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), got the number NaN',
    ],
    [
      2 ** 53,
      'TypeError: key must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), got the number 9007199254740992',
    ],
    [
      Infinity,
      'TypeError: key must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), got the number Infinity',
    ],
    [2n ** 64n, 'RangeError: key 18446744073709551616n is outside -2^63 .. 2^64 - 1'],
    [-(2n ** 63n) - 1n, 'RangeError: key -9223372036854775809n is outside -2^63 .. 2^64 - 1'],
  ] as const) {
    expect(errorOf(() => f.add(key))).toBe(message);
  }
  expect(errorOf(() => f.addMany([1, 2, 0.5]))).toMatch(/^TypeError: keys\[2\] must be .* got the number 0\.5$/);
  expect(errorOf(() => f.addMany([1, 2n ** 70n]))).toBe(
    'RangeError: keys[1] 1180591620717411303424n is outside -2^63 .. 2^64 - 1',
  );
  expect(f.export()).toEqual(before);
});

// A typed array's batch answers in a Uint8Array: 1 where the single call returns true, 0 where false.
const asBytes = (answers: boolean[]) => Uint8Array.from(answers, Number);

describe('typed arrays of integers are batches, with the answers of single calls', () => {
  const random = rng(7);
  const values = Array.from({ length: 5000 }, () => BigInt.asUintN(64, BigInt(Math.floor(random() * 2 ** 53)) * 4093n));
  test.each([
    ['BigUint64Array', () => BigUint64Array.from(values), (i: number) => values[i]],
    ['BigInt64Array', () => BigInt64Array.from(values.map((v) => BigInt.asIntN(64, v))), (i: number) => values[i]],
    [
      'Uint32Array',
      () => Uint32Array.from(values.map((v) => Number(v & 0xffffffffn))),
      (i: number) => values[i] & 0xffffffffn,
    ],
  ] as const)('%s', (_name, make, keyAt) => {
    using batched = new CuckooFilter({ capacity: 3000, growth: 2 });
    using single = new CuckooFilter({ capacity: 3000, growth: 2 });
    const keys = make();
    const added = batched.addMany(keys);
    expect(added).toEqual(asBytes(Array.from({ length: keys.length }, (_, i) => single.add(keyAt(i)))));
    expect(batched.export()).toEqual(single.export());
    expect(batched.doublings).toBeGreaterThan(0); // grew mid-batch
    expect(batched.hasMany(keys).every(Boolean)).toBe(true);
    expect(batched.deleteMany(keys.subarray(0, 100))).toEqual(
      asBytes(Array.from({ length: 100 }, (_, i) => single.delete(keyAt(i)))),
    );
    expect(batched.export()).toEqual(single.export());
  });

  test('answers in key order across chunks and for lengths that are not a multiple of 4', () => {
    // Results are read a word (4 keys) at a time, then the rest one by one; batches cross into wasm in
    // chunks of 65536 keys.
    using f = new CuckooFilter({ capacity: 70_000 });
    const stored = BigUint64Array.from({ length: 65_541 }, (_, i) => BigInt(i) * 3n);
    expect(f.addMany(stored).every(Boolean)).toBe(true);
    for (const length of [1, 2, 3, 5, 7, 65_536 * 2 + 3]) {
      const probes = BigUint64Array.from({ length }, (_, i) => BigInt(i) * (i % 5 === 0 ? 3n : 1n));
      const expected = Array.from(probes, (k) => f.has(k));
      if (length > 100) expect(new Set(expected)).toEqual(new Set([true, false]));
      expect(f.hasMany(probes)).toEqual(asBytes(expected));
      expect(f.hasMany(Uint32Array.from(probes, Number))).toEqual(asBytes(expected));
    }
  });

  test('a full filter answers 0 for the adds that found no room, as add() returns false', () => {
    using f = new CuckooFilter({ capacity: 100, bucketSize: 2, maxKicks: 0 });
    const keys = BigUint64Array.from({ length: 400 }, (_, i) => BigInt(i));
    const added = f.addMany(keys);
    expect(added).toBeInstanceOf(Uint8Array);
    expect(new Set(added)).toEqual(new Set([0, 1]));
    expect(added.reduce((n, x) => n + x, 0)).toBe(f.size);
    expect(f.hasMany(keys.filter((_, i) => added[i] === 1)).every((x) => x === 1)).toBe(true);
  });

  test('arrays of numbers, several chunks long, with negatives', () => {
    using batched = new CuckooFilter({ capacity: 20_000 });
    using single = new CuckooFilter({ capacity: 20_000 });
    const numbers = Array.from({ length: 10_000 }, (_, i) => (i % 3 === 0 ? -1 : 1) * ((i * 2654435761) % 2 ** 52));
    expect(batched.addMany(numbers)).toEqual(numbers.map((k) => single.add(k)));
    expect(batched.export()).toEqual(single.export());
    expect(batched.hasMany(numbers.map(BigInt)).every(Boolean)).toBe(true);
  });

  test('arrays mixing numbers, bigints, strings and bytes', () => {
    using f = new CuckooFilter({ capacity: 100 });
    expect(f.addMany([1, 2n, 'three', new Uint8Array([4])])).toEqual([true, true, true, true]);
    expect(f.hasMany([1n, 2, 'three', new Uint8Array([4]), 3])).toEqual([true, true, true, true, false]);
  });
});
