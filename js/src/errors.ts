/** Why an operation failed. */
export type CuckooFilterErrorCode =
  | 'INVALID_ARGUMENT' // a bad option or argument value (the message names it)
  | 'BAD_FORMAT' // bytes given to CuckooFilter.import are not a valid export (the message says what is wrong)
  | 'DISPOSED' // the filter was used after dispose()
  | 'OUT_OF_MEMORY' // the table does not fit in the WebAssembly heap (4 GiB at most)
  | 'CAPACITY_EXCEEDED' // a growing filter reached its chain limit, or merged fingerprints do not fit
  | 'NOT_READY' // a filter was created before `await ready()`
  | 'UNSUPPORTED'; // cuckoo-wasm/lite was asked for what only the full entry has (growth, joins, semi-sorted buckets), or the runtime has no WebAssembly SIMD

/** The error every failure of this package throws, except a key of the wrong type (a TypeError). */
export class CuckooFilterError extends Error {
  readonly code: CuckooFilterErrorCode;
  /**
   * addMany() stopped by CAPACITY_EXCEEDED: the results of the keys before the one named in the message,
   * as addMany would have returned them (false: that key found no room).
   */
  results?: boolean[] | Uint8Array;

  constructor(code: CuckooFilterErrorCode, message: string) {
    super(message);
    this.name = 'CuckooFilterError';
    this.code = code;
  }
}

/** INVALID_ARGUMENT: a bad option or argument, the message naming it. */
export function invalid(message: string): CuckooFilterError {
  return new CuckooFilterError('INVALID_ARGUMENT', message);
}
