// Run with node --expose-gc: drops filters of each copy of the package a process can load (the ES module
// and CommonJS builds, and the lite entry) without dispose(), and prints the warnings written, as JSON:
// the hint is once per process, not once per copy.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const root = process.argv[2];
const warnings = [];
console.warn = (...args) => warnings.push(args.join(' '));
const esm = await import(pathToFileURL(`${root}/js/dist/esm/index.js`).href);
const cjs = createRequire(import.meta.url)(`${root}/js/dist/cjs/index.js`);
const lite = await import(pathToFileURL(`${root}/js/dist/esm/lite.js`).href);
for (const { ready, CuckooFilter } of [esm, cjs, lite]) {
  await ready();
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 200; i++) new CuckooFilter({ capacity: 100 }).add(`key-${i}`);
    global.gc();
    await new Promise((resolve) => setTimeout(resolve, 0)); // finalizers run between tasks
  }
}
console.log(JSON.stringify({ warnings }));
