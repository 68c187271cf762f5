// The embind surface of RedisCuckooFilter (cuckoo/redis_filter.hpp): a wasm module of its own, so that
// the package's main module does not carry it (js/src/redis.ts loads it). The conventions are those of
// bindings.cpp (handles.hpp).
#include <emscripten/bind.h>

#include <cuckoo/redis_filter.hpp>
#include <new>
#include <optional>

#include "abi.hpp"
#include "handles.hpp"

namespace {

using namespace cuckoo_wasm;

using cuckoo::redis::RedisCuckooFilter;
RedisCuckooFilter& redis_at(Handle h) { return object_at<RedisCuckooFilter>(h); }
Handle adopt_redis(std::optional<RedisCuckooFilter>& made) {
  return handle_of(new (std::nothrow) RedisCuckooFilter(std::move(*made)), "cannot allocate the filter object");
}

// The wrapper has checked the types; the core checks the ranges with RedisBloom's texts.
Handle redis_create(double capacity, unsigned bucket_size, unsigned max_iterations, unsigned expansion) {
  if (!memory_for_call()) return 0;
  std::optional<RedisCuckooFilter> made;
  return record(RedisCuckooFilter::make({static_cast<std::uint64_t>(capacity), bucket_size, max_iterations, expansion},
                                        made))
             ? adopt_redis(made)
             : 0;
}
void redis_destroy(Handle h) { delete &redis_at(h); }
// A cuckoo::redis::AddResult: CF.ADD, or CF.ADDNX when `if_absent`. With `check_limit`, first
// kRedisMaxExpansions when the filter has the most sub-filters RedisBloom adds to (the server checks that
// once per command: for CF.INSERT, before its first item only).
unsigned redis_add(Handle h, std::uint32_t address, std::uint32_t length, bool if_absent, bool check_limit) {
  auto& f = redis_at(h);
  // A growth past the room its list of tables has allocates that list: take the reserve for it.
  if (f.growth_allocates() && !memory_for_call()) return static_cast<unsigned>(cuckoo::redis::AddResult::out_of_memory);
  if (check_limit && f.sub_filter_count() >= cuckoo::redis::kMaxSubFiltersForAdd) return kRedisMaxExpansions;
  return static_cast<unsigned>(if_absent ? f.add_if_absent(key(address, length)) : f.add(key(address, length)));
}
// CF.COUNT when `count`, else CF.EXISTS (1 or 0).
double redis_lookup(Handle h, std::uint32_t address, std::uint32_t length, bool count) {
  const auto& f = redis_at(h);
  return count ? static_cast<double>(f.count(key(address, length))) : f.contains(key(address, length));
}
bool redis_remove(Handle h, std::uint32_t address, std::uint32_t length) {
  return redis_at(h).remove(key(address, length));
}
void redis_compact(Handle h) { redis_at(h).compact(true); }
// CF.INFO's numbers, as a RedisInfoRecord at `out`. The server prints its two counters as signed 64-bit
// numbers (a dump may carry any delete count: 2^64 - 1 is -1 there).
void redis_info(Handle h, std::uint32_t out) {
  const auto& f = redis_at(h);
  const auto as_signed = [](std::uint64_t n) { return static_cast<double>(static_cast<std::int64_t>(n)); };
  *reinterpret_cast<RedisInfoRecord*>(mutable_ptr(out)) = {static_cast<double>(f.info_size()),
                                                           static_cast<double>(f.num_buckets()),
                                                           static_cast<double>(f.sub_filter_count()),
                                                           as_signed(f.num_items()),
                                                           as_signed(f.num_deletes()),
                                                           static_cast<double>(f.bucket_size()),
                                                           static_cast<double>(f.expansion()),
                                                           static_cast<double>(f.max_iterations())};
}
// The 38-byte dump header, written to `out`.
void redis_header(Handle h, std::uint32_t out) { redis_at(h).write_header(mutable_ptr(out)); }
// CF.SCANDUMP's reply to `iterator` >= 1, as a RedisChunkRecord at `out` (the bytes stay in the filter).
void redis_chunk_at(Handle h, double iterator, std::uint32_t out) {
  const auto chunk = redis_at(h).chunk_at(static_cast<std::uint64_t>(iterator));
  *reinterpret_cast<RedisChunkRecord*>(mutable_ptr(out)) = {
      static_cast<double>(chunk.next), static_cast<double>(reinterpret_cast<std::uintptr_t>(chunk.data.data())),
      static_cast<double>(chunk.data.size())};
}

using cuckoo::redis::ChunkLoader;
Handle redis_loader_begin() {
  if (!memory_for_call()) return 0;
  return handle_of(new (std::nothrow) ChunkLoader(), "cannot allocate the chunk loader");
}
// Returns a cuckoo::ErrorCode (message: lastErrorText).
int redis_loader_push(Handle l, double iterator, std::uint32_t address, std::uint32_t length) {
  if (!memory_for_call()) return last_error_code();
  record(object_at<ChunkLoader>(l).push(static_cast<std::uint64_t>(iterator), ptr(address), length));
  return last_error_code();
}
Handle redis_loader_finish(Handle l) {
  if (!memory_for_call()) return 0;
  std::optional<RedisCuckooFilter> made;
  return record(object_at<ChunkLoader>(l).finish(made)) ? adopt_redis(made) : 0;
}
void redis_loader_end(Handle l) { delete &object_at<ChunkLoader>(l); }

}  // namespace

EMSCRIPTEN_BINDINGS(cuckoo_redis_wasm) {
  using emscripten::function;
  // Errors (handles.hpp) and the filter's life (CF.RESERVE).
  function("lastErrorCode", &last_error_code);
  function("lastErrorText", &last_error_text);
  function("redisCreate", &redis_create);
  function("redisDestroy", &redis_destroy);
  // Items: CF.ADD / CF.ADDNX, CF.EXISTS / CF.COUNT, CF.DEL; then CF.COMPACT and CF.INFO.
  function("redisAdd", &redis_add);
  function("redisLookup", &redis_lookup);
  function("redisRemove", &redis_remove);
  function("redisCompact", &redis_compact);
  function("redisInfo", &redis_info);
  // CF.SCANDUMP.
  function("redisHeader", &redis_header);
  function("redisChunkAt", &redis_chunk_at);
  // Reading a dump back (redis::ChunkLoader).
  function("redisLoaderBegin", &redis_loader_begin);
  function("redisLoaderPush", &redis_loader_push);
  function("redisLoaderFinish", &redis_loader_finish);
  function("redisLoaderEnd", &redis_loader_end);
}
