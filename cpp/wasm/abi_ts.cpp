// Writes js/src/abi.ts, the TypeScript copy of every number that crosses the wasm boundary, from the C++
// definitions (abi.hpp and the core's enums and limits). `cuckoo_abi` prints it; `cuckoo_abi --check FILE`
// exits 1 when FILE differs (the native test `abi`, so that a change on one side cannot ship alone).
// Built natively: the layouts it prints are those of wasm32 too, which the static_asserts below pin.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>
#include <cuckoo/line_dedup.hpp>
#include <cuckoo/redis_filter.hpp>

#include "abi.hpp"

namespace {

using namespace cuckoo_wasm;

// The records hold only 4- and 8-byte fields in an order without padding: the same layout on every target.
static_assert(sizeof(CreateOptions) == 56 && offsetof(CreateOptions, given) == 48);
static_assert(sizeof(LocateRecord) == 28 && sizeof(TraceRecord) == 20 && sizeof(DedupReport) == 40 &&
              sizeof(RedisChunkRecord) == 24 && sizeof(RedisInfoRecord) == 64);

using Fields = std::vector<std::pair<const char*, std::string>>;

std::string number(std::uint64_t v) { return std::to_string(v); }

template <class E>
std::string code(E e) {
  return std::to_string(static_cast<std::uint64_t>(e));
}

void object(std::ostream& out, const char* comment, const char* name, const Fields& fields) {
  out << "\n/** " << comment << " */\nexport const " << name << " = {\n";
  for (const auto& [key, value] : fields) out << "  " << key << ": " << value << ",\n";
  out << "} as const;\n";
}

std::string render() {
  using cuckoo::AddFailure;
  using cuckoo::ErrorCode;
  using cuckoo::InsertOutcome;
  using cuckoo::KeyResult;
  using cuckoo::TraceStepKind;
  std::ostringstream out;
  out << "// Generated from cpp/wasm/abi.hpp and the core's definitions by cpp/wasm/abi_ts.cpp: do not edit.\n"
         "// `npm run abi` writes it again; the native test `abi` fails while it differs from the C++.\n";
  object(out, "cuckoo::ErrorCode: the status of a call that can fail.", "ErrorCode",
         {{"ok", code(ErrorCode::ok)},
          {"invalidArgument", code(ErrorCode::invalid_argument)},
          {"badFormat", code(ErrorCode::bad_format)},
          {"outOfMemory", code(ErrorCode::out_of_memory)},
          {"capacityExceeded", code(ErrorCode::capacity_exceeded)},
          {"unsupported", code(ErrorCode::unsupported)}});
  object(out, "What add() and addIfAbsent() return: cuckoo::AddFailure (none: added), or alreadyPresent.", "AddResult",
         {{"added", code(AddFailure::none)},
          {"tableFull", code(AddFailure::table_full)},
          {"duplicateLimit", code(AddFailure::duplicate_limit)},
          {"growthLimit", code(AddFailure::growth_limit)},
          {"outOfMemory", code(AddFailure::out_of_memory)},
          {"crowded", code(AddFailure::crowded)},
          {"alreadyPresent", number(kAlreadyPresent)}});
  object(out, "cuckoo::KeyResult: what a batch stores for each key, one byte each.", "KeyResult",
         {{"no", code(KeyResult::no)},
          {"yes", code(KeyResult::yes)},
          {"noRoom", code(KeyResult::no_room)},
          {"stoppedHere", code(KeyResult::stopped_here)},
          {"notTried", code(KeyResult::not_tried)}});
  object(out, "cuckoo::LineRules: bits of dedupCreate()'s rules.", "LineRules",
         {{"zeroTerminated", number(cuckoo::zero_terminated)},
          {"duplicates", number(cuckoo::duplicates)},
          {"csv", number(cuckoo::csv)}});
  object(out, "BatchOp: which batch integerBatch() runs.", "BatchOp",
         {{"add", number(kBatchAdd)}, {"contains", number(kBatchContains)}, {"remove", number(kBatchRemove)}});
  object(out, "cuckoo::TraceStepKind.", "TraceStepKind",
         {{"place", code(TraceStepKind::place)},
          {"kick", code(TraceStepKind::kick)},
          {"undo", code(TraceStepKind::undo)}});
  object(out, "cuckoo::InsertOutcome.", "InsertOutcome",
         {{"placed", code(InsertOutcome::placed)},
          {"tableFull", code(InsertOutcome::table_full)},
          {"duplicateLimit", code(InsertOutcome::duplicate_limit)}});
  object(out, "CreateOptions: byte offsets of what create() reads, and the bits of `given`.", "CreateOptions",
         {{"bytes", number(sizeof(CreateOptions))},
          {"capacity", number(offsetof(CreateOptions, capacity))},
          {"fpRate", number(offsetof(CreateOptions, fp_rate))},
          {"seedLow", number(offsetof(CreateOptions, seed_low))},
          {"seedHigh", number(offsetof(CreateOptions, seed_high))},
          {"fingerprintBits", number(offsetof(CreateOptions, fingerprint_bits))},
          {"bucketSize", number(offsetof(CreateOptions, bucket_size))},
          {"maxKicks", number(offsetof(CreateOptions, max_kicks))},
          {"growth", number(offsetof(CreateOptions, growth))},
          {"maxSubFilters", number(offsetof(CreateOptions, max_sub_filters))},
          {"semiSorted", number(offsetof(CreateOptions, semi_sorted))},
          {"given", number(offsetof(CreateOptions, given))},
          {"givenFpRate", number(kGivenFpRate)},
          {"givenFingerprintBits", number(kGivenFingerprintBits)},
          {"givenBucketSize", number(kGivenBucketSize)},
          {"givenGrowth", number(kGivenGrowth)},
          {"givenMaxSubFilters", number(kGivenMaxSubFilters)},
          {"givenSemiSorted", number(kGivenSemiSorted)}});
  // A record's fields as indices into an array of `unit`-byte words, and its length in them.
  const auto record = [&](const char* comment, const char* name, const char* length, std::size_t size, std::size_t unit,
                          std::vector<std::pair<const char*, std::size_t>> offsets) {
    Fields fields{{length, number(size / unit)}};
    for (const auto& [field, offset] : offsets) fields.emplace_back(field, number(offset / unit));
    object(out, comment, name, fields);
  };
  record("LocateRecord: what locate() writes, as u32 indices.", "LocateRecord", "words", sizeof(LocateRecord), 4,
         {{"index", offsetof(LocateRecord, index)},
          {"alternateIndex", offsetof(LocateRecord, alternate_index)},
          {"fingerprint", offsetof(LocateRecord, fingerprint)},
          {"hashLow", offsetof(LocateRecord, hash_low)},
          {"hashHigh", offsetof(LocateRecord, hash_high)},
          {"alternateOffset", offsetof(LocateRecord, alternate_offset)},
          {"fingerprintHigh", offsetof(LocateRecord, fingerprint_high)}});
  record("TraceRecord: what traceSteps() writes for each step, as u32 indices.", "TraceRecord", "words",
         sizeof(TraceRecord), 4,
         {{"kind", offsetof(TraceRecord, kind)},
          {"bucket", offsetof(TraceRecord, bucket)},
          {"slot", offsetof(TraceRecord, slot)},
          {"fingerprintIn", offsetof(TraceRecord, fingerprint_in)},
          {"fingerprintOut", offsetof(TraceRecord, fingerprint_out)}});
  record("DedupReport: what dedupReport() points at, as f64 indices.", "DedupReport", "doubles", sizeof(DedupReport), 8,
         {{"outputAddress", offsetof(DedupReport, output_address)},
          {"outputLength", offsetof(DedupReport, output_length)},
          {"lines", offsetof(DedupReport, lines)},
          {"unique", offsetof(DedupReport, unique)},
          {"wrongDrops", offsetof(DedupReport, wrong_drops)}});
  record("RedisChunkRecord: what redisChunkAt() writes, as f64 indices.", "RedisChunkRecord", "doubles",
         sizeof(RedisChunkRecord), 8,
         {{"next", offsetof(RedisChunkRecord, next)},
          {"address", offsetof(RedisChunkRecord, address)},
          {"length", offsetof(RedisChunkRecord, length)}});
  record("RedisInfoRecord: what redisInfo() writes (CF.INFO's numbers), as f64 indices.", "RedisInfoRecord", "doubles",
         sizeof(RedisInfoRecord), 8,
         {{"size", offsetof(RedisInfoRecord, size)},
          {"numBuckets", offsetof(RedisInfoRecord, num_buckets)},
          {"numFilters", offsetof(RedisInfoRecord, num_filters)},
          {"numItems", offsetof(RedisInfoRecord, num_items)},
          {"numDeletes", offsetof(RedisInfoRecord, num_deletes)},
          {"bucketSize", offsetof(RedisInfoRecord, bucket_size)},
          {"expansion", offsetof(RedisInfoRecord, expansion)},
          {"maxIterations", offsetof(RedisInfoRecord, max_iterations)}});
  object(out, "What redisAdd() returns: cuckoo::redis::AddResult, or maxExpansions.", "RedisAddResult",
         {{"added", code(cuckoo::redis::AddResult::added)},
          {"present", code(cuckoo::redis::AddResult::present)},
          {"full", code(cuckoo::redis::AddResult::full)},
          {"outOfMemory", code(cuckoo::redis::AddResult::out_of_memory)},
          {"maxExpansions", number(kRedisMaxExpansions)}});
  object(out, "RedisBloom's limits and defaults (CF.RESERVE).", "RedisLimits",
         {{"headerSize", number(cuckoo::redis::kHeaderSize)},
          {"maxSubFiltersForAdd", number(cuckoo::redis::kMaxSubFiltersForAdd)},
          {"maxBucketSize", number(cuckoo::redis::kMaxBucketSize)},
          {"maxIterations", number(cuckoo::redis::kMaxIterations)},
          {"maxExpansion", number(cuckoo::redis::kMaxExpansion)},
          {"defaultBucketSize", number(cuckoo::redis::Params{}.bucket_size)},
          {"defaultMaxIterations", number(cuckoo::redis::Params{}.max_iterations)},
          {"defaultExpansion", number(cuckoo::redis::Params{}.expansion)}});
  object(out, "The core's defaults (cuckoo::Options).", "Defaults",
         {{"maxKicks", number(cuckoo::Options{}.max_kicks)},
          {"seedLow", number(cuckoo::kDefaultSeed & 0xFFFFFFFFu)},
          {"seedHigh", number(cuckoo::kDefaultSeed >> 32)},
          {"bucketSize", number(cuckoo::kDefaultBucketSize)},
          {"maxSubFilters", number(cuckoo::kDefaultMaxSubFilters)}});
  object(out, "The core's limits on options.", "Limits",
         {{"minFingerprintBits", number(cuckoo::kMinFingerprintBits)},
          {"maxFingerprintBits", number(cuckoo::kMaxFingerprintBits)},
          {"maxKicks", number(cuckoo::kMaxKicksLimit)},
          {"minGrowth", number(cuckoo::kMinGrowth)},
          {"maxGrowth", number(cuckoo::kMaxGrowth)},
          {"maxSubFilters", number(cuckoo::kMaxSubFiltersLimit)},
          {"semiSortedBucketSize", number(cuckoo::kSemiSortedBucketSize)},
          {"minSemiSortedFingerprintBits", number(cuckoo::kMinSemiSortedFingerprintBits)}});
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string text = render();
  if (argc == 3 && std::string(argv[1]) == "--check") {
    std::ifstream in(argv[2], std::ios::binary);
    const std::string committed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (committed == text) return 0;
    std::cerr << argv[2] << " differs from the C++ definitions: run `npm run abi` and commit the result\n";
    return 1;
  }
  if (argc != 1) {
    std::cerr << "usage: cuckoo_abi [--check FILE]\n";
    return 2;
  }
  std::cout << text;
  return 0;
}
