// The error codes and the Status of the non-throwing API.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace cuckoo {
inline namespace v1 {

// The numbers cross the wasm boundary (js/src/abi.ts is generated from cpp/wasm/abi.hpp): never renumber.
// unsupported: a build of sized filters only (detail/edition.hpp) was asked for growth or semi-sorted buckets,
// or given an export of such a filter; the message names what (the caller says which build has it).
enum class ErrorCode : int {
  ok = 0,
  invalid_argument = 1,
  bad_format = 2,
  out_of_memory = 3,
  capacity_exceeded = 4,
  unsupported = 5,
};

// The one funnel for errors of the non-throwing API (used by the wasm binding, which is built without
// exceptions); the throwing API turns a Status into an exception.
struct Status {
  ErrorCode code = ErrorCode::ok;
  std::string message;
  [[nodiscard]] bool ok() const noexcept { return code == ErrorCode::ok; }
  [[nodiscard]] static Status error(ErrorCode c, std::string m) { return Status{c, std::move(m)}; }
};

// Why the last add() returned false. The numbers cross the wasm boundary (cpp/wasm/abi.hpp): never renumber.
enum class AddFailure : std::uint8_t {
  none = 0,
  table_full = 1,       // no growth, and the kick-out walk found no room (it was undone)
  duplicate_limit = 2,  // the key's buckets already hold 2b copies of its fingerprint
  growth_limit = 3,     // growth is on, but the chain has its maximum number of sub-filters, or a filter
                        // that grows in place has doubled as often as it may
  out_of_memory = 4,    // growth is on, but the next sub-filter (or the doubled table) could not be allocated
  crowded = 5,          // growth is on, but copies of keys added many times fill every bucket the walk of a
                        // key with copies reached, and growing would not make room (DoublingFilter::crowded)
  needs_wider = 6,      // within a filter only: its table that doubles must widen its slots before it doubles
                        // (CuckooFilter does, and adds again); never a filter's last_add_failure()
};

// What a batch stores for each key, one byte each. The numbers cross the wasm boundary: never renumber.
enum class KeyResult : std::uint8_t {
  no = 0,            // contains_many: absent; remove_many: not found; add_if_absent_ranges: already present
  yes = 1,           // contains_many: present; remove_many: removed; the adds: added
  no_room = 2,       // the adds: not added, no room (or the key's duplicate limit)
  stopped_here = 3,  // the adds: not added, and the chain cannot grow any more: the batch ends at this key
  not_tried = 4,     // the adds: a key after the one that stopped the batch
};

[[nodiscard]] constexpr KeyResult yes_or_no(bool yes) noexcept { return yes ? KeyResult::yes : KeyResult::no; }

}  // namespace v1
}  // namespace cuckoo
