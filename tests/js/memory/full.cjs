// Fills the wasm heap with filters until one does not fit: that one is CuckooFilterError('OUT_OF_MEMORY'),
// every filter made before still works, and freeing one makes room again. Prints the findings as JSON.
const { ready, CuckooFilter, CuckooFilterError } = require(process.argv[2]);
(async () => {
  await ready();
  const filters = [];
  let error;
  for (let i = 0; i < 200 && !error; i++) {
    try {
      const f = new CuckooFilter({ capacity: 60_000_000, fingerprintBits: 16 }); // ~126 MB each
      f.add(`first-${i}`);
      filters.push(f);
    } catch (e) {
      error = e;
    }
  }
  const result = { made: filters.length, code: error instanceof CuckooFilterError ? error.code : String(error) };
  // Smaller allocations near the limit, then every operation that allocates: each fails cleanly or works.
  for (const make of [() => new CuckooFilter({ capacity: 5_000_000 }), () => filters[0].export(),
    () => filters[0].addMany(Array.from({ length: 100_000 }, (_, i) => `m${i}`)), () => filters[0].union(filters[1])]) {
    try { make(); } catch (e) { if (!(e instanceof CuckooFilterError && e.code === 'OUT_OF_MEMORY')) throw e; }
  }
  result.allStillWork = filters.every((f, i) => f.has(`first-${i}`) && f.add(`again-${i}`));
  filters.pop().dispose();
  const again = new CuckooFilter({ capacity: 60_000_000, fingerprintBits: 16 });
  result.roomAgain = again.add('x') && again.has('x');
  console.log(JSON.stringify(result));
})().catch((e) => { console.log(JSON.stringify({ crashed: String(e) })); });
