// Fills the wasm heap to its last bytes (filters of falling capacity, each with a long key, down to
// filters of one item), then runs thousands of operations that need memory: every refusal must be
// CuckooFilterError('OUT_OF_MEMORY'), never the module's abort (which also leaves its stack pointer moved:
// thousands of aborts later, keys added before them were reported absent). Then every earlier key must
// still be found, and a fresh export must load in another module (the parent checks it). Prints JSON.
const { ready, CuckooFilter, CuckooFilterError, LineDeduper } = require(process.argv[2]);
(async () => {
  await ready();
  const filters = [];
  const keys = [];
  // Keys past 128 bytes: the ones reported absent after the aborts.
  const keyOf = (i) => `${'k'.repeat(129 + (i % 112))}-${i}`;
  const add = (options) => {
    const f = new CuckooFilter(options);
    const key = keyOf(filters.length);
    if (!f.add(key)) throw new Error('a new filter refused its first key');
    filters.push(f);
    keys.push(key);
  };
  const fill = (options) => {
    for (;;) {
      try {
        add(options);
      } catch (error) {
        if (error instanceof CuckooFilterError && error.code === 'OUT_OF_MEMORY') return;
        throw error;
      }
    }
  };
  // A scratch area large enough for a chunk of 4,096 short keys, but not for a longer key after them.
  const batched = new CuckooFilter({ capacity: 10_000 });
  const shortKeys = Array.from({ length: 4096 }, (_, i) => `short-${i}`);
  batched.hasMany(shortKeys);
  // A full table whose traced add needs a long walk's room (20 KB of steps at 500 kicks).
  const traceable = new CuckooFilter({ capacity: 1000 });
  for (let i = 0; traceable.add(`t-${i}`); i++);
  const { loadedModule } = require(`${process.argv[2]}/js/dist/cjs/wasm_module.js`);
  const m = loadedModule();
  const holes = [24, 100, 1000, 10_000].map((size) => m._malloc(size));
  for (const capacity of [40e6, 6e6, 600e3, 60e3, 6e3, 600, 60, 6, 1]) fill({ capacity });
  fill({ capacity: 1, maxKicks: 1 });

  const filled = filters.length;
  const small = filters[filled - 1];
  const survivor = filters[filled - 2];
  // An export made before the heap was full, for the import below (made now, it would be refused).
  const bytes = new Uint8Array(64);
  const refusals = {};
  const others = [];
  const ops = {
    create: () => new CuckooFilter({ capacity: 1000 }),
    createTiny: () => new CuckooFilter({ capacity: 1, maxKicks: 1 }),
    export: () => filters[0].export(),
    exportChunks: () => [...filters[0].exportChunks(1 << 20)],
    import: () => CuckooFilter.import(bytes),
    union: () => filters[1].union(filters[2]),
    merge: () => filters[1].merge(filters[2]),
    addMany: () => small.addMany(Array.from({ length: 5000 }, (_, i) => `batch-${i}`)),
    longKey: () => small.has('x'.repeat(1 << 20)),
    dedup: () => new LineDeduper().push(new TextEncoder().encode('a\nb\n')),
    growth: () => {
      const g = new CuckooFilter({ capacity: 1, growth: 2 });
      for (let i = 0; i < 100; i++) g.add(`g${i}`);
    },
    traced: () => survivor.addTraced('traced'),
    // Before: its first chunk was added, then OUT_OF_MEMORY at the long key's chunk.
    batchThenLongKey: () => batched.addMany([...shortKeys, 'y'.repeat(200_000)]),
  };
  const made = [];
  for (let round = 0; round < 500; round++) {
    // Half-way, a small gap: the size of one tiny filter (a trace's room once aborted there).
    if (round === 250) filters[filled - 3].dispose();
    for (const [name, op] of Object.entries(ops)) {
      try {
        const result = op();
        if (result instanceof CuckooFilter) made.push(result);
      } catch (error) {
        if (error instanceof CuckooFilterError && error.code === 'OUT_OF_MEMORY') refusals[name] = (refusals[name] ?? 0) + 1;
        else if (!(name === 'import' && error instanceof CuckooFilterError && error.code === 'BAD_FORMAT')) {
          others.push(`${name}: ${error && error.constructor.name}: ${error && error.message}`);
        }
      }
    }
  }
  // Gaps of a few bytes to 10 KB in a heap full to the last byte: a traced add there aborted once.
  for (let size = 1 << 12; size >= 1; size >>= 1) while (m._malloc(size) !== 0);
  for (const hole of holes) {
    m._free(hole);
    for (let i = 0; i < 50; i++) {
      try {
        traceable.addTraced(`gap-${hole}-${i}`);
      } catch (error) {
        if (!(error instanceof CuckooFilterError && error.code === 'OUT_OF_MEMORY')) others.push(`gap: ${error && error.message}`);
      }
    }
  }
  const lost = keys.filter((key, i) => i !== filled - 3 && !filters[i].has(key)).length;
  const batchUnchanged = batched.size === 0;
  // Room again: free all but the last two, then a fresh export of one that lived through it all.
  for (const f of [...filters.slice(0, filled - 3), ...made]) f.dispose();
  const fresh = survivor.export();
  const again = CuckooFilter.import(fresh);
  console.log(JSON.stringify({
    filters: filled,
    refused: Object.values(refusals).reduce((a, b) => a + b, 0),
    refusals,
    others: others.slice(0, 5),
    lost,
    batchUnchanged,
    reimported: again.has(keys[filled - 2]) && again.size === survivor.size,
    key: keys[filled - 2],
    export: Buffer.from(fresh).toString('base64'),
  }));
})().catch((e) => { console.log(JSON.stringify({ crashed: `${e.constructor.name}: ${e.message}` })); });
