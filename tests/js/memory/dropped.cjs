// Run with node --expose-gc: drops 100,000 filters without dispose() and prints the wasm heap's size and
// the warnings written, as JSON. The heap must stay bounded: the FinalizationRegistry frees them.
const { ready, CuckooFilter } = require(process.argv[2]);
const { loadedModule } = require(`${process.argv[2]}/js/dist/cjs/wasm_module.js`);
const warnings = [];
console.warn = (...args) => warnings.push(args.join(' '));
(async () => {
  await ready();
  const start = loadedModule().HEAPU8.length;
  for (let i = 0; i < 100_000; i++) {
    const f = new CuckooFilter({ capacity: 1000 });
    f.add(`key-${i}`);
    if (i % 2000 === 1999) {
      global.gc();
      await new Promise((resolve) => setTimeout(resolve, 0)); // finalizers run between tasks
    }
  }
  console.log(JSON.stringify({ start, end: loadedModule().HEAPU8.length, warnings }));
})();
