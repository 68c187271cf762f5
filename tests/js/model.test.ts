// Property test: random operations against an exact multiset. Never a false negative; size always agrees.
import { CuckooFilter, ready } from '../../js/src/index';
import { rng } from './helpers';

beforeAll(() => ready());

test.each([
  [4, 12, 5000, false],
  [2, 8, 1000, false],
  [8, 16, 4000, false],
  [4, 9, 2000, true],
  [4, 13, 5000, true],
  [4, 24, 3000, true],
])(
  'bucketSize %i, %i-bit fingerprints, capacity %i, semiSorted %s',
  (bucketSize, fingerprintBits, capacity, semiSorted) => {
    using f = new CuckooFilter({
      capacity,
      bucketSize: bucketSize as 2 | 4 | 8,
      fingerprintBits,
      seed: 11,
      semiSorted,
    });
    expect(f.semiSorted).toBe(semiSorted);
    const random = rng(bucketSize * 100 + fingerprintBits);
    const pool = Math.floor(capacity * 1.5);
    const model = new Map<number, number>();
    const present: number[] = [];
    let size = 0;
    let failedAdds = 0;
    for (let op = 0; op < 150_000; op++) {
      const roll = random();
      if (roll < 0.45) {
        const k = Math.floor(random() * pool);
        if (f.add(`m-${k}`)) {
          model.set(k, (model.get(k) ?? 0) + 1);
          present.push(k);
          size++;
        } else failedAdds++;
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
        const keys = [...model.keys()];
        expect(f.hasMany(keys.map((k) => `m-${k}`)).every(Boolean)).toBe(true);
        for (const k of keys.slice(0, 300)) expect(f.count(`m-${k}`)).toBeGreaterThanOrEqual(model.get(k)!);
      }
    }
    expect(failedAdds).toBeGreaterThan(0);
    expect(f.size).toBe(size);
  },
);
