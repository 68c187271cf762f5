// Types of the Emscripten glue of RedisCuckooFilter's module, beside each compiled redis_module.js (an ES module in
// the ES module build, CommonJS in the CommonJS build); the interface is in ../redis_module.ts.
declare const createRedisModule: (options: { wasmBinary: Uint8Array }) => Promise<import('../redis_module.js').RedisModule>;
export default createRedisModule;
