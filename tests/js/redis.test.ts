// RedisCuckooFilter through the TypeScript API and the wasm build, against the recordings of a RedisBloom
// 2.4 server (tests/vectors/redisbloom.json): the command sequences that use the filter's own commands
// are replayed through the API, and its dump, CF.INFO and answers must be the server's. (The C++ suite,
// natively and as wasm, replays every sequence, CF.LOADCHUNK's included, through an emulated command
// layer.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CuckooFilterError, ready, RedisCuckooFilter, type RedisDumpChunk } from '../../js/src/redis';
import { errorOf } from './helpers';

type Arg = string | { hex: string };
type ReplyValue = number | string | null | { error: string } | { hex: string } | ReplyValue[];
interface Command {
  args: Arg[];
  reply: ReplyValue;
}
interface Config {
  name: string;
  key: string;
  commands: Command[];
  scandump: { iterator: number; chunk?: string | null; length?: number; sha256?: string }[];
  info: Record<string, number>;
  probes: { item: Arg; exists: number; count: number }[];
}

const vectors = JSON.parse(readFileSync(join(__dirname, '..', 'vectors', 'redisbloom.json'), 'utf8')) as {
  configs: Config[];
};
const bytes = (a: Arg): Uint8Array =>
  typeof a === 'string' ? new TextEncoder().encode(a) : Uint8Array.from(Buffer.from(a.hex, 'hex'));
const text = (a: Arg): string => Buffer.from(bytes(a)).toString('latin1');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

beforeAll(() => ready());

// The reply the server gave for what the API did: a value, or the error text of what it threw.
function outcome(run: () => ReplyValue): ReplyValue {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof CuckooFilterError)) throw error;
    return { error: error.message };
  }
}

// Replays the commands of a config that only uses the filter's own commands, through the API.
function replay(config: Config): RedisCuckooFilter {
  let filter: RedisCuckooFilter | undefined;
  const orDefault = (capacity = 1024) => (filter ??= new RedisCuckooFilter({ capacity }));
  config.commands.forEach((command, index) => {
    const [name, , ...rest] = command.args;
    const got = outcome((): ReplyValue => {
      switch (text(name).toUpperCase()) {
        case 'CF.RESERVE': {
          if (filter) return { error: 'ERR item exists' };
          const options: Record<string, number> = { capacity: Number(text(rest[0])) };
          for (let i = 1; i < rest.length; i += 2) {
            const keyword = text(rest[i]).toUpperCase();
            const field =
              keyword === 'BUCKETSIZE' ? 'bucketSize' : keyword === 'MAXITERATIONS' ? 'maxIterations' : 'expansion';
            options[field] = Number(text(rest[i + 1]));
          }
          filter = new RedisCuckooFilter(options as never);
          return 'OK';
        }
        case 'CF.ADD':
          return orDefault().add(bytes(rest[0])) ? 1 : 0;
        case 'CF.ADDNX':
          return orDefault().addIfAbsent(bytes(rest[0])) ? 1 : 0;
        case 'CF.INSERT':
        case 'CF.INSERTNX': {
          const at = rest.findIndex((a) => text(a).toLowerCase().startsWith('i'));
          const capacity = rest.findIndex((a) => text(a).toLowerCase().startsWith('c'));
          const noCreate = rest.findIndex((a) => text(a).toLowerCase().startsWith('n'));
          if (!filter && noCreate >= 0 && noCreate < at) return { error: 'ERR not found' };
          const f = orDefault(capacity >= 0 && capacity < at ? Number(text(rest[capacity + 1])) : 1024);
          const items = rest.slice(at + 1).map(bytes);
          if (text(name).toUpperCase() === 'CF.INSERT') return f.addMany(items).map((ok: boolean) => (ok ? 1 : -1));
          if (f.info().numberOfFilters >= 32) return { error: 'Maximum expansions reached' };
          return items.map((item) => {
            const r = outcome(() => (f.addIfAbsent(item) ? 1 : 0));
            return typeof r === 'object' && r !== null && 'error' in r && r.error === 'Filter is full' ? -1 : r;
          });
        }
        case 'CF.EXISTS':
          return filter?.has(bytes(rest[0])) ? 1 : 0;
        case 'CF.MEXISTS':
          return filter ? filter.hasMany(rest.map(bytes)).map(Number) : rest.map(() => 0);
        case 'CF.COUNT':
          return filter ? filter.count(bytes(rest[0])) : 0;
        case 'CF.DEL':
          return filter ? (filter.delete(bytes(rest[0])) ? 1 : 0) : { error: 'Not found' };
        case 'CF.COMPACT':
          filter!.compact();
          return 'OK';
        case 'CF.INFO':
          return Object.entries(fieldsOf(filter!)).flat();
        case 'CF.SCANDUMP': {
          const iterator = Number(text(rest[0]));
          const walk = [...filter!.toChunks()];
          if (walk.length === 0) return [0, null];
          if (iterator === 0) return [1, { hex: hex(walk[0].chunk) }];
          const at = walk.findIndex((c) => c.iterator === iterator);
          if (at < 0) return command.reply; // an iterator the walk does not reach: not a reply the API gives
          return at + 1 < walk.length ? [walk[at + 1].iterator, { hex: hex(walk[at + 1].chunk) }] : [0, null];
        }
        default:
          throw new Error(`not replayed: ${text(name)}`);
      }
    });
    expect([config.name, index, got]).toEqual([config.name, index, command.reply]);
  });
  return filter!;
}

// CF.INFO's field names and order.
function fieldsOf(f: RedisCuckooFilter): Record<string, number> {
  const i = f.info();
  return {
    Size: i.size,
    'Number of buckets': i.numberOfBuckets,
    'Number of filters': i.numberOfFilters,
    'Number of items inserted': i.numberOfItemsInserted,
    'Number of items deleted': i.numberOfItemsDeleted,
    'Bucket size': i.bucketSize,
    'Expansion rate': i.expansionRate,
    'Max iterations': i.maxIterations,
  };
}

const uses = (config: Config, names: string[]) =>
  config.commands.some((c) => names.includes(text(c.args[0]).toUpperCase()));
const replayable = vectors.configs.filter((c) => !uses(c, ['CF.LOADCHUNK', 'SET']));

test('the vectors hold sequences to replay through the API', () => {
  expect(replayable.map((c) => c.name)).toEqual(
    expect.arrayContaining(['bs1', 'full-exp0', 'del-compact', 'max-expansions']),
  );
});

describe.each(replayable.map((c) => [c.name, c] as const))('%s', (_name, config) => {
  test("every reply, the SCANDUMP bytes, CF.INFO and the probe answers are the server's", () => {
    using f = replay(config);
    const walk = [...f.toChunks()];
    const recorded = config.scandump.slice(0, -1); // without the end marker [0, nil]
    expect(walk.map((c) => [c.iterator, hex(c.chunk)])).toEqual(recorded.map((c) => [c.iterator, c.chunk]));
    expect(fieldsOf(f)).toEqual(config.info);
    for (const probe of config.probes) {
      expect([probe.item, f.has(bytes(probe.item)) ? 1 : 0, f.count(bytes(probe.item))]).toEqual([
        probe.item,
        probe.exists,
        probe.count,
      ]);
    }
  });
});

describe('toChunks / fromChunks', () => {
  test("a dump's delete count is CF.INFO's, signed as the server prints it", async () => {
    using f = new RedisCuckooFilter({ capacity: 1000 });
    f.add('foo');
    const chunks = [...f.toChunks()].map(({ iterator, chunk }) => ({ iterator, chunk: chunk.slice() }));
    chunks[0].chunk.fill(0xff, 16, 24); // the header's delete count: 2^64 - 1
    using copy = await RedisCuckooFilter.fromChunks(chunks);
    // (It said 18446744073709552000.)
    expect(copy.info().numberOfItemsDeleted).toBe(-1);
    expect(copy.has('foo')).toBe(true);
  });

  const grown = () => {
    const f = new RedisCuckooFilter({ capacity: 32, expansion: 2 });
    f.addMany(Array.from({ length: 150 }, (_, i) => `grown-${i}`));
    return f;
  };

  test('a dump reads back, from an iterable or an async one of Buffers as node-redis gives them', async () => {
    using f = grown();
    expect(f.info().numberOfFilters).toBeGreaterThanOrEqual(3);
    const chunks = [...f.toChunks()];
    using copy = await RedisCuckooFilter.fromChunks(chunks);
    expect([...copy.toChunks()]).toEqual(chunks);
    async function* fromServer() {
      for (const { iterator, chunk } of chunks) yield { iterator, chunk: Buffer.from(chunk) };
    }
    using again = await RedisCuckooFilter.fromChunks(fromServer());
    for (let i = 0; i < 150; i++) expect(again.has(`grown-${i}`)).toBe(true);
    expect(again.info()).toEqual(f.info());
  });

  test('an empty filter dumps nothing, as the server does', () => {
    using f = new RedisCuckooFilter({ capacity: 100 });
    expect([...f.toChunks()]).toEqual([]);
  });

  test('damaged, reordered, truncated and legacy dumps are BAD_FORMAT, naming what is wrong', async () => {
    using f = grown();
    const good = [...f.toChunks()];
    const refused = async (chunks: RedisDumpChunk[]) => {
      try {
        (await RedisCuckooFilter.fromChunks(chunks)).dispose();
        return 'accepted';
      } catch (error) {
        return `${(error as CuckooFilterError).code}: ${(error as Error).message}`;
      }
    };
    expect(await refused(good.slice(0, -1))).toMatch(/^BAD_FORMAT: not a valid RedisBloom dump: truncated/);
    expect(await refused([good[0], good[2], good[1], ...good.slice(3)])).toMatch(/^BAD_FORMAT: .*CF\.SCANDUMP gives/);
    expect(await refused([{ iterator: 1, chunk: new Uint8Array(32) }])).toMatch(
      /32-byte header is RedisBloom 1\.0-2\.0's/,
    );
    expect(await refused([{ iterator: 1, chunk: new Uint8Array(46) }])).toMatch(
      /46-byte header is RedisBloom 2\.2\.0-2\.2\.10's/,
    );
    const flipped = good.map((c) => ({ ...c, chunk: c.chunk.slice() }));
    flipped[0].chunk[8] ^= 1; // num_buckets no longer a power of two
    expect(await refused(flipped)).toMatch(/^BAD_FORMAT: .*number of buckets/);
    await expect(RedisCuckooFilter.fromChunks([{ iterator: 1, chunk: 'text' as never }])).rejects.toThrow(TypeError);
  });
});

test('options and disposal errors are typed', () => {
  expect(errorOf(() => new RedisCuckooFilter({ capacity: 3 }))).toBe(
    'INVALID_ARGUMENT: Capacity must be at least (BucketSize * 2)',
  );
  expect(errorOf(() => new RedisCuckooFilter({ capacity: 100, bucketSize: 256 }))).toBe(
    'INVALID_ARGUMENT: BUCKETSIZE: value must be an integer between 1 and 255, inclusive.',
  );
  expect(errorOf(() => new RedisCuckooFilter({ capacity: 1.5 }))).toMatch(
    /^INVALID_ARGUMENT: capacity must be a safe integer, got the number 1.5$/,
  );
  // From an outside pass: null took the default (for expansion, a filter that grows), 2^53 was "not an
  // integer", and a negative capacity was refused before a bad bucket size, which the server checks first.
  for (const name of ['expansion', 'bucketSize', 'maxIterations', 'capacity'])
    expect(errorOf(() => new RedisCuckooFilter({ capacity: 100, [name]: null } as never))).toBe(
      `INVALID_ARGUMENT: ${name} must be a safe integer, got null`,
    );
  expect(errorOf(() => new RedisCuckooFilter({ capacity: 2 ** 53 }))).toBe(
    'INVALID_ARGUMENT: capacity must be a safe integer, got the number 9007199254740992',
  );
  expect(errorOf(() => new RedisCuckooFilter({ capacity: -8, bucketSize: 0 }))).toBe(
    'INVALID_ARGUMENT: BUCKETSIZE: value must be an integer between 1 and 255, inclusive.',
  );
  expect(errorOf(() => new RedisCuckooFilter({ capacity: -8 }))).toBe(
    'INVALID_ARGUMENT: Capacity must be at least (BucketSize * 2)',
  );
  const f = new RedisCuckooFilter({ capacity: 100 });
  f.dispose();
  expect(errorOf(() => f.has('x'))).toMatch(/^DISPOSED/);
});

// It printed "[object Object]", and console.log dumped the whole Emscripten module (2026-11-28).
test('String() and console.log give a one-line summary of CF.INFO, not the module', async () => {
  await ready();
  const f = new RedisCuckooFilter({ capacity: 1000 });
  f.add('a');
  f.add('b');
  f.delete('a');
  const { inspect } = await import('node:util');
  const line =
    'RedisCuckooFilter { items: 1, deleted: 1, buckets: 512, filters: 1, bucketSize: 2, expansion: 1, maxIterations: 20, size: 1080 }';
  expect(String(f)).toBe(line);
  expect(inspect(f)).toBe(line);
  f.dispose();
  expect(String(f)).toBe('RedisCuckooFilter { disposed }');
});
