// A filter past 2 GiB (2.27 GB of the 4 GB heap), made in a fresh module and written with exportChunks()
// to the file argv[4] ("save"), then read back with importChunks() in another fresh process ("load"). A
// single allocation past 2 GiB failed while the heap had to grow by that much for it: both threw
// OUT_OF_MEMORY, though the heap had the room.
const { createReadStream, openSync, writeSync, closeSync } = require('node:fs');
const { ready, CuckooFilter } = require(process.argv[2]);
(async () => {
  await ready();
  const [mode, file] = process.argv.slice(3);
  if (mode === 'save') {
    const made = new CuckooFilter({ capacity: 540_000_000, fingerprintBits: 32 });
    made.addMany(['a', 'b', 'c']);
    const fd = openSync(file, 'w');
    for (const chunk of made.exportChunks(64 << 20)) writeSync(fd, chunk);
    closeSync(fd);
    console.log(JSON.stringify({ bytes: made.byteLength }));
    made.dispose();
    return;
  }
  const loaded = await CuckooFilter.importChunks(createReadStream(file, { highWaterMark: 16 << 20 }));
  console.log(JSON.stringify({ bytes: loaded.byteLength, found: loaded.has('a') && loaded.has('c') && loaded.size === 3 }));
})().catch((e) => { console.log(JSON.stringify({ crashed: `${e.code ?? ''} ${e.message}` })); });
