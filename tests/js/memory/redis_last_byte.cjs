// The RedisCuckooFilter module's heap filled to its last bytes, as last_byte.cjs does for the main module:
// every refusal is CuckooFilterError('OUT_OF_MEMORY') (a growth, a new filter, a dump loaded), every
// earlier item is still found, and a fresh dump loads in another module (the parent checks it).
const { join } = require('node:path');
const { ready, RedisCuckooFilter, CuckooFilterError } = require(join(process.argv[2], 'js', 'dist', 'cjs', 'redis.js'));
(async () => {
  await ready();
  const filters = [];
  const items = [];
  const itemOf = (i) => `${'r'.repeat(129 + (i % 112))}-${i}`;
  const fill = (capacity) => {
    for (;;) {
      try {
        const f = new RedisCuckooFilter({ capacity });
        const item = itemOf(filters.length);
        f.add(item);
        filters.push(f);
        items.push(item);
      } catch (error) {
        if (error instanceof CuckooFilterError && error.code === 'OUT_OF_MEMORY') return;
        throw error;
      }
    }
  };
  // A small filter and its dump, made while there is room.
  const template = new RedisCuckooFilter({ capacity: 4 });
  template.add('template');
  const dump = [...template.toChunks()];
  // Full, and its next sub-filter would have 2^16 buckets.
  const grower = new RedisCuckooFilter({ capacity: 4, expansion: 32768 });
  for (let i = 0; grower.info().numberOfFilters === 1; i++) grower.add(`fill-${i}`);
  // 4-slot buckets doubling: its next growth also needs room in its list of sub-filters (an abort, once).
  const doubler = new RedisCuckooFilter({ capacity: 1000, bucketSize: 4, expansion: 2 });
  let doublerItems = 0;
  for (const capacity of [1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 100, 10, 4]) fill(capacity);
  // The last bytes, in blocks of every size (below a filter's smallest table).
  const { loadedModule } = require(join(process.argv[2], 'js', 'dist', 'cjs', 'redis_module.js'));
  for (let size = 1 << 12; size >= 1; size >>= 1) while (loadedModule()._malloc(size) !== 0);
  const filled = filters.length;
  const survivor = filters[filled - 1];
  const refusals = {};
  const others = [];
  const ops = {
    create: async () => new RedisCuckooFilter({ capacity: 1000 }),
    createTiny: async () => new RedisCuckooFilter({ capacity: 4 }),
    fromChunks: async () => RedisCuckooFilter.fromChunks(dump),
    growth: async () => {
      for (let i = 0; i < 20; i++) grower.add(`grow-${i}`);
    },
    doubling: async () => {
      for (;;) {
        doubler.add(`d-${doublerItems}`);
        doublerItems++;
      }
    },
  };
  const made = [];
  for (let round = 0; round < 1000; round++) {
    for (const [name, op] of Object.entries(ops)) {
      try {
        const result = await op();
        if (result instanceof RedisCuckooFilter) made.push(result);
      } catch (error) {
        if (error instanceof CuckooFilterError && error.code === 'OUT_OF_MEMORY') refusals[name] = (refusals[name] ?? 0) + 1;
        else others.push(`${name}: ${error && error.constructor.name}: ${error && error.message}`);
      }
    }
  }
  const lost = items.filter((item, i) => !filters[i].has(item)).length;
  for (const f of [...filters.slice(0, filled - 1), ...made, template, grower]) f.dispose();
  const fresh = [...survivor.toChunks()];
  console.log(JSON.stringify({
    filters: filled,
    refused: Object.values(refusals).reduce((a, b) => a + b, 0),
    refusals,
    others: others.slice(0, 5),
    lost,
    item: items[filled - 1],
    dump: fresh.map(({ iterator, chunk }) => ({ iterator, chunk: Buffer.from(chunk).toString('base64') })),
  }));
})().catch((e) => { console.log(JSON.stringify({ crashed: `${e.constructor.name}: ${e.message}` })); });
