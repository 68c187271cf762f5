// The package's main WebAssembly module (cpp/wasm/bindings.cpp): loaded once, shared by every filter.
import createCuckooModule from './generated/cuckoo_wasm.js';
import deflatedWasm from './generated/cuckoo_wasm_binary.js';
import { CuckooFilterError } from './errors.js';
import type { FilterModule } from './filter_base.js';
import { moduleLoader } from './wasm_loader.js';

/**
 * The embind surface of cpp/wasm/bindings.cpp: a filter's calls (FilterModule, which the lite module has too)
 * and the full module's own. Handles and addresses are u32; counts are doubles; codes and record layouts
 * are in abi.ts, generated from the C++. Only heap.ts computes addresses.
 */
export interface CuckooModule extends FilterModule {
  contains(handle: number, address: number, length: number): boolean;
  remove(handle: number, address: number, length: number): boolean;
  semiSorted(handle: number): boolean;
  /** Why the last add failed (an AddResult), read after a batch that stopped. */
  lastAddFailure(handle: number): number;
  /** The length an export declares from its first bytes (format::declared_length; see filter.ts). */
  declaredLength(address: number, length: number): number;
  merge(handle: number, other: number): number;
  union(handle: number, other: number): number;
  addIfAbsentRanges(handle: number, bytes: number, ranges: number, count: number, results: number): number;
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
}

// The module uses WebAssembly SIMD (simd128: the deduplicator finds line ends 16 bytes a compare), which
// every runtime the README names has (Node 16.4+, Bun, Deno, Chrome 91+, Firefox 89+, Safari 16.4+). One
// without it would refuse the binary with a compile error about an opcode; so ready() first validates the
// smallest module with a SIMD instruction (a function returning v128.const 0) and says what is missing.
const SIMD_PROBE = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7b, 3, 2, 1, 0, 10, 22, 1, 20, 0, 0xfd, 12];
const NO_SIMD =
  'this runtime has no WebAssembly SIMD (simd128), which the cuckoo-wasm module needs: Node 16.4+, Bun, ' +
  'Deno, Chrome 91+, Firefox 89+ and Safari 16.4+ have it; cuckoo-wasm/lite runs without it';

const loader = moduleLoader(
  (options: { wasmBinary: Uint8Array }) => {
    if (!WebAssembly.validate(Uint8Array.from([...SIMD_PROBE, ...new Array<number>(16).fill(0), 11])))
      throw new CuckooFilterError('UNSUPPORTED', NO_SIMD);
    return createCuckooModule(options);
  },
  deflatedWasm,
  'the WebAssembly module is not loaded yet: `await ready()` (or use `await CuckooFilter.create(options)`)',
);

/** Loads and instantiates the WebAssembly module. Idempotent: every call returns the same promise. */
export const ready = (): Promise<void> => loader.ready();

/** The loaded module, or undefined before ready() has resolved. */
export const loadedModule = (): CuckooModule | undefined => loader.loaded();

/** The loaded module; NOT_READY before ready() has resolved. */
export const requireModule = (): CuckooModule => loader.require();

export { errorFromModule } from './filter_base.js';
