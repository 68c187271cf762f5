// Writes keys into the wasm heap, where the core reads them as (address, length).
//
// One scratch area is shared by every filter (JavaScript is single-threaded per module instance, and no
// call keeps a key past its return). It only grows. Any call into the module may grow the memory, which
// detaches every view of the old buffer, so views are always taken from module.HEAPU8 after the call
// that may have grown it, never kept across calls.
import type { CuckooModule } from './wasm_module.js';
import { CuckooFilterError } from './errors.js';

/**
 * A key: a string (hashed as its UTF-8 bytes) or the bytes themselves. A string with a lone surrogate
 * (half of a UTF-16 pair) is encoded as TextEncoder does, with U+FFFD in its place, so it is the same key
 * as the string with U+FFFD written out.
 */
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

// Typed arrays are recognised and measured through the intrinsic %TypedArray% getters, never through
// instanceof or a `length` property: a Uint8Array from another realm (an iframe, a vm context, a worker's
// structured clone) is a Uint8Array, and a subclass whose `length` getter lies cannot make the library
// write past what it allocated. These getters run no user code.
const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
function intrinsicGetter(name: PropertyKey): (this: unknown) => unknown {
  return Object.getOwnPropertyDescriptor(typedArrayPrototype, name)!.get as (this: unknown) => unknown;
}
const typedArrayTag = intrinsicGetter(Symbol.toStringTag);
const typedArrayLength = intrinsicGetter('length') as (this: unknown) => number;
const typedArrayBuffer = intrinsicGetter('buffer') as (this: unknown) => ArrayBufferLike;
const typedArrayOffset = intrinsicGetter('byteOffset') as (this: unknown) => number;

/** The element count of a typed array of the given kind (any realm), or -1 for anything else. */
export function typedLength(value: unknown, kind: 'Uint8Array' | 'Uint32Array'): number {
  return typedArrayTag.call(value) === kind ? typedArrayLength.call(value) : -1;
}

/** A Uint8Array of this realm over the same bytes as `value` (a Uint8Array of any realm or subclass). */
export function ownUint8View(value: Uint8Array): Uint8Array {
  return new Uint8Array(typedArrayBuffer.call(value), typedArrayOffset.call(value), typedArrayLength.call(value));
}

/** A Uint32Array of this realm over the same elements as `value` (a Uint32Array of any realm or subclass). */
export function ownUint32View(value: Uint32Array): Uint32Array {
  return new Uint32Array(typedArrayBuffer.call(value), typedArrayOffset.call(value), typedArrayLength.call(value));
}

/** Names a value and its type for an error message: "the string '10'", "undefined", "a Map". */
export function describe(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return `the string '${value.length > 40 ? `${value.slice(0, 40)}...` : value}'`;
    case 'number':
    case 'boolean':
      return `the ${typeof value} ${String(value)}`;
    case 'bigint':
      return `the bigint ${String(value)}n`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default: {
      if (value === null) return 'null';
      if (Array.isArray(value)) return 'an array';
      const tag = typedArrayTag.call(value) as string | undefined;
      const name = tag ?? Object.prototype.toString.call(value).slice(8, -1);
      return name === 'Object' ? 'an object' : `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name}`;
    }
  }
}

function keyTypeError(key: unknown, where = 'key'): TypeError {
  return new TypeError(`${where} must be a string or a Uint8Array, got ${describe(key)}`);
}

/**
 * A batch's keys, copied and checked before anything is added: any iterable (an array, a Set, a
 * generator) is read exactly once, so getters and generators run before the first key reaches the
 * filter, and a bad key throws a TypeError naming its index with nothing changed.
 */
export function copyKeys(keys: unknown): Key[] {
  let copy: unknown[];
  if (Array.isArray(keys)) {
    copy = new Array<unknown>(keys.length);
    for (let i = 0; i < copy.length; i++) copy[i] = keys[i];
  } else if (typeof keys === 'object' && keys !== null && typeof (keys as Iterable<unknown>)[Symbol.iterator] === 'function') {
    copy = Array.from(keys as Iterable<unknown>);
  } else {
    throw new TypeError(`keys must be an iterable of keys (an array, a Set, a generator), got ${describe(keys)}` +
      (typeof keys === 'string' ? ' (for one key, use the single-key method)' : ''));
  }
  for (let i = 0; i < copy.length; i++) {
    const key = copy[i];
    if (typeof key !== 'string' && typedLength(key, 'Uint8Array') < 0) throw keyTypeError(key, `keys[${i}]`);
  }
  return copy as Key[];
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
  const length = typedLength(key, 'Uint8Array');
  if (length < 0) throw keyTypeError(key);
  const address = length > scratchSize ? ensureScratch(m, length) : scratch;
  m.HEAPU8.set(key, address); // copies the array's real length, which `length` is
  return length;
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
 * returns where. `keys` comes from copyKeys: every key is a string or a Uint8Array.
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
    bound += typeof key === 'string' ? key.length * 3 : typedLength(key, 'Uint8Array');
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
      heap.set(key, bytes + offset);
      offset += typedLength(key, 'Uint8Array');
    }
    offsets[i + 1] = offset;
  }
  return { offsets: base, results, bytes, count };
}
