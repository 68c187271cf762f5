// cuckoo-wasm/lite in Node (package.json's "node" condition): lite.ts, with its wasm unpacked by node:zlib.
import './node_unpacker.js';

export * from './lite.js';
