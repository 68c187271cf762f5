// The options of a filter, and their checks where the option names are the user's: the twin of the core's
// options.hpp, which checks again (sizing limits) before it allocates anything.
import { Defaults, Limits } from './abi.js';
import { type CuckooFilterError, invalid } from './errors.js';
import type { CreateArguments } from './heap.js';
import { describe } from './key_codec.js';

/** Options of a new filter. Give `fpRate` or `fingerprintBits`, not both (neither: fpRate 0.001). */
export type CuckooFilterOptions = CuckooFilterShape &
  (
    | {
        /** Target false-positive rate at `capacity` items, in (0, 1). Picks the fingerprint size. */
        fpRate?: number;
        fingerprintBits?: undefined;
      }
    | {
        fpRate?: undefined;
        /** Fingerprint size in bits, 4 to 32. */
        fingerprintBits: number;
      }
  );

/** The options other than the fingerprint size (CuckooFilterOptions). */
export interface CuckooFilterShape {
  /** How many items the filter must hold (an integer >= 1). The table is sized so they fill <= 95% of it. */
  capacity: number;
  /** Slots per bucket: 2, 4 (default) or 8. */
  bucketSize?: 2 | 4 | 8;
  /** Evictions tried before an add gives up (and is undone); 0 to 100000, default 500. */
  maxKicks?: number;
  /** Hash seed, an integer 0 to 2^64 - 1 (a number up to 2^53 - 1, or a bigint). Default: a fixed constant. */
  seed?: number | bigint;
  /**
   * Growth factor, an integer 2 to 16 (default: no growth), so that the filter needs no capacity known in
   * advance; the false-positive rate stays under fpRate however far it grows (docs/GROWTH.md).
   * Growth 2 doubles the table in place when it is full. Its slot width comes from fpRate (16 bits from
   * about 0.0028 up, 20 from 1.9e-4, 24 from 1.2e-5, 32 from 4.5e-8, else 40: `fingerprintBits`), and it
   * doubles up to 23 times, as far as memory allows, at any fpRate from about 2e-9 up (fewer times below
   * it: maxDoublings).
   * Any other factor, or growth 2 with maxSubFilters, semiSorted, fingerprintBits or a bucketSize other
   * than 4, chains sub-filters of `growth` times the last one's capacity instead; every lookup visits each.
   */
  growth?: number;
  /** With growth: a chain of at most this many sub-filters, 1 to 32 (default 16; fewer if fingerprints would pass 32 bits). */
  maxSubFilters?: number;
  /**
   * Semi-sorted buckets (bucketSize 4, fingerprints of 5 to 32 bits): each bucket keeps its four
   * fingerprints sorted and stores their top four bits as one 12-bit code, so a fingerprint takes one bit
   * less for the same false-positive rate (a 0.001 filter: 12.63 bits per item instead of 13.68), for
   * somewhat slower adds and lookups. Default: off. An fpRate that 4-bit fingerprints meet gets 5.
   */
  semiSorted?: boolean;
}

const OPTION_NAMES = new Set([
  'capacity',
  'fpRate',
  'fingerprintBits',
  'bucketSize',
  'maxKicks',
  'seed',
  'growth',
  'maxSubFilters',
  'semiSorted',
]);
/** The one check of an fpRate option (a filter's, a deduplicator's): undefined, or a number in (0, 1). */
export function checkRate(fpRate: unknown): void {
  if (fpRate !== undefined && !(typeof fpRate === 'number' && fpRate > 0 && fpRate < 1)) {
    throw invalid(`fpRate must be a number greater than 0 and less than 1, got ${describe(fpRate)}`);
  }
}

export function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

// Checks types and ranges here, where the option names are the user's; the core checks again (sizing
// limits) before it allocates anything.
export function validateOptions(options: unknown): CreateArguments {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalid(`options must be an object like { capacity: 1000000 }, got ${describe(options)}`);
  }
  const o = options as Record<string, unknown>;
  for (const name of Object.keys(o)) {
    if (!OPTION_NAMES.has(name)) {
      throw invalid(`unknown option "${name}" (known: ${[...OPTION_NAMES].join(', ')})`);
    }
  }
  if (!isInteger(o.capacity, 1, Number.MAX_SAFE_INTEGER)) {
    throw invalid(`capacity must be an integer from 1 to 2^53 - 1, got ${describe(o.capacity)}`);
  }
  if (o.fpRate !== undefined && o.fingerprintBits !== undefined) {
    throw invalid('give either fpRate or fingerprintBits, not both');
  }
  checkRate(o.fpRate);
  const { minFingerprintBits, maxFingerprintBits } = Limits;
  if (o.fingerprintBits !== undefined && !isInteger(o.fingerprintBits, minFingerprintBits, maxFingerprintBits)) {
    throw invalid(
      `fingerprintBits must be an integer from ${minFingerprintBits} to ${maxFingerprintBits}, got ${describe(o.fingerprintBits)}`,
    );
  }
  if (o.bucketSize !== undefined && o.bucketSize !== 2 && o.bucketSize !== 4 && o.bucketSize !== 8) {
    throw invalid(`bucketSize must be 2, 4 or 8, got ${describe(o.bucketSize)}`);
  }
  if (o.maxKicks !== undefined && !isInteger(o.maxKicks, 0, Limits.maxKicks)) {
    throw invalid(`maxKicks must be an integer from 0 to ${Limits.maxKicks}, got ${describe(o.maxKicks)}`);
  }
  let seedLow: number = Defaults.seedLow;
  let seedHigh: number = Defaults.seedHigh;
  if (o.seed !== undefined) {
    let seed: bigint;
    if (typeof o.seed === 'bigint') seed = o.seed;
    else if (isInteger(o.seed, 0, Number.MAX_SAFE_INTEGER)) seed = BigInt(o.seed);
    else
      throw invalid(
        `seed must be an integer from 0 to 2^64 - 1 (a number up to 2^53 - 1, or a bigint), got ${describe(o.seed)}`,
      );
    if (seed < 0n || seed >= 1n << 64n) throw invalid(`seed must be from 0 to 2^64 - 1, got ${seed}`);
    seedLow = Number(seed & 0xffffffffn);
    seedHigh = Number(seed >> 32n);
  }
  if (o.growth !== undefined && !isInteger(o.growth, Limits.minGrowth, Limits.maxGrowth)) {
    throw invalid(
      `growth must be an integer from ${Limits.minGrowth} to ${Limits.maxGrowth}, got ${describe(o.growth)}`,
    );
  }
  if (o.maxSubFilters !== undefined) {
    if (o.growth === undefined) throw invalid('maxSubFilters needs growth');
    if (!isInteger(o.maxSubFilters, 1, Limits.maxSubFilters)) {
      throw invalid(
        `maxSubFilters must be an integer from 1 to ${Limits.maxSubFilters}, got ${describe(o.maxSubFilters)}`,
      );
    }
  }
  if (o.semiSorted !== undefined) {
    if (typeof o.semiSorted !== 'boolean')
      throw invalid(`semiSorted must be true or false, got ${describe(o.semiSorted)}`);
    const { semiSortedBucketSize, minSemiSortedFingerprintBits } = Limits;
    if (o.semiSorted && o.bucketSize !== undefined && o.bucketSize !== semiSortedBucketSize) {
      throw invalid(`semiSorted needs bucketSize ${semiSortedBucketSize}, got ${describe(o.bucketSize)}`);
    }
    if (
      o.semiSorted &&
      o.fingerprintBits !== undefined &&
      (o.fingerprintBits as number) < minSemiSortedFingerprintBits
    ) {
      throw invalid(
        `semiSorted needs fingerprintBits from ${minSemiSortedFingerprintBits} to ${maxFingerprintBits}, got ${describe(o.fingerprintBits)}`,
      );
    }
  }
  return {
    capacity: o.capacity,
    fpRate: o.fpRate as number | undefined,
    fingerprintBits: o.fingerprintBits as number | undefined,
    bucketSize: o.bucketSize as number | undefined,
    maxKicks: (o.maxKicks as number | undefined) ?? Defaults.maxKicks,
    seedLow,
    seedHigh,
    growth: o.growth as number | undefined,
    maxSubFilters: o.maxSubFilters as number | undefined,
    semiSorted: o.semiSorted as boolean | undefined,
  };
}

/**
 * The error of a filter the core would not make from `options` (checked by validateOptions): its
 * INVALID_ARGUMENT names the options as they were given, and the rate it got when the rate is what it
 * refuses (the core's rules, which it states, and not printf's floats, which would weigh in the module).
 */
export function creationError(error: CuckooFilterError, options: CreateArguments): CuckooFilterError {
  if (error.code !== 'INVALID_ARGUMENT') return error;
  // The core names the options as C++ does (fp_rate; its option messages have no other "_"): these are
  // camelCase (fpRate).
  const message = error.message.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  // (A refused rate is always one given: the default is not refused.)
  return invalid(message.startsWith('fpRate') ? `${message}; got fpRate ${options.fpRate}` : message);
}
