// The package's Node entry (package.json's "node" condition): everything the browser entry has, but
// dedupLines is a Node Transform, `createReadStream(a).pipe(dedupLines()).pipe(out)`. For web streams in
// Node, dedupLineStream() is there as everywhere. And the wasm is inflated with node:zlib (see useInflater).
import { inflateSync } from 'node:zlib';
import { useInflater } from './wasm_loader.js';

useInflater((deflated) => inflateSync(deflated));

export * from './index.js';
export { dedupLines, LineDedupTransform } from './dedup_node.js';
