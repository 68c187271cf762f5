// What a user of the package does, as an ES module: run by scripts/runtimes.sh in every runtime the README
// names (Node 18, 20 and 22, Bun, Deno), from a project that installed the packed tarball. Prints "ok".
import { ready, CuckooFilter, CuckooFilterError, dedupLineStream } from 'cuckoo-wasm';
import { RedisCuckooFilter } from 'cuckoo-wasm/redis';
import { ready as liteReady, CuckooFilter as LiteFilter } from 'cuckoo-wasm/lite';

const check = (what, actual, expected) => {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
};

await ready();
// The README's first example.
const seen = new CuckooFilter({ capacity: 1_000_000, fpRate: 0.001 });
check('add', seen.add('user-42'), true);
check('has', [seen.has('user-42'), seen.has('user-43')], [true, false]);
check('addIfAbsent', seen.addIfAbsent('user-42'), false);
check('addMany', seen.addMany(['a', 'b', 'c']), [true, true, true]);
check('hasMany', seen.hasMany(new Set(['a', 'zzz'])), [true, false]);
check('delete', seen.delete('a'), true);
// Integer batches, export and import, JSON.
const ids = BigUint64Array.from([1n, 2n, 3n]);
check('integer batch', Array.from(seen.addMany(ids)), [1, 1, 1]);
check('integer key', seen.has(2) && seen.has(2n), true);
const copy = CuckooFilter.import(seen.export());
check('import', [copy.has('b'), copy.size], [true, seen.size]);
const fromJson = CuckooFilter.fromJSON(JSON.stringify(seen));
check('JSON', fromJson.has('user-42'), true);
let code = '';
try { CuckooFilter.import(new Uint8Array(10)); } catch (e) { code = e instanceof CuckooFilterError ? e.code : 'wrong type'; }
check('BAD_FORMAT', code, 'BAD_FORMAT');
for (const f of [seen, copy, fromJson]) f.dispose();
// The RedisBloom filter, its dump read back.
const redis = await RedisCuckooFilter.create({ capacity: 1000 });
redis.add('user-42');
const loaded = await RedisCuckooFilter.fromChunks([...redis.toChunks()]);
check('redis', [loaded.has('user-42'), loaded.has('user-43')], [true, false]);
redis.dispose();
loaded.dispose();
// Line deduplication through a web stream.
const input = new Blob(['b\na\nb\r\nc\na']).stream();
const out = await new Response(input.pipeThrough(dedupLineStream())).text();
check('dedupLineStream', out, 'b\na\nc\n');
// The lite entry (a standalone wasm module it instantiates itself), its export read by the full entry.
await liteReady();
const lite = new LiteFilter({ capacity: 1000, fpRate: 0.001 });
check('lite addMany', lite.addMany(['x', 'y']), [true, true]);
check('lite has', [lite.has('x'), lite.has('z')], [true, false]);
const inFull = CuckooFilter.import(lite.export());
check('lite export in the full entry', [inFull.has('y'), inFull.size], [true, 2]);
let liteCode = '';
try { new LiteFilter({ capacity: 10, growth: 2 }); } catch (e) { liteCode = e.code; }
check('lite UNSUPPORTED', liteCode, 'UNSUPPORTED');
lite.dispose();
inFull.dispose();
console.log('ok');
