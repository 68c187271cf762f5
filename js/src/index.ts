// cuckoo-wasm: a cuckoo filter in C++ compiled to WebAssembly.
//   await ready(); const f = new CuckooFilter({ capacity: 1_000_000, fpRate: 0.001 });
// This is the entry for browsers, workers and bundlers; Node loads node.ts, which adds the Node stream
// adapter (package.json's "node" condition).
export { ready } from './wasm_module.js';
export { CuckooFilter } from './filter.js';
export type {
  CuckooFilterJSON,
  CuckooFilterOptions,
  CuckooFilterShape,
  InsertTrace,
  IntegerArray,
  Key,
  KeyLocation,
  TraceStep,
} from './filter.js';
export { CuckooFilterError } from './errors.js';
export type { CuckooFilterErrorCode } from './errors.js';
export {
  LineDeduper,
  planDedup,
  dedupLineStream,
  DEDUP_LOSS_BUDGET,
  MAX_DEDUP_CAPACITY,
  MAX_WINDOW,
  MIN_GROWING_FP_RATE,
  MIN_WINDOW_FP_RATE,
} from './dedup.js';
export type { DedupPlan, LineDeduperOptions, LineDedupStats, LineDedupStream } from './dedup.js';
// In browsers, dedupLines is the web TransformStream: `file.stream().pipeThrough(dedupLines())`.
export { dedupLineStream as dedupLines } from './dedup.js';
