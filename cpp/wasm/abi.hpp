// The records that cross the wasm boundary through the heap, and the boundary's own codes. Together with
// the core's enums (ErrorCode, AddFailure, KeyResult, TraceStepKind, InsertOutcome) and limits, these are
// every number the TypeScript side needs: js/src/abi.ts is generated from them by abi_ts.cpp
// (`npm run abi`), and the native test `abi` fails when the committed file differs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuckoo_wasm {

// What create() reads: the options of a new filter. A field marked optional is read only when its bit is
// set in `given`; the others always are.
struct CreateOptions {
  double capacity;         // exact below 2^53
  double fp_rate;          // optional
  std::uint32_t seed_low;  // the seed's two halves: JavaScript writes them without BigInt
  std::uint32_t seed_high;
  std::uint32_t fingerprint_bits;  // optional
  std::uint32_t bucket_size;       // optional
  std::uint32_t max_kicks;
  std::uint32_t growth;           // optional
  std::uint32_t max_sub_filters;  // optional
  std::uint32_t semi_sorted;      // optional: 0 or 1
  std::uint32_t given;            // which optional fields are set: the kGiven bits
  std::uint32_t unused;           // keeps the record a multiple of 8 bytes (its doubles' alignment)
};
enum Given : std::uint32_t {
  kGivenFpRate = 1,
  kGivenFingerprintBits = 2,
  kGivenBucketSize = 4,
  kGivenGrowth = 8,
  kGivenMaxSubFilters = 16,
  kGivenSemiSorted = 32,
};

// What locate() writes: where a key lives in the first sub-filter. The hash is split in two u32 halves.
struct LocateRecord {
  std::uint32_t index;
  std::uint32_t alternate_index;
  std::uint32_t fingerprint;
  std::uint32_t hash_low;
  std::uint32_t hash_high;
  std::uint32_t alternate_offset;
  std::uint32_t fingerprint_high;  // bits 32-39 of a 40-bit slot's entry (a filter that doubles in place)
};

// What trace_steps() writes for each step of the last traced insert (cuckoo::TraceStep, widened).
struct TraceRecord {
  std::uint32_t kind;  // cuckoo::TraceStepKind
  std::uint32_t bucket;
  std::uint32_t slot;
  std::uint32_t fingerprint_in;
  std::uint32_t fingerprint_out;
};

// What a line deduplicator reports after each push and finish (doubles: exact below 2^53).
struct DedupReport {
  double output_address;
  double output_length;
  double lines;
  double unique;
  double wrong_drops;  // LineDeduper::expected_wrong_drops()
};

// What redis_chunk_at() writes: the next iterator (0 at the end) and where the chunk's bytes are.
struct RedisChunkRecord {
  double next;
  double address;
  double length;
};

// What redis_info() writes: CF.INFO's numbers, in CF.INFO's order (signed counters aside: doubles).
struct RedisInfoRecord {
  double size;
  double num_buckets;
  double num_filters;
  double num_items;
  double num_deletes;
  double bucket_size;
  double expansion;
  double max_iterations;
};

// integer_batch()'s operation: which of the core's batches it runs.
enum BatchOp : std::uint32_t {
  kBatchAdd = 0,
  kBatchContains = 1,
  kBatchRemove = 2,
};

// add() and add_if_absent() return a cuckoo::AddFailure (none: added); add_if_absent() returns this when
// the key was already there (nothing added).
inline constexpr std::uint32_t kAlreadyPresent = 255;

// redis_add() with check_limit on a filter that has RedisBloom's maximum of sub-filters (nothing added).
inline constexpr std::uint32_t kRedisMaxExpansions = 255;

}  // namespace cuckoo_wasm
