// Keys as the API takes them: their type, how they are checked (any realm's typed arrays, without running
// user code), and how values are named in error messages. Writing them into the wasm heap is heap.ts's.

/**
 * A key: a string (hashed as its UTF-8 bytes), the bytes themselves, or an integer: a safe-integer number
 * or a bigint from -2^63 to 2^64 - 1, the same key as its 8 little-endian bytes (two's complement for
 * negative values), so 42 and 42n are one key and '42' another. A string with a lone surrogate (half of
 * a UTF-16 pair) is encoded as TextEncoder does, with U+FFFD in its place, so it is the same key as the
 * string with U+FFFD written out.
 */
export type Key = string | Uint8Array | number | bigint;

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

const typedArraySlice = (typedArrayPrototype as { slice: (this: unknown, start: number, end: number) => unknown })
  .slice;

/**
 * Whether a typed array cannot be read: its buffer was detached (transferred to a worker or a
 * structuredClone, or by ArrayBuffer.prototype.transfer), or it is a view past the end of a resizable
 * buffer that shrank. Its length then reads 0, and any copy of it throws; slice() of a readable view of
 * length 0 does not.
 */
function isDetached(value: unknown): boolean {
  try {
    typedArraySlice.call(value, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * The element count of a typed array of the given kind (any realm), or -1 for anything else, and for an
 * array whose buffer was detached (describe() names it so in the error the caller throws).
 */
export function typedLength(
  value: unknown,
  kind: 'Uint8Array' | 'Uint32Array' | 'BigUint64Array' | 'BigInt64Array',
): number {
  if (typedArrayTag.call(value) !== kind) return -1;
  const length = typedArrayLength.call(value);
  return length === 0 && isDetached(value) ? -1 : length;
}

/** A Uint8Array of this realm over the same bytes as `value` (a Uint8Array of any realm or subclass). */
export function ownUint8View(value: Uint8Array): Uint8Array {
  return new Uint8Array(typedArrayBuffer.call(value), typedArrayOffset.call(value), typedArrayLength.call(value));
}

/** A Uint8Array of this realm holding a copy of the bytes of `value` (a readable Uint8Array of any realm). */
function ownCopy(value: unknown): Uint8Array {
  return ownUint8View(value as Uint8Array).slice();
}

/** A Uint32Array of this realm over the same elements as `value` (a Uint32Array of any realm or subclass). */
export function ownUint32View(value: Uint32Array): Uint32Array {
  return new Uint32Array(typedArrayBuffer.call(value), typedArrayOffset.call(value), typedArrayLength.call(value));
}

/**
 * A batch of integer keys that crosses into wasm as it is: 32-bit or 64-bit elements (signed or not),
 * each the same key as that integer given alone (its 8 little-endian bytes).
 */
export type IntegerArray = Uint32Array | BigUint64Array | BigInt64Array;

/**
 * The bytes of a batch of integer keys given as a typed array (any realm): a Uint32Array (4 bytes an
 * element, each key the integer it holds, as 8 bytes) or a BigUint64Array / BigInt64Array (8 bytes an
 * element), or undefined for anything else. A view over the same memory: the batch copies it into the
 * heap one chunk at a time.
 */
export function integerArrayBytes(value: unknown): { bytes: Uint8Array; width: 4 | 8 } | undefined {
  const tag = typedArrayTag.call(value);
  const width = tag === 'Uint32Array' ? 4 : tag === 'BigUint64Array' || tag === 'BigInt64Array' ? 8 : 0;
  if (width === 0) return undefined;
  if (typedArrayLength.call(value) === 0 && isDetached(value)) throw batchTypeError(value);
  const bytes = new Uint8Array(
    typedArrayBuffer.call(value),
    typedArrayOffset.call(value),
    typedArrayLength.call(value) * width,
  );
  return { bytes, width };
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
      if (tag !== undefined && typedArrayLength.call(value) === 0 && isDetached(value)) {
        return `a ${tag} whose buffer was detached (or shrank below it)`;
      }
      const name = tag ?? Object.prototype.toString.call(value).slice(8, -1);
      return name === 'Object' ? 'an object' : `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name}`;
    }
  }
}

function batchTypeError(keys: unknown): TypeError {
  return new TypeError(
    `keys must be an iterable of keys (an array, a Set, a generator), got ${describe(keys)}` +
      (typeof keys === 'string' ? ' (for one key, use the single-key method)' : ''),
  );
}

export function keyTypeError(key: unknown, where = 'key'): TypeError {
  return new TypeError(
    `${where} must be a string, a Uint8Array or an integer (a safe-integer number or a bigint), ` +
      `got ${describe(key)}`,
  );
}

const TWO_32 = 4294967296;

/**
 * An integer key as the two 32-bit halves of its 64-bit two's complement, or undefined when `key` is not
 * an integer key; throws for a number that is not a safe integer (TypeError) or a bigint out of range
 * (RangeError), naming `where`.
 */
export function integerKeyHalves(key: unknown, where = 'key'): [low: number, high: number] | undefined {
  if (typeof key === 'number') {
    if (!Number.isSafeInteger(key)) throw keyTypeError(key, where);
    return [key >>> 0, Math.floor(key / TWO_32) >>> 0];
  }
  if (typeof key === 'bigint') {
    if (key < -(1n << 63n) || key >= 1n << 64n) throw new RangeError(`${where} ${key}n is outside -2^63 .. 2^64 - 1`);
    const v = BigInt.asUintN(64, key);
    return [Number(v & 0xffffffffn), Number(v >> 32n)];
  }
  return undefined;
}

/**
 * A batch's keys, copied and checked before anything is added: any iterable (an array, a Set, a
 * generator) is read exactly once, so getters and generators run before the first key reaches the
 * filter, and a bad key throws a TypeError naming its index with nothing changed. An iterable's Uint8Array
 * keys are copied as they are read: its code runs between keys, and a generator that parses a stream
 * yields views of one buffer it fills again for the next key. An array's and a Set's keys are taken as
 * they are (their reads run no code, but for a Proxy's or a getter's: those must not change the bytes
 * of a key they gave before).
 */
export function copyKeys(keys: unknown): Key[] {
  let copy: unknown[];
  if (Array.isArray(keys)) {
    copy = new Array<unknown>(keys.length);
    for (let i = 0; i < copy.length; i++) copy[i] = keys[i];
  } else if (
    typeof keys === 'object' &&
    keys !== null &&
    typeof (keys as Iterable<unknown>)[Symbol.iterator] === 'function' &&
    !(typedArrayTag.call(keys) !== undefined && typedArrayLength.call(keys) === 0 && isDetached(keys))
  ) {
    // A Set's iteration runs no code of the caller's (and copying costs 2.7 to 4.8 times the batch).
    const runsCode = Object.prototype.toString.call(keys) !== '[object Set]';
    copy = [];
    for (const key of keys as Iterable<unknown>)
      copy.push(runsCode && typeof key === 'object' && typedLength(key, 'Uint8Array') >= 0 ? ownCopy(key) : key);
  } else {
    throw batchTypeError(keys);
  }
  for (let i = 0; i < copy.length; i++) {
    const key = copy[i];
    if (typeof key === 'string' || (typeof key === 'number' && Number.isSafeInteger(key))) continue;
    if (typedLength(key, 'Uint8Array') < 0 && !integerKeyHalves(key, `keys[${i}]`))
      throw keyTypeError(key, `keys[${i}]`);
  }
  return copy as Key[];
}
