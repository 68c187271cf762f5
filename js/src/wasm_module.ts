// The package's main WebAssembly module (cpp/wasm/bindings.cpp): loaded once, shared by every filter.
import createCuckooModule from './generated/cuckoo_wasm.js';
import deflatedWasm from './generated/cuckoo_wasm_binary.js';
import { ErrorCode } from './abi.js';
import { CuckooFilterError } from './errors.js';
import { lastErrorMessage } from './heap.js';
import { type HeapModule, moduleLoader } from './wasm_loader.js';

/**
 * The embind surface of cpp/wasm/bindings.cpp. Handles and addresses are u32; counts are doubles; codes and
 * record layouts are in abi.ts, generated from the C++. Only heap.ts computes addresses.
 */
export interface CuckooModule extends HeapModule {
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
  semiSorted(handle: number): boolean;
  subFilterCount(handle: number): number;
  /** Doublings so far of a filter that grows in place, -1 for any other. */
  doublings(handle: number): number;
  maxDoublings(handle: number): number;
  addMany(handle: number, bytes: number, offsets: number, count: number, results: number): number;
  containsMany(handle: number, bytes: number, offsets: number, count: number, results: number): void;
  removeMany(handle: number, bytes: number, offsets: number, count: number, results: number): number;
  integerBatch(handle: number, op: number, keys: number, width: number, count: number, results: number): number;
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
  /** A semi-sorted bucket's 12-bit code of its high nibbles (0 for plain buckets). */
  bucketCode(handle: number, bucket: number): number;
  locate(handle: number, address: number, length: number, out: number): void;
  alternateIndex(handle: number, bucket: number, fingerprint: number): number;
  alternateOffset(handle: number, fingerprint: number): number;
  /** An ErrorCode: turning tracing on reserves the trace's room. */
  setTracing(handle: number, on: boolean): number;
  traceOutcome(handle: number): number;
  traceStepCount(handle: number): number;
  traceSteps(handle: number, out: number): void;
  /** rules: LineRules bits (1: records end at NUL; 2: write the duplicates). */
  dedupCreate(filter: number, rules: number): number;
  dedupDestroy(handle: number): void;
  /** Keys from fields: `count` pairs of u32 field numbers [first, last] at `ranges` (last 0: to the end). An ErrorCode. */
  dedupSelect(
    handle: number,
    delimiter: number,
    ranges: number,
    count: number,
    names: number,
    namesLength: number,
  ): number;
  dedupNextInput(handle: number): number;
  dedupCountDistinct(handle: number): void;
  dedupDistinct(handle: number): number;
  /** The address of the count's registers (DISTINCT_REGISTERS bytes). */
  dedupDistinctRegisters(handle: number): number;
  /** Merges another count's registers, at `address`, into this one's. */
  dedupDistinctMerge(handle: number, address: number): void;
  /** Makes the engine remember only the last `n` keys it added (before its first record). An ErrorCode. */
  dedupWindow(handle: number, n: number): number;
  /** Makes the engine the main one of a partitioned run of `threads` (`cuts`: threads - 1 u32). An ErrorCode. */
  dedupShare(handle: number, cuts: number, threads: number): number;
  /** The main engine: the address of the hashes (u64) its last call gave helper `thread`, and how many. */
  dedupOutgoing(handle: number, thread: number): number;
  dedupOutgoingSize(handle: number, thread: number): number;
  /** The main engine: helper `thread`'s verdicts for hashes it was given. An ErrorCode. */
  dedupSupply(handle: number, thread: number, verdicts: number, length: number): number;
  /** The main engine: its oldest pending call's lines written (the report's output). An ErrorCode. */
  dedupResolve(handle: number): number;
  /** A helper's engine: `count` hashes at `hashes` decided, a verdict byte each in the output. An ErrorCode. */
  dedupDecide(handle: number, hashes: number, count: number): number;
  /** The slot width x 256 + the most doublings of a table that doubles in place at this rate; 0: too small a rate. */
  inPlaceShape(fpRate: number, capacity: number): number;
  /** The address of a DedupReport record (abi.ts). */
  dedupReport(handle: number): number;
  dedupPush(handle: number, address: number, length: number): number;
  dedupFinish(handle: number): number;
  declaredLength(address: number, length: number): number;
}

const loader = moduleLoader(
  createCuckooModule,
  deflatedWasm,
  'the WebAssembly module is not loaded yet: `await ready()` (or use `await CuckooFilter.create(options)`)',
);

/** Loads and instantiates the WebAssembly module. Idempotent: every call returns the same promise. */
export const ready = (): Promise<void> => loader.ready();

/** The loaded module, or undefined before ready() has resolved. */
export const loadedModule = (): CuckooModule | undefined => loader.loaded();

/** The loaded module; NOT_READY before ready() has resolved. */
export const requireModule = (): CuckooModule => loader.require();

/** The error of the module's last failed call (its ErrorCode and message). */
export function errorFromModule(m: CuckooModule): CuckooFilterError {
  const code = m.lastErrorCode();
  const message = lastErrorMessage(m);
  if (code === ErrorCode.badFormat)
    return new CuckooFilterError('BAD_FORMAT', `not a valid cuckoo filter export: ${message}`);
  if (code === ErrorCode.outOfMemory) return new CuckooFilterError('OUT_OF_MEMORY', message);
  if (code === ErrorCode.capacityExceeded) return new CuckooFilterError('CAPACITY_EXCEEDED', message);
  return new CuckooFilterError('INVALID_ARGUMENT', message);
}
