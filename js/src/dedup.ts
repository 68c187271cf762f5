// Line deduplication: the one engine behind LineDeduper, the stream adapters, the `cuckoo` command and the
// dedup page. The work per block (splitting, hashing, add-if-absent, gathering the new lines) happens in
// the wasm core (cpp/include/cuckoo/line_dedup.hpp), one call per block; this file sizes the filter and
// moves bytes across.
//
// The line rules, in one place (docs/DEDUP.md says the same for users):
// - a line ends at "\n"; its key is its bytes without the "\n" and without a "\r" just before it, so
//   "a\r\n" and "a\n" are the same line (a lone "\r" elsewhere is an ordinary byte);
// - the last piece of the input without "\n" is a line too (its key also drops one trailing "\r");
// - each new line is written with its own ending; the last piece, when new, gets "\n" (as awk does);
// - lines are bytes: nothing is decoded or re-encoded.
// With csv the records are CSV instead (line_dedup.hpp says how they are read and keyed).
import { CuckooFilterError, invalid } from './errors.js';
import { anotherCopy, CuckooFilter, disposeSymbol, isForeignFilter, liveHandle } from './filter.js';
import { describe, ownUint8View, typedLength } from './key_codec.js';
import {
  copyToScratch,
  heapBlocks,
  heapBytes,
  copyPairToScratch,
  heapAddressOf,
  isHeapView,
  readDedupReport,
  withOwnCopy,
  withRoomHeld,
} from './heap.js';
import { ErrorCode, LineRules } from './abi.js';
import { type CuckooModule, errorFromModule, loadedModule, ready, requireModule } from './wasm_module.js';
import { checkRate } from './options.js';

/**
 * Without an fpRate, the deduplicator aims to drop at most this many unique lines wrongly, expected, in a
 * run. Its table has 40-bit slots, each entry 39 bits when added (up to 2^25 buckets, 127 million lines)
 * and one fewer per doubling since: from DEDUP_START, from a file or a pipe alike, the expectation is
 * 0.0005 at 10 million unique lines and 0.007 at 100 million (expectedWrongDrops). Past about 130
 * million unique lines of an input of known size, the start is raised so that it holds (up to
 * BUDGET_START_LIMIT). stats.wrongDropBound says what it was.
 */
export const DEDUP_LOSS_BUDGET = 0.01;
/**
 * The largest start the loss budget asks for (about 42 MB). Past about 228 million lines of known size
 * the budget is missed from it (300 million: 0.016); a larger start would help less and less (0.008 from
 * 50 million), for as much memory as if every line were unique.
 */
export const BUDGET_START_LIMIT = 8_000_000;
/**
 * The rate the deduplicator's filter is made with when none is given: it decides only how often the table
 * may double (doubling_filter.hpp's rate_bound), and this one lets it double as far as the wasm heap can
 * hold it. The loss itself is what the 40-bit entries give (DEDUP_LOSS_BUDGET).
 */
const DEFAULT_RATE = 1e-8;
/**
 * The smallest rate at which the deduplicator's filter can grow: it doubles in place (growth 2), and a
 * table of 40-bit slots may double once while its bound, 2 x 4 / 2^39 x 1.425, stays under the rate
 * (rounded up; doubling_filter.hpp's rate_bound). A test checks it against the core.
 */
export const MIN_GROWING_FP_RATE = 2.1e-11;

/** @internal Why a line can take the heap: said wherever a line did not fit in memory. */
export const LONG_LINES = 'a line is held whole until its end: split lines longer than about 1.7 GB';
/**
 * Where the filter starts (unless told a capacity): small, so that memory follows the unique lines, not
 * the input's size; it doubles in place as they come (345 KB).
 */
export const DEDUP_START = 65_536;
/**
 * Where the filter starts when the input's size is unknown and its doublings from DEDUP_START would not
 * reach UNKNOWN_SIZE_REACH lines (rates below about 3e-10, which allow fewer doublings): about 10.5 MB.
 */
export const UNKNOWN_SIZE_START = 2_000_000;
/** How far a filter for an input of unknown size must be able to grow: more than a wasm heap holds. */
export const UNKNOWN_SIZE_REACH = 1e9;
/**
 * The largest start (about 1.4 GB), for a filter whose doublings alone would not
 * reach every line a large input can hold: growth takes it past that, as far as memory allows.
 */
export const MAX_ESTIMATED_START = 2 ** 28;
/**
 * The largest `capacity` a deduplicator takes: a first table of 40-bit slots for that many lines is 2.1 GB,
 * and one allocation in the WebAssembly heap gets at most 2 GiB (Emscripten's sbrk takes a signed 32-bit
 * step).
 */
export const MAX_DEDUP_CAPACITY = 400_000_000;
// Blocks larger than this are fed to the core in pieces, so the heap holds one piece (and its output).
const PIECE = 16 << 20;

export interface LineDeduperOptions {
  /**
   * The false-positive rate the filter keeps however far it grows, in [2.1e-11, 1): a new line is wrongly
   * taken for an earlier one, and dropped, with at most this probability. Default: chosen from the input
   * (DEDUP_LOSS_BUDGET).
   */
  fpRate?: number;
  /** Unique lines the filter starts with room for (default: estimated, see inputBytes). It grows past it. */
  capacity?: number;
  /**
   * The input's size in bytes, when it is known (a regular file, a File). The start is then estimated from
   * it and the first block's median line length, and the filter can always grow to hold every line of an
   * input that size: a wrong estimate costs memory, never a refusal.
   */
  inputBytes?: number;
  /** Records end with a NUL byte instead of "\n", and "\r" and "\n" are data (`sort -z`, `find -print0`). */
  zeroTerminated?: boolean;
  /** Write the records dropped as seen before instead of the new ones (`awk 'seen[$0]++'`). */
  duplicates?: boolean;
  /**
   * A filter of the lines seen before (an earlier run's exportFilter(), imported): its lines are dropped,
   * and the new ones are added to it, so that it remembers this run too. It stays the caller's (the
   * deduplicator never disposes it) and sets the rate, so fpRate, capacity and inputBytes do not go with
   * it. Give it growth, or it refuses lines once it is full; fill it with addIfAbsent (each key once), not
   * add(), whose copies of a key crowd new lines out of a growing filter too. If a push fails (CAPACITY_EXCEEDED,
   * OUT_OF_MEMORY), lines of that block may be in the filter without having been returned: do not keep the
   * filter as the record of that run (the command writes its file only when a run completes). It holds
   * keys, not how they were made: use it with the same fields, delimiter and record end each time.
   */
  seen?: CuckooFilter;
  /**
   * Keys from fields, in cut's syntax: "2", "2,4", "2-3", "3-" (1-based). The line is kept whole; its key
   * is the selected fields in increasing order joined by the delimiter, a field the line lacks being
   * empty ("a,b" with "2,4" has the key "b,", as awk's $2 FS $4); an open range ("3-") covers the fields
   * the line has from there. With csv, an item that is not a number or range is a column's name in the
   * header ("email", "id,email"; a name with a comma is given by its number).
   */
  fields?: string;
  /** The byte between fields: one ASCII character, default a tab (as cut), or "," with csv. */
  delimiter?: string;
  /**
   * Records are CSV (RFC 4180, as Python's csv module reads it): quoted fields may hold the delimiter,
   * doubled quotes and newlines. The first record, the header, is written and never deduplicated (nor
   * counted in the stats). A record's key is its selected fields' values (all of them without fields), so
   * "a" and a are the same value. Not with zeroTerminated.
   */
  csv?: boolean;
  /**
   * Remember only the last `window` distinct keys (1 to MAX_WINDOW): a line is new when its key is not
   * among the `window` keys most recently found new, so a key forgotten and seen again is written again.
   * When a new key comes and `window` are remembered, the one found new longest ago is deleted from the
   * filter. The filter is made for `window` keys once, at fpRate (default MIN_WINDOW_FP_RATE, 32-bit
   * fingerprints: on an endless stream wrong drops grow with the new lines whatever the rate), and never
   * grows: its memory (the filter and 8 bytes a key for the ring of what to delete) is taken at the first
   * block, the filter resident from then on and the ring as the window fills, never more. Not with seen or
   * capacity; on one thread;
   * no exportFilter() (docs/DEDUP.md, "A window").
   */
  window?: number;
}

/** The least fpRate of a window's filter: 2b / 2^32 with b = 4 (a sized filter's bound, 32-bit fingerprints). */
export const MIN_WINDOW_FP_RATE = 1.9e-9;

/**
 * Why a window runs on one thread: which key is the oldest is an order over all keys, and a thread's
 * filter sees only its share of them.
 */
export const WINDOW_ON_ONE_THREAD =
  "a window's oldest key is the oldest of all keys, and a thread's filter sees only its share of them";

/** The most keys a window remembers: its ring takes 8 bytes a key beside the filter's 4 to 5. */
export const MAX_WINDOW = 100_000_000;

/**
 * @internal The capacity of a window's filter: room for an eighth more than the window, since keys come and go and
 * a small table kept full fails a kick-out walk at times (a window of 100 at capacity 100 did).
 */
export function windowCapacity(window: number): number {
  return window + Math.floor(window / 8) + 16;
}

// A line's key holds every field a closed range names, empty when the line lacks it: a range much wider
// than the lines would make keys of delimiters.
const MAX_FIELD = 10_000;

/**
 * The field ranges of cut's LIST syntax, sorted and merged: pairs [first, last], last 0 for "to the end".
 * With `names`, an item that is not a number or range is a header name, added to it instead.
 */
export function parseFields(list: string, names?: string[]): Uint32Array {
  const ranges: [number, number][] = [];
  // Commas inside double quotes belong to a name; a quote left open (or one inside a name) is an error.
  const parts = list.match(/(?:"(?:[^"]|"")*"|[^,"])+|(?<=^|,)(?=,|$)/g) ?? [''];
  if (parts.join(',') !== list) throw invalid(`fields has an unclosed or stray double quote, got '${list}'`);
  for (const part of parts) {
    // A name in double quotes, for a column whose name is a number or holds a comma: -f '"2021"'.
    if (names && /^"(?:[^"]|"")*"$/.test(part)) {
      names.push(part.slice(1, -1).replace(/""/g, '"'));
      continue;
    }
    const m = /^(\d*)(-?)(\d*)$/.exec(part);
    if (names && (!m || (m[1] === '' && m[3] === '')) && part !== '' && !part.includes('\0')) {
      names.push(part);
      continue;
    }
    const first = m && m[1] !== '' ? Number(m[1]) : 1;
    const last = m && m[2] === '' ? first : m && m[3] !== '' ? Number(m[3]) : 0;
    if (
      !m ||
      (m[1] === '' && m[3] === '') ||
      first < 1 ||
      first > MAX_FIELD ||
      last > MAX_FIELD ||
      (m[3] !== '' && last < first)
    ) {
      throw invalid(
        `fields must be a list like 2, 2,4, 2-3 or 3- of field numbers from 1 to ${MAX_FIELD}` +
          `${names ? ', or of header names (in double quotes when a name is a number or holds a comma)' : ''}, got '${list}'`,
      );
    }
    ranges.push([first, last]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [first, last] of ranges) {
    const previous = merged[merged.length - 1];
    if (previous && (previous[1] === 0 || first <= previous[1] + 1)) {
      if (previous[1] !== 0) previous[1] = last === 0 ? 0 : Math.max(previous[1], last);
    } else {
      merged.push([first, last]);
    }
  }
  return Uint32Array.from(merged.flat());
}

/** How a deduplicator's filter starts and grows: one table that doubles in place (growth 2). */
export interface DedupPlan {
  /** The rate the table keeps however far it grows (with `automatic`, one that lets it double as far as the heap allows). */
  fpRate: number;
  /** No fpRate was given: the start was chosen for DEDUP_LOSS_BUDGET. */
  automatic: boolean;
  /** Unique lines the first table is sized for. */
  capacity: number;
  /** 2: the table doubles. */
  growth: number;
  /**
   * The table's slot width, from the rate: 40 bits at the default (16 fixed fingerprint bits and 23 that
   * doublings give up); 16 to 32 for looser rates given, the width of the last doublings where the first
   * tables have narrower slots that widen as it doubles (docs/GROWTH.md).
   */
  slotBits: number;
  /** The most doublings at this rate (each takes an index bit from the entries already there). */
  maxDoublings: number;
  /**
   * The unique lines the table holds after its last doubling: capacity x 2^maxDoublings (a run on two
   * threads, once it has ended: the sum of both tables', each its own capacity x 2^maxDoublings).
   */
  reach: number;
}

export interface LineDedupStats {
  /** Lines read (a last line without "\n" included). */
  lines: number;
  /** Lines written: the first time each was seen. */
  unique: number;
  /** Lines dropped as seen before. */
  duplicates: number;
  /**
   * The expected number of new lines wrongly dropped as false positives, at most: each new line is a false
   * positive with at most the filter's rate p at that moment, which only grows as lines are added, so the
   * core sums each piece of 4,096 lines kept at p / (1 - p) with the p after it (a dropped line is not
   * seen: each kept one stands for 1 / (1 - p) new ones; docs/DEDUP.md says which p). With a window,
   * a key wrongly dropped is dropped again at its next copies while the key it was taken for is
   * remembered, which the sum does not count: where keys come back just after the window forgets them it
   * has been 4.5 times lower than the lines dropped (docs/DEDUP.md, "A window").
   */
  wrongDropBound: number;
  /** Bytes of the filter's tables. */
  filterBytes: number;
  /** 1, or for a `seen` filter that is a chain of sub-filters, how many. */
  subFilters: number;
  /** How often the table has doubled in place (0 for a `seen` filter that does not). */
  doublings: number;
  /**
   * The width of the table's slots now (40 at the default rate, 16 to 32 at looser ones, or what a `seen`
   * filter read from an export has: each holds a fingerprint and the index bits a doubling uses), or for a
   * `seen` filter that does
   * not double, its first sub-filter's fingerprint bits.
   */
  fingerprintBits: number;
  /** The plan the filter was made with (undefined until the first block arrives, and for a window, whose filter does not grow). */
  plan?: DedupPlan;
}

const KNOWN_OPTIONS = [
  'fpRate',
  'capacity',
  'inputBytes',
  'zeroTerminated',
  'duplicates',
  'seen',
  'fields',
  'delimiter',
  'csv',
  'window',
];

/** `entryOptions`: the options of the entry that takes these besides (dedupLines(): threads), for the message. */
export function checkOptions(options: unknown, entryOptions: readonly string[] = []): LineDeduperOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null)
    throw invalid(`options must be an object, got ${describe(options)}`);
  const o = options as Record<string, unknown>;
  for (const name of Object.keys(o)) {
    if (!KNOWN_OPTIONS.includes(name))
      throw invalid(`unknown option "${name}" (known: ${[...KNOWN_OPTIONS, ...entryOptions].join(', ')})`);
  }
  for (const name of ['zeroTerminated', 'duplicates', 'csv'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'boolean')
      throw invalid(`${name} must be true or false, got ${describe(o[name])}`);
  }
  if (isForeignFilter(o.seen)) throw invalid(anotherCopy('seen', 'seen: CuckooFilter.import(filter.export())', o.seen));
  if (
    o.seen !== undefined &&
    !(
      o.seen instanceof CuckooFilter &&
      o.fpRate === undefined &&
      o.capacity === undefined &&
      o.inputBytes === undefined
    )
  ) {
    throw invalid(`seen must be a CuckooFilter, and goes without fpRate, capacity and inputBytes (its own apply)`);
  }
  if (o.csv === true && o.zeroTerminated === true)
    throw invalid('csv and zeroTerminated do not go together: CSV records end with a newline');
  if (o.fields !== undefined) {
    if (typeof o.fields !== 'string')
      throw invalid(`fields must be a string in cut's syntax (2, 2,4, 2-3, 3-), got ${describe(o.fields)}`);
    parseFields(o.fields, o.csv === true ? [] : undefined);
  }
  if (o.delimiter !== undefined && o.fields === undefined && o.csv !== true) {
    throw invalid('delimiter goes with fields or csv (it separates the fields a key is made of)');
  }
  if (
    o.delimiter !== undefined &&
    (typeof o.delimiter !== 'string' ||
      !/^[\0-\x7f]$/.test(o.delimiter) ||
      (o.csv === true && /^["\r\n]$/.test(o.delimiter)))
  ) {
    throw invalid(
      `delimiter must be one ASCII character (with csv, not a quote or line end), got ${describe(o.delimiter)}`,
    );
  }
  checkRate(o.fpRate);
  for (const name of ['capacity', 'inputBytes'] as const) {
    const v = o[name];
    if (v !== undefined && !(typeof v === 'number' && Number.isSafeInteger(v) && v >= (name === 'capacity' ? 1 : 0))) {
      throw invalid(`${name} must be an integer from ${name === 'capacity' ? 1 : 0} to 2^53 - 1, got ${String(v)}`);
    }
  }
  if (o.window !== undefined) {
    if (!(typeof o.window === 'number' && Number.isSafeInteger(o.window) && o.window >= 1 && o.window <= MAX_WINDOW))
      throw invalid(`window must be an integer from 1 to ${MAX_WINDOW}, got ${describe(o.window)}`);
    if (o.seen !== undefined)
      throw invalid('window goes without seen: a seen filter remembers every key, a window forgets the oldest');
    if (o.capacity !== undefined) throw invalid('window goes without capacity: the filter is made for the window');
  }
  if (o.capacity !== undefined && (o.capacity as number) > MAX_DEDUP_CAPACITY) {
    throw invalid(
      `capacity must be at most ${MAX_DEDUP_CAPACITY} (a first table for that many lines takes 2.1 GB, the ` +
        `most one allocation in the WebAssembly heap gets), got ${o.capacity}`,
    );
  }
  return o as LineDeduperOptions;
}

/**
 * checkOptions(), and a rate the deduplicator's filter cannot have: LineDeduper, dedupLineStream() and
 * dedupLines() all throw it when made, not at the first block. Which starts a rate allows is the core's to
 * say: before the module has loaded (a stream made before ready()), only the rate's own limit,
 * MIN_GROWING_FP_RATE, is checked here, and a start too large for it fails at the first block.
 */
export function checkDedupOptions(options: unknown, entryOptions: readonly string[] = []): LineDeduperOptions {
  const o = checkOptions(options, entryOptions);
  if (o.fpRate === undefined) return o;
  if (o.window !== undefined) {
    // A window's filter does not grow: its fingerprints take the rate at once, 32 bits at the most.
    if (o.fpRate < MIN_WINDOW_FP_RATE) {
      throw invalid(
        `fpRate ${o.fpRate} is too small for a window's filter (32-bit fingerprints at the most); use ${MIN_WINDOW_FP_RATE} or more`,
      );
    }
  } else if (loadedModule()) {
    shapeAt(o.fpRate, o.capacity ?? DEDUP_START);
  } else if (o.fpRate < MIN_GROWING_FP_RATE) {
    throw invalid(growingRateMessage(o.fpRate));
  }
  return o;
}

const growingRateMessage = (fpRate: number): string =>
  `fpRate ${fpRate} is too small for a filter that grows: each doubling takes a bit from the ` +
  `fingerprints already stored, and below ${MIN_GROWING_FP_RATE} (more for a start past 63 million lines) even 40-bit slots leave no bit to give`;

/** The core's table for this rate and start (in_place_shape), or undefined when it could not double. */
function shapeOf(fpRate: number, capacity: number): { maxDoublings: number; slotBits: number } | undefined {
  const shape = requireModule().inPlaceShape(fpRate, capacity);
  return shape % 256 < 1 ? undefined : { maxDoublings: shape % 256, slotBits: shape >> 8 };
}

// shapeOf(), refused below MIN_GROWING_FP_RATE, the documented floor, as before the module has loaded (the
// core's own is a little lower for small starts: 2.07e-11 was taken once it had loaded and refused before:
// an outside pass, 2026-12-02).
function shapeAt(fpRate: number, capacity: number): { maxDoublings: number; slotBits: number } {
  const shape = fpRate < MIN_GROWING_FP_RATE ? undefined : shapeOf(fpRate, capacity);
  if (shape === undefined) throw invalid(growingRateMessage(fpRate));
  return shape;
}

/**
 * @internal The unique lines a deduplicator's filter must be able to reach for an input of `inputBytes`
 * (each unique line but the empty one takes at least 2 bytes), or UNKNOWN_SIZE_REACH for an unknown size.
 */
export function linesToReach(inputBytes: number | undefined): number {
  return inputBytes !== undefined && inputBytes > 0
    ? Math.min(Math.floor(inputBytes / 2) + 1, UNKNOWN_SIZE_REACH)
    : UNKNOWN_SIZE_REACH;
}

/**
 * How a deduplicator sizes its filter: it starts at DEDUP_START unique lines (or `capacity`) and doubles
 * in place as unique lines come, so that its memory follows them, whatever the input's size. It must be
 * able to reach every line an input of inputBytes can hold (each unique line but the empty one takes at
 * least 2 bytes), or UNKNOWN_SIZE_REACH lines when the size is unknown; where its doublings do not get
 * there from the start, the start is raised (for a known size; an unknown one keeps it, and the error at
 * the limit says so). `firstBlock`, when given, is the start of the input: a small input starts no larger
 * than its lines.
 */
export function planDedup(options: LineDeduperOptions = {}, firstBlock?: Uint8Array): DedupPlan {
  const o = checkOptions(options);
  requireModule();
  const automatic = o.fpRate === undefined;
  const fpRate = o.fpRate ?? DEFAULT_RATE;
  const known = o.inputBytes !== undefined && o.inputBytes > 0;
  let capacity = o.capacity ?? DEDUP_START;
  if (o.capacity === undefined && known) {
    const sample = firstBlock ?? new Uint8Array(0);
    const end = o.zeroTerminated ? 0 : 10;
    const lengths: number[] = [];
    for (
      let from = 0, at = sample.indexOf(end);
      at !== -1 && lengths.length < 8192;
      from = at + 1, at = sample.indexOf(end, from)
    ) {
      lengths.push(at + 1 - from);
    }
    // The median of its first lines, not the mean: one long line (a header, a blob) must not make a large
    // file look like a few lines. No line end in the sample: its lines are at least as long as the sample.
    lengths.sort((a, b) => a - b);
    const typicalLine = lengths.length > 0 ? lengths[lengths.length >> 1] : Math.max(sample.length, 1);
    const estimated = Math.max(1, Math.ceil((o.inputBytes! / typicalLine) * 1.1));
    // A sample that is not the whole input is its start only: then never below a pipe's start where the
    // size can hold that many lines (110 lines of 40 KB, then 5 million short ones, started at 1,240 lines
    // and missed the budget by more than the same bytes from a pipe).
    const whole = sample.length >= o.inputBytes!;
    capacity = Math.min(capacity, whole ? estimated : Math.max(estimated, Math.floor(o.inputBytes! / 2) + 1));
    // The loss budget, if every line were unique: a larger start doubles fewer times (up to a start of
    // BUDGET_START_LIMIT: past 5.6 million lines the budget cannot be met at any start). A sample of a few
    // lines that is not the whole input (a first file of long lines, then short ones) tells too little:
    // the budget then plans for as many lines as the size can hold.
    if (automatic) {
      const reliable = lengths.length >= 64 || sample.length >= o.inputBytes!;
      const lines = reliable ? estimated : Math.ceil(o.inputBytes! / 2);
      const limit = Math.min(lines, BUDGET_START_LIMIT);
      while (capacity < limit && expectedWrongDrops(lines, capacity) > DEDUP_LOSS_BUDGET) {
        capacity = Math.min(limit, Math.ceil(capacity * 1.25));
      }
    }
  }
  const needed = linesToReach(known ? o.inputBytes : undefined);
  let { maxDoublings, slotBits } = shapeAt(fpRate, capacity);
  // A larger start may double fewer times (past 2^25 buckets an entry has fewer bits to give): raised
  // until it reaches, or cannot be raised further.
  for (let tries = 0; capacity * 2 ** maxDoublings < needed && tries < 8; tries++) {
    const before = capacity;
    if (known) {
      capacity = Math.min(MAX_ESTIMATED_START, Math.max(capacity, Math.ceil(needed / 2 ** maxDoublings)));
    } else if (o.capacity === undefined) {
      capacity = Math.max(capacity, Math.min(UNKNOWN_SIZE_START, Math.ceil(needed / 2 ** maxDoublings)));
    }
    // A start so large that it could not double at this rate: the one before, which reaches less.
    const raised = capacity === before ? undefined : shapeOf(fpRate, capacity);
    if (raised === undefined) {
      capacity = before;
      break;
    }
    ({ maxDoublings, slotBits } = raised);
  }
  return { fpRate, automatic, capacity, growth: 2, slotBits, maxDoublings, reach: capacity * 2 ** maxDoublings };
}

/**
 * The expected number of `lines` unique lines wrongly dropped, at most, going into a table of 40-bit
 * slots that starts with room for `capacity` (95% of its slots) and doubles when full (a doubled table at
 * 90% of its slots: doubling_filter.hpp's kFillPercent). An entry added
 * after g doublings has 16 + e bits, e = min(23, 48 - bit_width(N0 - 1) - g) (doubling_filter.hpp's
 * fresh_ext_bits), and raises the rate by 2b / slots x 2^-(16 + e) for good (a doubling halves its share
 * of the slots and its fingerprint's length both), so the sum over the lines after it is a sum per doubling.
 */
export function expectedWrongDrops(lines: number, capacity: number): number {
  let slots = Math.max(1024, Math.ceil(capacity / 0.95 / 4) * 4);
  const positionLeft = 48 - (32 - Math.clz32(slots / 4 - 1));
  let sum = 0;
  for (let added = 0, g = 0; added < lines; slots *= 2, g++) {
    const perEntry = 8 / 2 ** (16 + Math.max(0, Math.min(23, positionLeft - g)));
    const until = Math.min(lines, Math.floor((g === 0 ? 0.95 : 0.9) * slots));
    const n = until - added;
    sum += (perEntry * (n * lines - ((added + 1 + until) * n) / 2)) / slots;
    added = until;
  }
  return sum;
}

/**
 * @internal The core's engine over `filter`, with the options' record rules and key fields; throws what the
 * core reports (a field list it refuses, no memory), the engine then destroyed.
 */
export function makeEngine(m: CuckooModule, filter: CuckooFilter, options: LineDeduperOptions): number {
  const { csv, fields, delimiter = csv ? ',' : '\t' } = options;
  const rules =
    (options.zeroTerminated ? LineRules.zeroTerminated : 0) |
    (options.duplicates ? LineRules.duplicates : 0) |
    (csv ? LineRules.csv : 0);
  const engine = m.dedupCreate(liveHandle(filter), rules);
  if (engine === 0) throw errorFromModule(m);
  if (fields !== undefined || csv) {
    const names: string[] = [];
    const ranges = fields === undefined ? new Uint32Array(0) : parseFields(fields, csv ? names : undefined);
    // The ranges and the names (each ended by NUL) in one piece of scratch memory.
    const nameBytes = new TextEncoder().encode(names.map((n) => `${n}\0`).join(''));
    const [rangesAt, namesAt] = copyPairToScratch(
      m,
      new Uint8Array(ranges.buffer, ranges.byteOffset, ranges.byteLength),
      nameBytes,
    );
    if (
      m.dedupSelect(engine, delimiter.charCodeAt(0), rangesAt, ranges.length / 2, namesAt, nameBytes.length) !==
      ErrorCode.ok
    ) {
      const error = errorFromModule(m);
      m.dedupDestroy(engine);
      throw error;
    }
  }
  return engine;
}

/** Frees what a deduplicator holds in the wasm heap if it is dropped without end() or dispose(). */
const orphans =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ m: CuckooModule; engine: number; filter?: CuckooFilter }>(({ m, engine, filter }) => {
        m.dedupDestroy(engine);
        filter?.dispose(); // not a `seen` filter: it is the caller's
      })
    : undefined;

/**
 * Deduplicates lines over a stream of byte blocks: push(block) returns the block's lines that were not
 * seen before (a line cut by the block's end is completed by the next block), end() returns the last
 * one. Memory: the filter (5.6 to 11.1 bytes per unique line, from a file or a pipe: docs/DEDUP.md) and
 * one block.
 *
 *   await ready();
 *   const d = new LineDeduper({ fpRate: 1e-6 });
 *   for await (const block of input) out.write(d.push(block));
 *   out.write(d.end());
 *   console.log(d.stats);
 */
export class LineDeduper {
  private readonly m: CuckooModule;
  private readonly options: LineDeduperOptions;
  private filter: CuckooFilter | undefined;
  private engine = 0;
  private plan: DedupPlan | undefined;
  private state: 'open' | 'ended' | 'failed' | 'disposed' = 'open';
  private final: LineDedupStats | undefined;
  private failure: CuckooFilterError | undefined;
  // The main deduplicator of a partitioned run (share()): the cuts, its calls awaiting resolve(), and an
  // end() awaiting its own.
  private cuts: Uint32Array | undefined;
  private pending = 0;
  private ending = false;

  /** Needs the module loaded: `await ready()` first, or use `await LineDeduper.create(options)`. */
  constructor(options: LineDeduperOptions = {}) {
    this.m = requireModule();
    this.options = checkDedupOptions(options);
  }

  /**
   * @internal `count` blocks of `size` bytes in the WebAssembly heap, until free() (the `cuckoo` command's
   * for as long as it runs), and whether a block is a view of the heap (for pushInHeap(): the `cuckoo`
   * command reads its input there).
   */
  static inputBlocks(
    size: number,
    count: number,
  ):
    | { view(i: number): Uint8Array; memory(): ArrayBufferLike; holds(view: Uint8Array): boolean; free(): void }
    | undefined {
    const m = requireModule();
    const blocks = heapBlocks(m, size, count);
    return blocks && { ...blocks, holds: (view: Uint8Array) => isHeapView(m, view) };
  }

  /** ready() and new LineDeduper(options) in one call. */
  static async create(options?: LineDeduperOptions): Promise<LineDeduper> {
    await ready();
    return new LineDeduper(options);
  }

  /**
   * The new lines among the block's complete lines (with the line carried from earlier blocks in front),
   * each with its own ending. Throws CAPACITY_EXCEEDED at the chain's limit and OUT_OF_MEMORY when the
   * wasm heap is full; the deduplicator is then done (its memory freed) and every later call throws the
   * same error.
   */
  push(block: Uint8Array): Uint8Array {
    return this.pushView(block).slice();
  }

  /**
   * push() without the copy: the new lines as a view of the WebAssembly heap, valid only until the next
   * call into this package (write it out or copy it before then). For writers that consume it at once.
   */
  pushView(block: Uint8Array): Uint8Array {
    this.checkOpen('push');
    if (typedLength(block, 'Uint8Array') < 0) throw new TypeError(`block must be a Uint8Array, got ${describe(block)}`);
    block = ownUint8View(block); // another realm's, or a subclass: read it through a view of this realm
    if (block.length === 0) return new Uint8Array(0);
    // A view of the heap (another deduplicator's output) would be detached by a call that grows the heap:
    // the filter made at the first block, or the copy into the scratch area.
    if (isHeapView(this.m, block)) block = block.slice();
    this.start(block);
    if (block.length <= PIECE) return this.call(block);
    const parts: Uint8Array[] = [];
    for (let at = 0; at < block.length; at += PIECE) parts.push(this.call(block.subarray(at, at + PIECE)).slice());
    return concat(parts);
  }

  /**
   * pushView() for a block that is already in the WebAssembly heap, in memory the caller allocated there
   * (never a view the package returned): the core reads it in place, without the copy (for the `cuckoo`
   * command, which reads its input into the heap).
   * @internal
   */
  pushInHeap(block: Uint8Array): Uint8Array {
    this.checkOpen('push');
    const address = heapAddressOf(this.m, block);
    if (address === undefined) throw invalid("pushInHeap() takes a view of the module's heap");
    const { length } = block;
    if (length === 0) return new Uint8Array(0);
    // The plan reads the first block after making a probe filter, which may grow the heap and detach the
    // view: it reads a copy.
    if (this.engine === 0) this.start(block.slice());
    return this.call(undefined, address, length);
  }

  /**
   * The last line, if the input did not end with "\n" and the line is new (with "\n" added). The filter
   * stays for exportFilter() until dispose().
   */
  end(): Uint8Array {
    this.checkOpen('end');
    this.start(new Uint8Array(0));
    const out = this.call(undefined).slice();
    if (this.cuts) {
      this.ending = true; // ended by its resolve()
      return out;
    }
    this.final = this.stats;
    this.state = 'ended';
    return out;
  }

  /**
   * The input goes on with another one (the next file), as awk reads several: a last line without "\n"
   * ends here (and is returned, with "\n" added, if new). With csv, the next record is that input's
   * header: it must have the first header's fields (else INVALID_ARGUMENT) and is not written; an input
   * that ends inside a quoted field is INVALID_ARGUMENT too.
   */
  nextInput(): Uint8Array {
    this.checkOpen('nextInput');
    if (this.engine === 0) return new Uint8Array(0); // nothing read yet: the next input is the first
    if (this.m.dedupNextInput(this.engine) !== ErrorCode.ok) this.fail();
    if (this.cuts) this.pending++;
    return this.report().output.slice();
  }

  /**
   * @internal Makes this deduplicator the main one of a partitioned run (line_dedup.hpp, "Partitioned
   * runs"; the `cuckoo` command's threads), before its first block: it decides the keys whose partition
   * falls in [0, cuts[0]) of 2^32 and gives thread t the hashes of [cuts[t - 1], cuts[t]) (outgoing()).
   * Its calls (push, nextInput, end) then return nothing: resolve() returns each call's lines, in order,
   * once the helpers' verdicts for its hashes are supplied. At most two calls may wait.
   */
  share(cuts: Uint32Array): void {
    this.checkOpen('share');
    if (this.engine !== 0 || this.options.seen) throw invalid('share() comes before the first block, without seen');
    this.cuts = cuts.slice();
  }

  /** @internal The main deduplicator's calls awaiting resolve(). */
  get pendingCalls(): number {
    return this.pending;
  }

  /**
   * @internal The hashes (u64, little-endian) the main deduplicator's last call gave thread `thread`, as a view of
   * the heap valid until the next call.
   */
  outgoing(thread: number): Uint8Array {
    if (this.engine === 0) return new Uint8Array(0);
    const n = this.m.dedupOutgoingSize(this.engine, thread);
    return heapBytes(this.m, this.m.dedupOutgoing(this.engine, thread), 8 * n);
  }

  /**
   * @internal The main deduplicator: the lines of its oldest call awaiting resolve(), decided with each
   * helper's verdicts for that call's hashes (verdicts[i]: thread i + 1's), as a view of the heap valid
   * until the next call.
   */
  resolve(verdicts: readonly Uint8Array[]): Uint8Array {
    this.checkOpen('resolve');
    // Not in the scratch memory, where a block pushed as a copy may still lie, pending.
    for (const [i, v] of verdicts.entries()) {
      const code = withOwnCopy(this.m, v, 1, "a thread's verdicts", (address) =>
        this.m.dedupSupply(this.engine, i + 1, address, v.length),
      );
      if (code !== ErrorCode.ok) this.fail();
    }
    if (this.m.dedupResolve(this.engine) !== ErrorCode.ok) this.fail();
    this.pending--;
    const out = this.report().output;
    if (this.ending && this.pending === 0) {
      this.final = this.stats;
      this.state = 'ended';
    }
    return out;
  }

  /**
   * @internal A helper of a partitioned run: decides hashes a main deduplicator gave it (outgoing()) with
   * its filter; a verdict byte each (1 new, 0 seen), as a view of the heap valid until the next call.
   * `firstBlock`: the input's start, which the filter made at the first call is planned from.
   */
  decide(hashes: Uint8Array, firstBlock = new Uint8Array(0)): Uint8Array {
    this.checkOpen('decide');
    this.start(firstBlock);
    const count = hashes.length / 8;
    const code = withOwnCopy(this.m, hashes, 8, 'the hashes to decide', (address) =>
      this.m.dedupDecide(this.engine, address, count),
    );
    if (code !== ErrorCode.ok) this.fail();
    return this.report().output;
  }

  /**
   * The filter of the lines seen so far, in the export format (CuckooFilter.import reads it). Not for a
   * window, whose filter holds the last keys only and cannot grow.
   */
  exportFilter(): Uint8Array {
    if (this.options.window !== undefined)
      throw invalid("a window's filter holds only its last keys and cannot grow: it is not the lines seen so far");
    if (this.state !== 'ended') this.checkOpen('exportFilter');
    this.start(new Uint8Array(0));
    return this.filter!.export();
  }

  /** Counts so far (final after end()). */
  get stats(): LineDedupStats {
    if (this.final) return { ...this.final };
    const report = this.engine !== 0 ? this.report() : undefined;
    const lines = report ? report.lines : 0;
    const unique = report ? report.unique : 0;
    // A seen filter is the caller's, who may have disposed it: then it has nothing to say.
    const f = this.filter && !(this.options.seen && isDisposed(this.filter)) ? this.filter : undefined;
    return {
      lines,
      unique,
      duplicates: lines - unique,
      wrongDropBound: report ? report.wrongDrops : 0,
      filterBytes: f ? f.byteLength : 0,
      subFilters: f ? f.subFilterCount : 0,
      doublings: f ? f.doublings : 0,
      fingerprintBits: f ? f.fingerprintBits : 0,
      plan: this.plan,
    };
  }

  /** Frees the filter; later calls throw DISPOSED (stats stay readable). Disposing again does nothing. */
  dispose(): void {
    if (this.state === 'disposed') return;
    if (!this.final) this.final = this.stats;
    this.state = 'disposed';
    this.free();
  }

  [disposeSymbol](): void {
    this.dispose();
  }

  private checkOpen(what: string): void {
    if (this.state === 'open') return;
    if (this.state === 'failed') throw this.failure!;
    if (this.state === 'disposed') throw new CuckooFilterError('DISPOSED', 'this LineDeduper was disposed');
    throw invalid(`${what}() after end(): a LineDeduper deduplicates one input`);
  }

  // The filter is made at the first block, whose lines tell the typical line length.
  private start(firstBlock: Uint8Array): void {
    if (this.engine !== 0) return;
    const { seen, window } = this.options;
    const plan = seen ? undefined : planDedup(this.options, firstBlock);
    // A window's filter is sized for it, at fpRate or by default the least rate it can have: an endless
    // stream's wrong drops grow with its new lines, whatever the rate, so each costs the least it can
    // (about 1.6e-9 with 32-bit fingerprints, for 7% more memory than the 30 bits of a pipe's 1e-8).
    const filter =
      seen ??
      (window
        ? new CuckooFilter({ capacity: windowCapacity(window), fpRate: this.options.fpRate ?? MIN_WINDOW_FP_RATE })
        : this.makeFilter(plan!, firstBlock.length));
    let engine: number;
    try {
      engine = makeEngine(this.m, filter, this.options);
      if (window && this.m.dedupWindow(engine, window) !== ErrorCode.ok) {
        const error = errorFromModule(this.m);
        this.m.dedupDestroy(engine);
        throw error;
      }
    } catch (error) {
      if (!seen) filter.dispose();
      throw error;
    }
    if (this.cuts) {
      const bytes = new Uint8Array(this.cuts.buffer, this.cuts.byteOffset, this.cuts.byteLength);
      if (this.m.dedupShare(engine, copyToScratch(this.m, bytes), this.cuts.length + 1) !== ErrorCode.ok) {
        const error = errorFromModule(this.m);
        this.m.dedupDestroy(engine);
        filter.dispose();
        throw error;
      }
    }
    // A very large start doubles fewer times than the rate allows (the position's bits: doubling_filter.hpp),
    // and a very small one has the smallest table's room (256 buckets: 921 lines), which the messages say.
    if (plan && (filter.maxDoublings < plan.maxDoublings || filter.capacity > plan.capacity)) {
      plan.maxDoublings = Math.min(plan.maxDoublings, filter.maxDoublings);
      plan.capacity = Math.max(plan.capacity, filter.capacity);
      plan.reach = plan.capacity * 2 ** plan.maxDoublings;
    }
    this.plan = window ? undefined : plan; // a plan is how a filter grows
    this.filter = filter;
    this.engine = engine;
    orphans?.register(this, { m: this.m, engine, filter: seen ? undefined : filter }, this);
  }

  // The plan's filter, made on the heap's top, with room for what the blocks allocate held below it while
  // it is made and given back then (a block's copy in the heap, the engine's output, which may grow to
  // twice a block, and its records: under 4.5 times a block, or a piece of one): then nothing lies above
  // the table, which doubles where it is (table_memory.hpp's grow_block) instead of moving and leaving its
  // old place behind, as much memory again as the table (RSS of a 20M-line file, whose table starts at
  // 34 MB: 310 MiB -> 211-217 MiB). The room is address space only until the blocks use it.
  private makeFilter(plan: DedupPlan, blockBytes: number): CuckooFilter {
    return withRoomHeld(
      this.m,
      5 * Math.min(blockBytes, PIECE) + 65_536,
      () => new CuckooFilter({ capacity: plan.capacity, fpRate: plan.fpRate, growth: 2 }),
    );
  }

  private report(): ReturnType<typeof readDedupReport> {
    return readDedupReport(this.m, this.m.dedupReport(this.engine));
  }

  // One call into the core: a piece of input (copied into the heap first), `length` bytes already in the
  // heap at `address`, or neither for the end.
  private call(piece: Uint8Array | undefined, address?: number, length = 0): Uint8Array {
    // A seen filter is the caller's, who may dispose it: the core must not read freed memory.
    if (this.options.seen) liveHandle(this.options.seen);
    let code: number;
    if (piece) {
      code = this.m.dedupPush(this.engine, copyToScratch(this.m, piece), piece.length);
    } else if (address !== undefined) {
      code = this.m.dedupPush(this.engine, address, length);
    } else {
      code = this.m.dedupFinish(this.engine);
    }
    if (code !== ErrorCode.ok) this.fail();
    if (this.cuts) this.pending++;
    return this.report().output; // after the call: it may have grown the heap
  }

  private fail(): never {
    const error = errorFromModule(this.m);
    const stats = this.stats;
    const plan = this.plan;
    this.failure =
      error.code === 'INVALID_ARGUMENT'
        ? error
        : error.code === 'CAPACITY_EXCEEDED' && /\bcopies\b/.test(error.message)
          ? new CuckooFilterError('CAPACITY_EXCEEDED', `${error.message} (after ${stats.unique} unique lines)`)
          : error.code === 'CAPACITY_EXCEEDED'
            ? new CuckooFilterError(
                'CAPACITY_EXCEEDED',
                `the filter is full after ${stats.unique} unique lines` +
                  (!plan
                    ? ''
                    : `: it started ` +
                      `with room for ${plan.capacity} and doubled ${plan.maxDoublings} times, the most fpRate ${plan.fpRate} allows (each ` +
                      `doubling takes a bit from the fingerprints already stored); start with a larger capacity, or allow a larger fpRate`),
              )
            : new CuckooFilterError(
                'OUT_OF_MEMORY',
                `${error.message} (after ${stats.unique} unique lines: the WebAssembly heap holds at most 4 GiB` +
                  // The core says "a line or the output" when the filter was not what failed.
                  (/\ba line\b/.test(error.message)
                    ? `, and ${LONG_LINES})`
                    : `, and the filter takes ${stats.filterBytes} bytes: allow a larger fpRate for shorter fingerprints)`),
              );
    this.final = stats;
    this.state = 'failed';
    this.free();
    throw this.failure;
  }

  private free(): void {
    if (this.engine !== 0) {
      orphans?.unregister(this);
      this.m.dedupDestroy(this.engine);
      this.engine = 0;
    }
    if (!this.options.seen) this.filter?.dispose();
    this.filter = undefined;
  }
}

function isDisposed(filter: CuckooFilter): boolean {
  try {
    void filter.size;
    return false;
  } catch {
    return true;
  }
}

/** A deduplicator's stats, or zeros before it exists (an adapter makes it at the first block). */
export function statsOf(deduper: LineDeduper | undefined): LineDedupStats {
  return (
    deduper?.stats ?? {
      lines: 0,
      unique: 0,
      duplicates: 0,
      wrongDropBound: 0,
      filterBytes: 0,
      subFilters: 0,
      doublings: 0,
      fingerprintBits: 0,
    }
  );
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A web TransformStream that deduplicates lines, with the deduplicator's stats (final once it has flushed). */
export type LineDedupStream = TransformStream<Uint8Array, Uint8Array> & { readonly stats: LineDedupStats };

/**
 * A web TransformStream of bytes to the bytes of the new lines (browsers, workers, Node 18+):
 * `file.stream().pipeThrough(dedupLineStream())`. Loads the module itself (no ready() needed first).
 * The deduplicator's memory is freed as soon as the stream ends, however it ends: flushed, a chunk it
 * refuses, its source erroring or its reader cancelling (the last two through the transformer's cancel
 * hook, which Node 20+, Chromium and Firefox call; elsewhere, when the stream is garbage-collected).
 */
export function dedupLineStream(options?: LineDeduperOptions): LineDedupStream {
  const checked = checkDedupOptions(options);
  let deduper: LineDeduper | undefined;
  let ended = false;
  const end = () => {
    ended = true;
    deduper?.dispose(); // the stats stay
  };
  // Any error ends the stream, and the deduplicator is freed before it propagates; one that arrives after
  // the stream ended (while the module loaded) is freed at once, and its use throws DISPOSED.
  const run = async (use: (d: LineDeduper) => void) => {
    try {
      deduper ??= await LineDeduper.create(checked);
      if (ended) end();
      use(deduper);
    } catch (error) {
      end();
      throw error;
    }
  };
  const transformer: Transformer<Uint8Array, Uint8Array> & { cancel(reason: unknown): void } = {
    transform: (chunk, controller) =>
      run((d) => {
        const out = d.push(chunk);
        if (out.length > 0) controller.enqueue(out);
      }),
    flush: (controller) =>
      run((d) => {
        const out = d.end();
        end();
        if (out.length > 0) controller.enqueue(out);
      }),
    cancel: end,
  };
  const stream = new TransformStream<Uint8Array, Uint8Array>(transformer);
  return Object.defineProperty(stream, 'stats', { get: () => statsOf(deduper) }) as LineDedupStream;
}
