// The modules' surfaces, declared twice: the functions the C++ registers with embind (bindings.cpp and the
// filter's calls it shares with the lite module, filter_bindings.hpp; redis_bindings.cpp) or exports from
// the lite module (CUCKOO_FILTER_CALL), and the TypeScript interfaces the package calls them through
// (wasm_module.ts, redis_module.ts, filter_base.ts). The lists below are typed from the interfaces, so
// `tsc --noEmit` (npm test) fails when one lacks or adds a name; this test holds them against the names
// the C++ gives and against each loaded module.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CuckooModule, ready, requireModule } from '../../js/src/wasm_module';
import { ready as redisReady, type RedisModule, requireModule as requireRedisModule } from '../../js/src/redis_module';
import type { FilterModule } from '../../js/src/filter_base';
import { ready as liteReady, requireModule as requireLiteModule } from '../../js/src/lite_module';
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

const LITE: Functions<FilterModule> = {
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
  _malloc: true,
  _free: true,
  lastErrorCode: true,
  lastErrorText: true,
};

// Functions Emscripten exports itself (the rest are embind's, or the lite module's exports).
const RUNTIME = ['_malloc', '_free'];

// The names `files` register with embind (function("name", ...)), or export from the lite module.
function registered(files: readonly string[], pattern = /\bfunction\("(\w+)"/g): string[] {
  return files.flatMap((file) =>
    [...readFileSync(join(repoRoot, 'cpp', 'wasm', file), 'utf8').matchAll(pattern)].map((m) => m[1]),
  );
}

test.each([
  [
    'bindings.cpp',
    MAIN,
    ['bindings.cpp', 'filter_bindings.hpp'],
    async () => {
      await ready();
      return requireModule();
    },
  ],
  [
    'redis_bindings.cpp',
    REDIS,
    ['redis_bindings.cpp'],
    async () => {
      await redisReady();
      return requireRedisModule();
    },
  ],
] as const)(
  '%s registers exactly the functions its TypeScript interface declares, and the module has each',
  async (_file, declared, files, load) => {
    const names = Object.keys(declared)
      .filter((n) => !RUNTIME.includes(n))
      .sort();
    const cpp = registered(files);
    expect(new Set(cpp).size).toBe(cpp.length); // none registered twice
    expect([...cpp].sort()).toEqual(names);
    const m = (await load()) as unknown as Record<string, unknown>;
    for (const name of Object.keys(declared)) expect([name, typeof m[name]]).toEqual([name, 'function']);
  },
);

test("the lite module exports exactly FilterModule's calls (filter_bindings.hpp and lite_bindings.cpp), and has each", async () => {
  const names = Object.keys(LITE)
    .filter((n) => !RUNTIME.includes(n))
    .sort();
  const cpp = registered(['filter_bindings.hpp', 'lite_bindings.cpp'], /\bCUCKOO_FILTER_CALL\("(\w+)"\)/g);
  expect(new Set(cpp).size).toBe(cpp.length);
  expect([...cpp].sort()).toEqual(names);
  // The full module registers the same names with embind.
  expect(registered(['filter_bindings.hpp']).sort()).toEqual(names);
  await liteReady();
  const m = requireLiteModule() as unknown as Record<string, unknown>;
  for (const name of Object.keys(LITE)) expect([name, typeof m[name]]).toEqual([name, 'function']);
});
