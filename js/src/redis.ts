// The package's cuckoo-wasm/redis entry: RedisCuckooFilter, RedisBloom's cuckoo filter byte for byte, with
// its own WebAssembly module (loaded by this entry only).
//   import { RedisCuckooFilter } from 'cuckoo-wasm/redis';
//   const f = await RedisCuckooFilter.create({ capacity: 1_000_000 });
export { ready } from './redis_module.js';
export { RedisCuckooFilter } from './redis_filter.js';
export type { RedisCuckooFilterInfo, RedisCuckooFilterOptions, RedisDumpChunk, RedisItem } from './redis_filter.js';
export { CuckooFilterError } from './errors.js';
export type { CuckooFilterErrorCode } from './errors.js';
