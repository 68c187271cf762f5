// A filter larger than half the wasm heap (2.1 GB of a 4 GB heap) is saved and loaded: export() and
// import() pass it through the heap in pieces, and exportChunks()/importChunks() too.
const { ready, CuckooFilter } = require(process.argv[2]);
(async () => {
  await ready();
  const made = new CuckooFilter({ capacity: 500_000_000, fingerprintBits: 32 });
  made.addMany(['a', 'b', 'c']);
  const bytes = made.export();
  const chunks = [...made.exportChunks(64 << 20)];
  made.dispose();
  const loaded = CuckooFilter.import(bytes);
  const result = { bytes: bytes.length, imported: loaded.has('a') && loaded.has('c') && loaded.size === 3 };
  loaded.dispose();
  const streamed = await CuckooFilter.importChunks(chunks);
  result.streamed = streamed.has('b') && streamed.size === 3;
  console.log(JSON.stringify(result));
})().catch((e) => { console.log(JSON.stringify({ crashed: `${e.code ?? ''} ${e.message}` })); });
