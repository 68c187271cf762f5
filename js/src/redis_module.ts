// RedisCuckooFilter's WebAssembly module (cpp/wasm/redis_bindings.cpp), separate from the main one so
// that only the cuckoo-wasm/redis entry loads it: loaded once, shared by every RedisCuckooFilter.
import createRedisModule from './generated/cuckoo_redis_wasm.js';
import deflatedWasm from './generated/cuckoo_redis_wasm_binary.js';
import { type HeapModule, moduleLoader } from './wasm_loader.js';

/** The embind surface of cpp/wasm/redis_bindings.cpp; records and codes are in abi.ts. */
export interface RedisModule extends HeapModule {
  redisCreate(capacity: number, bucketSize: number, maxIterations: number, expansion: number): number;
  redisDestroy(handle: number): void;
  /** A RedisAddResult (abi.ts): CF.ADD, or CF.ADDNX when ifAbsent; checkLimit: maxExpansions first, at 32 sub-filters. */
  redisAdd(handle: number, address: number, length: number, ifAbsent: boolean, checkLimit: boolean): number;
  /** CF.COUNT when count, else CF.EXISTS (1 or 0). */
  redisLookup(handle: number, address: number, length: number, count: boolean): number;
  redisRemove(handle: number, address: number, length: number): boolean;
  redisCompact(handle: number): void;
  /** Writes a RedisInfoRecord (abi.ts) to `out`. */
  redisInfo(handle: number, out: number): void;
  redisHeader(handle: number, out: number): void;
  /** Writes a RedisChunkRecord (abi.ts) to `out`. */
  redisChunkAt(handle: number, iterator: number, out: number): void;
  redisLoaderBegin(): number;
  redisLoaderPush(loader: number, iterator: number, address: number, length: number): number;
  redisLoaderFinish(loader: number): number;
  redisLoaderEnd(loader: number): void;
}

const loader = moduleLoader(
  createRedisModule,
  deflatedWasm,
  "RedisCuckooFilter's WebAssembly module is not loaded yet: " +
    "`await ready()` from 'cuckoo-wasm/redis' first (or use `await RedisCuckooFilter.create(options)`)",
);

/** Loads RedisCuckooFilter's WebAssembly module. Idempotent: every call returns the same promise. */
export const ready = (): Promise<void> => loader.ready();

/** The loaded module, or undefined before ready() has resolved. */
export const loadedModule = (): RedisModule | undefined => loader.loaded();

/** The loaded module; NOT_READY before ready() has resolved. */
export const requireModule = (): RedisModule => loader.require();
