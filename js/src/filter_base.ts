// What a CuckooFilter of either entry is: the full one (filter.ts, the package's main module) and the lite
// one (lite.ts, its own small module). Both modules have the calls of cpp/wasm/filter_bindings.hpp
// (FilterModule); FilterBase holds everything a filter does with them (keys, batches, the read-only facts,
// export, dispose), and each entry's class adds how it is made and what only it has.
import { AddResult, BatchOp, ErrorCode, KeyResult } from './abi.js';
import { base64Decode, base64Encode } from './base64.js';
import { disposeSymbol } from './dispose.js';
import { CuckooFilterError, invalid } from './errors.js';
import {
  batchResults,
  copyToScratch,
  keyLength,
  lastErrorMessage,
  packChunk,
  packIntegers,
  readPiece,
  reserveBatchScratch,
  writeKey,
} from './heap.js';
import {
  copyKeys,
  describe,
  type IntegerArray,
  integerArrayBytes,
  type Key,
  ownUint8View,
  typedLength,
} from './key_codec.js';
import { isInteger } from './options.js';
import type { HeapModule } from './wasm_loader.js';

/**
 * The calls of a filter (cpp/wasm/filter_bindings.hpp) that both modules have. Handles and addresses are
 * u32 (the lite module, without embind, may return a handle above 2^31 as a negative number: only
 * compared with 0 and handed back); counts are doubles; codes and record layouts are in abi.ts.
 */
export interface FilterModule extends HeapModule {
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
  /** A boolean (embind), or 0 or 1 (the lite module). */
  contains(handle: number, address: number, length: number): boolean | number;
  remove(handle: number, address: number, length: number): boolean | number;
  count(handle: number, address: number, length: number): number;
  /** An AddResult (abi.ts): added, alreadyPresent, or why not. */
  addIfAbsent(handle: number, address: number, length: number): number;
  growth(handle: number): number;
  maxSubFilters(handle: number): number;
  semiSorted(handle: number): boolean | number;
  subFilterCount(handle: number): number;
  /** Doublings so far of a filter that grows in place, -1 for any other. */
  doublings(handle: number): number;
  maxDoublings(handle: number): number;
  addMany(handle: number, bytes: number, offsets: number, count: number, results: number): number;
  containsMany(handle: number, bytes: number, offsets: number, count: number, results: number): void;
  removeMany(handle: number, bytes: number, offsets: number, count: number, results: number): number;
  integerBatch(handle: number, op: number, keys: number, width: number, count: number, results: number): number;
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
}

/** The error of the module's last failed call (its ErrorCode and message). */
export function errorFromModule(m: HeapModule): CuckooFilterError {
  const code = m.lastErrorCode();
  const message = lastErrorMessage(m);
  if (code === ErrorCode.badFormat)
    return new CuckooFilterError('BAD_FORMAT', `not a valid cuckoo filter export: ${message}`);
  if (code === ErrorCode.outOfMemory) return new CuckooFilterError('OUT_OF_MEMORY', message);
  if (code === ErrorCode.capacityExceeded) return new CuckooFilterError('CAPACITY_EXCEEDED', message);
  // Only the lite module has this code (it names the full entry: lite.ts).
  if (code === ErrorCode.unsupported) return new CuckooFilterError('UNSUPPORTED', message);
  return new CuckooFilterError('INVALID_ARGUMENT', message);
}

/** What toJSON() returns and fromJSON() reads. */
export interface CuckooFilterJSON {
  type: 'cuckoo-wasm/CuckooFilter';
  /** export() in base64. */
  data: string;
}

// Integer keys a call of a typed-array batch (4 or 8 bytes each, and a result byte).
const INTEGER_CHUNK = 65536;
// What toJSON() writes: the export in base64, tagged so that fromJSON() knows what it reads.
const JSON_TYPE = 'cuckoo-wasm/CuckooFilter';
// Export and import move through the heap in pieces of this size.
const PIECE_BYTES = 1 << 20;
const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');

// Frees the wasm memory of filters that were garbage-collected without dispose(). Collection comes late
// and at the engine's pace (a loop that drops filters fast can still fill the heap first), so dispose()
// stays the way to free memory at once: a hint says so, once per process, outside production. Once for
// every copy of the package a process loads (its ES module and CommonJS builds, the lite entry): the flag
// is a global one, registered by name.
const HINTED = Symbol.for('cuckoo-wasm.disposeHint');
/** @internal True on the lite entry's filters (the prototype's), in every copy of the package. */
export const LITE_FILTER = Symbol.for('cuckoo-wasm.liteFilter');
function hintOnce(): void {
  const g = globalThis as { process?: { env?: Record<string, string | undefined> }; [HINTED]?: boolean };
  if (g[HINTED] || g.process?.env?.NODE_ENV === 'production') return;
  g[HINTED] = true;
  console.warn(
    'cuckoo-wasm: a CuckooFilter was garbage-collected without dispose(); its WebAssembly memory was ' +
      'freed then. Call dispose() (or declare it with `using`) to free it at once. (This hint is shown once.)',
  );
}
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ m: FilterModule; handle: number }>(({ m, handle }) => {
        m.destroy(handle);
        hintOnce();
      })
    : undefined;

const exportFinalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ m: FilterModule; exporter: number }>(({ m, exporter }) => {
        if (exporter !== 0) m.exportEnd(exporter);
      })
    : undefined;

function beginImport(m: FilterModule, total: number): number {
  const importer = m.importBegin(total);
  if (importer === 0) throw errorFromModule(m);
  return importer;
}

function pushImport(m: FilterModule, importer: number, piece: Uint8Array): void {
  if (m.importPush(importer, copyToScratch(m, piece), piece.length) !== ErrorCode.ok) throw errorFromModule(m);
}

function finishImport(m: FilterModule, importer: number): number {
  const handle = m.importFinish(importer);
  if (handle === 0) throw errorFromModule(m);
  return handle;
}

function beginExport(m: FilterModule, handle: number): number {
  const exporter = m.exportBegin(handle);
  if (exporter === 0) throw errorFromModule(m);
  return exporter;
}

// Reads the next at most `limit` bytes of an export through the scratch area and hands them to `take` (a
// view of the heap, valid during the call). Returns how many bytes were read: 0 at the end.
function readExport(m: FilterModule, exporter: number, limit: number, take: (piece: Uint8Array) => void): number {
  return readPiece(m, Math.min(limit, PIECE_BYTES), (address, size) => m.exportRead(exporter, address, size), take);
}

/** import(): the handle of the filter the module's core read from `bytes`. */
export function importBytes(m: FilterModule, bytes: Uint8Array): number {
  if (typedLength(bytes, 'Uint8Array') < 0) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
  const view = ownUint8View(bytes);
  // In pieces, straight into the new filter's tables: no second copy of the filter in the heap.
  const importer = beginImport(m, view.length);
  try {
    for (let at = 0; at < view.length; at += PIECE_BYTES) pushImport(m, importer, view.subarray(at, at + PIECE_BYTES));
    return finishImport(m, importer);
  } finally {
    m.importEnd(importer);
  }
}

/** importChunks(): the handle of the filter the module's core read from the chunks. */
export async function importChunkStream(
  m: FilterModule,
  chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
): Promise<number> {
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

/** fromJSON(): the export the value of toJSON() (or its JSON text) holds; BAD_FORMAT for anything else. */
export function jsonExport(json: unknown): Uint8Array {
  let value: unknown = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (error) {
      throw new CuckooFilterError('BAD_FORMAT', `not JSON: ${(error as Error).message}`);
    }
  }
  const v = value as Partial<CuckooFilterJSON> | null;
  // What is wrong, the field by name for an object (as the other readers name a header's field).
  const wrong =
    typeof v !== 'object' || v === null || Array.isArray(v)
      ? describe(value)
      : v.type !== JSON_TYPE
        ? `an object whose type is ${describe(v.type)}`
        : typeof v.data !== 'string'
          ? `an object whose data is ${describe(v.data)}`
          : '';
  if (wrong)
    throw new CuckooFilterError(
      'BAD_FORMAT',
      `expected { type: '${JSON_TYPE}', data: '<base64>' } from toJSON(), got ${wrong}`,
    );
  const bytes = base64Decode((v as CuckooFilterJSON).data);
  if (!bytes) throw new CuckooFilterError('BAD_FORMAT', 'the data is not base64');
  return bytes;
}

/**
 * A cuckoo filter: an approximate set (a multiset, up to 2 x bucketSize copies of a key) with add, has
 * and delete. No false negatives; a false-positive rate set by the fingerprint size.
 *
 * The filter lives in WebAssembly memory: release it with dispose() (or `using f = ...`). What both
 * entries' CuckooFilter have; create filters with the class of the entry you import.
 */
export abstract class FilterBase<M extends FilterModule = FilterModule> {
  /** @internal */
  protected readonly m: M;
  /** @internal */
  protected handle: number;
  // Whether the filter grows: only then can an add fail for a reason that is an error (the chain limit).
  /** @internal */
  protected growing: boolean;
  // Counts the calls that may change the table, so that exportChunks() can tell that it changed under it.
  /** @internal */
  protected changes = 0;

  /** @internal The object takes over a handle of a filter of `m` (made by create or an import). */
  protected constructor(m: M, handle: number) {
    this.m = m;
    this.handle = handle;
    this.growing = m.growth(handle) !== 0;
    finalizer?.register(this, { m, handle }, this);
  }

  /** @internal */
  protected live(): number {
    if (this.handle === 0) throw new CuckooFilterError('DISPOSED', 'this CuckooFilter was disposed');
    return this.handle;
  }

  // After a call that changed the table (not one refused, nor a delete that found nothing).
  /** @internal */
  protected changed<T>(result: T): T {
    this.changes++;
    return result;
  }

  // After a batch call: it changed the table when it changed the size (adds only add, and a failed add
  // leaves the table as it was; deletes only remove). One call, where reading every key's result was
  // work per key on the batch path.
  /** @internal */
  protected countChange(h: number, op: number, sizeBefore: number): void {
    if (op !== BatchOp.contains && this.m.size(h) !== sizeBefore) this.changes++;
  }

  /**
   * Adds a key. Returns false only when there is no room (the filter is then unchanged): a full table, the
   * key's ninth copy (2 x bucketSize), or in a growing filter copies of keys added many times crowding its
   * buckets (a doubling would not make room for them). A growing filter otherwise makes room; at its
   * limit it throws CuckooFilterError('CAPACITY_EXCEEDED') instead.
   */
  add(key: Key): boolean {
    const h = this.live();
    const result = this.m.add(h, writeKey(this.m, key), keyLength());
    if (result === AddResult.added) return this.changed(true);
    this.throwIfChainExhausted(h, result, '');
    return false;
  }

  // Throws when an add failed for a reason that is an error (failure: an AddResult): a growing filter's
  // limit or its memory, which only the full entry has (filter.ts). Other failures are a full table, which
  // add() reports as false. `where` names a batch's key.
  /** @internal */
  protected throwIfChainExhausted(_h: number, _failure: number, _where: string, _absent?: boolean): void {}

  /** False: the key was definitely never added. True: it probably was (see expectedFpRate). */
  has(key: Key): boolean {
    return !!this.m.contains(this.live(), writeKey(this.m, key), keyLength());
  }

  /**
   * Removes one copy of the key. Only delete keys you added: deleting a key that was never added may
   * remove another key's identical fingerprint, and that key would then be reported absent. In a filter
   * that has grown, even deleting an added key has that risk, at about the false-positive rate
   * (docs/GROWTH.md).
   */
  delete(key: Key): boolean {
    const removed = !!this.m.remove(this.live(), writeKey(this.m, key), keyLength());
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
    this.throwIfChainExhausted(h, result, '', true);
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
    return this.batch(keys, BatchOp.add, this.growing ? (...a) => this.stoppedAdds(...a) : undefined);
  }

  // Sees each chunk's results of a growing filter's addMany: one that stopped at a key throws (filter.ts).
  /** @internal */
  protected stoppedAdds(_h: number, _results: Uint8Array, _start: number, _out: boolean[] | Uint8Array): void {}

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
   * doubles in place, the most items it takes before its next doubling, 90% of its slots, or, after its
   * last, at all: a kick-out walk that fails in a crowded part of the table, or copies of entries whose
   * index bits ran out, can make it double sooner, docs/GROWTH.md "A doubled table doubles again at 90%").
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
    return !!this.m.semiSorted(this.live());
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
    return (BigInt(this.m.seedHigh(h) >>> 0) << 32n) | BigInt(this.m.seedLow(h) >>> 0);
  }

  /**
   * The probability that has() answers true for a key never added, with what the filter holds now. A
   * sized table: 1 - (1 - 1/(2^f - 1))^(2 * bucketSize * loadFactor). A chain of sub-filters: 1 minus the
   * chance that none answers true (sub-filters of one shape, as joins leave them, by their rates' sum). A
   * table that doubles in place: the sum over its entries of 2 * bucketSize / slots * 2^-(the entry's
   * bits), as its entries keep the bits of when they came (docs/GROWTH.md, "Keeping the rate").
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
}
