// LineDeduper, the one line-dedup engine, against the reference of the documented rules; its stream
// adapters; how it sizes and grows its filter.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { pipeline } from 'node:stream/promises';
import {
  CuckooFilter,
  CuckooFilterError,
  LineDeduper,
  MIN_GROWING_FP_RATE,
  planDedup,
  ready,
} from '../../js/src/index';
import { type DedupLinesOptions, dedupLines } from '../../js/src/node';
import {
  BUDGET_START_LIMIT,
  DEDUP_LOSS_BUDGET,
  dedupLineStream,
  expectedWrongDrops,
  type LineDeduperOptions,
  MAX_WINDOW,
  MIN_WINDOW_FP_RATE,
  parseFields,
  windowCapacity,
} from '../../js/src/dedup';
import { requireModule } from '../../js/src/wasm_module';
import { dedupCases, parseCsv, randomCsv, randomInput, referenceCsvDedup, referenceDedup } from './dedup_cases';
import { repoRoot, rng } from './helpers';

beforeAll(() => ready());

// Fingerprints of 31 bits and more: a false drop among these few thousand lines is about 1e-5 likely.
const EXACT = { fpRate: 1e-8 };

/** Pushes the input in blocks cut at random places (some empty, some one byte). */
function runInBlocks(
  input: Buffer,
  seed: number,
  options: LineDeduperOptions = EXACT,
): { out: Buffer; d: LineDeduper } {
  const random = rng(seed);
  const d = new LineDeduper({ ...options, inputBytes: input.length });
  const out: Uint8Array[] = [];
  for (let at = 0; at < input.length; ) {
    const r = random();
    const size = r < 0.1 ? 0 : r < 0.3 ? 1 : r < 0.8 ? Math.floor(random() * 100) : Math.floor(random() * (1 << 21));
    out.push(d.push(input.subarray(at, at + size)));
    at += size;
  }
  out.push(d.end());
  return { out: Buffer.concat(out), d };
}

describe('the documented line rules', () => {
  test.each(dedupCases().map((c) => [c.name, c.input] as const))('%s, in random blocks', (_name, input) => {
    const expected = referenceDedup(input);
    for (const seed of [1, 2, 3]) {
      const { out, d } = runInBlocks(input, seed);
      expect(out.equals(expected)).toBe(true);
      const lines =
        input.length === 0 ? 0 : input.toString('latin1').split('\n').length - (input[input.length - 1] === 10 ? 1 : 0);
      expect(d.stats).toMatchObject({ lines, unique: expected.toString('latin1').split('\n').length - 1 });
      d.dispose();
    }
  });

  test('property: random inputs with lines of 0 to 1 MB, random block boundaries, against the reference', () => {
    for (let seed = 100; seed < 108; seed++) {
      const input = randomInput(seed, 200 + seed * 20, seed % 3 === 0 ? 1 << 20 : 1 << 12);
      const { out, d } = runInBlocks(input, seed);
      expect(out.equals(referenceDedup(input))).toBe(true);
      d.dispose();
    }
  });

  test.each([
    ['NUL-terminated records', { zeroTerminated: true }],
    ['duplicates written instead', { duplicates: true }],
    ['NUL-terminated duplicates', { zeroTerminated: true, duplicates: true }],
  ] as [string, { zeroTerminated?: boolean; duplicates?: boolean }][])(
    'property: %s, random inputs and block boundaries, against the reference',
    (_name, rules) => {
      for (let seed = 200; seed < 212; seed++) {
        // Lines of random bytes with NULs, CRs and LFs among them, repeated, cut into NUL records too.
        let input = randomInput(seed, 300 + seed, seed % 4 === 0 ? 1 << 16 : 64);
        if (rules.zeroTerminated) input = Buffer.from(input.map((byte, i) => (byte === 10 && i % 3 !== 0 ? 0 : byte)));
        const { out, d } = runInBlocks(input, seed, { ...EXACT, ...rules });
        expect(out.equals(referenceDedup(input, rules))).toBe(true);
        const reference = referenceDedup(input, { zeroTerminated: rules.zeroTerminated });
        const records = (b: Buffer) => b.toString('latin1').split(rules.zeroTerminated ? '\0' : '\n').length - 1;
        expect(d.stats.unique).toBe(records(reference));
        d.dispose();
      }
    },
  );

  test("seen: lines of earlier runs are dropped, new ones added to the caller's filter, which stays", () => {
    using seen = new CuckooFilter({ capacity: 1000, fpRate: 1e-8, growth: 2 });
    const first = new LineDeduper({ seen });
    const out1 = Buffer.concat([first.push(Buffer.from('a\nb\na\n')), first.end()]);
    first.dispose();
    expect(out1.toString()).toBe('a\nb\n');
    expect(seen.has('a') && seen.has('b')).toBe(true); // not disposed with the deduplicator
    const second = new LineDeduper({ seen, duplicates: false });
    const out2 = Buffer.concat([second.push(Buffer.from('b\nc\nc\nd')), second.end()]);
    expect(out2.toString()).toBe('c\nd\n');
    expect(second.stats).toMatchObject({ lines: 4, unique: 2, duplicates: 2 });
    second.dispose();
    // A seen filter disposed during a run: the next push is refused, never a read of freed memory.
    const third = new LineDeduper({ seen });
    third.push(Buffer.from('e\n'));
    seen.dispose();
    expect(() => third.push(Buffer.from('f\n'))).toThrow(/disposed/);
    third.dispose();
  });

  test('seen is a filter, and its own rate and sizing apply', () => {
    using f = new CuckooFilter({ capacity: 10 });
    expect(() => new LineDeduper({ seen: {} as never })).toThrow(/seen must be a CuckooFilter/);
    expect(() => new LineDeduper({ seen: f, fpRate: 0.01 })).toThrow(
      'seen must be a CuckooFilter, and goes without fpRate, capacity and inputBytes (its own apply)',
    );
    // A stream's options are checked when it is made, not at its first write.
    expect(() => dedupLines({ fields: 2 as never })).toThrow(/fields must be a string/);
  });

  test('property: keys from fields, random field lists, delimiters and block boundaries, against the reference', () => {
    for (let seed = 300; seed < 316; seed++) {
      const random = rng(seed);
      const delimiter = [',', '\t', ';', '|'][seed % 4];
      // Records of 0 to 6 fields drawn from a few values, so that keys repeat while the records differ.
      const lines: string[] = [];
      for (let i = 0; i < 400; i++) {
        const n = Math.floor(random() * 7);
        lines.push(
          Array.from({ length: n }, () => ['a', 'b', '', 'ccc'][Math.floor(random() * 4)]).join(delimiter) +
            (random() < 0.2 ? '\r' : ''),
        );
      }
      const input = Buffer.from(lines.join('\n') + (seed % 2 ? '\n' : ''), 'latin1');
      const lists = ['1', '2', '2,4', '2-3', '3-', '1,3-', '4,2', '1-2,2-3', '5'];
      const list = lists[seed % lists.length];
      const flat = Array.from(parseFields(list));
      const ranges = flat.filter((_, i) => i % 2 === 0).map((v, i): [number, number] => [v, flat[2 * i + 1]]);
      const { out, d } = runInBlocks(input, seed, { ...EXACT, fields: list, delimiter });
      expect([list, out.toString('latin1')]).toEqual([
        list,
        referenceDedup(input, { fields: ranges, delimiter }).toString('latin1'),
      ]);
      d.dispose();
    }
  });

  test('property: CSV, whole records and columns by number or name, quotes split across random blocks, against the reference', () => {
    const selections: [string | undefined, number[] | undefined][] = [
      [undefined, undefined],
      ['2', [2]],
      ['name', [2]],
      ['city,1', [1, 3]],
      ['note,name', [2, 4]],
      ['5', [5]],
    ];
    for (let seed = 400; seed < 424; seed++) {
      const delimiter = seed % 3 === 0 ? ';' : ',';
      const input = randomCsv(seed, 300, delimiter);
      const [fields, columns] = selections[seed % selections.length];
      const { out, d } = runInBlocks(input, seed, { ...EXACT, csv: true, fields, delimiter });
      const expected = referenceCsvDedup(input, columns, delimiter);
      expect([fields, out.toString('latin1')]).toEqual([fields, expected.toString('latin1')]);
      // The header is written and not counted.
      expect(d.stats.lines).toBe(parseCsv(input.toString('latin1'), delimiter).length - 1);
      d.dispose();
    }
  });

  test('CSV: a header split over many blocks, an unknown column, and checked options', () => {
    const input = Buffer.from('"id","the ""long"" name",x\n1,a,p\n2,"a",q\n3,b,r\n');
    for (const size of [1, 2, 5, 1000]) {
      using d = new LineDeduper({ ...EXACT, csv: true, fields: 'the "long" name' });
      const out: Uint8Array[] = [];
      for (let at = 0; at < input.length; at += size) out.push(d.push(input.subarray(at, at + size)));
      out.push(d.end());
      expect(Buffer.concat(out).toString()).toBe('"id","the ""long"" name",x\n1,a,p\n3,b,r\n');
    }
    using bad = new LineDeduper({ ...EXACT, csv: true, fields: 'id,town' });
    let error: unknown;
    try {
      bad.push(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CuckooFilterError);
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'no column named "town" in the header (its columns: "id", "the "long" name", "x")',
    });
    expect(() => bad.push(Buffer.from('1\n'))).toThrow(/no column named "town"/); // stopped for good
    expect(() => new LineDeduper({ csv: true, zeroTerminated: true })).toThrow(
      /csv and zeroTerminated do not go together/,
    );
    expect(() => new LineDeduper({ csv: true, delimiter: '"' })).toThrow(/not a quote or line end/);
    expect(() => new LineDeduper({ csv: 'yes' as never })).toThrow('csv must be true or false');
    // Without csv a name is not a field list.
    expect(() => new LineDeduper({ fields: 'name' })).toThrow(/fields must be a list like/);
  });

  test('nextInput(): an unended last line ends with its input; with csv the next header is checked, not written', () => {
    using d = new LineDeduper(EXACT);
    expect(Buffer.from(d.nextInput()).toString()).toBe(''); // before any input: nothing to end
    d.push(Buffer.from('a\nb'));
    expect(Buffer.from(d.nextInput()).toString()).toBe('b\n');
    expect(Buffer.from(d.push(Buffer.from('b\nc\n'))).toString()).toBe('c\n');
    expect(Buffer.from(d.nextInput()).toString()).toBe('');
    using c = new LineDeduper({ ...EXACT, csv: true, fields: 'k' });
    const out = [
      c.push(Buffer.from('k,v\n1,x\n')),
      c.nextInput(),
      c.push(Buffer.from('"k",v\n1,y\n2,z')),
      c.nextInput(),
      c.push(Buffer.from('k,v\r\n3,')),
      c.end(),
    ];
    expect(Buffer.concat(out).toString()).toBe('k,v\n1,x\n2,z\n3,\n');
    expect(c.stats).toMatchObject({ lines: 4, unique: 3 });
    using bad = new LineDeduper({ ...EXACT, csv: true });
    bad.push(Buffer.from('k,v\n1,"open'));
    expect(() => bad.nextInput()).toThrow('an input ends inside a quoted field');
  });

  test('fields and delimiter are checked, and parsed as cut reads them', () => {
    expect(Array.from(parseFields('4,2-3,1'))).toEqual([1, 4]);
    expect(Array.from(parseFields('3-,5'))).toEqual([3, 0]);
    expect(Array.from(parseFields('-2,5'))).toEqual([1, 2, 5, 5]);
    // 2-0 is a decreasing range (cut refuses it too), not "2-".
    for (const bad of ['', '0', 'x', '3-2', '2-0', '1,,2', '-', '10001'])
      expect(() => parseFields(bad)).toThrow(/fields must be a list like/);
    expect(() => new LineDeduper({ fields: 2 as never })).toThrow(/fields must be a string/);
    expect(() => new LineDeduper({ fields: '2', delimiter: ',,' })).toThrow(/delimiter must be one ASCII character/);
    expect(() => new LineDeduper({ delimiter: ',' })).toThrow(/with fields/);
  });

  test('options zeroTerminated and duplicates are checked', () => {
    expect(() => new LineDeduper({ zeroTerminated: 1 as never })).toThrow(
      'zeroTerminated must be true or false, got the number 1',
    );
    expect(() => new LineDeduper({ duplicates: 'yes' as never })).toThrow(
      "duplicates must be true or false, got the string 'yes'",
    );
  });

  test("a block larger than the engine's piece size (16 MiB) is fed in pieces, with the same result", () => {
    const line = Buffer.alloc(20 << 20, 0x61);
    const input = Buffer.concat([line, Buffer.from('\nb\n'), line, Buffer.from('\nb')]);
    using d = new LineDeduper(EXACT);
    const out = Buffer.concat([d.push(input), d.end()]);
    expect(out.equals(referenceDedup(input))).toBe(true);
    expect(d.stats).toMatchObject({ lines: 4, unique: 2, duplicates: 2 });
  });
});

describe('growth and sizing', () => {
  test('a start far too small costs memory, not a refusal: 50,000 unique lines from a start of 10', () => {
    const input = Buffer.from(Array.from({ length: 60_000 }, (_, i) => `line ${i % 50_000}\n`).join(''));
    using d = new LineDeduper({ capacity: 10 });
    const out = Buffer.concat([d.push(input), d.end()]);
    expect(d.stats.unique).toBeGreaterThan(49_990); // false drops at 1e-6: expected far below 1
    expect(out.equals(referenceDedup(input))).toBe(d.stats.unique === 50_000);
    expect(d.stats.doublings).toBeGreaterThan(4);
    expect(d.stats.subFilters).toBe(1);
  });

  test('a known size guarantees room for every line, even when the first block has long lines and the rest short ones', () => {
    // The page used to stop with "the filter is full" on such a file: the first 64 KiB set the size.
    const input = Buffer.concat([
      Buffer.alloc(1 << 16, 0x78),
      Buffer.from('\n'),
      Buffer.from(Array.from({ length: 200_000 }, (_, i) => `${i}\n`).join('')),
    ]);
    for (const fpRate of [1e-6, 1e-8, MIN_GROWING_FP_RATE]) {
      const d = new LineDeduper({ fpRate, inputBytes: input.length });
      expect(d.push(input.subarray(0, 70_000)).length).toBeGreaterThan(0);
      d.push(input.subarray(70_000));
      d.end();
      expect(d.stats.lines).toBe(200_001);
      expect(d.stats.plan!.reach).toBeGreaterThanOrEqual(input.length / 2);
      d.dispose();
    }
  });

  test('MIN_GROWING_FP_RATE is where the core stops being able to grow', () => {
    expect(planDedup({ fpRate: MIN_GROWING_FP_RATE }).maxDoublings).toBe(1);
    // Just below it, even 40-bit slots would keep their rate only without a doubling.
    expect(() => planDedup({ fpRate: 2e-11 })).toThrow(/too small for a filter that grows.*2.1e-11/);
    expect(() => new LineDeduper({ fpRate: 1e-11 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    // The floor is MIN_GROWING_FP_RATE with the module loaded too (an outside pass, 2026-12-02: the core
    // took 2.08e-11, which a stream made before ready() refused).
    for (const fpRate of [2.08e-11, 2.09e-11, 2.0999e-11]) {
      expect(() => planDedup({ fpRate })).toThrow(/too small for a filter that grows/);
      expect(() => new LineDeduper({ fpRate })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
      expect(() => dedupLineStream({ fpRate })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
    using d = new LineDeduper({ fpRate: MIN_GROWING_FP_RATE });
    expect(d.push(new TextEncoder().encode('a\na\n'))).toEqual(new TextEncoder().encode('a\n'));
  });

  test('the filter starts small and doubles in place; from a pipe the plan reaches a billion lines, and says how far at small rates', () => {
    // 40-bit slots at every rate: 17 doublings from 65,536 lines reach 2^32 - 2 buckets.
    expect(planDedup({})).toMatchObject({ capacity: 65_536, growth: 2, slotBits: 40, maxDoublings: 17 });
    expect(planDedup({}).reach).toBeGreaterThanOrEqual(1e9);
    // A looser rate gets narrower slots (the filter's width from the rate), as far.
    expect(planDedup({ fpRate: 0.001 })).toMatchObject({ slotBits: 20, maxDoublings: 17 });
    expect(planDedup({ fpRate: 0.01 })).toMatchObject({ slotBits: 16, maxDoublings: 17 });
    expect(planDedup({ fpRate: 3e-10 }).reach).toBeGreaterThanOrEqual(1e9);
    // Lower rates double fewer times: a pipe starts larger, and the plan says how far it reaches.
    expect(planDedup({ fpRate: 5e-11 })).toMatchObject({
      capacity: 2_000_000,
      growth: 2,
      slotBits: 40,
      maxDoublings: 5,
      reach: 64_000_000,
    });
    // A file of known size: its start is raised where its doublings would not reach every line it can hold.
    const file = planDedup({ fpRate: 1e-10, inputBytes: 1e9 });
    expect(file.capacity).toBeGreaterThan(65_536);
    expect(file.reach).toBeGreaterThanOrEqual(5e8 + 1);
    // At a rate so low that a start reaching it could not double at all, the plan reaches what it can.
    expect(planDedup({ fpRate: 5e-11, inputBytes: 1e9 }).reach).toBeLessThan(5e8);
  });

  test('the automatic default: a file starts where a pipe does, and even all-unique lines expect at most 0.01 wrong drops', () => {
    const lines = (n: number) =>
      Buffer.from(Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(6, '0')}\n`).join('')).subarray(
        0,
        n,
      );
    const sample = lines(24_000); // 12-byte lines
    for (const fileLines of [1_000, 500_000, 4_000_000, 20_000_000, 100_000_000, 1_000_000_000]) {
      const plan = planDedup({ inputBytes: fileLines * 12 }, sample);
      expect(plan).toMatchObject({ automatic: true, slotBits: 40 });
      const estimated = Math.ceil(fileLines * 1.1);
      if (fileLines <= 100_000_000) {
        // Memory follows the unique lines: the start of a pipe, or the lines of a small file.
        expect([fileLines, plan.capacity]).toEqual([fileLines, Math.min(65_536, estimated)]);
        expect(expectedWrongDrops(estimated, plan.capacity)).toBeLessThanOrEqual(DEDUP_LOSS_BUDGET);
      } else {
        // Past about 130 million lines the start is raised as far as the budget asks, up to the limit.
        expect(plan.capacity).toBeGreaterThan(65_536);
        expect(plan.capacity).toBeLessThanOrEqual(BUDGET_START_LIMIT);
      }
    }
    // One long line among short ones: the median, not the mean (which would say 2,200 lines).
    const mixed = Buffer.concat([Buffer.from(`${'x'.repeat(300_000)}\n`), sample]);
    expect(planDedup({ inputBytes: mixed.length }, mixed).capacity).toBe(Math.ceil((mixed.length / 12) * 1.1));
    expect(planDedup({ fpRate: 1e-6, inputBytes: 4_000_000 * 12 }, sample)).toMatchObject({
      automatic: false,
      capacity: 65_536,
    });
    // From a pipe the expectation grows with the unique lines: 0.01 is passed at about 130 million.
    expect(expectedWrongDrops(10_000_000, 65_536)).toBeLessThan(0.001);
    expect(expectedWrongDrops(100_000_000, 65_536)).toBeLessThan(0.01);
    expect(expectedWrongDrops(150_000_000, 65_536)).toBeGreaterThan(0.01);
  });

  test("stats.wrongDropBound sums each block's new lines at the rate after it: close to the model, from a pipe", () => {
    using d = new LineDeduper();
    const unique = 600_000;
    for (let at = 0; at < unique; at += 20_000) {
      d.push(Buffer.from(Array.from({ length: 20_000 }, (_, i) => `k${at + i}\n`).join('')));
    }
    d.end();
    const model = expectedWrongDrops(unique, 65_536);
    expect(d.stats.doublings).toBe(4);
    expect(d.stats.wrongDropBound).toBeGreaterThan(model * 0.9);
    expect(d.stats.wrongDropBound).toBeLessThan(model * 1.2);
  });

  test('at the last doubling: CAPACITY_EXCEEDED naming the real cause, and the deduplicator is done', () => {
    using d = new LineDeduper({ fpRate: 3e-11, capacity: 1 }); // 1,024 slots, doubled 2 times: about 3,900 lines
    const input = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `k${i}\n`).join(''));
    let error: unknown;
    try {
      d.push(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CuckooFilterError);
    expect((error as CuckooFilterError).code).toBe('CAPACITY_EXCEEDED');
    expect((error as Error).message).toMatch(
      /full after \d+ unique lines.*doubled 2 times, the most fpRate 3e-11 allows.*larger capacity, or allow a larger fpRate/,
    );
    expect(() => d.push(Buffer.from('x\n'))).toThrow(error as Error);
  });
});

describe('window: the last N new keys, remembered exactly', () => {
  // Keys repeated at distances around the window's edge (N - 2 .. N + 2 new keys back), near and far.
  function edgeInput(seed: number, window: number, records: number, end = '\n'): Buffer {
    const random = rng(seed);
    const keys: string[] = [];
    const parts: string[] = [];
    for (let i = 0; i < records; i++) {
      const r = random();
      let key: string;
      if (r < 0.4 || keys.length === 0) {
        key = `k${seed}-${keys.length}\t${Math.floor(random() * 3)}`;
        keys.push(key);
      } else if (r < 0.8) {
        const back = window + Math.floor(random() * 5) - 2;
        key = keys[keys.length - 1 - Math.min(Math.max(back, 0), keys.length - 1)];
      } else {
        key = keys[Math.floor(random() * keys.length)];
      }
      parts.push(key + (random() < 0.1 && end === '\n' ? '\r\n' : end));
    }
    return Buffer.from(parts.join(''), 'latin1');
  }

  test.each([1, 2, 7, 100, 5000])(
    'window %i: random inputs and blocks, every rule, against a FIFO and a set',
    (window) => {
      for (const rules of [{}, { duplicates: true }, { zeroTerminated: true }, { fields: '1', delimiter: '\t' }]) {
        const input = edgeInput(window, window, 20_000, 'zeroTerminated' in rules ? '\0' : '\n');
        const { out, d } = runInBlocks(input, window, { ...EXACT, ...rules, window });
        const reference = referenceDedup(input, {
          ...rules,
          fields: 'fields' in rules ? [[1, 1]] : undefined,
          window,
        });
        expect(out.equals(reference)).toBe(true);
        // Memory fixed from the first block: the filter was made for the window and never grew.
        expect(d.stats.doublings).toBe(0);
        expect(d.stats.filterBytes).toBeLessThan(8 * windowCapacity(window) + 4096);
        d.dispose();
      }
    },
  );

  test("wrong drops at a loose rate: as many as the engine's bound says, measured against its own window", () => {
    // 300,000 lines of 30,000 keys through a window of 1,000 at fpRate 0.01: most lines are new again.
    // A line the engine drops whose key is not among the last 1,000 it wrote is a false positive.
    const random = rng(60);
    const lines = Array.from({ length: 300_000 }, () => `key-${Math.floor(random() * 30_000)}`);
    const d = new LineDeduper({ window: 1000, fpRate: 0.01 });
    const written = Buffer.concat([d.push(Buffer.from(`${lines.join('\n')}\n`)), d.end()])
      .toString()
      .split('\n');
    const order: string[] = [];
    const remembered = new Set<string>();
    let next = 0;
    let wrong = 0;
    for (const line of lines) {
      if (written[next] === line && !remembered.has(line)) {
        next++;
        order.push(line);
        remembered.add(line);
        if (order.length > 1000) remembered.delete(order.shift()!);
      } else if (!remembered.has(line)) {
        wrong++;
      }
    }
    expect(next).toBe(written.length - 1); // every written line accounted for
    const bound = d.stats.wrongDropBound;
    expect(bound).toBeGreaterThan(100);
    expect(wrong).toBeLessThanOrEqual(bound + 4 * Math.sqrt(bound));
    expect(wrong).toBeGreaterThan(bound / 2);
    d.dispose();
  });

  test('several inputs: a window runs on across them', () => {
    const d = new LineDeduper({ window: 2 });
    const out = [d.push(Buffer.from('a\nb\n')), d.nextInput(), d.push(Buffer.from('c\na\nc\nb')), d.end()];
    expect(Buffer.concat(out).toString()).toBe('a\nb\nc\na\nb\n');
    d.dispose();
  });

  test('options: a whole number from 1 to MAX_WINDOW, not with seen, capacity, two threads or a rate too small', () => {
    expect(() => new LineDeduper({ window: 0 })).toThrow(
      `window must be an integer from 1 to ${MAX_WINDOW}, got the number 0`,
    );
    expect(() => new LineDeduper({ window: 1.5 })).toThrow('window must be an integer');
    expect(() => new LineDeduper({ window: MAX_WINDOW + 1 })).toThrow('window must be an integer');
    using seen = new CuckooFilter({ capacity: 100 });
    expect(() => new LineDeduper({ window: 5, seen })).toThrow('window goes without seen');
    expect(() => new LineDeduper({ window: 5, capacity: 9 })).toThrow('window goes without capacity');
    expect(() => new LineDeduper({ window: 5, fpRate: 1e-10 })).toThrow(
      `fpRate 1e-10 is too small for a window's filter (32-bit fingerprints at the most); use ${MIN_WINDOW_FP_RATE} or more`,
    );
    expect(() => dedupLines({ window: 5, threads: 2 })).toThrow('threads: 2 goes without window');
    // Its default rate is the least (32-bit fingerprints: an endless stream's drops grow with its lines),
    // and its filter, which forgets, is no record of the lines seen.
    const d = new LineDeduper({ window: 5 });
    d.push(Buffer.from('a\n'));
    expect(d.stats.fingerprintBits).toBe(32);
    expect(() => d.exportFilter()).toThrow("a window's filter holds only its last keys");
    d.dispose();
  });
});

describe('the API', () => {
  test('stats: lines, unique, duplicates, the bound on wrong drops, the filter', () => {
    using d = new LineDeduper();
    d.push(Buffer.from('a\nb\na\nc'));
    d.end();
    const s = d.stats;
    expect(s).toMatchObject({ lines: 4, unique: 3, duplicates: 1, subFilters: 1, doublings: 0, fingerprintBits: 40 });
    expect(s.wrongDropBound).toBeGreaterThan(0);
    expect(s.wrongDropBound).toBeLessThan(3e-6);
    expect(s.filterBytes).toBeGreaterThan(0);
  });

  test('exportFilter() gives a filter of the lines seen (keys without their endings)', () => {
    using d = new LineDeduper({ fpRate: 0.001 });
    d.push(Buffer.from('x\r\ny\n'));
    d.end();
    using f = CuckooFilter.import(d.exportFilter());
    expect(f.hasMany(['x', 'y', 'x\r'])).toEqual([true, true, false]);
  });

  test('bad arguments are typed errors; use after end() or dispose() is refused', () => {
    expect(() => new LineDeduper({ fpRate: 2 })).toThrow(/fpRate must be a number greater than 0 and less than 1/);
    expect(() => new LineDeduper({ capacity: 0 })).toThrow(/capacity must be an integer from 1 to 2\^53 - 1/);
    expect(() => new LineDeduper({ size: 3 } as never)).toThrow(/unknown option "size"/);
    const d = new LineDeduper();
    expect(() => d.push('text' as never)).toThrow(TypeError);
    d.end();
    expect(() => d.push(Buffer.from('x\n'))).toThrow(/after end\(\)/);
    d.dispose();
    expect(() => d.push(Buffer.from('x\n'))).toThrow(expect.objectContaining({ code: 'DISPOSED' }));
    expect(d.stats.lines).toBe(0);
  });

  test("pushInHeap (the command's in-place push) reads a block in the heap, and refuses any other", () => {
    const m = requireModule();
    using d = new LineDeduper({ fpRate: 1e-8 });
    expect(() => d.pushInHeap(Buffer.from('a\n'))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const text = Buffer.from('b\na\nb\nc');
    const address = m._malloc(text.length);
    try {
      m.HEAPU8.set(text, address);
      const out = Buffer.from(d.pushInHeap(m.HEAPU8.subarray(address, address + text.length)));
      expect(Buffer.concat([out, d.end()]).toString()).toBe('b\na\nc\n');
      // Planned from the same first block as push() plans it.
      using copied = new LineDeduper({ fpRate: 1e-8, inputBytes: 1e6 });
      using inPlace = new LineDeduper({ fpRate: 1e-8, inputBytes: 1e6 });
      copied.push(text);
      inPlace.pushInHeap(m.HEAPU8.subarray(address, address + text.length));
      expect(inPlace.stats.plan).toEqual(copied.stats.plan);
      expect(inPlace.stats.plan!.capacity).toBeLessThan(1e6);
    } finally {
      m._free(address);
    }
  });
});

describe('stream adapters', () => {
  const input = dedupCases().find((c) => c.name === 'random lines up to 64 KiB')!.input;
  const expected = referenceDedup(input);

  test('Node: readable.pipe(dedupLines()).pipe(out)', async () => {
    const chunks: Buffer[] = [];
    const transform = dedupLines(EXACT);
    await pipeline(
      Readable.from([input.subarray(0, 1000), input.subarray(1000, 50_000), input.subarray(50_000)]),
      transform,
      new Writable({
        write(chunk, _encoding, done) {
          chunks.push(chunk);
          done();
        },
      }),
    );
    expect(Buffer.concat(chunks).equals(expected)).toBe(true);
    expect(transform.stats.unique).toBe(expected.toString('latin1').split('\n').length - 1);
  });

  test('web: stream.pipeThrough(dedupLineStream())', async () => {
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < input.length; at += 7777) controller.enqueue(input.subarray(at, at + 7777));
        controller.close();
      },
    });
    const stream = dedupLineStream(EXACT);
    const parts: Uint8Array[] = [];
    const reader = source.pipeThrough(stream).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    expect(Buffer.concat(parts).equals(expected)).toBe(true);
    expect(stream.stats.lines).toBeGreaterThan(0);
  });

  test('a rate the filter cannot have throws when the stream is made, as LineDeduper does', () => {
    // From an outside pass: the streams took these and failed at their first write.
    const cases: [LineDeduperOptions, RegExp][] = [
      [{ fpRate: 1e-11 }, /fpRate 1e-11 is too small for a filter that grows/],
      [{ fpRate: 2e-11 }, /too small for a filter that grows/],
      [{ window: 5, fpRate: 1e-9 }, /too small for a window's filter/],
      [{ capacity: 4e8, fpRate: 2.1e-11 }, /too small for a filter that grows/],
    ];
    for (const [options, message] of cases) {
      expect(() => new LineDeduper(options)).toThrow(message);
      expect(() => dedupLineStream(options)).toThrow(message);
      expect(() => dedupLines(options)).toThrow(message);
    }
    expect(() => dedupLines({ fpRate: 2e-11, threads: 2 })).toThrow(/too small for a filter that grows/);
    // dedupLines() names its own option among the known ones.
    expect(() => dedupLines({ highWaterMark: 1 } as never)).toThrow(
      /unknown option "highWaterMark" \(known: .*, window, threads\)/,
    );
    expect(() => dedupLineStream({ threads: 2 } as never)).toThrow(/unknown option "threads" \(known: .*window\)$/);
  });
});

describe('dedupLines({ threads: 2 }): a helper thread, the same output and stats as one', () => {
  // Through a Readable of random chunk sizes (one byte to 300 KiB); the Workers made meanwhile.
  async function through(input: Buffer, options: DedupLinesOptions, seed: number) {
    const random = rng(seed);
    const parts: Buffer[] = [];
    for (let at = 0; at < input.length; ) {
      const size = 1 + Math.floor(random() < 0.3 ? random() * 100 : random() * 300_000);
      parts.push(input.subarray(at, at + size));
      at += size;
    }
    const transform = dedupLines(options);
    const chunks: Buffer[] = [];
    await pipeline(
      Readable.from(parts),
      transform,
      new Writable({
        write(chunk, _encoding, done) {
          chunks.push(chunk);
          done();
        },
      }),
    );
    return { out: Buffer.concat(chunks), stats: transform.stats };
  }

  const lines = randomInput(21, 40_000, 300);
  const csv = randomCsv(22, 20_000);
  test.each([
    ['lines', lines, {}, referenceDedup(lines)],
    ['duplicates', lines, { duplicates: true }, referenceDedup(lines, { duplicates: true })],
    ['zero-terminated', lines, { zeroTerminated: true }, referenceDedup(lines, { zeroTerminated: true })],
    ['fields', lines, { fields: '1', delimiter: ' ' }, referenceDedup(lines, { fields: [[1, 1]], delimiter: ' ' })],
    ['csv by a column', csv, { csv: true, fields: '2' }, referenceCsvDedup(csv, [2])],
    ['empty', Buffer.alloc(0), {}, Buffer.alloc(0)],
  ] as const)('%s', async (_name, input, rules, expected) => {
    const one = await through(input, { ...EXACT, ...rules }, 1);
    const made = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      for (const seed of [2, 3]) {
        const two = await through(input, { ...EXACT, ...rules, threads: 2, inputBytes: input.length }, seed);
        expect(two.out.equals(expected)).toBe(true);
        expect(two.out.equals(one.out)).toBe(true);
        expect([two.stats.lines, two.stats.unique, two.stats.duplicates]).toEqual([
          one.stats.lines,
          one.stats.unique,
          one.stats.duplicates,
        ]);
      }
      // Each run had its helper (given its job), and every helper has ended.
      const helpers = new Set(made.mock.contexts as Worker[]);
      expect(helpers.size).toBe(2);
      for (const helper of helpers) expect(helper.threadId).toBe(-1);
    } finally {
      made.mockRestore();
    }
  });

  // An outside pass: the helper planned its filter with no line of the input, as if every line were 2
  // bytes, and for an input of 500 MB and more the loss budget raised its start to up to 8 million lines
  // (42 MB) where one thread's was 65,536 (345 KB). Here the size told is a 1 GB file's, its lines short.
  test("with inputBytes and the default rate, the helper's filter is planned from the input's lines as one thread's is", async () => {
    const input = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `user-${(i * 7919) % 30_000}\n`).join(''));
    const one = await through(input, { inputBytes: 1e9 }, 4);
    const two = await through(input, { threads: 2, inputBytes: 1e9 }, 5);
    expect(two.out.equals(one.out)).toBe(true);
    // Each thread's start is its share of one thread's, with a margin (partitioned.ts): at most one more.
    expect(two.stats.plan!.capacity).toBeLessThanOrEqual(2 * one.stats.plan!.capacity);
    expect(two.stats.filterBytes).toBeLessThanOrEqual(2 * one.stats.filterBytes);
    // Both tables' reach, as their capacities are summed (an outside pass, 2026-12-02: the main thread's
    // alone, 10,883,170,304 where capacity x 2^maxDoublings was 17,467,703,296; both double as often here).
    const plan = two.stats.plan!;
    expect(plan.reach).toBe(plan.capacity * 2 ** plan.maxDoublings);
  });

  test("a chunk larger than the deduplicator takes in one call (16 MiB) is one thread's output too", async () => {
    // 2.2M lines, 22 MB, in one chunk, then a small one: the first is copied in pieces, a call each.
    const big = Buffer.from(Array.from({ length: 2_200_000 }, (_, i) => `key-${(i * 7919) % 1_500_000}\n`).join(''));
    const run = async (threads: 1 | 2) => {
      const transform = dedupLines({ ...EXACT, threads });
      const chunks: Buffer[] = [];
      await pipeline(
        Readable.from([big, Buffer.from('tail\nkey-0\n')]),
        transform,
        new Writable({
          write(chunk, _encoding, done) {
            chunks.push(chunk);
            done();
          },
        }),
      );
      return { out: Buffer.concat(chunks), unique: transform.stats.unique };
    };
    const one = await run(1);
    const two = await run(2);
    expect(one.unique).toBe(1_500_001);
    expect(two.unique).toBe(one.unique);
    expect(two.out.equals(one.out)).toBe(true);
  });

  test("another deduplicator's output, a view of the heap, is read as a block before a call can grow the heap", () => {
    // In a process of its own: a fresh heap, which the second deduplicator's first block makes grow.
    const script = `
      const { ready, LineDeduper } = require(${JSON.stringify(join(repoRoot, 'js', 'dist', 'cjs', 'index.js'))});
      ready().then(() => {
        const block = Buffer.from(Array.from({ length: 200000 }, (_, i) => 'line-' + i + '\\n').join(''));
        const first = new LineDeduper({}).pushView(block);
        const second = new LineDeduper({}).push(first);
        process.stdout.write(String(second.length === block.length));
      });
    `;
    // Before: "TypeError: Cannot perform %TypedArray%.prototype.set on a detached ArrayBuffer".
    const result = spawnSync('node', ['-e', script], { timeout: 60_000 });
    expect(result.stderr.toString()).toBe('');
    expect(result.stdout.toString()).toBe('true');
  });

  test('a stream left unended does not keep the process running (its helper waits unreferenced)', () => {
    const script = `
      const { dedupLines } = require(${JSON.stringify(join(repoRoot, 'js', 'dist', 'cjs', 'node.js'))});
      const transform = dedupLines({ threads: 2 });
      transform.on('data', (data) => process.stdout.write(data));
      transform.write('a\\nb\\na\\n');
    `;
    // Before, the helper Worker kept the event loop alive and this never ended (killed at the timeout).
    const result = spawnSync('node', ['-e', script], { timeout: 60_000 });
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(result.stdout.toString()).toBe('a\nb\n');
  });

  test("a slow source's lines come out before its next chunk is written", async () => {
    const source = new PassThrough();
    const transform = dedupLines({ threads: 2 });
    const out = source.pipe(transform);
    let text = '';
    out.on('data', (data: Buffer) => {
      text += data.toString();
    });
    for (let turn = 0; turn < 4; turn++) {
      source.write(`turn-${turn}\nrepeat\n`);
      // Without the lines held back being handed out after a pause, this waits for ever.
      await new Promise<void>((resolve) => {
        const check = () => (text.includes(`turn-${turn}\n`) ? resolve() : setTimeout(check, 5));
        check();
      });
    }
    source.end();
    await new Promise((resolve) => out.on('end', resolve));
    expect(text).toBe('turn-0\nrepeat\nturn-1\nturn-2\nturn-3\n');
    expect(transform.stats.unique).toBe(5);
  });

  test('a source that fails ends the run and its helper; bad options throw at once', async () => {
    const made = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      let n = 0;
      const source = new Readable({
        read() {
          if (++n < 40) this.push(Buffer.from(`line-${n}\nline-${n % 3}\n`.repeat(2000)));
          else this.destroy(new Error('the source failed'));
        },
      });
      const transform = dedupLines({ threads: 2 });
      await expect(
        pipeline(
          source,
          transform,
          new Writable({
            write(_c, _e, done) {
              done();
            },
          }),
        ),
      ).rejects.toThrow('the source failed');
      // Once the stream says it is closed, its helper has ended.
      if (!transform.closed) await new Promise((resolve) => transform.once('close', resolve));
      const helpers = new Set(made.mock.contexts as Worker[]);
      expect(helpers.size).toBe(1);
      for (const helper of helpers) expect(helper.threadId).toBe(-1);
    } finally {
      made.mockRestore();
    }
    expect(() => dedupLines({ threads: 3 as never })).toThrow(/threads must be 1 or 2, got the number 3/);
    expect(() => dedupLines({ threads: '2' as never })).toThrow(/threads must be 1 or 2/);
    const seen = new CuckooFilter({ capacity: 100, growth: 2 });
    try {
      expect(() => dedupLines({ threads: 2, seen })).toThrow(/threads: 2 goes without seen/);
    } finally {
      seen.dispose();
    }
    expect(() => new LineDeduper({ threads: 2 } as never)).toThrow(/unknown option "threads"/);
  });
});
