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

/**
 * Packs keys[start, end) (or fewer: the chunk ends early past CHUNK_BYTES) into the scratch area and
 * returns where. Every key's type is checked before anything is written, so a bad key in a batch throws
 * before the chunk changes the filter.
 */
export function packChunk(m: CuckooModule, keys: readonly Key[], start: number): PackedBatch {
  let end = start;
  let bound = 0; // an upper bound of the chunk's bytes
  let allStrings = true;
  const last = Math.min(keys.length, start + CHUNK_KEYS);
  while (end < last && (end === start || bound < CHUNK_BYTES)) {
    const key = keys[end];
    if (typeof key === 'string') bound += key.length * 3;
    else if (key instanceof Uint8Array) {
      bound += key.length;
      allStrings = false;
    } else throw keyTypeError(key);
    end++;
  }
  const count = end - start;
  const offsetsBytes = (count + 1) * 4;
  const base = ensureScratch(m, offsetsBytes + count + bound);
  const results = base + offsetsBytes;
  const bytes = results + count;
  const heap = m.HEAPU8;
  const offsets = new Uint32Array(heap.buffer, base, count + 1);
  offsets[0] = 0;

  if (allStrings) {
    // One encodeInto for the whole chunk. The byte count equals the UTF-16 length only when every
    // character is ASCII, and then each key's offset follows from its length.
    const joined = count === 1 ? (keys[start] as string)
      : start === 0 && end === keys.length ? (keys as string[]).join('') // the common one-chunk batch: no copy
        : (keys.slice(start, end) as string[]).join('');
    const written = encoder.encodeInto(joined, heap.subarray(bytes, bytes + bound)).written;
    if (written === joined.length) {
      let offset = 0;
      for (let i = 0; i < count; i++) {
        offset += (keys[start + i] as string).length;
        offsets[i + 1] = offset;
      }
      return { offsets: base, results, bytes, count };
    }
  }
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
