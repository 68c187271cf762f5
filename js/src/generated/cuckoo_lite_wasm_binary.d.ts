// Types of the module the build puts beside each compiled wasm_module.js (scripts/inline-wasm.mjs): the
// wasm binary, deflated (zlib format), in base64.
declare const deflatedWasm: string;
export default deflatedWasm;
