// RedisCuckooFilter: building a RedisBloom-format filter of N keys in the package (default 10,000,000),
// dumping it as CF.SCANDUMP chunks and reading it back; one JSON line per case. No Redis server is needed:
// the line states the rate a pipelined client would need to match, CF.ADD per key, for the arithmetic.
//   node bench/redis_bench.mjs [N]
import { RedisCuckooFilter } from '../js/dist/esm/redis.js';

const n = Number(process.argv[2] ?? 10_000_000);
const keys = Array.from({ length: n }, (_, i) => `user-${i}`);
const seconds = (start) => (performance.now() - start) / 1000;

// CF.RESERVE key n*1.1 BUCKETSIZE 4 EXPANSION 2 (room for every key without growing at 4 slots a bucket).
const filter = await RedisCuckooFilter.create({ capacity: Math.ceil(n * 1.1), bucketSize: 4, maxIterations: 500, expansion: 2 });
let start = performance.now();
for (let i = 0; i < n; i += 100_000) filter.addMany(keys.slice(i, i + 100_000));
const build = seconds(start);
start = performance.now();
let found = 0;
for (let i = 0; i < n; i++) found += filter.has(keys[i]) ? 1 : 0;
const lookup = seconds(start);
start = performance.now();
const chunks = [...filter.toChunks()];
const dump = seconds(start);
start = performance.now();
const copy = await RedisCuckooFilter.fromChunks(chunks);
const load = seconds(start);
const info = filter.info();
console.log(JSON.stringify({
  bench: 'redis', case: 'build_dump_load', items: n, sub_filters: info.numberOfFilters, table_bytes: info.size - 40 - 16 * info.numberOfFilters,
  chunks: chunks.length, build_s: +build.toFixed(2), adds_per_s: Math.round(n / build), lookups_per_s: Math.round(n / lookup),
  found, dump_s: +dump.toFixed(3), load_s: +load.toFixed(3), same_after_load: copy.info().numberOfItemsInserted === info.numberOfItemsInserted,
  pipelined_cf_add_rate_needed_per_s: Math.round(n / (build + dump + load)),
}));
copy.dispose();
filter.dispose();
