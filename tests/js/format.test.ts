// export() / import(): exact round trips, and every damaged input refused with BAD_FORMAT.
import { CuckooFilter, CuckooFilterError, ready } from '../../js/src/index';
import { rng } from './helpers';

beforeAll(() => ready());

function smallExport(): Uint8Array {
  using f = new CuckooFilter({ capacity: 40, fingerprintBits: 12 });
  for (let i = 0; i < 30; i++) f.add(`x-${i}`);
  return f.export();
}

function importError(bytes: Uint8Array): string {
  try {
    CuckooFilter.import(bytes).dispose();
  } catch (e) {
    expect(e).toBeInstanceOf(CuckooFilterError);
    expect((e as CuckooFilterError).code).toBe('BAD_FORMAT');
    return (e as CuckooFilterError).message;
  }
  return 'accepted';
}

test('export then import gives the same filter', () => {
  for (const options of [
    { capacity: 5000, fingerprintBits: 7, bucketSize: 2 as const },
    { capacity: 5000, fpRate: 0.0001, bucketSize: 8 as const, seed: 99n, maxKicks: 77 },
  ]) {
    using f = new CuckooFilter(options);
    const keys = Array.from({ length: 4000 }, (_, i) => `r${i}`);
    f.addMany(keys);
    const bytes = f.export();
    using g = CuckooFilter.import(bytes);
    expect(g.export()).toEqual(bytes);
    expect(g.size).toBe(f.size);
    expect(g.seed).toBe(f.seed);
    expect(g.maxKicks).toBe(f.maxKicks);
    expect(g.hasMany(keys)).toEqual(f.hasMany(keys));
    // It keeps working like the original.
    const more = Array.from({ length: 500 }, (_, i) => `more${i}`);
    expect(g.addMany(more)).toEqual(f.addMany(more));
    expect(g.export()).toEqual(f.export());
  }
});

test('export returns a copy that later changes do not touch', () => {
  using f = new CuckooFilter({ capacity: 100 });
  const before = f.export();
  const copy = before.slice();
  f.add('changed');
  expect(before).toEqual(copy);
});

test('every truncation is refused', () => {
  const bytes = smallExport();
  for (let length = 0; length < bytes.length; length++) {
    expect(importError(bytes.subarray(0, length))).toMatch(/truncated/);
  }
});

test('every single bit flip is refused', () => {
  const bytes = smallExport();
  for (let bit = 0; bit < bytes.length * 8; bit++) {
    const damaged = bytes.slice();
    damaged[bit >> 3] ^= 1 << (bit & 7);
    expect(importError(damaged)).not.toBe('accepted');
  }
});

test('the error says what is wrong', () => {
  const good = smallExport();
  const withByte = (offset: number, value: number) => {
    const b = good.slice();
    b[offset] = value;
    return b;
  };
  expect(importError(withByte(0, 0))).toMatch(/magic/);
  expect(importError(withByte(4, 9))).toMatch(/version 9/);
  expect(good[4]).toBe(3);
  // Pre-release exports (versions 1 and 2) linked buckets differently: refused by name, never misread.
  expect(importError(withByte(4, 1))).toMatch(/format version 1 was written by a pre-release build/);
  expect(importError(withByte(4, 2))).toMatch(/format version 2 was written by a pre-release build/);
  expect(importError(withByte(6, 3))).toMatch(/bucket size 3/);
  expect(importError(withByte(7, 40))).toMatch(/fingerprint bits 40/);
  expect(importError(withByte(good.length - 1, good[good.length - 1] ^ 0xff))).toMatch(/checksum/);
  expect(importError(new Uint8Array([...good, 0]))).toMatch(/trailing/);
  // An absurd table length is refused before anything is allocated.
  const huge = good.slice();
  new DataView(huge.buffer).setBigUint64(48, 1n << 62n, true);
  expect(importError(huge)).toMatch(/table length/);
});

test('random bytes are refused', () => {
  const random = rng(7);
  const good = smallExport();
  for (let t = 0; t < 3000; t++) {
    const bytes = new Uint8Array(Math.floor(random() * 300));
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
    if (t % 2 === 0 && bytes.length >= 8) bytes.set(good.subarray(0, 8)); // reach the later checks
    expect(importError(bytes)).not.toBe('accepted');
  }
});

test('import wants a Uint8Array', () => {
  expect(() => CuckooFilter.import([1, 2, 3] as never)).toThrow(TypeError);
  expect(() => CuckooFilter.import('bytes' as never)).toThrow(TypeError);
});
