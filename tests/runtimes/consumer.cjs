// The same package through require(): run by scripts/runtimes.sh in every runtime. Prints "ok".
const { ready, CuckooFilter } = require('cuckoo-wasm');

ready().then(() => {
  const seen = new CuckooFilter({ capacity: 1000 });
  seen.add('order-1');
  const answer = [seen.has('order-1'), seen.has('order-2')];
  seen.dispose();
  if (JSON.stringify(answer) !== '[true,false]') throw new Error(`require(): got ${JSON.stringify(answer)}`);
  console.log('ok');
});
