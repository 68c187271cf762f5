// A lite filter whose table does not fit beside another (1.5 GB held, 3.7 GB asked for) is OUT_OF_MEMORY,
// and the other filters keep every key. With emmalloc as the lite module's allocator, the creation
// trapped ("memory access out of bounds") and overwrote two bytes of the held filter's table: one of its
// keys was then reported absent (found by an adversarial pass). The full entry said OUT_OF_MEMORY.
const { join } = require('node:path');
const { ready, CuckooFilter } = require(join(process.argv[2], 'js/dist/cjs/lite_node.js'));
(async () => {
  await ready();
  const held = new CuckooFilter({ capacity: 900_000_000, seed: 1 });
  const keys = new Uint32Array(200_000).map((_, i) => i * 7919);
  held.addMany(keys);
  const other = new CuckooFilter({ capacity: 1000 });
  other.add('p');
  const before = Buffer.from(held.export());
  let code;
  try {
    new CuckooFilter({ capacity: 2 ** 31 });
    code = 'created';
  } catch (e) {
    code = e.code ?? e.constructor.name;
  }
  const unchanged = before.equals(Buffer.from(held.export()));
  before.fill(0);
  // And the heap still serves a filter that fits.
  const after = new CuckooFilter({ capacity: 1_000_000 });
  console.log(
    JSON.stringify({ code, unchanged, found: held.hasMany(keys).every(Boolean) && other.has('p'), after: after.add('x') }),
  );
})();
