// cuckoo-wasm/lite: a cuckoo filter sized at creation, in a WebAssembly module of its own, under three eighths
// of the full entry's weight (cpp/wasm/lite_bindings.cpp: the same core, growth, joins and semi-sorted
// buckets compiled out). The same names, options and calls as the full entry's CuckooFilter; what only the
// full entry has throws CuckooFilterError('UNSUPPORTED') naming it. Exports move both ways: a lite filter's
// export imports in the full entry, and a sized filter's export from it imports here.
//   import { ready, CuckooFilter } from 'cuckoo-wasm/lite';
//   await ready(); const seen = new CuckooFilter({ capacity: 100_000, fpRate: 0.001 });
import { CuckooFilterError } from './errors.js';
import {
  type CuckooFilterJSON,
  errorFromModule,
  FilterBase,
  type FilterModule,
  importBytes,
  importChunkStream,
  jsonExport,
  LITE_FILTER,
} from './filter_base.js';
import { writeCreateOptions } from './heap.js';
import { ready, requireModule } from './lite_module.js';
import { type CuckooFilterOptions, validateOptions, creationError } from './options.js';

/** UNSUPPORTED: what the lite entry leaves out (`what`), and where to find it. */
function needsFullEntry(what: string): CuckooFilterError {
  return new CuckooFilterError(
    'UNSUPPORTED',
    `${what} is not in cuckoo-wasm/lite: import { CuckooFilter } from 'cuckoo-wasm'`,
  );
}

// The module's UNSUPPORTED errors (an export of a filter that grows) say where to go.
function orFullEntry(error: unknown): unknown {
  const unsupported = error instanceof CuckooFilterError && error.code === 'UNSUPPORTED';
  return unsupported ? needsFullEntry(error.message) : error;
}

export { ready } from './lite_module.js';
export { CuckooFilterError } from './errors.js';
export type { CuckooFilterErrorCode } from './errors.js';
export type { CuckooFilterJSON } from './filter_base.js';
export type { CuckooFilterOptions, CuckooFilterShape } from './options.js';
export type { IntegerArray, Key } from './key_codec.js';

/**
 * A cuckoo filter sized at creation: an approximate set (a multiset, up to 2 x bucketSize copies of a key)
 * with add, has and delete. No false negatives; a false-positive rate set by the fingerprint size. The
 * lite entry's: options `growth` and `semiSorted`, merge(), union() and the introspection (locate(),
 * alternate(), slot(), slots(), addTraced(), bucketCode()) throw UNSUPPORTED (the full entry, 'cuckoo-wasm',
 * has them).
 *
 * The filter lives in WebAssembly memory: release it with dispose() (or `using f = ...`).
 */
export class CuckooFilter extends FilterBase {
  /** Needs the module loaded: `await ready()` first, or use `await CuckooFilter.create(options)`. */
  constructor(options: CuckooFilterOptions);
  /** @internal For a filter the core made (an import): the object takes over its handle. */
  constructor(options: null, made: { m: FilterModule; handle: number });
  constructor(options: CuckooFilterOptions | null, made?: { m: FilterModule; handle: number }) {
    if (options === null && made) {
      super(made.m, made.handle);
      return;
    }
    const m = requireModule();
    const a = validateOptions(options);
    if (a.growth !== undefined) throw needsFullEntry('the growth option (a filter that grows)');
    if (a.semiSorted) throw needsFullEntry('the semiSorted option (semi-sorted buckets)');
    const handle = m.create(writeCreateOptions(m, a));
    if (handle === 0) throw creationError(errorFromModule(m), a);
    super(m, handle);
  }

  /** ready() and new CuckooFilter(options) in one call. */
  static async create(options: CuckooFilterOptions): Promise<CuckooFilter> {
    await ready();
    return new CuckooFilter(options);
  }

  /**
   * A filter from bytes made by export() of a filter sized at creation (here, by the full entry or by the
   * C++ library). Validates every field, length and the checksum: BAD_FORMAT saying what is wrong; the
   * export of a filter that grows or has semi-sorted buckets: UNSUPPORTED (the full entry reads it), once
   * its checksum holds (a damaged one is BAD_FORMAT, as in the full entry).
   */
  static import(bytes: Uint8Array): CuckooFilter {
    const m = requireModule();
    let handle: number;
    try {
      handle = importBytes(m, bytes);
    } catch (error) {
      throw orFullEntry(error);
    }
    return new CuckooFilter(null, { m, handle });
  }

  /** import() for an export that arrives in pieces (a file stream, a fetch body, exportChunks()). */
  static async importChunks(chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<CuckooFilter> {
    await ready(); // asynchronous, so it loads the module as create() does
    const m = requireModule();
    let handle: number;
    try {
      handle = await importChunkStream(m, chunks);
    } catch (error) {
      throw orFullEntry(error);
    }
    return new CuckooFilter(null, { m, handle });
  }

  /** A filter from the value toJSON() made (or that value as JSON text). Throws BAD_FORMAT for anything else. */
  static fromJSON(json: string | CuckooFilterJSON): CuckooFilter {
    requireModule();
    return CuckooFilter.import(jsonExport(json));
  }

  /** The full entry's add-if-absent of ranges of one buffer: throws UNSUPPORTED here. */
  addIfAbsentRanges(_bytes: unknown, _ranges: unknown): never {
    throw needsFullEntry('addIfAbsentRanges()');
  }

  /** The full entry's join: throws UNSUPPORTED here. */
  merge(_other: unknown): never {
    throw needsFullEntry('merge()');
  }

  /** The full entry's set union: throws UNSUPPORTED here. */
  union(_other: unknown): never {
    throw needsFullEntry('union()');
  }
}
// So that the full entry can say where a filter given to it comes from (filter.ts, anotherCopy()).
Object.defineProperty(CuckooFilter.prototype, LITE_FILTER, { value: true });
// The full entry's introspection (for teaching and tests: the demo's calls) throws UNSUPPORTED here, where
// it was "is not a function" (an outside pass). Not declared: TypeScript says so at compile time.
for (const name of ['locate', 'alternate', 'slot', 'slots', 'addTraced', 'bucketCode'])
  (CuckooFilter.prototype as unknown as Record<string, () => never>)[name] = {
    [name](): never {
      throw needsFullEntry(`${name}()`);
    },
  }[name];
