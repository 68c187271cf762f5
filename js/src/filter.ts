import { CuckooFilterError, invalid } from './errors.js';
import { AddResult, BatchOp, ErrorCode, InsertOutcome, KeyResult, TraceStepKind } from './abi.js';
import {
  batchResults,
  copyToScratch,
  keyLength,
  packRanges,
  readLocateRecord,
  readTraceRecords,
  writeCreateOptions,
  writeKey,
} from './heap.js';
import { describe, type Key, ownUint32View, ownUint8View, typedLength } from './key_codec.js';
import { type CuckooModule, ready, requireModule } from './wasm_module.js';
import { type CuckooFilterOptions, isInteger, validateOptions, creationError } from './options.js';
import {
  type CuckooFilterJSON,
  errorFromModule,
  FilterBase,
  importBytes,
  importChunkStream,
  jsonExport,
  LITE_FILTER,
} from './filter_base.js';

export type { CuckooFilterOptions, CuckooFilterShape } from './options.js';
export type { CuckooFilterJSON } from './filter_base.js';
export { disposeSymbol } from './dispose.js';

export type { IntegerArray, Key } from './key_codec.js';

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

/**
 * @internal What is said of `value`, a filter of another copy of the package or of its lite entry, given as
 * `name`, and how to move it.
 */
export function anotherCopy(name: string, remedy: string, value: unknown): string {
  // The lite entry's filter says so (LITE_FILTER), in every copy of the package.
  const where =
    (value as Record<symbol, unknown>)[LITE_FILTER] === true
      ? 'cuckoo-wasm/lite (its module of its own'
      : 'another copy of cuckoo-wasm (one loaded with import and one with require, or two installs';
  return `${name} is a CuckooFilter of ${where}: each has its own memory); move it as bytes: ${remedy}`;
}

/**
 * A cuckoo filter: an approximate set (a multiset, up to 2 x bucketSize copies of a key) with add, has
 * and delete. No false negatives; a false-positive rate set by the fingerprint size.
 *
 * The filter lives in WebAssembly memory: release it with dispose() (or `using f = ...`).
 */
export class CuckooFilter extends FilterBase<CuckooModule> {
  /** Needs the module loaded: `await ready()` first, or use `await CuckooFilter.create(options)`. */
  constructor(options: CuckooFilterOptions);
  /** @internal For a filter the core made (an import): the object takes over its handle. */
  constructor(options: null, made: { m: CuckooModule; handle: number });
  constructor(options: CuckooFilterOptions | null, made?: { m: CuckooModule; handle: number }) {
    if (options === null && made) {
      super(made.m, made.handle);
      return;
    }
    const m = requireModule();
    const a = validateOptions(options);
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
   * A filter from bytes made by export() (here, by cuckoo-wasm/lite or by the C++ library). Validates every
   * field, length and the checksum; throws CuckooFilterError('BAD_FORMAT') saying what is wrong.
   */
  static import(bytes: Uint8Array): CuckooFilter {
    const m = requireModule();
    return new CuckooFilter(null, { m, handle: importBytes(m, bytes) });
  }

  /**
   * import() for an export that arrives in pieces (a file stream, a fetch body, exportChunks()): each piece
   * goes straight into the new filter's tables, so a filter larger than half the WebAssembly heap, which
   * import() of one Uint8Array could not load, can be loaded. The tables are allocated when the headers
   * arrive; the filter exists once every byte has checked out (BAD_FORMAT otherwise, saying what is wrong).
   */
  static async importChunks(chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<CuckooFilter> {
    await ready(); // asynchronous, so it loads the module as create() does
    const m = requireModule();
    return new CuckooFilter(null, { m, handle: await importChunkStream(m, chunks) });
  }

  /**
   * A filter from the value toJSON() made (or that value as JSON text): CuckooFilter.fromJSON(JSON.parse(s))
   * or CuckooFilter.fromJSON(s). Throws BAD_FORMAT for anything else.
   */
  static fromJSON(json: string | CuckooFilterJSON): CuckooFilter {
    requireModule();
    return CuckooFilter.import(jsonExport(json));
  }

  // A batch of adds stops at the key where the chain could not grow: the error names it and carries the
  // results of the keys before it.
  /** @internal */
  protected override stoppedAdds(h: number, results: Uint8Array, start: number, out: boolean[] | Uint8Array): void {
    const stopped = results.indexOf(KeyResult.stoppedHere);
    if (stopped < 0) return;
    try {
      this.throwIfChainExhausted(h, this.m.lastAddFailure(h), `keys[${start + stopped}]: `);
    } catch (error) {
      if (error instanceof CuckooFilterError) error.results = out.slice(0, start + stopped);
      throw error;
    }
  }

  // A growing filter's limit, or its memory (FilterBase.throwIfChainExhausted); for addIfAbsent (`absent`),
  // copies crowding the key out too.
  /** @internal */
  protected override throwIfChainExhausted(h: number, failure: number, where: string, absent?: boolean): void {
    if (absent && failure === AddResult.crowded) {
      throw new CuckooFilterError(
        'CAPACITY_EXCEEDED',
        'the key is absent, and copies of keys added many times fill its buckets (add() stores a copy each time; ' +
          'growing would not make room): nothing was added',
      );
    }
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

  /** @internal declaredExportLength() (below), for the `cuckoo` command, which imports only the package's entry. */
  static declaredLength(prefix: Uint8Array): number {
    return declaredExportLength(prefix);
  }

  /** @internal The live handle of a filter (liveHandle(), below), which the caller may change. */
  static liveHandle(filter: CuckooFilter): number {
    filter.changes++;
    return filter.live();
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
          ? anotherCopy('other', `${how}(CuckooFilter.import(other.export()))`, other)
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
   * doubles in place (whose entries may have 40 bits, which do not fit 32), else a Uint32Array.
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
