// The embind surface, declared twice: the functions cpp/wasm/bindings.cpp and redis_bindings.cpp register,
// and the TypeScript interfaces the package calls them through (wasm_module.ts, redis_module.ts). The two
// lists below are typed from the interfaces, so `tsc --noEmit` (npm test) fails when one lacks or adds a
// name; this test holds them against the names the C++ registers and against each loaded module.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CuckooModule, ready, requireModule } from '../../js/src/wasm_module';
import { ready as redisReady, type RedisModule, requireModule as requireRedisModule } from '../../js/src/redis_module';
import { repoRoot } from './helpers';

/** Every function member of M, each once. */
type Functions<M> = { [K in keyof M as M[K] extends (...args: never[]) => unknown ? K : never]: true };

const MAIN: Functions<CuckooModule> = {
  create: true,
  exportBegin: true,
  exportSize: true,
  exportRead: true,
  exportEnd: true,
  importBegin: true,
  importPush: true,
  importFinish: true,
  importEnd: true,
  destroy: true,
  add: true,
  contains: true,
  remove: true,
  count: true,
  addIfAbsent: true,
  lastAddFailure: true,
  merge: true,
  union: true,
  growth: true,
  maxSubFilters: true,
  semiSorted: true,
  subFilterCount: true,
  doublings: true,
  maxDoublings: true,
  addMany: true,
  containsMany: true,
  removeMany: true,
  integerBatch: true,
  addIfAbsentRanges: true,
  clear: true,
  size: true,
  capacity: true,
  byteSize: true,
  loadFactor: true,
  expectedFpRate: true,
  fingerprintBits: true,
  bucketSize: true,
  numBuckets: true,
  maxKicks: true,
  seedLow: true,
  seedHigh: true,
  slot: true,
  bucketCode: true,
  locate: true,
  alternateIndex: true,
  alternateOffset: true,
  setTracing: true,
  traceOutcome: true,
  traceStepCount: true,
  traceSteps: true,
  dedupCreate: true,
  dedupDestroy: true,
  dedupSelect: true,
  dedupNextInput: true,
  dedupCountDistinct: true,
  dedupDistinct: true,
  dedupDistinctRegisters: true,
  dedupDistinctMerge: true,
  inPlaceShape: true,
  dedupReport: true,
  dedupPush: true,
  dedupFinish: true,
  declaredLength: true,
  _malloc: true,
  _free: true,
  dedupShare: true,
  dedupWindow: true,
  dedupOutgoing: true,
  dedupOutgoingSize: true,
  dedupSupply: true,
  dedupResolve: true,
  dedupDecide: true,
  lastErrorCode: true,
  lastErrorText: true,
};
const REDIS: Functions<RedisModule> = {
  redisCreate: true,
  redisDestroy: true,
  redisAdd: true,
  redisLookup: true,
  redisRemove: true,
  redisCompact: true,
  redisInfo: true,
  redisHeader: true,
  redisChunkAt: true,
  redisLoaderBegin: true,
  redisLoaderPush: true,
  redisLoaderFinish: true,
  redisLoaderEnd: true,
  _malloc: true,
  _free: true,
  lastErrorCode: true,
  lastErrorText: true,
};

// Functions Emscripten exports itself (the rest are embind's).
const RUNTIME = ['_malloc', '_free'];

function registered(file: string): string[] {
  const source = readFileSync(join(repoRoot, 'cpp', 'wasm', file), 'utf8');
  return [...source.matchAll(/\bfunction\("(\w+)"/g)].map((m) => m[1]);
}

test.each([
  [
    'bindings.cpp',
    MAIN,
    async () => {
      await ready();
      return requireModule();
    },
  ],
  [
    'redis_bindings.cpp',
    REDIS,
    async () => {
      await redisReady();
      return requireRedisModule();
    },
  ],
] as const)(
  '%s registers exactly the functions its TypeScript interface declares, and the module has each',
  async (file, declared, load) => {
    const names = Object.keys(declared)
      .filter((n) => !RUNTIME.includes(n))
      .sort();
    const cpp = registered(file);
    expect(new Set(cpp).size).toBe(cpp.length); // none registered twice
    expect([...cpp].sort()).toEqual(names);
    const m = (await load()) as unknown as Record<string, unknown>;
    for (const name of Object.keys(declared)) expect([name, typeof m[name]]).toEqual([name, 'function']);
  },
);
