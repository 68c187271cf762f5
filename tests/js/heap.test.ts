// The wasm heap: growth while filters are alive, and create/dispose cycles that leave it where it was.
import { CuckooFilter, ready } from '../../js/src/index';

beforeAll(() => ready());

test('results stay right after the heap has grown while other filters are alive', () => {
  using small = new CuckooFilter({ capacity: 1000, fingerprintBits: 16 });
  const keys = Array.from({ length: 900 }, (_, i) => `small-${i}`);
  small.addMany(keys);
  small.add('ünïcödé');
  // Large filters force memory.grow, which detaches every earlier view of the heap.
  const big = Array.from({ length: 3 }, () => new CuckooFilter({ capacity: 20_000_000, fingerprintBits: 16 }));
  try {
    expect(small.hasMany(keys).every(Boolean)).toBe(true);
    expect(small.has('ünïcödé')).toBe(true);
    expect(small.add('after-growth')).toBe(true);
    expect(small.has('after-growth')).toBe(true);
    expect(big[2].add('in the big one')).toBe(true);
    expect(big[2].has('in the big one')).toBe(true);
    expect(small.export().length).toBeGreaterThan(0);
  } finally {
    for (const f of big) f.dispose();
  }
});

test('create/dispose cycles do not leak', () => {
  // Warm up (the scratch area and allocator state), then check that many more cycles reuse the same memory.
  for (let i = 0; i < 100; i++) new CuckooFilter({ capacity: 1000 }).dispose();
  using probe = new CuckooFilter({ capacity: 10 });
  const heapBefore = (probe as unknown as { m: { HEAPU8: Uint8Array } }).m.HEAPU8.length;
  for (let i = 0; i < 100_000; i++) {
    const f = new CuckooFilter({ capacity: 1000 });
    f.add('k');
    f.dispose();
  }
  const heapAfter = (probe as unknown as { m: { HEAPU8: Uint8Array } }).m.HEAPU8.length;
  expect(heapAfter).toBe(heapBefore);
});
