// Run with node --expose-gc: drops 20,000 exportChunks() generators after their first chunk (neither
// finished nor return()ed) and prints the wasm heap's size before and after, as JSON. Each holds an
// exporter in the heap until the garbage collector finalizes it.
const { ready, CuckooFilter } = require(process.argv[2]);
const { loadedModule } = require(`${process.argv[2]}/js/dist/cjs/wasm_module.js`);
(async () => {
  await ready();
  const f = new CuckooFilter({ capacity: 100_000, growth: 2, maxSubFilters: 32 });
  for (let i = 0; i < 1000; i++) f.add(`key-${i}`);
  const start = loadedModule().HEAPU8.length;
  let chunks = 0;
  for (let i = 0; i < 20_000; i++) {
    const generator = f.exportChunks(64);
    chunks += generator.next().done ? 0 : 1;
    if (i % 1000 === 999) {
      global.gc();
      await new Promise((resolve) => setTimeout(resolve, 0)); // finalizers run between tasks
    }
  }
  console.log(JSON.stringify({ start, end: loadedModule().HEAPU8.length, chunks }));
})();
