// The wasm heap: every address the TypeScript side uses is made and read here, so that the rest of the
// package calls the core with what these functions return and never computes an address itself.
//
// One scratch area per module is shared by every filter of it (JavaScript is single-threaded, and no
// call keeps a key past its return). It only grows. Any call into the module may grow the memory, which
// detaches every view of the old buffer, so views are always taken from module.HEAPU8 after the call
// that may have grown it, never kept across calls. Record layouts come from abi.ts (generated from C++).
import { CreateOptions, DedupReport, LocateRecord, RedisChunkRecord, RedisInfoRecord, TraceRecord } from './abi.js';
import { CuckooFilterError } from './errors.js';
import { integerKeyHalves, type Key, keyTypeError, typedLength } from './key_codec.js';
import type { HeapModule } from './wasm_loader.js';

const encoder = new TextEncoder();

// The scratch area of the module that used one last (`owner`); the other modules' wait in `parked`. A
// switch costs a map lookup, a call of the same module one comparison.
let owner: HeapModule | undefined;
let scratch = 0;
let scratchSize = 0;
const parked = new Map<HeapModule, { scratch: number; scratchSize: number }>();

function switchTo(m: HeapModule): void {
  if (owner) parked.set(owner, { scratch, scratchSize });
  ({ scratch, scratchSize } = parked.get(m) ?? { scratch: 0, scratchSize: 0 });
  parked.delete(m);
  owner = m;
}

let lastKeyLength = 0;

/** The length in bytes of the key the last writeKey() wrote. */
export function keyLength(): number {
  return lastKeyLength;
}

// The most a block of the 4 GiB heap can hold. A size past it given to _malloc, a u32, would wrap round to
// a small one that it grants: a scratch area doubled from 2.2 GB asked for 4.4 GB, got 105 MB, and a key
// of 2.3 GB was copied into it over other filters.
const MAX_BLOCK = 2 ** 32 - 2 ** 16;

/** The size ensureScratch() asks for, for `size` bytes when it holds `current`: double, never past the heap. */
export function nextScratchSize(size: number, current: number): number {
  return Math.max(size, Math.min(current * 2, MAX_BLOCK), 4096);
}

function malloc(m: HeapModule, size: number): number {
  if (size > MAX_BLOCK) {
    throw new CuckooFilterError('OUT_OF_MEMORY', `cannot allocate ${size} bytes: the WebAssembly heap holds 4 GiB`);
  }
  // Addresses at or above 2 GiB come back negative from _malloc: read them as unsigned.
  const address = m._malloc(size) >>> 0;
  if (address === 0) {
    throw new CuckooFilterError('OUT_OF_MEMORY', `cannot allocate ${size} bytes in the WebAssembly heap`);
  }
  return address;
}

/** Returns the address of at least `size` bytes of scratch (valid until the next call to ensureScratch). */
function ensureScratch(m: HeapModule, size: number): number {
  if (m !== owner) switchTo(m);
  if (size > scratchSize) {
    const next = nextScratchSize(size, scratchSize);
    const address = malloc(m, next);
    if (scratch !== 0) m._free(scratch);
    scratch = address;
    scratchSize = next;
  }
  return scratch;
}

/** Runs `use` with `size` bytes of heap memory of its own, freed afterwards. */
function withAllocation<T>(m: HeapModule, size: number, use: (address: number) => T): T {
  const address = malloc(m, Math.max(size, 1));
  try {
    return use(address);
  } finally {
    m._free(address);
  }
}

/**
 * Writes one key into the scratch area and returns its address there; keyLength() is its length in bytes,
 * so that a call reads `m.op(handle, writeKey(m, key), keyLength())` (arguments are evaluated in order).
 * Strings are written as UTF-8: a plain loop for ASCII (the common case, and faster than TextEncoder for
 * short keys), encodeInto from the first non-ASCII character on.
 */
export function writeKey(m: HeapModule, key: Key): number {
  if (m !== owner) switchTo(m);
  if (typeof key === 'string') {
    const units = key.length;
    // UTF-8 needs at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
    const address = units * 3 > scratchSize ? ensureScratch(m, units * 3) : scratch;
    const heap = m.HEAPU8;
    for (let i = 0; i < units; i++) {
      const c = key.charCodeAt(i);
      if (c > 0x7f) {
        lastKeyLength = encoder.encodeInto(key, heap.subarray(address, address + units * 3)).written;
        return address;
      }
      heap[address + i] = c;
    }
    lastKeyLength = units;
    return address;
  }
  if (typeof key === 'number' && Number.isSafeInteger(key)) {
    // An integer key is its 8 little-endian bytes: the low and the high 32 bits of the two's complement.
    const address = 8 > scratchSize ? ensureScratch(m, 8) : scratch;
    writeHalves(m.HEAPU8, address, key >>> 0, Math.floor(key / 4294967296) >>> 0);
    lastKeyLength = 8;
    return address;
  }
  const length = typedLength(key, 'Uint8Array');
  if (length >= 0) {
    const address = length > scratchSize ? ensureScratch(m, length) : scratch;
    m.HEAPU8.set(key as Uint8Array, address); // copies the array's real length, which `length` is
    lastKeyLength = length;
    return address;
  }
  const halves = integerKeyHalves(key);
  if (!halves) throw keyTypeError(key);
  const address = ensureScratch(m, 8);
  writeHalves(m.HEAPU8, address, halves[0], halves[1]);
  lastKeyLength = 8;
  return address;
}

// An integer key's 8 little-endian bytes, from the low and high 32 bits.
function writeHalves(heap: Uint8Array, address: number, low: number, high: number): void {
  heap[address] = low;
  heap[address + 1] = low >>> 8;
  heap[address + 2] = low >>> 16;
  heap[address + 3] = low >>> 24;
  heap[address + 4] = high;
  heap[address + 5] = high >>> 8;
  heap[address + 6] = high >>> 16;
  heap[address + 7] = high >>> 24;
}

const decoder = new TextDecoder();

/** The message of the module's last failed call. */
export function lastErrorMessage(m: HeapModule): string {
  const start = m.lastErrorText() >>> 0;
  const end = m.HEAPU8.indexOf(0, start);
  return decoder.decode(m.HEAPU8.subarray(start, end));
}

/** Where a packed batch sits in the scratch area. */
export interface PackedBatch {
  offsets: number; // u32 offsets, count + 1 of them, relative to `bytes`
  results: number; // one byte per key
  bytes: number;
  count: number;
}

// A batch is cut into chunks so that the scratch area stays small whatever the caller passes.
const CHUNK_KEYS = 4096;
const CHUNK_BYTES = 1 << 20;

// Offsets of the chunk being packed, computed in the same pass that checks the keys' types, then
// copied into the heap in one call (the heap's address is only known once the chunk's size is).
const chunkOffsets = new Uint32Array(CHUNK_KEYS + 1);

// The offsets of CHUNK_KEYS 8-byte keys: the same for every run of numbers, copied in bulk.
const eightByteOffsets = Uint32Array.from({ length: CHUNK_KEYS + 1 }, (_, i) => i * 8);

// Room for a batch of `count` (at most CHUNK_KEYS) 8-byte keys in the scratch area, with their offsets
// written, and a view of the keys as 32-bit words (4-aligned) to fill in.
function eightByteKeysBatch(m: HeapModule, count: number): { packed: PackedBatch; words: Uint32Array } {
  const offsetsBytes = (count + 1) * 4;
  const base = ensureScratch(m, offsetsBytes + count + 3 + count * 8);
  const results = base + offsetsBytes;
  const bytes = (results + count + 3) & ~3;
  new Uint32Array(m.HEAPU8.buffer, base, count + 1).set(eightByteOffsets.subarray(0, count + 1));
  return {
    packed: { offsets: base, results, bytes, count },
    words: new Uint32Array(m.HEAPU8.buffer, bytes, count * 2),
  };
}

/**
 * Packs keys[start, end) (or fewer: the chunk ends early past CHUNK_BYTES) into the scratch area and
 * returns where. `keys` comes from copyKeys: every key is a string or a Uint8Array.
 */
export function packChunk(m: HeapModule, keys: readonly Key[], start: number): PackedBatch {
  // Common case first: every key a string. One pass checks the types and records each key's end as if
  // every character were one byte, which holds when the chunk is ASCII; one join and one encodeInto then
  // write the whole chunk. (Concatenating with += in the same pass is as fast in a small heap, but its
  // rope of 4096 cons cells per chunk quadruples the garbage, and scavenges in a large heap cost more.)
  const last = Math.min(keys.length, start + CHUNK_KEYS);
  // A run of numbers (copyKeys checked they are safe integers): 8-byte keys, written as 32-bit halves.
  if (typeof keys[start] === 'number') {
    let end = start;
    while (end < last && typeof keys[end] === 'number') end++;
    const { packed, words } = eightByteKeysBatch(m, end - start);
    for (let i = 0; i < packed.count; i++) {
      const key = keys[start + i] as number;
      words[2 * i] = key >>> 0;
      words[2 * i + 1] = Math.floor(key / 4294967296) >>> 0;
    }
    return packed;
  }
  const charLimit = CHUNK_BYTES / 3;
  let chars = 0;
  let end = start;
  while (end < last && (end === start || chars < charLimit)) {
    const key = keys[end];
    if (typeof key !== 'string') break;
    chars += key.length;
    end++;
    chunkOffsets[end - start] = chars;
  }
  if (end === last || chars >= charLimit) {
    const count = end - start;
    const joined =
      count === 1
        ? (keys[start] as string)
        : count === keys.length
          ? (keys as string[]).join('') // the common one-chunk batch: no copy of the array
          : (keys.slice(start, end) as string[]).join('');
    const offsetsBytes = (count + 1) * 4;
    const bound = chars * 3; // UTF-8 needs at most 3 bytes per UTF-16 unit
    const base = ensureScratch(m, offsetsBytes + count + bound);
    const results = base + offsetsBytes;
    const bytes = results + count;
    const heap = m.HEAPU8;
    const written = encoder.encodeInto(joined, heap.subarray(bytes, bytes + bound)).written;
    if (written === chars) {
      chunkOffsets[0] = 0;
      new Uint32Array(heap.buffer, base, count + 1).set(chunkOffsets.subarray(0, count + 1));
      return { offsets: base, results, bytes, count };
    }
    return packEach(m, keys, start, end, bound);
  }
  // A Uint8Array (or a bad key) in the chunk: size it key by key.
  end = start;
  let bound = 0; // an upper bound of the chunk's bytes
  while (end < last && (end === start || bound < CHUNK_BYTES)) {
    const key = keys[end];
    bound +=
      typeof key === 'string'
        ? key.length * 3
        : typeof key === 'number' || typeof key === 'bigint'
          ? 8
          : typedLength(key, 'Uint8Array');
    end++;
  }
  return packEach(m, keys, start, end, bound);
}

/**
 * Grows the scratch area now to what the largest chunk of this batch can need, so that a batch that
 * changes the filter cannot run out of memory after its first chunks were applied (a chunk closes once it
 * passes CHUNK_BYTES, so it holds at most that plus its last key).
 */
export function reserveBatchScratch(m: HeapModule, keys: readonly Key[]): void {
  let total = 0;
  let largest = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const bytes =
      typeof key === 'string'
        ? key.length * 3
        : typeof key === 'number' || typeof key === 'bigint'
          ? 8
          : typedLength(key, 'Uint8Array');
    total += bytes;
    if (bytes > largest) largest = bytes;
  }
  const count = Math.min(keys.length, CHUNK_KEYS);
  ensureScratch(m, (count + 1) * 4 + count + Math.min(total, CHUNK_BYTES + largest) + 8);
}

/** Packs keys[start, end), whose bytes are at most `bound`, one key at a time. */
function packEach(m: HeapModule, keys: readonly Key[], start: number, end: number, bound: number): PackedBatch {
  const count = end - start;
  const offsetsBytes = (count + 1) * 4;
  const base = ensureScratch(m, offsetsBytes + count + bound);
  const results = base + offsetsBytes;
  const bytes = results + count;
  const heap = m.HEAPU8;
  const offsets = new Uint32Array(heap.buffer, base, count + 1);
  offsets[0] = 0;
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const key = keys[start + i];
    if (typeof key === 'string') {
      offset += encoder.encodeInto(key, heap.subarray(bytes + offset, bytes + bound)).written;
    } else if (typeof key === 'number' || typeof key === 'bigint') {
      const [low, high] = integerKeyHalves(key)!;
      writeHalves(heap, bytes + offset, low, high);
      offset += 8;
    } else {
      heap.set(key, bytes + offset);
      offset += typedLength(key, 'Uint8Array');
    }
    offsets[i + 1] = offset;
  }
  return { offsets: base, results, bytes, count };
}

/** The answers a batch wrote, one KeyResult byte per key: a view, valid until the next call into the module. */
export function batchResults(m: HeapModule, packed: { results: number; count: number }): Uint8Array {
  return m.HEAPU8.subarray(packed.results, packed.results + packed.count);
}

/** Copies `bytes` into the scratch area and returns their address there. */
export function copyToScratch(m: HeapModule, bytes: Uint8Array): number {
  const address = ensureScratch(m, Math.max(bytes.length, 1));
  m.HEAPU8.set(bytes, address);
  return address;
}

/**
 * Runs `use` with the address of a copy of `bytes` in a block of its own (at least `minimum` bytes), freed
 * after: for bytes the core reads while a block pushed as a copy may still lie in the scratch area.
 * OUT_OF_MEMORY, naming `what`, when the heap cannot hold them.
 */
export function withOwnCopy<T>(
  m: HeapModule,
  bytes: Uint8Array,
  minimum: number,
  what: string,
  use: (address: number) => T,
): T {
  let address: number;
  try {
    address = malloc(m, Math.max(minimum, bytes.length));
  } catch (error) {
    if (error instanceof CuckooFilterError)
      throw new CuckooFilterError('OUT_OF_MEMORY', `the WebAssembly heap is full (${what})`);
    throw error;
  }
  try {
    m.HEAPU8.set(bytes, address);
    return use(address);
  } finally {
    m._free(address);
  }
}

/**
 * Runs `use` while `bytes` of the heap are held as free room below what it allocates (dedup.ts: a table made
 * on the heap's top), then gives them back. When the heap cannot give the room, `use` runs without it.
 */
export function withRoomHeld<T>(m: HeapModule, bytes: number, use: () => T): T {
  const room = bytes > MAX_BLOCK ? 0 : m._malloc(bytes) >>> 0;
  try {
    return use();
  } finally {
    if (room !== 0) m._free(room);
  }
}

/** A view of `length` bytes the core wrote at `address`, valid until the next call into the module. */
export function heapBytes(m: HeapModule, address: number, length: number): Uint8Array {
  const at = address >>> 0; // as a call returned it: addresses at or above 2 GiB come back negative
  return m.HEAPU8.subarray(at, at + length);
}

/** Keys given as ranges of one buffer, where addIfAbsentRanges() reads them. */
export interface PackedRanges {
  bytes: number;
  ranges: number; // u32 pairs (start, end) relative to `bytes`
  results: number; // one byte per key
  count: number;
}

/** Copies a buffer and its (start, end) ranges into the scratch area. */
export function packRanges(m: HeapModule, bytes: Uint8Array, ranges: Uint32Array): PackedRanges {
  const count = ranges.length / 2;
  // Ranges first (4-byte aligned), then the results, then the bytes.
  const base = ensureScratch(m, ranges.byteLength + count + bytes.length);
  const results = base + ranges.byteLength;
  const data = results + count;
  const heap = m.HEAPU8;
  heap.set(new Uint8Array(ranges.buffer, ranges.byteOffset, ranges.byteLength), base);
  heap.set(bytes, data);
  return { bytes: data, ranges: base, results, count };
}

/** The options of a new filter, as create() reads them (abi.ts CreateOptions); undefined: not given. */
export interface CreateArguments {
  capacity: number;
  fpRate?: number;
  fingerprintBits?: number;
  bucketSize?: number;
  maxKicks: number;
  seedLow: number;
  seedHigh: number;
  growth?: number;
  maxSubFilters?: number;
  semiSorted?: boolean;
}

/** Writes a CreateOptions record into the scratch area and returns its address. */
export function writeCreateOptions(m: HeapModule, a: CreateArguments): number {
  const address = ensureScratch(m, CreateOptions.bytes);
  const view = new DataView(m.HEAPU8.buffer, address, CreateOptions.bytes);
  let given = 0;
  const optional = (
    value: number | undefined,
    offset: number,
    bit: number,
    write: (offset: number, value: number) => void,
  ) => {
    write(offset, value ?? 0);
    if (value !== undefined) given |= bit;
  };
  const u32 = (offset: number, value: number) => view.setUint32(offset, value, true);
  const f64 = (offset: number, value: number) => view.setFloat64(offset, value, true);
  f64(CreateOptions.capacity, a.capacity);
  optional(a.fpRate, CreateOptions.fpRate, CreateOptions.givenFpRate, f64);
  u32(CreateOptions.seedLow, a.seedLow);
  u32(CreateOptions.seedHigh, a.seedHigh);
  optional(a.fingerprintBits, CreateOptions.fingerprintBits, CreateOptions.givenFingerprintBits, u32);
  optional(a.bucketSize, CreateOptions.bucketSize, CreateOptions.givenBucketSize, u32);
  u32(CreateOptions.maxKicks, a.maxKicks);
  optional(a.growth, CreateOptions.growth, CreateOptions.givenGrowth, u32);
  optional(a.maxSubFilters, CreateOptions.maxSubFilters, CreateOptions.givenMaxSubFilters, u32);
  optional(
    a.semiSorted === undefined ? undefined : +a.semiSorted,
    CreateOptions.semiSorted,
    CreateOptions.givenSemiSorted,
    u32,
  );
  u32(CreateOptions.given, given);
  return address;
}

/** A LocateRecord, with the hash joined. */
export interface LocateAnswer {
  hash: bigint;
  index: number;
  alternateIndex: number;
  fingerprint: number;
  alternateOffset: number;
}

/** Runs `locate(out)`, which writes a LocateRecord at `out`, and reads it. */
export function readLocateRecord(m: HeapModule, locate: (out: number) => void): LocateAnswer {
  return withAllocation(m, LocateRecord.words * 4, (out) => {
    locate(out);
    const v = new Uint32Array(m.HEAPU8.buffer, out, LocateRecord.words);
    return {
      hash: (BigInt(v[LocateRecord.hashHigh]) << 32n) | BigInt(v[LocateRecord.hashLow]),
      index: v[LocateRecord.index],
      alternateIndex: v[LocateRecord.alternateIndex],
      fingerprint: v[LocateRecord.fingerprint] + v[LocateRecord.fingerprintHigh] * 2 ** 32,
      alternateOffset: v[LocateRecord.alternateOffset],
    };
  });
}

/** One TraceRecord. */
export interface TraceRecordValues {
  kind: number;
  bucket: number;
  slot: number;
  fingerprintIn: number;
  fingerprintOut: number;
}

/** Runs `write(out)`, which writes `count` TraceRecords at `out`, and reads them. */
export function readTraceRecords(m: HeapModule, count: number, write: (out: number) => void): TraceRecordValues[] {
  const words = TraceRecord.words;
  return withAllocation(m, count * words * 4, (out) => {
    write(out);
    const v = new Uint32Array(m.HEAPU8.buffer, out, count * words);
    const list: TraceRecordValues[] = [];
    for (let at = 0; at < count * words; at += words) {
      list.push({
        kind: v[at + TraceRecord.kind],
        bucket: v[at + TraceRecord.bucket],
        slot: v[at + TraceRecord.slot],
        fingerprintIn: v[at + TraceRecord.fingerprintIn],
        fingerprintOut: v[at + TraceRecord.fingerprintOut],
      });
    }
    return list;
  });
}

/** A line deduplicator's DedupReport at `address`: its new lines (a view, valid until the next call) and counters. */
export function readDedupReport(
  m: HeapModule,
  address: number,
): { output: Uint8Array; lines: number; unique: number; wrongDrops: number } {
  const v = new Float64Array(m.HEAPU8.buffer, address, DedupReport.doubles);
  const output = v[DedupReport.outputAddress];
  return {
    output: m.HEAPU8.subarray(output, output + v[DedupReport.outputLength]),
    lines: v[DedupReport.lines],
    unique: v[DedupReport.unique],
    wrongDrops: v[DedupReport.wrongDrops],
  };
}

/**
 * Reads the next at most min(limit, pieceBytes) bytes of an export into the scratch area with
 * `read(address, size)` (which returns how many it wrote) and hands them to `take` (a view of the heap,
 * valid during the call). Returns how many bytes were read: 0 at the end.
 */
export function readPiece(
  m: HeapModule,
  size: number,
  read: (address: number, size: number) => number,
  take: (piece: Uint8Array) => void,
): number {
  const address = ensureScratch(m, size);
  const n = read(address, size);
  if (n > 0) take(m.HEAPU8.subarray(address, address + n));
  return n;
}

// The records below are written into the scratch area (no key is there at the time): a query about a
// filter (its info, its dump) then needs no memory of its own, and works with the heap full.

/** Runs `write(out)`, which writes `length` bytes at `out`, and returns a copy of them. */
export function readBytes(m: HeapModule, length: number, write: (out: number) => void): Uint8Array {
  const out = ensureScratch(m, length);
  write(out);
  return m.HEAPU8.slice(out, out + length);
}

/** Runs `write(out)`, which writes a RedisChunkRecord at `out`: the next iterator and a copy of the chunk. */
export function readRedisChunk(m: HeapModule, write: (out: number) => void): { next: number; chunk: Uint8Array } {
  const out = ensureScratch(m, RedisChunkRecord.doubles * 8);
  write(out);
  const v = new Float64Array(m.HEAPU8.buffer, out, RedisChunkRecord.doubles);
  const address = v[RedisChunkRecord.address];
  return { next: v[RedisChunkRecord.next], chunk: m.HEAPU8.slice(address, address + v[RedisChunkRecord.length]) };
}

/** Runs `write(out)`, which writes a RedisInfoRecord at `out`, and returns a copy (index it with RedisInfoRecord). */
export function readRedisInfo(m: HeapModule, write: (out: number) => void): Float64Array {
  const out = ensureScratch(m, RedisInfoRecord.doubles * 8);
  write(out);
  return new Float64Array(m.HEAPU8.buffer, out, RedisInfoRecord.doubles).slice();
}

/** Where packIntegers() put a chunk of integer keys: `count` keys of `width` bytes at `keys`, one result byte each at `results`. */
export interface IntegerChunk {
  keys: number; // 8-aligned: the scratch area is a malloc'd block
  results: number;
  count: number;
}

/**
 * Copies elements [start, start + count) of an integer typed array, given as its bytes with `width`-byte
 * elements (4: u32; 8: u64 or i64), into the scratch area as they are, with room for 8 bytes per key:
 * integerBatch() reads them in place (an integer key is its 8 little-endian bytes) and widens u32s there.
 */
export function packIntegers(
  m: HeapModule,
  view: Uint8Array,
  width: number,
  start: number,
  count: number,
): IntegerChunk {
  const keys = ensureScratch(m, count * 9);
  m.HEAPU8.set(view.subarray(start * width, (start + count) * width), keys);
  return { keys, results: keys + count * 8, count };
}

/** Whether `view` is a view of the module's heap (of its memory now: growing it detaches older views). */
export function isHeapView(m: HeapModule, view: Uint8Array): boolean {
  return view.buffer === m.HEAPU8.buffer;
}

/** The address of a view of the module's heap (isHeapView), or undefined for any other bytes. */
export function heapAddressOf(m: HeapModule, view: Uint8Array): number | undefined {
  return isHeapView(m, view) ? view.byteOffset : undefined;
}

/** Copies `first` and then `second` into the scratch area: the address of each. */
export function copyPairToScratch(m: HeapModule, first: Uint8Array, second: Uint8Array): [number, number] {
  const at = ensureScratch(m, Math.max(first.length + second.length, 1));
  m.HEAPU8.set(first, at);
  m.HEAPU8.set(second, at + first.length);
  return [at, at + first.length];
}

/**
 * `count` blocks of `size` bytes in the module's heap, allocated until free() (the `cuckoo` command reads
 * its input there, where the core reads it in place, for as long as it runs), or undefined when the heap
 * cannot hold them. view(i) is taken anew at every use: a call that grows the heap detaches older views.
 */
export function heapBlocks(
  m: HeapModule,
  size: number,
  count: number,
): { view(i: number): Uint8Array; memory(): ArrayBufferLike; free(): void } | undefined {
  let address = m._malloc(size * count) >>> 0;
  if (address === 0) return undefined;
  return {
    view: (i) => {
      if (address === 0) throw new RangeError('these blocks were freed');
      return m.HEAPU8.subarray(address + i * size, address + (i + 1) * size);
    },
    memory: () => m.HEAPU8.buffer,
    free() {
      if (address !== 0) m._free(address);
      address = 0;
    },
  };
}
