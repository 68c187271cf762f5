// RedisCuckooFilter: RedisBloom's cuckoo filter (the CF.* commands), reproduced exactly in the wasm core
// (cpp/include/cuckoo/redis_filter.hpp), so that a filter can move between this package and a Redis
// server with CF.SCANDUMP / CF.LOADCHUNK and give the same answer for every item on both sides.
import { ErrorCode, RedisAddResult, RedisInfoRecord, RedisLimits } from './abi.js';
import { CuckooFilterError, invalid } from './errors.js';
import { disposeSymbol } from './dispose.js';
import {
  copyToScratch,
  keyLength,
  lastErrorMessage,
  readBytes,
  readRedisChunk,
  readRedisInfo,
  writeKey,
} from './heap.js';
import { copyKeys, describe, integerKeyHalves, type Key, ownUint8View, typedLength } from './key_codec.js';
import { ready, type RedisModule, requireModule } from './redis_module.js';

/** CF.RESERVE's arguments. */
export interface RedisCuckooFilterOptions {
  /** Items to size for: the filter gets the power of two >= capacity / bucketSize buckets. At least 2 * bucketSize. */
  capacity: number;
  /** Slots (one byte each) per bucket, 1 to 255; default 2. */
  bucketSize?: number;
  /** Kicks before an add gives up (and is undone), 1 to 65535; default 20. */
  maxIterations?: number;
  /** Growth: each new sub-filter has expansion times the buckets of the last, 0 (never grows) to 32768, rounded up to a power of two; default 1. */
  expansion?: number;
}

/** CF.INFO's fields. */
export interface RedisCuckooFilterInfo {
  /** The server's memory for the filter, as CF.INFO reports it: 40 + 16 per sub-filter + the tables. */
  size: number;
  numberOfBuckets: number;
  numberOfFilters: number;
  /** As the server prints its counters, signed 64-bit (as a number: exact up to 2^53). */
  numberOfItemsInserted: number;
  /** Signed as the server prints it: a dump's delete count of 2^64 - 1 is -1. */
  numberOfItemsDeleted: number;
  bucketSize: number;
  expansionRate: number;
  maxIterations: number;
}

/** One reply of CF.SCANDUMP, as CF.LOADCHUNK takes it (node-redis: `{ iterator, chunk }`). */
export interface RedisDumpChunk {
  iterator: number;
  chunk: Uint8Array;
}

// An option left out (undefined) takes its default; any other value, null too, must be a safe integer
// (RedisBloom's options are numbers a client always sends).
function integerOption(o: Record<string, unknown>, name: string, fallback: number): number {
  const value = o[name] === undefined ? fallback : o[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw invalid(`${name} must be a safe integer, got ${describe(value)}`);
  return value;
}

// bucketSize, maxIterations and expansion cross into wasm as unsigned 32-bit numbers, which would wrap a
// value outside that range (2^32 + 4 into 4) into one RedisBloom accepts. Such a value goes in as 2^32 - 1
// instead, past every option's limit, so that the core refuses it with RedisBloom's text for that option.
function u32Option(o: Record<string, unknown>, name: string, fallback: number): number {
  const value = integerOption(o, name, fallback);
  return value >= 0 && value <= 0xffffffff ? value : 0xffffffff;
}

/**
 * An item: a string (its UTF-8 bytes), the bytes themselves, or an integer (a safe-integer number or a
 * bigint from -2^63 to 2^64 - 1) as its decimal text, which is what Redis clients send for it: add(42)
 * is `CF.ADD key 42`, the same item as '42'. (CuckooFilter hashes integers as 8 bytes instead.)
 */
export type RedisItem = Key;

function itemOf(key: RedisItem): Key {
  if (typeof key !== 'number' && typeof key !== 'bigint') return key;
  integerKeyHalves(key); // throws for a number that is not a safe integer and a bigint out of range
  return String(key);
}

// The error of the module's last failed call: OUT_OF_MEMORY, or `otherwise` (its own code and wording).
function moduleError(m: RedisModule, otherwise: (message: string) => CuckooFilterError): CuckooFilterError {
  const message = lastErrorMessage(m);
  return m.lastErrorCode() === ErrorCode.outOfMemory
    ? new CuckooFilterError('OUT_OF_MEMORY', message)
    : otherwise(message);
}

const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<number>((handle) => requireModule().redisDestroy(handle))
    : undefined;

/**
 * RedisBloom's cuckoo filter, byte for byte: MurmurHash64A, 8-bit fingerprints, power-of-two sub-filters,
 * and the same add, kick walk, growth, delete and compaction, so every item gets the answer a RedisBloom
 * server gives for the same commands, and toChunks() gives CF.SCANDUMP's bytes. It costs more than
 * CuckooFilter: about 1-3% false positives per sub-filter (8-bit fingerprints), no seed, sizes only in
 * powers of two. Lives in WebAssembly memory: dispose() it (or `using`).
 */
export class RedisCuckooFilter {
  private readonly m: RedisModule;
  private handle: number;

  /** CF.RESERVE: throws INVALID_ARGUMENT with RedisBloom's text for arguments it refuses. */
  constructor(options: RedisCuckooFilterOptions) {
    const m = requireModule();
    if (typeof options !== 'object' || options === null)
      throw invalid(`options must be an object like { capacity: 1000 }, got ${describe(options)}`);
    const o = options as unknown as Record<string, unknown>;
    for (const name of Object.keys(o)) {
      if (!['capacity', 'bucketSize', 'maxIterations', 'expansion'].includes(name))
        throw invalid(`unknown option "${name}"`);
    }
    if (o.capacity === undefined) throw invalid('capacity is required');
    // A capacity below 0 goes in as 0: the core checks the options in RedisBloom's order (bucket size,
    // iterations, expansion, then capacity), and refuses 0 with the server's text for any capacity too small.
    const capacity = Math.max(integerOption(o, 'capacity', 0), 0);
    const handle = m.redisCreate(
      capacity,
      u32Option(o, 'bucketSize', RedisLimits.defaultBucketSize),
      u32Option(o, 'maxIterations', RedisLimits.defaultMaxIterations),
      u32Option(o, 'expansion', RedisLimits.defaultExpansion),
    );
    if (handle === 0) throw moduleError(m, invalid);
    this.m = m;
    this.handle = handle;
    finalizer?.register(this, handle, this);
  }

  /** ready() and new RedisCuckooFilter(options) in one call. */
  static async create(options: RedisCuckooFilterOptions): Promise<RedisCuckooFilter> {
    await ready();
    return new RedisCuckooFilter(options);
  }

  /**
   * A filter from a CF.SCANDUMP stream: `{ iterator, chunk }` pairs, the header first, in the order the
   * server returned them (node-redis `client.cf.scanDump` on a client that reads blobs as Buffers). Checks
   * all that CF.LOADCHUNK checks and more (legacy headers, iterators, chunk lengths, sizes, the item
   * count against the occupied slots): BAD_FORMAT names what is wrong. Each chunk goes straight into the
   * filter's tables.
   */
  static async fromChunks(
    chunks: Iterable<RedisDumpChunk> | AsyncIterable<RedisDumpChunk>,
  ): Promise<RedisCuckooFilter> {
    await ready(); // asynchronous, so it loads the module as create() does (docs/REDIS.md's example)
    const m = requireModule();
    const source = chunks as Partial<AsyncIterable<RedisDumpChunk> & Iterable<RedisDumpChunk>> | null;
    if (
      typeof source !== 'object' ||
      source === null ||
      (typeof source[Symbol.asyncIterator] !== 'function' && typeof source[Symbol.iterator] !== 'function')
    ) {
      throw new TypeError(
        `chunks must be an iterable or async iterable of { iterator, chunk }, got ${describe(chunks)}`,
      );
    }
    const loader = m.redisLoaderBegin();
    if (loader === 0) throw moduleError(m, invalid);
    const fail = () =>
      moduleError(m, (message) => new CuckooFilterError('BAD_FORMAT', `not a valid RedisBloom dump: ${message}`));
    try {
      let index = 0;
      for await (const entry of source as AsyncIterable<RedisDumpChunk>) {
        const { iterator, chunk } = (entry ?? {}) as Partial<RedisDumpChunk>;
        if (typeof iterator !== 'number' || !Number.isSafeInteger(iterator) || iterator < 0) {
          throw new TypeError(`chunk ${index}: iterator must be a non-negative integer, got ${describe(iterator)}`);
        }
        if (typedLength(chunk, 'Uint8Array') < 0)
          throw new TypeError(`chunk ${index}: chunk must be a Uint8Array (a Buffer), got ${describe(chunk)}`);
        const bytes = ownUint8View(chunk!);
        if (m.redisLoaderPush(loader, iterator, copyToScratch(m, bytes), bytes.length) !== ErrorCode.ok) throw fail();
        index++;
      }
      const handle = m.redisLoaderFinish(loader);
      if (handle === 0) throw fail();
      const filter = Object.create(RedisCuckooFilter.prototype) as RedisCuckooFilter;
      Object.assign(filter as unknown as { m: RedisModule; handle: number }, { m, handle });
      finalizer?.register(filter, handle, filter);
      return filter;
    } finally {
      m.redisLoaderEnd(loader);
    }
  }

  private live(): number {
    if (this.handle === 0) throw new CuckooFilterError('DISPOSED', 'this RedisCuckooFilter was disposed');
    return this.handle;
  }

  /** A one-line summary, for console.log and util.inspect in Node (as CuckooFilter's, not the module's innards). */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }

  /** "RedisCuckooFilter { items: 3, deleted: 0, buckets: 512, ... }" (CF.INFO's numbers), or "{ disposed }". */
  toString(): string {
    if (this.handle === 0) return 'RedisCuckooFilter { disposed }';
    const i = this.info();
    return (
      `RedisCuckooFilter { items: ${i.numberOfItemsInserted}, deleted: ${i.numberOfItemsDeleted}, ` +
      `buckets: ${i.numberOfBuckets}, filters: ${i.numberOfFilters}, bucketSize: ${i.bucketSize}, ` +
      `expansion: ${i.expansionRate}, maxIterations: ${i.maxIterations}, size: ${i.size} }`
    );
  }

  // An add's answer: true added, false present (addIfAbsent); no room throws, as CF.ADD's "Filter is full".
  // RedisBloom refuses adds once a filter has 32 sub-filters, checked once per command (CF.INSERT may pass it).
  private added(result: number): boolean {
    if (result === RedisAddResult.added) return true;
    if (result === RedisAddResult.present) return false;
    if (result === RedisAddResult.maxExpansions)
      throw new CuckooFilterError('CAPACITY_EXCEEDED', 'Maximum expansions reached');
    if (result === RedisAddResult.full) throw new CuckooFilterError('CAPACITY_EXCEEDED', 'Filter is full');
    throw new CuckooFilterError('OUT_OF_MEMORY', 'the next sub-filter does not fit in the WebAssembly heap');
  }

  /** CF.ADD: true when added. Throws CAPACITY_EXCEEDED ("Filter is full", nothing changed; or "Maximum expansions reached"). */
  add(key: RedisItem): boolean {
    return this.added(this.m.redisAdd(this.live(), writeKey(this.m, itemOf(key)), keyLength(), false, true));
  }

  /** CF.ADDNX: false when the item's fingerprint is already in one of its buckets (a false positive too). */
  addIfAbsent(key: RedisItem): boolean {
    return this.added(this.m.redisAdd(this.live(), writeKey(this.m, itemOf(key)), keyLength(), true, true));
  }

  /** CF.EXISTS. */
  has(key: RedisItem): boolean {
    return this.m.redisLookup(this.live(), writeKey(this.m, itemOf(key)), keyLength(), false) === 1;
  }

  /** CF.COUNT: copies of the fingerprint in the item's buckets; a bucket that is both of them counts twice. */
  count(key: RedisItem): number {
    return this.m.redisLookup(this.live(), writeKey(this.m, itemOf(key)), keyLength(), true);
  }

  /** CF.DEL: removes one copy (newest sub-filter first); compacts when deletes pass a tenth of the items. */
  delete(key: RedisItem): boolean {
    return this.m.redisRemove(this.live(), writeKey(this.m, itemOf(key)), keyLength());
  }

  /**
   * CF.INSERT: add() for each key, the sub-filter limit checked once for the call. Results in key order:
   * true added; a key that finds no room gets false (nothing changed for it), as CF.INSERT's -1.
   */
  addMany(keys: Iterable<RedisItem>): boolean[] {
    const copy = copyKeys(keys);
    const h = this.live();
    return copy.map((key, i) => {
      const result = this.m.redisAdd(h, writeKey(this.m, itemOf(key)), keyLength(), false, i === 0);
      if (result === RedisAddResult.maxExpansions || result === RedisAddResult.outOfMemory) this.added(result);
      return result === RedisAddResult.added;
    });
  }

  /** CF.MEXISTS. */
  hasMany(keys: Iterable<RedisItem>): boolean[] {
    const copy = copyKeys(keys);
    const h = this.live();
    return copy.map((key) => this.m.redisLookup(h, writeKey(this.m, itemOf(key)), keyLength(), false) === 1);
  }

  /** CF.COMPACT: moves fingerprints into older sub-filters and drops empty ones at the end. */
  compact(): void {
    this.m.redisCompact(this.live());
  }

  /** Items inserted and not deleted (CF.INFO's "Number of items inserted"). */
  get size(): number {
    return this.info().numberOfItemsInserted;
  }

  /** CF.INFO. */
  info(): RedisCuckooFilterInfo {
    const h = this.live();
    const v = readRedisInfo(this.m, (out) => this.m.redisInfo(h, out));
    return {
      size: v[RedisInfoRecord.size],
      numberOfBuckets: v[RedisInfoRecord.numBuckets],
      numberOfFilters: v[RedisInfoRecord.numFilters],
      numberOfItemsInserted: v[RedisInfoRecord.numItems],
      numberOfItemsDeleted: v[RedisInfoRecord.numDeletes],
      bucketSize: v[RedisInfoRecord.bucketSize],
      expansionRate: v[RedisInfoRecord.expansion],
      maxIterations: v[RedisInfoRecord.maxIterations],
    };
  }

  /**
   * CF.SCANDUMP's replies for this filter, byte for byte: the 38-byte header at iterator 1, then the
   * tables (a sub-filter whole up to 16 MiB, else in 16 MiB pieces), each with the iterator the server
   * gives it; feed them to CF.LOADCHUNK in order. Like the server, a filter with no items yields nothing.
   * The filter must not change until the last chunk.
   */
  *toChunks(): Generator<RedisDumpChunk, void, undefined> {
    const h = this.live();
    if (this.info().numberOfItemsInserted === 0) return;
    yield { iterator: 1, chunk: readBytes(this.m, RedisLimits.headerSize, (out) => this.m.redisHeader(h, out)) };
    for (let iterator = 1; ; ) {
      const { next, chunk } = readRedisChunk(this.m, (out) => this.m.redisChunkAt(this.live(), iterator, out));
      if (next === 0) return;
      yield { iterator: next, chunk };
      iterator = next;
    }
  }

  /** Frees the filter's memory. Later calls throw DISPOSED; disposing again does nothing. */
  dispose(): void {
    const handle = this.handle;
    this.handle = 0;
    if (handle === 0) return;
    finalizer?.unregister(this);
    this.m.redisDestroy(handle);
  }

  [disposeSymbol](): void {
    this.dispose();
  }
}
