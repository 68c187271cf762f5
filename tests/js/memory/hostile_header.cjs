// A stream of one 64-byte header that declares a 64 MiB table (version 3: bucket size 8, 32-bit
// fingerprints, 2^21 buckets), given to importChunks five times: prints the error and how much the
// process's resident memory grew, as JSON. The table is allocated when the header arrives (a stream's
// length is unknown), but not written: it took 64 MiB of the process for good while it was cleared first.
const { ready, CuckooFilter } = require(process.argv[2]);
(async () => {
  await ready();
  const f = new CuckooFilter({ capacity: 100, seed: 7 });
  f.add('a');
  const bytes = Uint8Array.from(f.export());
  f.dispose();
  const view = new DataView(bytes.buffer);
  view.setUint8(6, 8); // bucket size
  view.setUint8(7, 32); // fingerprint bits
  view.setBigUint64(24, 1000n, true); // capacity
  view.setBigUint64(32, 2n ** 21n, true); // buckets
  view.setBigUint64(48, 2n ** 26n, true); // table bytes
  const header = bytes.slice(0, 64);
  const before = process.memoryUsage().rss;
  let error;
  for (let i = 0; i < 5; i++) {
    try {
      await CuckooFilter.importChunks([header]);
    } catch (e) {
      error = `${e.code}: ${e.message}`;
    }
  }
  console.log(JSON.stringify({ error, grew: process.memoryUsage().rss - before }));
})();
