// Types for the Emscripten glue built into this folder (cuckoo_wasm.mjs); the interface is in
// js/src/wasm_module.ts.
declare const createCuckooModule: () => Promise<import('../src/wasm_module.js').CuckooModule>;
export default createCuckooModule;
