// Every error path: a typed error with a code that says what, and nothing changed.
import { CuckooFilter, CuckooFilterError, type CuckooFilterOptions, ready } from '../../js/src/index';

beforeAll(() => ready());

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof CuckooFilterError) return `${e.code}: ${e.message}`;
    if (e instanceof TypeError) return `TypeError: ${e.message}`;
    throw e;
  }
  return 'no error';
}

describe('INVALID_ARGUMENT names the option', () => {
  const cases: Array<[string, unknown, string]> = [
    ['no options', undefined, 'options'],
    ['null', null, 'options'],
    ['array', [], 'options'],
    ['missing capacity', {}, 'capacity'],
    ['capacity NaN', { capacity: NaN }, 'capacity'],
    ['capacity -1', { capacity: -1 }, 'capacity'],
    ['capacity 0', { capacity: 0 }, 'capacity'],
    ['capacity 1.5', { capacity: 1.5 }, 'capacity'],
    ['capacity Infinity', { capacity: Infinity }, 'capacity'],
    ['capacity string', { capacity: '100' }, 'capacity'],
    ['capacity 1e15', { capacity: 1e15 }, 'capacity'],
    ['fpRate 0', { capacity: 10, fpRate: 0 }, 'fpRate'],
    ['fpRate 1', { capacity: 10, fpRate: 1 }, 'fpRate'],
    ['fpRate 2', { capacity: 10, fpRate: 2 }, 'fpRate'],
    ['fpRate NaN', { capacity: 10, fpRate: NaN }, 'fpRate'],
    ['fpRate tiny', { capacity: 10, fpRate: 1e-12 }, 'got fpRate 1e-12'],
    ['fingerprintBits 3', { capacity: 10, fingerprintBits: 3 }, 'fingerprintBits'],
    ['fingerprintBits 33', { capacity: 10, fingerprintBits: 33 }, 'fingerprintBits'],
    ['fingerprintBits 8.5', { capacity: 10, fingerprintBits: 8.5 }, 'fingerprintBits'],
    ['both rate and bits', { capacity: 10, fpRate: 0.01, fingerprintBits: 8 }, 'not both'],
    ['bucketSize 3', { capacity: 10, bucketSize: 3 }, 'bucketSize'],
    ['maxKicks -1', { capacity: 10, maxKicks: -1 }, 'maxKicks'],
    ['maxKicks 1e6', { capacity: 10, maxKicks: 1e6 }, 'maxKicks'],
    ['seed -1', { capacity: 10, seed: -1 }, 'seed'],
    ['seed 2^64', { capacity: 10, seed: 2n ** 64n }, 'seed'],
    ['seed 0.5', { capacity: 10, seed: 0.5 }, 'seed'],
    // Numbers past 2^53 - 1 are not exact: the rule says so (a bigint for a seed).
    ['capacity 2^53', { capacity: 2 ** 53 }, 'capacity must be an integer from 1 to 2^53 - 1'],
    ['seed 2^53', { capacity: 10, seed: 2 ** 53 }, 'a number up to 2^53 - 1, or a bigint'],
    ['unknown option', { capacity: 10, fprate: 0.01 }, 'unknown option "fprate"'],
  ];
  test.each(cases)('%s', (_name, options, mention) => {
    const message = codeOf(() => new CuckooFilter(options as never));
    expect(message).toMatch(/^INVALID_ARGUMENT: /);
    expect(message).toContain(mention);
  });
});

test('a rate the core refuses is named as given, with the value it got, for every kind of filter', () => {
  const refused: CuckooFilterOptions[] = [
    { capacity: 100, fpRate: 1e-10 },
    { capacity: 100, fpRate: 1e-10, growth: 4 },
    { capacity: 100, fpRate: 1e-12, growth: 2 },
    { capacity: 100, fpRate: 1e-10, semiSorted: true },
    { capacity: 100, fpRate: 1e-10, bucketSize: 2 },
    { capacity: 100, fpRate: 1e-10, bucketSize: 8 },
  ];
  for (const options of refused) {
    const message = codeOf(() => new CuckooFilter(options));
    expect(message).toMatch(/^INVALID_ARGUMENT: fpRate /);
    expect(message).toContain(`got fpRate ${options.fpRate}`);
    expect(message).not.toMatch(/fp_rate|bucket_size|fingerprint_bits|semi_sorted/);
  }
});

test('a table that does not fit in 4 GiB gives OUT_OF_MEMORY, and the module keeps working', () => {
  expect(codeOf(() => new CuckooFilter({ capacity: 2_000_000_000, fingerprintBits: 32 }))).toMatch(/^OUT_OF_MEMORY: /);
  using f = new CuckooFilter({ capacity: 1000 });
  expect(f.add('still works')).toBe(true);
  expect(f.has('still works')).toBe(true);
});

describe('keys of the wrong type are TypeErrors and change nothing', () => {
  const badKeys: unknown[] = [
    1.5,
    NaN,
    2 ** 53,
    null,
    undefined,
    {},
    [],
    true,
    Symbol('s'),
    new Uint16Array(2),
    new ArrayBuffer(4),
  ];
  test.each(badKeys.map((k) => [String(typeof k), k]))('%s', (_t, key) => {
    using f = new CuckooFilter({ capacity: 100 });
    f.add('existing');
    const before = f.export();
    for (const op of ['add', 'has', 'delete', 'count', 'addIfAbsent', 'locate'] as const) {
      expect(codeOf(() => (f[op] as (k: unknown) => unknown)(key))).toMatch(
        /^TypeError: key must be a string, a Uint8Array or an integer/,
      );
    }
    for (const op of ['addMany', 'hasMany', 'deleteMany'] as const) {
      // The bad key comes after good ones: the whole batch is refused before anything is added.
      expect(codeOf(() => (f[op] as (k: unknown) => unknown)(['a', 'b', key]))).toMatch(
        /^TypeError: keys\[2\] must be/,
      );
    }
    expect(f.export()).toEqual(before);
  });

  test('a bad key in a later chunk of a batch is refused before the first chunk changes anything', () => {
    using f = new CuckooFilter({ capacity: 10_000 });
    f.add('existing');
    const before = f.export();
    // Past the chunk's key limit (4096 keys), and past its byte limit (three keys of 400,000 characters).
    const manyKeys: unknown[] = [...Array.from({ length: 5000 }, (_, i) => `k${i}`), 4.2];
    const longKeys: unknown[] = ['x'.repeat(400_000), 'y'.repeat(400_000), 'z'.repeat(400_000), null];
    for (const op of ['addMany', 'hasMany', 'deleteMany'] as const) {
      expect(codeOf(() => (f[op] as (k: unknown) => unknown)(manyKeys))).toBe(
        'TypeError: keys[5000] must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), got the number 4.2',
      );
      expect(f.export()).toEqual(before); // after each call: a deleteMany could undo an addMany's damage
      expect(codeOf(() => (f[op] as (k: unknown) => unknown)(longKeys))).toBe(
        'TypeError: keys[3] must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), got null',
      );
      expect(f.export()).toEqual(before);
    }
  });

  test('a batch is any iterable of keys, but not a string', () => {
    using f = new CuckooFilter({ capacity: 100 });
    expect(codeOf(() => f.addMany('abc' as never))).toBe(
      'TypeError: keys must be an iterable of keys (an array, a Set, ' +
        "a generator), got the string 'abc' (for one key, use the single-key method)",
    );
    expect(codeOf(() => f.addMany(42 as never))).toMatch(
      /^TypeError: keys must be an iterable of keys .*, got the number 42$/,
    );
    expect(codeOf(() => f.addMany(undefined as never))).toMatch(/, got undefined$/);
    expect(f.size).toBe(0);
  });
});

test('every method refuses use after dispose(); dispose twice is fine', () => {
  const f = new CuckooFilter({ capacity: 100 });
  f.add('x');
  f.dispose();
  f.dispose();
  const calls: Array<() => unknown> = [
    () => f.add('x'),
    () => f.has('x'),
    () => f.delete('x'),
    () => f.count('x'),
    () => f.addIfAbsent('x'),
    () => f.addMany(['x']),
    () => f.hasMany(['x']),
    () => f.deleteMany(['x']),
    () => f.clear(),
    () => f.export(),
    () => f.size,
    () => f.capacity,
    () => f.loadFactor,
    () => f.byteLength,
    () => f.fingerprintBits,
    () => f.bucketSize,
    () => f.expectedFpRate,
    () => f.seed,
    () => f.slot(0, 0),
    () => f.locate('x'),
    () => f.addTraced('x'),
    () => f.alternate(0, 1),
  ];
  for (const call of calls) expect(codeOf(call)).toBe('DISPOSED: this CuckooFilter was disposed');
});

test('creating a filter before ready() gives NOT_READY', () => {
  jest.isolateModules(() => {
    // A fresh copy of the package, whose module is not loaded yet.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fresh = require('../../js/src/index') as typeof import('../../js/src/index');
    expect(() => new fresh.CuckooFilter({ capacity: 10 })).toThrow(expect.objectContaining({ code: 'NOT_READY' }));
    expect(() => fresh.CuckooFilter.import(new Uint8Array(64))).toThrow(expect.objectContaining({ code: 'NOT_READY' }));
  });
});

test('ready() where the runtime has no WebAssembly SIMD rejects with UNSUPPORTED saying so, and may be retried', async () => {
  // A runtime without SIMD refuses every module that has a SIMD instruction: WebAssembly.validate, stubbed.
  const validate = WebAssembly.validate;
  const asked: ArrayBuffer[] = [];
  WebAssembly.validate = (bytes: BufferSource) => {
    asked.push(new Uint8Array(bytes as ArrayBuffer).slice().buffer);
    return false;
  };
  let fresh: typeof import('../../js/src/index') | undefined;
  try {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      fresh = require('../../js/src/index') as typeof import('../../js/src/index');
    });
    await expect(fresh!.ready()).rejects.toThrow(
      expect.objectContaining({
        code: 'UNSUPPORTED',
        message: expect.stringMatching(
          /^this runtime has no WebAssembly SIMD \(simd128\), .* Safari 16\.4\+ have it; cuckoo-wasm\/lite runs without it$/,
        ),
      }),
    );
    expect(() => new fresh!.CuckooFilter({ capacity: 10 })).toThrow(expect.objectContaining({ code: 'NOT_READY' }));
  } finally {
    WebAssembly.validate = validate;
  }
  // What it asked about is a module with a SIMD instruction, valid here (Node has SIMD); the load works now.
  expect(asked).toHaveLength(1);
  expect(validate(asked[0])).toBe(true);
  expect(new Uint8Array(asked[0]).includes(0xfd)).toBe(true); // the SIMD opcodes' prefix
  await fresh!.ready();
  const filter = new fresh!.CuckooFilter({ capacity: 10 });
  expect(filter.add('a')).toBe(true);
  filter.dispose();
});

test('CuckooFilterError is an Error with a name and a code', () => {
  const e = new CuckooFilterError('BAD_FORMAT', 'x');
  expect(e).toBeInstanceOf(Error);
  expect(e.name).toBe('CuckooFilterError');
  expect(e.code).toBe('BAD_FORMAT');
});
