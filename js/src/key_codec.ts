// Writes keys into the wasm heap, where the core reads them as (address, length).
//
// One scratch area is shared by every filter (JavaScript is single-threaded per module instance, and no
// call keeps a key past its return). It only grows. Any call into the module may grow the memory, which
// detaches every view of the old buffer, so views are always taken from module.HEAPU8 after the call
// that may have grown it, never kept across calls.
import type { CuckooModule } from './wasm_module.js';
import { CuckooFilterError } from './errors.js';

/** A key: a string (hashed as its UTF-8 bytes) or the bytes themselves. */
export type Key = string | Uint8Array;

const encoder = new TextEncoder();

let scratch = 0;
let scratchSize = 0;

/** Where the last writeKey() put its key. */
export function scratchAddress(): number {
  return scratch;
}

function malloc(m: CuckooModule, size: number): number {
  // Addresses at or above 2 GiB come back negative from _malloc: read them as unsigned.
  const address = m._malloc(size) >>> 0;
  if (address === 0) {
    throw new CuckooFilterError('OUT_OF_MEMORY', `cannot allocate ${size} bytes in the WebAssembly heap`);
  }
  return address;
}

/** Returns the address of at least `size` bytes of scratch (valid until the next call to ensureScratch). */
export function ensureScratch(m: CuckooModule, size: number): number {
  if (size > scratchSize) {
    const next = Math.max(size, scratchSize * 2, 4096);
    const address = malloc(m, next);
    if (scratch !== 0) m._free(scratch);
    scratch = address;
    scratchSize = next;
  }
  return scratch;
}

/** Runs `use` with `size` bytes of heap memory of its own, freed afterwards. */
export function withAllocation<T>(m: CuckooModule, size: number, use: (address: number) => T): T {
  const address = malloc(m, Math.max(size, 1));
  try {
    return use(address);
  } finally {
    m._free(address);
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
  return `a ${typeof value}`;
}

function keyTypeError(key: unknown): TypeError {
  return new TypeError(`key must be a string or a Uint8Array, got ${describe(key)}`);
}

/**
 * Writes one key at the scratch address and returns its length in bytes. Strings are written as UTF-8:
 * a plain loop for ASCII (the common case, and faster than TextEncoder for short keys), encodeInto from
 * the first non-ASCII character on.
 */
export function writeKey(m: CuckooModule, key: Key): number {
  if (typeof key === 'string') {
    const units = key.length;
    // UTF-8 needs at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
    const address = units * 3 > scratchSize ? ensureScratch(m, units * 3) : scratch;
    const heap = m.HEAPU8;
    for (let i = 0; i < units; i++) {
      const c = key.charCodeAt(i);
      if (c > 0x7f) return encoder.encodeInto(key, heap.subarray(address, address + units * 3)).written;
      heap[address + i] = c;
    }
    return units;
  }
  if (key instanceof Uint8Array) {
    const address = key.length > scratchSize ? ensureScratch(m, key.length) : scratch;
    m.HEAPU8.set(key, address);
    return key.length;
  }
  throw keyTypeError(key);
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

/**
 * Packs keys[start, end) (or fewer: the chunk ends early past CHUNK_BYTES) into the scratch area and
 * returns where. Every key's type is checked before anything is written, so a bad key in a batch throws
 * before the chunk changes the filter.
 */
export function packChunk(m: CuckooModule, keys: readonly Key[], start: number): PackedBatch {
  // Common case first: every key a string. One pass checks the types and records each key's end as if
  // every character were one byte, which holds when the chunk is ASCII; one join and one encodeInto then
  // write the whole chunk. (Concatenating with += in the same pass is as fast in a small heap, but its
  // rope of 4096 cons cells per chunk quadruples the garbage, and scavenges in a large heap cost more.)
  const last = Math.min(keys.length, start + CHUNK_KEYS);
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
    const joined = count === 1 ? (keys[start] as string)
      : count === keys.length ? (keys as string[]).join('') // the common one-chunk batch: no copy of the array
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
    if (typeof key === 'string') bound += key.length * 3;
    else if (key instanceof Uint8Array) bound += key.length;
    else throw keyTypeError(key);
    end++;
  }
  return packEach(m, keys, start, end, bound);
}

/** Packs keys[start, end), whose bytes are at most `bound`, one key at a time. */
function packEach(m: CuckooModule, keys: readonly Key[], start: number, end: number, bound: number): PackedBatch {
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
    } else {
      heap.set(key as Uint8Array, bytes + offset);
      offset += (key as Uint8Array).length;
    }
    offsets[i + 1] = offset;
  }
  return { offsets: base, results, bytes, count };
}
