// An optional record of one insert, step by step, for teaching (the demo draws from it) and for tests.
// The filter only writes to it when one is attached (CuckooFilter::set_trace); the untraced insert is a
// separate instantiation with no recording code in it.
#pragma once

#include <cstdint>
#include <vector>

namespace cuckoo {
inline namespace v1 {

enum class TraceStepKind : std::uint8_t {
  place = 0,  // fingerprint_in stored into an empty slot; the insert is complete
  kick = 1,   // fingerprint_in stored, fingerprint_out evicted from the same slot and now homeless
  undo = 2,   // a failed walk restored fingerprint_out's slot to fingerprint_in (walked backwards)
};

struct TraceStep {
  TraceStepKind kind;
  std::uint32_t bucket;
  std::uint32_t slot;
  std::uint32_t fingerprint_in;
  std::uint32_t fingerprint_out;  // 0 for place
};

enum class InsertOutcome : std::uint8_t {
  placed = 0,           // stored, possibly after kicks
  table_full = 1,       // the kick-out walk ran out of kicks; every kick was undone
  duplicate_limit = 2,  // both buckets already hold 2b copies of this fingerprint
};

struct InsertTrace {
  std::uint64_t hash = 0;
  std::uint32_t fingerprint = 0;
  std::uint32_t index = 0;             // i1, from the hash
  std::uint32_t alternate_offset = 0;  // r, from the fingerprint
  std::uint32_t alternate_index = 0;   // i2 = (N - i1 - r) mod N
  InsertOutcome outcome = InsertOutcome::placed;
  std::vector<TraceStep> steps;

  // Keeps the steps' storage, so that a trace reused across inserts stops allocating.
  void reset() noexcept {
    hash = 0;
    fingerprint = index = alternate_offset = alternate_index = 0;
    outcome = InsertOutcome::placed;
    steps.clear();
  }
};

}  // namespace v1
}  // namespace cuckoo
