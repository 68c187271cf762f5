// cuckoo-wasm: a cuckoo filter in C++ compiled to WebAssembly.
//   await ready(); const f = new CuckooFilter({ capacity: 1_000_000, fpRate: 0.001 });
export { ready } from './wasm_module.js';
export { CuckooFilter } from './filter.js';
export type { CuckooFilterOptions, InsertTrace, Key, KeyLocation, TraceStep } from './filter.js';
export { CuckooFilterError } from './errors.js';
export { lineRanges } from './lines.js';
export type { CuckooFilterErrorCode } from './errors.js';
