import { CuckooFilterError, invalid } from './errors.js';
import { base64Decode, base64Encode } from './base64.js';
import { AddResult, BatchOp, ErrorCode, InsertOutcome, KeyResult, TraceStepKind } from './abi.js';
import {
  batchResults,
  copyToScratch,
  keyLength,
  packChunk,
  packIntegers,
  packRanges,
  readLocateRecord,
  readPiece,
  readTraceRecords,
  reserveBatchScratch,
  writeCreateOptions,
  writeKey,
} from './heap.js';
import {
  copyKeys,
  describe,
  integerArrayBytes,
  type IntegerArray,
  type Key,
  ownUint32View,
  ownUint8View,
  typedLength,
} from './key_codec.js';
import { type CuckooModule, errorFromModule, loadedModule, ready, requireModule } from './wasm_module.js';
import { type CuckooFilterOptions, isInteger, validateOptions } from './options.js';

export type { CuckooFilterOptions, CuckooFilterShape } from './options.js';
import { disposeSymbol } from './dispose.js';

export { disposeSymbol } from './dispose.js';

export type { IntegerArray, Key } from './key_codec.js';

/** What toJSON() returns and fromJSON() reads. */
export interface CuckooFilterJSON {
  type: 'cuckoo-wasm/CuckooFilter';
  /** export() in base64. */
  data: string;
}

/** Where a key lives in the table (for teaching and tests). */
export interface KeyLocation {
  /** The key's 64-bit XXH3 hash. */
  hash: bigint;
  /** The first candidate bucket, i1, from the hash's high half. */
  index: number;
  /** The fingerprint stored for the key, from the hash's low half; never 0. */
  fingerprint: number;
  /** The odd offset r derived from the fingerprint. */
  alternateOffset: number;
  /** The second candidate bucket, i2 = (N - i1 - r) mod N. */
  alternateIndex: number;
}

/** One step of an insert, as recorded by the core. */
export interface TraceStep {
  /** place: stored into an empty slot; kick: stored, evicting fingerprintOut; undo: a failed walk restored fingerprintOut's slot. */
  kind: 'place' | 'kick' | 'undo';
  bucket: number;
  /**
   * Where fingerprintIn is once the step is done. In a semi-sorted bucket the write re-sorts the bucket:
   * fingerprintOut's copy (an empty slot for a place) is replaced and the bucket sorted, so this is its
   * rank there, and the bucket's other fingerprints may have moved too.
   */
  slot: number;
  fingerprintIn: number;
  fingerprintOut: number;
}

export interface InsertTrace {
  added: boolean;
  outcome: 'placed' | 'table_full' | 'duplicate_limit';
  location: KeyLocation;
  steps: TraceStep[];
}

// Integer keys a call of a typed-array batch (4 or 8 bytes each, and a result byte).
const INTEGER_CHUNK = 65536;

// The API's names for the core's codes.
const STEP_KINDS: Record<number, TraceStep['kind']> = {
  [TraceStepKind.place]: 'place',
  [TraceStepKind.kick]: 'kick',
  [TraceStepKind.undo]: 'undo',
};
const OUTCOMES: Record<number, InsertTrace['outcome']> = {
  [InsertOutcome.placed]: 'placed',
  [InsertOutcome.tableFull]: 'table_full',
  [InsertOutcome.duplicateLimit]: 'duplicate_limit',
};

// Frees the wasm memory of filters that were garbage-collected without dispose(). Collection comes late
// and at the engine's pace (a loop that drops filters fast can still fill the heap first), so dispose()
// stays the way to free memory at once: a hint says so, once per process, outside production.
let hinted = false;
function hintOnce(): void {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  if (hinted || env?.NODE_ENV === 'production') return;
  hinted = true;
  console.warn(
    'cuckoo-wasm: a CuckooFilter was garbage-collected without dispose(); its WebAssembly memory was ' +
      'freed then. Call dispose() (or declare it with `using`) to free it at once. (This hint is shown once.)',
  );
}
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<number>((handle) => {
        loadedModule()!.destroy(handle);
        hintOnce();
      })
    : undefined;

const exportFinalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ m: CuckooModule; exporter: number }>(({ m, exporter }) => {
        if (exporter !== 0) m.exportEnd(exporter);
      })
    : undefined;

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');
// What toJSON() writes: the export in base64, tagged so that fromJSON() knows what it reads.
const JSON_TYPE = 'cuckoo-wasm/CuckooFilter';
// Export and import move through the heap in pieces of this size.
const PIECE_BYTES = 1 << 20;

function beginImport(m: CuckooModule, total: number): number {
  const importer = m.importBegin(total);
  if (importer === 0) throw errorFromModule(m);
  return importer;
}

function pushImport(m: CuckooModule, importer: number, piece: Uint8Array): void {
  if (m.importPush(importer, copyToScratch(m, piece), piece.length) !== ErrorCode.ok) throw errorFromModule(m);
}

function finishImport(m: CuckooModule, importer: number): CuckooFilter {
  const handle = m.importFinish(importer);
  if (handle === 0) throw errorFromModule(m);
  // A CuckooFilter object for the filter the core made.
  return new CuckooFilter(null, { m, handle });
}

function beginExport(m: CuckooModule, handle: number): number {
  const exporter = m.exportBegin(handle);
  if (exporter === 0) throw errorFromModule(m);
  return exporter;
}

// Reads the next at most `limit` bytes of an export through the scratch area and hands them to `take` (a
// view of the heap, valid during the call). Returns how many bytes were read: 0 at the end.
function readExport(m: CuckooModule, exporter: number, limit: number, take: (piece: Uint8Array) => void): number {
  return readPiece(m, Math.min(limit, PIECE_BYTES), (address, size) => m.exportRead(exporter, address, size), take);
}

/**
 * @internal Whether `value` is a filter of another copy of the package: its ES module and CommonJS entries (or two
 * installs) each load their own module, and a filter lives in one module's memory.
 */
export function isForeignFilter(value: unknown): boolean {
  return (
    !(value instanceof CuckooFilter) &&
    (value as { constructor?: { name?: unknown } } | null)?.constructor?.name === 'CuckooFilter'
  );
}

/** @internal What is said of a filter of another copy of the package given as `name`, and how to move it. */
export function anotherCopy(name: string, remedy: string): string {
  return (
    `${name} is a CuckooFilter of another copy of cuckoo-wasm (one loaded with import and one with ` +
    `require, or two installs: each has its own memory); move it as bytes: ${remedy}`
  );
}

/**
 * A cuckoo filter: an approximate set (a multiset, up to 2 x bucketSize copies of a key) with add, has
 * and delete. No false negatives; a false-positive rate set by the fingerprint size.
 *
 * The filter lives in WebAssembly memory: release it with dispose() (or `using f = ...`).
 */
export class CuckooFilter {
  private readonly m: CuckooModule;
  private handle: number;
  // Whether the filter grows: only then can an add fail for a reason that is an error (the chain limit).
  private growing = false;
  // Counts the calls that may change the table, so that exportChunks() can tell that it changed under it.
  private changes = 0;

  /** Needs the module loaded: `await ready()` first, or use `await CuckooFilter.create(options)`. */
  constructor(options: CuckooFilterOptions);
  /** @internal For a filter the core made (an import): the object takes over its handle. */
  constructor(options: null, made: { m: CuckooModule; handle: number });
  constructor(options: CuckooFilterOptions | null, made?: { m: CuckooModule; handle: number }) {
    if (options === null && made) {
      this.m = made.m;
      this.handle = made.handle;
      this.growing = made.m.growth(made.handle) !== 0;
      finalizer?.register(this, made.handle, this);
      return;
    }
    const m = requireModule();
    const a = validateOptions(options);
    const handle = m.create(writeCreateOptions(m, a));
    if (handle === 0) throw errorFromModule(m);
    this.m = m;
    this.handle = handle;
    this.growing = a.growth !== undefined;
    finalizer?.register(this, handle, this);
  }

  /** ready() and new CuckooFilter(options) in one call. */
  static async create(options: CuckooFilterOptions): Promise<CuckooFilter> {
    await ready();
    return new CuckooFilter(options);
  }

  /**
   * A filter from bytes made by export() (here or by the C++ library). Validates every field, length and
   * the checksum; throws CuckooFilterError('BAD_FORMAT') saying what is wrong.
   */
  static import(bytes: Uint8Array): CuckooFilter {
    const m = requireModule();
    if (typedLength(bytes, 'Uint8Array') < 0) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
    const view = ownUint8View(bytes);
    // In pieces, straight into the new filter's tables: no second copy of the filter in the heap.
    const importer = beginImport(m, view.length);
    try {
      for (let at = 0; at < view.length; at += PIECE_BYTES)
        pushImport(m, importer, view.subarray(at, at + PIECE_BYTES));
      return finishImport(m, importer);
    } finally {
      m.importEnd(importer);
    }
  }

  /**
   * import() for an export that arrives in pieces (a file stream, a fetch body, exportChunks()): each piece
   * goes straight into the new filter's tables, so a filter larger than half the WebAssembly heap, which
   * import() of one Uint8Array could not load, can be loaded. The tables are allocated when the headers
   * arrive; the filter exists once every byte has checked out (BAD_FORMAT otherwise, saying what is wrong).
   */
  static async importChunks(chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<CuckooFilter> {
    const m = requireModule();
    const source = chunks as Partial<AsyncIterable<Uint8Array> & Iterable<Uint8Array>> | null;
    if (
      typeof source !== 'object' ||
      source === null ||
      (typeof source[Symbol.asyncIterator] !== 'function' && typeof source[Symbol.iterator] !== 'function')
    ) {
      throw new TypeError(`chunks must be an iterable or async iterable of Uint8Arrays, got ${describe(chunks)}`);
    }
    const importer = beginImport(m, -1);
    try {
      let index = 0;
      for await (const chunk of source as AsyncIterable<Uint8Array>) {
        if (typedLength(chunk, 'Uint8Array') < 0) {
          throw new TypeError(`chunk ${index} must be a Uint8Array, got ${describe(chunk)}`);
        }
        const view = ownUint8View(chunk);
        for (let at = 0; at < view.length; at += PIECE_BYTES)
          pushImport(m, importer, view.subarray(at, at + PIECE_BYTES));
        index++;
      }
      return finishImport(m, importer);
    } finally {
      m.importEnd(importer);
    }
  }

  /**
   * A filter from the value toJSON() made (or that value as JSON text): CuckooFilter.fromJSON(JSON.parse(s))
   * or CuckooFilter.fromJSON(s). Throws BAD_FORMAT for anything else.
   */
  static fromJSON(json: string | CuckooFilterJSON): CuckooFilter {
    requireModule();
    let value: unknown = json;
    if (typeof json === 'string') {
      try {
        value = JSON.parse(json);
      } catch (error) {
        throw new CuckooFilterError('BAD_FORMAT', `not JSON: ${(error as Error).message}`);
      }
    }
    const v = value as Partial<CuckooFilterJSON> | null;
    if (typeof v !== 'object' || v === null || v.type !== JSON_TYPE || typeof v.data !== 'string') {
      throw new CuckooFilterError(
        'BAD_FORMAT',
        `expected { type: '${JSON_TYPE}', data: '<base64>' } from toJSON(), ` + `got ${describe(value)}`,
      );
    }
    const bytes = base64Decode(v.data);
    if (!bytes) throw new CuckooFilterError('BAD_FORMAT', 'the data is not base64');
    return CuckooFilter.import(bytes);
  }

  private live(): number {
    if (this.handle === 0) throw new CuckooFilterError('DISPOSED', 'this CuckooFilter was disposed');
    return this.handle;
  }

  // live(), for calls that may change the table.
  /** @internal declaredExportLength() (below), for the `cuckoo` command, which imports only the package's entry. */
  static declaredLength(prefix: Uint8Array): number {
    return declaredExportLength(prefix);
  }

  /** @internal The live handle of a filter (liveHandle(), below), which the caller may change. */
  static liveHandle(filter: CuckooFilter): number {
    filter.changes++;
    return filter.live();
  }

  // After a call that changed the table (not one refused, nor a delete that found nothing).
  private changed<T>(result: T): T {
    this.changes++;
    return result;
  }

  // After a batch call: it changed the table when it changed the size (adds only add, and a failed add
  // leaves the table as it was; deletes only remove). One call, where reading every key's result was
  // work per key on the batch path.
  private countChange(h: number, op: number, sizeBefore: number): void {
    if (op !== BatchOp.contains && this.m.size(h) !== sizeBefore) this.changes++;
  }

  /**
   * Adds a key. Returns false only when there is no room (the filter is then unchanged). A growing filter
   * makes room; at its chain limit it throws CuckooFilterError('CAPACITY_EXCEEDED') instead.
   */
  add(key: Key): boolean {
    const h = this.live();
    const result = this.m.add(h, writeKey(this.m, key), keyLength());
    if (result === AddResult.added) return this.changed(true);
    this.throwIfChainExhausted(h, result, '');
    return false;
  }

  // Throws when an add failed because the chain cannot grow (failure: an AddResult); other failures are a
  // full table, which add() reports as false.
  private throwIfChainExhausted(h: number, failure: number, where: string): void {
    const inPlace = this.m.doublings(h) >= 0;
    // A batch (where names its key) stops there, with the keys before it added.
    const added = where
      ? 'the keys before it were added (see the results), it and the keys after it were not'
      : 'nothing was added';
    if (failure === AddResult.growthLimit) {
      const doubled = this.m.doublings(h);
      const most = this.m.maxDoublings(h);
      // Fewer doublings than its options allow: keys joined from smaller filters spent the rest's rate.
      const limit = !inPlace
        ? `${this.m.maxSubFilters(h)} sub-filters`
        : doubled < most
          ? `${doubled} doublings (of ${most}: keys joined into it from smaller filters took the false-positive rate the others needed)`
          : `${most} doublings`;
      throw new CuckooFilterError(
        'CAPACITY_EXCEEDED',
        `${where}the filter reached its limit of ${limit}, full at ${this.m.size(h)} keys, ` +
          `and cannot grow further; ${added}`,
      );
    }
    if (failure === AddResult.outOfMemory) {
      throw new CuckooFilterError(
        'OUT_OF_MEMORY',
        `${where}the ${inPlace ? 'doubled table' : 'next sub-filter'} does not fit ` +
          `in the WebAssembly heap; ${added}`,
      );
    }
  }

  /** False: the key was definitely never added. True: it probably was (see expectedFpRate). */
  has(key: Key): boolean {
    return this.m.contains(this.live(), writeKey(this.m, key), keyLength());
  }

  /**
   * Removes one copy of the key. Only delete keys you added: deleting a key that was never added may
   * remove another key's identical fingerprint, and that key would then be reported absent. In a filter
   * that has grown, even deleting an added key has that risk, at about the false-positive rate
   * (docs/GROWTH.md).
   */
  delete(key: Key): boolean {
    const removed = this.m.remove(this.live(), writeKey(this.m, key), keyLength());
    return removed ? this.changed(removed) : removed;
  }

  /** Copies of the key's fingerprint in its two buckets: times added, plus rare collisions. */
  count(key: Key): number {
    return this.m.count(this.live(), writeKey(this.m, key), keyLength());
  }

  /**
   * Adds the key unless has(key) is already true. Returns true if it was absent and is now added, false
   * if it was (probably) there. Never false for a key it did not find: when the key is absent and there
   * is no room, it throws CuckooFilterError('CAPACITY_EXCEEDED') and adds nothing.
   */
  addIfAbsent(key: Key): boolean {
    const h = this.live();
    const result = this.m.addIfAbsent(h, writeKey(this.m, key), keyLength());
    if (result === AddResult.alreadyPresent) return false;
    if (result === AddResult.added) return this.changed(true);
    this.throwIfChainExhausted(h, result, '');
    throw new CuckooFilterError(
      'CAPACITY_EXCEEDED',
      `the key is absent and the filter is full (${this.m.size(h)} ` +
        'items): nothing was added. Create the filter with a larger capacity, or with growth.',
    );
  }

  /**
   * add() for many keys, crossing into wasm once per chunk of keys: any iterable of keys, or a Uint32Array,
   * BigUint64Array or BigInt64Array of integer keys (copied into wasm in bulk). Results in key order. When a growing
   * filter reaches its chain limit the batch stops there and throws CAPACITY_EXCEEDED naming the key's
   * index: the keys before it were processed, that key and the ones after it were not added. The error's
   * `results` are those of the keys before it (false: no room for that one), as addMany would have
   * returned them.
   */
  addMany(keys: IntegerArray): Uint8Array;
  addMany(keys: Iterable<Key>): boolean[];
  addMany(keys: Iterable<Key> | IntegerArray): boolean[] | Uint8Array {
    return this.batch(keys, BatchOp.add, (h, results, start, out) => {
      if (!this.growing) return;
      const stopped = results.indexOf(KeyResult.stoppedHere);
      if (stopped < 0) return;
      try {
        this.throwIfChainExhausted(h, this.m.lastAddFailure(h), `keys[${start + stopped}]: `);
      } catch (error) {
        if (error instanceof CuckooFilterError) error.results = out.slice(0, start + stopped);
        throw error;
      }
    });
  }

  /** has() for many keys. */
  hasMany(keys: IntegerArray): Uint8Array;
  hasMany(keys: Iterable<Key>): boolean[];
  hasMany(keys: Iterable<Key> | IntegerArray): boolean[] | Uint8Array {
    return this.batch(keys, BatchOp.contains);
  }

  /** delete() for many keys. */
  deleteMany(keys: IntegerArray): Uint8Array;
  deleteMany(keys: Iterable<Key>): boolean[];
  deleteMany(keys: Iterable<Key> | IntegerArray): boolean[] | Uint8Array {
    return this.batch(keys, BatchOp.remove);
  }

  // A batch: any iterable of keys, packed chunk by chunk, with boolean[] results; or, without a copy into
  // JavaScript values either way, a typed array of integer keys, which the core reads as they are, with a
  // Uint8Array of 0/1 results (a boolean per key would be most of the batch's time, and 8 bytes a key).
  // `after` sees each chunk's results.
  private batch(
    keys: Iterable<Key> | IntegerArray,
    op: number,
    after?: (handle: number, results: Uint8Array, start: number, out: boolean[] | Uint8Array) => void,
  ): boolean[] | Uint8Array {
    this.live();
    const typed = integerArrayBytes(keys);
    if (typed) {
      const h = this.live();
      const count = typed.bytes.length / typed.width;
      const out = new Uint8Array(count);
      for (let start = 0; start < count; start += INTEGER_CHUNK) {
        const p = packIntegers(this.m, typed.bytes, typed.width, start, Math.min(INTEGER_CHUNK, count - start));
        const sizeBefore = this.m.size(h);
        this.m.integerBatch(h, op, p.keys, typed.width, p.count, p.results);
        const results = batchResults(this.m, p); // after the call: it may have grown the memory
        out.set(results, start);
        // Only an add has codes other than yes (1) and no (0): no room (2) is a false.
        if (op === BatchOp.add) for (let i = start; i < start + p.count; i++) if (out[i] !== KeyResult.yes) out[i] = 0;
        this.countChange(h, op, sizeBefore);
        after?.(h, results, start, out);
      }
      return out;
    }
    // Copied and checked first: iterating may run the caller's code (getters, a generator), which may even
    // dispose this filter; nothing of the caller's runs after this line.
    const copy = copyKeys(keys);
    const h = this.live();
    if (op !== BatchOp.contains && copy.length > 1) reserveBatchScratch(this.m, copy);
    const out = new Array<boolean>(copy.length);
    for (let start = 0; start < copy.length; ) {
      const p = packChunk(this.m, copy, start);
      const sizeBefore = this.m.size(h);
      if (op === BatchOp.add) this.m.addMany(h, p.bytes, p.offsets, p.count, p.results);
      else if (op === BatchOp.contains) this.m.containsMany(h, p.bytes, p.offsets, p.count, p.results);
      else this.m.removeMany(h, p.bytes, p.offsets, p.count, p.results);
      const results = batchResults(this.m, p); // after the call: it may have grown the memory
      this.countChange(h, op, sizeBefore);
      this.collect(h, results, start, out, after);
      start += p.count;
    }
    return out;
  }

  // Every batch's results start 4-aligned in the heap, and wasm memory is little-endian (Emscripten requires
  // a little-endian host): reading them a word at a time takes a quarter of the typed-array reads, which
  // is most of what turning them into booleans costs (hasMany on a BigUint64Array, when typed arrays still
  // answered in booleans: 76 -> 83 M keys/s).
  private collect(
    h: number,
    results: Uint8Array,
    start: number,
    out: boolean[],
    after?: (handle: number, results: Uint8Array, start: number, out: boolean[] | Uint8Array) => void,
  ): void {
    const yes = KeyResult.yes;
    const words = new Uint32Array(results.buffer, results.byteOffset, results.length >>> 2);
    let i = start;
    for (let w = 0; w < words.length; w++, i += 4) {
      const x = words[w];
      out[i] = (x & 0xff) === yes;
      out[i + 1] = ((x >>> 8) & 0xff) === yes;
      out[i + 2] = ((x >>> 16) & 0xff) === yes;
      out[i + 3] = x >>> 24 === yes;
    }
    for (let j = words.length * 4; j < results.length; j++) out[start + j] = results[j] === yes;
    after?.(h, results, start, out);
  }

  /**
   * addIfAbsent() for keys given as ranges of one buffer, e.g. the lines of a block of text without
   * their line endings: key i is bytes[ranges[2i], ranges[2i + 1]). One copy of the block crosses into
   * wasm, whatever the number of keys. Returns one code per key: 0 already present (nothing added),
   * 1 added, 2 absent but no room (nothing added), 3 a growing filter's chain limit was reached at this
   * key (nothing added), 4 not tried (a key after the one with 3). In a filter that has only had keys
   * added (no delete, merge or import), a key whose first bucket has a free slot is looked up in that
   * bucket alone, where it would be: faster, and it can only skip a false positive that addIfAbsent()
   * would have reported.
   */
  addIfAbsentRanges(bytes: Uint8Array, ranges: Uint32Array): Uint8Array {
    const h = this.live();
    if (typedLength(bytes, 'Uint8Array') < 0) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
    if (typedLength(ranges, 'Uint32Array') < 0)
      throw new TypeError(`ranges must be a Uint32Array, got ${describe(ranges)}`);
    bytes = ownUint8View(bytes);
    ranges = ownUint32View(ranges);
    if (ranges.length % 2 !== 0) throw invalid('ranges must hold (start, end) pairs: its length must be even');
    for (let i = 0; i < ranges.length; i += 2) {
      if (ranges[i] > ranges[i + 1] || ranges[i + 1] > bytes.length) {
        throw invalid(`range ${i / 2} [${ranges[i]}, ${ranges[i + 1]}) is not inside the ${bytes.length} bytes`);
      }
    }
    const packed = packRanges(this.m, bytes, ranges);
    const sizeBefore = this.m.size(h);
    this.m.addIfAbsentRanges(h, packed.bytes, packed.ranges, packed.count, packed.results);
    this.countChange(h, BatchOp.add, sizeBefore);
    return batchResults(this.m, packed).slice();
  }

  /**
   * Adds every fingerprint of `other` to this one, as multisets add: a key in both is then counted twice
   * (size is the sum), as if every add() of `other` had been made here. `other` is a filter created with
   * the same options and seed, e.g. filled from another part of the data in a worker or on another machine;
   * it is unchanged. For the set union, which does not count a key twice, use union(). All or nothing:
   * throws INVALID_ARGUMENT (naming the difference) for an incompatible filter and CAPACITY_EXCEEDED when
   * the fingerprints do not fit, leaving this filter as it was. With growth, sub-filters that do not fit
   * are taken over as copies, and the false-positive rates add up (docs/GROWTH.md).
   */
  merge(other: CuckooFilter): void {
    this.combine(other, 'merge');
  }

  /**
   * The set union with `other` (same options and seed, as for merge()): each fingerprint of `other` is
   * added only where its bucket pair here holds fewer copies of it than `other` has, so a union with
   * itself or with a filter of a subset of the keys changes nothing, and every key of either is found
   * afterwards. All or nothing, with the errors of merge(). With growth, a sub-filter of `other` is
   * compared with every sub-filter of its shape here, so a union repeated changes nothing however the
   * chains grew. In a table that doubles in place, a key's entry is longer the later it was added: one
   * the two filters added at different sizes is counted twice (docs/GROWTH.md says why).
   */
  union(other: CuckooFilter): void {
    this.combine(other, 'union');
  }

  private combine(other: CuckooFilter, how: 'merge' | 'union'): void {
    if (!(other instanceof CuckooFilter)) {
      throw new TypeError(
        isForeignFilter(other)
          ? anotherCopy('other', `${how}(CuckooFilter.import(other.export()))`)
          : `other must be a CuckooFilter, got ${describe(other)}`,
      );
    }
    const h = this.live();
    if (other.handle === 0) throw new CuckooFilterError('DISPOSED', `the filter given to ${how}() was disposed`);
    const size = this.m.size(h);
    const bytes = this.byteLength;
    if (this.m[how](h, other.handle) !== ErrorCode.ok) throw errorFromModule(this.m);
    // A join adds entries, and doubles a table to the other's size first: one that did neither changed
    // nothing (a union that only doubled the table changed every byte of it).
    if (this.m.size(h) !== size || this.byteLength !== bytes) this.changes++;
  }

  /** Removes every key (and every sub-filter added by growth); the options stay. */
  clear(): void {
    this.m.clear(this.changed(this.live()));
  }

  /** Stored fingerprints (keys added and not deleted, counting duplicates). */
  get size(): number {
    return this.m.size(this.live());
  }

  /**
   * The capacity the filter was created for (with growth: of the whole chain so far; for a table that
   * doubles in place, the items it takes before its next doubling, or, after its last, at all).
   */
  get capacity(): number {
    return this.m.capacity(this.live());
  }

  /** size / slots. */
  get loadFactor(): number {
    return this.m.loadFactor(this.live());
  }

  /** Bytes of WebAssembly memory held by the table. */
  get byteLength(): number {
    return this.m.byteSize(this.live());
  }

  get fingerprintBits(): number {
    return this.m.fingerprintBits(this.live());
  }

  get bucketSize(): number {
    return this.m.bucketSize(this.live());
  }

  /** The number of buckets N (any even number: the table is sized exactly, not to a power of two). */
  get bucketCount(): number {
    return this.m.numBuckets(this.live());
  }

  /** The growth factor, or 0 for a filter that does not grow. */
  get growth(): number {
    return this.m.growth(this.live());
  }

  /** The most sub-filters a growing filter may chain (1 without growth, and for one that doubles in place). */
  get maxSubFilters(): number {
    return this.m.maxSubFilters(this.live());
  }

  /** Whether the table doubles in place when full (growth 2: see the growth option). */
  get growsInPlace(): boolean {
    return this.m.doublings(this.live()) >= 0;
  }

  /** How often the table has doubled in place so far (0 for any other filter). */
  get doublings(): number {
    return Math.max(0, this.m.doublings(this.live()));
  }

  /** How often a filter that grows in place may double (0 for any other filter). */
  get maxDoublings(): number {
    return this.m.maxDoublings(this.live());
  }

  /** Whether the buckets are semi-sorted (the semiSorted option; an imported filter says it in its header). */
  get semiSorted(): boolean {
    return this.m.semiSorted(this.live());
  }

  /** Sub-filters in the chain (1 until a growing filter first grows). */
  get subFilterCount(): number {
    return this.m.subFilterCount(this.live());
  }

  get maxKicks(): number {
    return this.m.maxKicks(this.live());
  }

  get seed(): bigint {
    const h = this.live();
    return (BigInt(this.m.seedHigh(h)) << 32n) | BigInt(this.m.seedLow(h));
  }

  /**
   * The probability that has() answers true for a key never added, at the current load:
   * 1 - (1 - 1/(2^f - 1))^(2 * bucketSize * loadFactor).
   */
  get expectedFpRate(): number {
    return this.m.expectedFpRate(this.live());
  }

  /** A copy of the filter in the documented byte format (docs/FORMAT.md). */
  export(): Uint8Array {
    const exporter = beginExport(this.m, this.live());
    try {
      // Filled piece by piece through the scratch area: the heap never holds a second copy of the filter.
      const out = new Uint8Array(this.m.exportSize(exporter));
      for (let at = 0; at < out.length; )
        at += readExport(this.m, exporter, out.length - at, (piece) => out.set(piece, at));
      return out;
    } finally {
      this.m.exportEnd(exporter);
    }
  }

  /**
   * export() in pieces of at most `chunkBytes` bytes (default 1 MiB), for filters too large for one
   * Uint8Array or to write as they come: `for (const chunk of f.exportChunks()) out.write(chunk)`.
   * CuckooFilter.importChunks() reads them back. The filter must not change until the last piece: a change
   * makes the next piece throw INVALID_ARGUMENT (and a disposed filter, DISPOSED).
   */
  exportChunks(chunkBytes: number = PIECE_BYTES): Generator<Uint8Array, void, undefined> {
    if (!isInteger(chunkBytes, 1, 2 ** 30))
      throw invalid(`chunkBytes must be an integer from 1 to 2^30, got ${describe(chunkBytes)}`);
    this.live();
    const held = { m: this.m, exporter: 0 };
    const chunks = this.chunks(chunkBytes, held);
    exportFinalizer?.register(chunks, held);
    return chunks;
  }

  // `held.exporter` is the exporter while one is open: freed by the finally below, or by exportFinalizer
  // for a generator dropped before its end (neither finished nor return()ed).
  private *chunks(chunkBytes: number, held: { exporter: number }): Generator<Uint8Array, void, undefined> {
    const exporter = beginExport(this.m, this.live());
    held.exporter = exporter;
    const changes = this.changes;
    try {
      for (;;) {
        this.live();
        if (this.changes !== changes) throw invalid('the filter changed during exportChunks(): export it again');
        const chunk = new Uint8Array(Math.min(chunkBytes, this.m.exportSize(exporter)));
        let length = 0;
        while (length < chunk.length) {
          const n = readExport(this.m, exporter, chunk.length - length, (piece) => chunk.set(piece, length));
          if (n === 0) break;
          length += n;
        }
        if (length === 0) return;
        yield length === chunk.length ? chunk : chunk.slice(0, length);
      }
    } finally {
      held.exporter = 0;
      this.m.exportEnd(exporter);
    }
  }

  /** { type: 'cuckoo-wasm/CuckooFilter', data: base64 of export() }, for JSON.stringify; fromJSON() reads it. */
  toJSON(): CuckooFilterJSON {
    return { type: JSON_TYPE, data: base64Encode(this.export()) };
  }

  /** A one-line summary, for console.log and util.inspect in Node. */
  [inspectSymbol](): string {
    return this.toString();
  }

  /** "CuckooFilter { size: 3, capacity: 1000, ... }", or "CuckooFilter { disposed }". */
  toString(): string {
    if (this.handle === 0) return 'CuckooFilter { disposed }';
    const parts = [
      `size: ${this.size}`,
      `capacity: ${this.capacity}`,
      `fingerprintBits: ${this.fingerprintBits}`,
      `bucketSize: ${this.bucketSize}`,
      `loadFactor: ${this.loadFactor.toFixed(3)}`,
      `expectedFpRate: ${this.expectedFpRate.toPrecision(3)}`,
      `byteLength: ${this.byteLength}`,
    ];
    if (this.semiSorted) parts.push('semiSorted: true');
    if (this.growsInPlace) parts.push(`growth: ${this.growth}`, `doublings: ${this.doublings}/${this.maxDoublings}`);
    else if (this.growing)
      parts.push(`growth: ${this.growth}`, `subFilters: ${this.subFilterCount}/${this.maxSubFilters}`);
    return `CuckooFilter { ${parts.join(', ')} }`;
  }

  /** Frees the filter's memory. Later calls throw CuckooFilterError('DISPOSED'); disposing again does nothing. */
  dispose(): void {
    if (this.handle === 0) return;
    this.m.destroy(this.handle);
    this.handle = 0;
    finalizer?.unregister(this);
  }

  [disposeSymbol](): void {
    this.dispose();
  }

  // --- introspection, for teaching (the demo) and tests ---------------------------------------------

  /** The fingerprint in slot `slot` of bucket `bucket` (0: empty). */
  slot(bucket: number, slot: number): number {
    const h = this.live();
    if (!isInteger(bucket, 0, this.m.numBuckets(h) - 1))
      throw invalid(`bucket must be an integer from 0 to ${this.m.numBuckets(h) - 1}`);
    if (!isInteger(slot, 0, this.m.bucketSize(h) - 1))
      throw invalid(`slot must be an integer from 0 to ${this.m.bucketSize(h) - 1}`);
    return this.m.slot(h, bucket, slot);
  }

  /**
   * A semi-sorted bucket's 12-bit code: the rank of the sorted top four bits of its four fingerprints
   * among the 3,876 possible such tuples, stored in place of those 16 bits (0 when the buckets are not
   * semi-sorted). Its slots, slot(bucket, 0..3), are the fingerprints in ascending order.
   */
  bucketCode(bucket: number): number {
    const h = this.live();
    if (!isInteger(bucket, 0, this.m.numBuckets(h) - 1))
      throw invalid(`bucket must be an integer from 0 to ${this.m.numBuckets(h) - 1}`);
    return this.m.bucketCode(h, bucket);
  }

  /**
   * Every slot, bucket by bucket: table[bucket * bucketSize + slot]. A Float64Array for a filter that
   * doubles in place (its 40-bit entries do not fit 32 bits), else a Uint32Array.
   */
  slots(): Uint32Array | Float64Array {
    const h = this.live();
    const buckets = this.m.numBuckets(h);
    const b = this.m.bucketSize(h);
    const out = this.growsInPlace ? new Float64Array(buckets * b) : new Uint32Array(buckets * b);
    for (let i = 0; i < buckets; i++) for (let s = 0; s < b; s++) out[i * b + s] = this.m.slot(h, i, s);
    return out;
  }

  /** The two buckets and the fingerprint of a key. */
  locate(key: Key): KeyLocation {
    const h = this.live();
    const address = writeKey(this.m, key);
    const length = keyLength();
    // The key sits in the scratch area; the answer goes into a block of its own.
    return readLocateRecord(this.m, (out) => this.m.locate(h, address, length, out));
  }

  /**
   * Where a fingerprint stored in `bucket` would move when kicked out: its other bucket
   * (N - bucket - r) mod N, and r, the odd offset derived from the fingerprint alone (in the first
   * sub-filter, like locate()).
   */
  alternate(bucket: number, fingerprint: number): { alternateOffset: number; alternateIndex: number } {
    const h = this.live();
    this.refuseInPlace(h, 'alternate()');
    const buckets = this.m.numBuckets(h);
    if (!isInteger(bucket, 0, buckets - 1))
      throw invalid(`bucket must be an integer from 0 to ${buckets - 1}, got ${describe(bucket)}`);
    const largest = 2 ** this.m.fingerprintBits(h) - 1;
    if (!isInteger(fingerprint, 1, largest))
      throw invalid(`fingerprint must be an integer from 1 to ${largest}, got ${describe(fingerprint)}`);
    return {
      alternateOffset: this.m.alternateOffset(h, fingerprint) >>> 0,
      alternateIndex: this.m.alternateIndex(h, bucket, fingerprint) >>> 0,
    };
  }

  // alternate() and addTraced() describe the fingerprints of one fixed table; an entry of a table that
  // doubles in place carries index bits, and its other bucket depends on the doublings so far.
  private refuseInPlace(h: number, what: string): void {
    if (this.m.doublings(h) >= 0) {
      throw invalid(
        `${what} describes a table of plain fingerprints; this filter doubles in place (growth 2): create it with maxSubFilters, or without growth`,
      );
    }
  }

  /** add(), recording every step the core takes (placements, evictions, and the undo of a failed walk). */
  addTraced(key: Key): InsertTrace {
    const h = this.live();
    this.refuseInPlace(h, 'addTraced()');
    const location = this.locate(key);
    if (this.m.setTracing(h, true) !== ErrorCode.ok) throw errorFromModule(this.m);
    let added: boolean;
    try {
      added = this.add(key);
    } finally {
      this.m.setTracing(h, false);
    }
    const count = this.m.traceStepCount(h);
    const steps = readTraceRecords(this.m, count, (out) => this.m.traceSteps(h, out)).map(
      (step): TraceStep => ({ ...step, kind: STEP_KINDS[step.kind] }),
    );
    return { added, outcome: OUTCOMES[this.m.traceOutcome(h)], location, steps };
  }
}

/**
 * The live wasm handle of a filter, for the package's own modules that call the core with it (the line
 * deduplicator); users never see handles. Throws DISPOSED for a disposed filter.
 */
export function liveHandle(filter: CuckooFilter): number {
  return CuckooFilter.liveHandle(filter);
}

/**
 * The length a filter export declares in its first bytes (the core's format::declared_length): the total
 * once these bytes tell it, else minus the length to read before asking again, or 0 for bytes that are not
 * an export (import() then names the problem). Lets a reader of a stream stop where the export ends.
 */
export function declaredExportLength(prefix: Uint8Array): number {
  const m = requireModule();
  return m.declaredLength(copyToScratch(m, prefix), prefix.length);
}
