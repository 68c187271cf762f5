// Types of the Emscripten glue that the build puts beside each compiled wasm_module.js (an ES module in
// the ES module build, CommonJS in the CommonJS build); the interface is in ../wasm_module.ts.
declare const createCuckooModule: (options: { wasmBinary: Uint8Array }) => Promise<import('../wasm_module.js').CuckooModule>;
export default createCuckooModule;
