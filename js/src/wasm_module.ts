// Loads the WebAssembly module once and hands out the one instance every filter shares.
//
// The wasm binary is inlined in a JavaScript module beside the Emscripten glue (deflated and in base64,
// by scripts/inline-wasm.mjs), so loading needs no fetch, no file system and no bundler configuration, in
// Node, browsers and workers alike. Each build has its glue and binary module beside it (generated/: ES
// modules in the ES module build, CommonJS in the CommonJS build), loaded by static imports; inflating
// (DecompressionStream) and compiling the wasm are asynchronous, hence ready().
import { base64Decode } from './base64.js';
import createCuckooModule from './generated/cuckoo_wasm.js';
import deflatedWasm from './generated/cuckoo_wasm_binary.js';

/**
 * The embind surface of cpp/wasm/bindings.cpp. Handles and addresses are u32; counts are doubles; codes and
 * record layouts are in abi.ts, generated from the C++. Only heap.ts computes addresses.
 */
export interface CuckooModule {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(address: number): void;
  /** options: the address of a CreateOptions record (abi.ts). */
  create(options: number): number;
  exportBegin(handle: number): number;
  exportSize(exporter: number): number;
  exportRead(exporter: number, out: number, capacity: number): number;
  exportEnd(exporter: number): void;
  /** total: the export's length, or -1 when unknown (a stream). */
  importBegin(total: number): number;
  importPush(importer: number, address: number, length: number): number;
  importFinish(importer: number): number;
  importEnd(importer: number): void;
  destroy(handle: number): void;
  lastErrorCode(): number;
  lastErrorMessage(): string;
  /** An AddResult (abi.ts): added, or why not. */
  add(handle: number, address: number, length: number): number;
  contains(handle: number, address: number, length: number): boolean;
  remove(handle: number, address: number, length: number): boolean;
  count(handle: number, address: number, length: number): number;
  /** An AddResult (abi.ts): added, alreadyPresent, or why not. */
  addIfAbsent(handle: number, address: number, length: number): number;
  lastAddFailure(handle: number): number;
  merge(handle: number, other: number): number;
  union(handle: number, other: number): number;
  growth(handle: number): number;
  maxSubFilters(handle: number): number;
  subFilterCount(handle: number): number;
  addMany(handle: number, bytes: number, offsets: number, count: number, results: number): number;
  containsMany(handle: number, bytes: number, offsets: number, count: number, results: number): void;
  removeMany(handle: number, bytes: number, offsets: number, count: number, results: number): number;
  addIfAbsentRanges(handle: number, bytes: number, ranges: number, count: number, results: number): number;
  clear(handle: number): void;
  size(handle: number): number;
  capacity(handle: number): number;
  byteSize(handle: number): number;
  loadFactor(handle: number): number;
  expectedFpRate(handle: number): number;
  fingerprintBits(handle: number): number;
  bucketSize(handle: number): number;
  numBuckets(handle: number): number;
  maxKicks(handle: number): number;
  seedLow(handle: number): number;
  seedHigh(handle: number): number;
  slot(handle: number, bucket: number, slot: number): number;
  locate(handle: number, address: number, length: number, out: number): void;
  alternateIndex(handle: number, bucket: number, fingerprint: number): number;
  alternateOffset(handle: number, fingerprint: number): number;
  setTracing(handle: number, on: boolean): void;
  traceOutcome(handle: number): number;
  traceStepCount(handle: number): number;
  traceSteps(handle: number, out: number): void;
  dedupCreate(filter: number): number;
  dedupDestroy(handle: number): void;
  /** The address of a DedupReport record (abi.ts). */
  dedupReport(handle: number): number;
  dedupPush(handle: number, address: number, length: number): number;
  dedupFinish(handle: number): number;
  declaredLength(address: number, length: number): number;
}

let instance: CuckooModule | undefined;
let loading: Promise<CuckooModule> | undefined;

/** Loads and instantiates the WebAssembly module. Idempotent: every call returns the same promise. */
export function ready(): Promise<void> {
  if (!loading) {
    loading = inflate(base64Decode(deflatedWasm)!)
      .then((wasmBinary) => createCuckooModule({ wasmBinary }))
      .then((module) => {
        instance = module;
        return module;
      });
    // A failed load may be retried by calling ready() again.
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading.then(() => undefined);
}

/** The loaded module, or undefined before ready() has resolved. */
export function loadedModule(): CuckooModule | undefined {
  return instance;
}

// The platform's inflater (browsers, workers, Node 18+): about a millisecond for the ~90 KB binary.
async function inflate(deflated: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([deflated as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
