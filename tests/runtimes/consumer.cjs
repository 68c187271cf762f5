// The same package through require(): run by scripts/runtimes.sh in every runtime. Prints "ok".
const { ready, CuckooFilter } = require('cuckoo-wasm');
const lite = require('cuckoo-wasm/lite');

Promise.all([ready(), lite.ready()]).then(() => {
  const seen = new CuckooFilter({ capacity: 1000 });
  seen.add('order-1');
  const small = new lite.CuckooFilter({ capacity: 1000 });
  small.add('order-1');
  const answer = [seen.has('order-1'), seen.has('order-2'), small.has('order-1'), small.has('order-2')];
  seen.dispose();
  small.dispose();
  if (JSON.stringify(answer) !== '[true,false,true,false]') throw new Error(`require(): got ${JSON.stringify(answer)}`);
  console.log('ok');
});
