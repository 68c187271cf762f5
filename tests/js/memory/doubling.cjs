// Prints, as JSON, the wasm heap's size after a table doubled in place, beside the table's size: argv[3]
// "filter", a filter (growth 2, 32-bit slots) given 7.5M keys from a first capacity of 65,536 (7 doublings); "dedup", a
// line deduplicator started at a million lines given 10M unique lines in 4 MiB blocks.
const { ready, CuckooFilter, LineDeduper } = require(process.argv[2]);
const { loadedModule } = require(`${process.argv[2]}/js/dist/cjs/wasm_module.js`);
(async () => {
  await ready();
  const heap = () => loadedModule().HEAPU8.length;
  if (process.argv[3] === 'filter') {
    const filter = new CuckooFilter({ capacity: 65_536, fpRate: 1e-7, growth: 2 });
  const keys = new Uint32Array(1 << 16);
  for (let base = 0; base < 7_500_000; base += keys.length) {
    for (let i = 0; i < keys.length; i++) keys[i] = base + i;
    filter.addMany(keys);
  }
    console.log(JSON.stringify({ doublings: filter.doublings, table: filter.byteLength, heap: heap() }));
    return;
  }
  const deduper = new LineDeduper({ capacity: 1_000_000 });
  const block = Buffer.alloc(4 << 20);
  let at = 0;
  let written = 0;
  for (let i = 0; i < 10_000_000; i++) {
    at += block.write(`line-${i}\n`, at, 'latin1');
    if (at > block.length - 32) {
      written += deduper.push(block.subarray(0, at)).length;
      at = 0;
    }
  }
  written += deduper.push(block.subarray(0, at)).length + deduper.end().length;
  const { doublings, filterBytes } = deduper.stats;
  console.log(JSON.stringify({ doublings, table: filterBytes, heap: heap(), written }));
})();
