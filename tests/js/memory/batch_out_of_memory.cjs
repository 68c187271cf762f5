// An addMany() that a full heap stops (its table cannot double) says which keys were added: the heap is
// filled with sized filters, halving their size down to 64 KiB until none fits, around a growing filter;
// then batches of 1,000 keys until one is stopped. Before: "...does not fit in the WebAssembly heap; nothing was added" while the
// error's results held 1,000 trues and the size had grown by 1,000.
const { ready, CuckooFilter } = require(process.argv[2]);
(async () => {
  await ready();
  const growing = new CuckooFilter({ capacity: 1000, fpRate: 0.001, growth: 2 });
  const keys = Array.from({ length: 1_000_000 }, (_, i) => `k${i}`);
  growing.addMany(keys.slice(0, 1000)); // its batch memory, before the heap is full
  const fill = [];
  for (let capacity = 1 << 30; capacity >= 1 << 16; ) {
    try {
      fill.push(new CuckooFilter({ capacity, fingerprintBits: 8 }));
    } catch {
      capacity >>= 1;
    }
  }
  let start = 1000;
  try {
    for (; start < keys.length; start += 1000) growing.addMany(keys.slice(start, start + 1000));
    console.log(JSON.stringify({ stopped: false }));
  } catch (e) {
    if (!e.results) { console.log(JSON.stringify({ other: `${e.code} ${e.message}` })); return; }
    const added = e.results.filter(Boolean).length;
    console.log(
      JSON.stringify({
        code: e.code,
        message: e.message.replace(/\d+/g, 'N'),
        addedIsSize: added === growing.size - start && added > 0,
        found: e.results.every((added, i) => !added || growing.has(keys[start + i])),
      }),
    );
  }
})().catch((e) => { console.log(JSON.stringify({ crashed: `${e.code ?? ''} ${e.message}` })); });
