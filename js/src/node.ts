// The package's Node entry (package.json's "node" condition): everything the browser entry has, but
// dedupLines is a Node Transform, `createReadStream(a).pipe(dedupLines()).pipe(out)`. For web streams in
// Node, dedupLineStream() is there as everywhere. And the wasm is unpacked with Buffer and node:zlib (see
// useUnpacker).
import './node_unpacker.js';

export * from './index.js';
export { dedupLines, LineDedupTransform } from './dedup_node.js';
export type { DedupLinesOptions } from './dedup_node.js';
