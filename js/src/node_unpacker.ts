// In Node, each entry's wasm is unpacked with Buffer and node:zlib (wasm_loader.ts's useUnpacker says why):
// the Node entries (node.ts, lite_node.ts) import this module for its one statement.
import { inflateSync } from 'node:zlib';
import { useUnpacker } from './wasm_loader.js';

useUnpacker((text) => inflateSync(Buffer.from(text, 'base64')));
