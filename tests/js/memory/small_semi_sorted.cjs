// Makes 1,000 small semi-sorted filters of each of two widths and prints the wasm heap's size before and
// after, as JSON. A semi-sorted table of up to 16-bit fingerprints looks buckets up through a 32 KB table
// per width; it must be shared by the filters of that width, not made for each of them.
const { ready, CuckooFilter } = require(process.argv[2]);
const { loadedModule } = require(`${process.argv[2]}/js/dist/cjs/wasm_module.js`);
(async () => {
  await ready();
  const start = loadedModule().HEAPU8.length;
  const filters = [];
  for (let i = 0; i < 1000; i++) {
    for (const fingerprintBits of [9, 13]) {
      const f = new CuckooFilter({ capacity: 100, fingerprintBits, semiSorted: true, maxKicks: 10 });
      f.add(`key-${i}`);
      filters.push(f);
    }
  }
  const found = filters.every((f, i) => f.has(`key-${i >> 1}`));
  console.log(JSON.stringify({ start, end: loadedModule().HEAPU8.length, found }));
  for (const f of filters) f.dispose();
})();
