// Generated from cpp/wasm/abi.hpp and the core's definitions by cpp/wasm/abi_ts.cpp: do not edit.
// `npm run abi` writes it again; the native test `abi` fails while it differs from the C++.

/** cuckoo::ErrorCode: the status of a call that can fail. */
export const ErrorCode = {
  ok: 0,
  invalidArgument: 1,
  badFormat: 2,
  outOfMemory: 3,
  capacityExceeded: 4,
  unsupported: 5,
} as const;

/** What add() and addIfAbsent() return: cuckoo::AddFailure (none: added), or alreadyPresent. */
export const AddResult = {
  added: 0,
  tableFull: 1,
  duplicateLimit: 2,
  growthLimit: 3,
  outOfMemory: 4,
  crowded: 5,
  alreadyPresent: 255,
} as const;

/** cuckoo::KeyResult: what a batch stores for each key, one byte each. */
export const KeyResult = {
  no: 0,
  yes: 1,
  noRoom: 2,
  stoppedHere: 3,
  notTried: 4,
} as const;

/** cuckoo::LineRules: bits of dedupCreate()'s rules. */
export const LineRules = {
  zeroTerminated: 1,
  duplicates: 2,
  csv: 4,
} as const;

/** BatchOp: which batch integerBatch() runs. */
export const BatchOp = {
  add: 0,
  contains: 1,
  remove: 2,
} as const;

/** cuckoo::TraceStepKind. */
export const TraceStepKind = {
  place: 0,
  kick: 1,
  undo: 2,
} as const;

/** cuckoo::InsertOutcome. */
export const InsertOutcome = {
  placed: 0,
  tableFull: 1,
  duplicateLimit: 2,
} as const;

/** CreateOptions: byte offsets of what create() reads, and the bits of `given`. */
export const CreateOptions = {
  bytes: 56,
  capacity: 0,
  fpRate: 8,
  seedLow: 16,
  seedHigh: 20,
  fingerprintBits: 24,
  bucketSize: 28,
  maxKicks: 32,
  growth: 36,
  maxSubFilters: 40,
  semiSorted: 44,
  given: 48,
  givenFpRate: 1,
  givenFingerprintBits: 2,
  givenBucketSize: 4,
  givenGrowth: 8,
  givenMaxSubFilters: 16,
  givenSemiSorted: 32,
} as const;

/** LocateRecord: what locate() writes, as u32 indices. */
export const LocateRecord = {
  words: 7,
  index: 0,
  alternateIndex: 1,
  fingerprint: 2,
  hashLow: 3,
  hashHigh: 4,
  alternateOffset: 5,
  fingerprintHigh: 6,
} as const;

/** TraceRecord: what traceSteps() writes for each step, as u32 indices. */
export const TraceRecord = {
  words: 5,
  kind: 0,
  bucket: 1,
  slot: 2,
  fingerprintIn: 3,
  fingerprintOut: 4,
} as const;

/** DedupReport: what dedupReport() points at, as f64 indices. */
export const DedupReport = {
  doubles: 5,
  outputAddress: 0,
  outputLength: 1,
  lines: 2,
  unique: 3,
  wrongDrops: 4,
} as const;

/** RedisChunkRecord: what redisChunkAt() writes, as f64 indices. */
export const RedisChunkRecord = {
  doubles: 3,
  next: 0,
  address: 1,
  length: 2,
} as const;

/** RedisInfoRecord: what redisInfo() writes (CF.INFO's numbers), as f64 indices. */
export const RedisInfoRecord = {
  doubles: 8,
  size: 0,
  numBuckets: 1,
  numFilters: 2,
  numItems: 3,
  numDeletes: 4,
  bucketSize: 5,
  expansion: 6,
  maxIterations: 7,
} as const;

/** What redisAdd() returns: cuckoo::redis::AddResult, or maxExpansions. */
export const RedisAddResult = {
  added: 0,
  present: 1,
  full: 2,
  outOfMemory: 3,
  maxExpansions: 255,
} as const;

/** RedisBloom's limits and defaults (CF.RESERVE). */
export const RedisLimits = {
  headerSize: 38,
  maxSubFiltersForAdd: 32,
  maxBucketSize: 255,
  maxIterations: 65535,
  maxExpansion: 32768,
  defaultBucketSize: 2,
  defaultMaxIterations: 20,
  defaultExpansion: 1,
} as const;

/** The core's defaults (cuckoo::Options). */
export const Defaults = {
  maxKicks: 500,
  seedLow: 2135587861,
  seedHigh: 2654435769,
  bucketSize: 4,
  maxSubFilters: 16,
} as const;

/** The core's limits on options. */
export const Limits = {
  minFingerprintBits: 4,
  maxFingerprintBits: 32,
  maxKicks: 100000,
  minGrowth: 2,
  maxGrowth: 16,
  maxSubFilters: 32,
  semiSortedBucketSize: 4,
  minSemiSortedFingerprintBits: 5,
} as const;
