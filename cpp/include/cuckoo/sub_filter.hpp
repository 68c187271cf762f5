// One table of a filter's chain and its counters: where a key lives in it, direct placement, the kick-out
// walk and its undo, and removal. A filter is one sub-filter, or a chain of them when it grows
// (cuckoo_filter.hpp, docs/GROWTH.md); everything here concerns a single table.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bucket_table.hpp"
#include "detail/compiler.hpp"
#include "hashing.hpp"
#include "trace.hpp"

namespace cuckoo {
inline namespace v1 {

// Where a key lives: what the filter computes from its bytes before touching the table.
struct Location {
  std::uint64_t hash;
  std::uint32_t index;                 // i1
  std::uint32_t alternate_index;       // i2
  std::uint32_t fingerprint;           // in a table that doubles in place, the entry's low 32 bits
  std::uint32_t fingerprint_high = 0;  // ... and the bits above them (a 40-bit slot's)
};

namespace detail {

// A growing table of at most this many slots grows for a new key whose buckets copies crowd, however
// empty it is (DoublingFilter::crowded): eight times its entries is little memory there.
inline constexpr std::uint64_t kCrowdedFloorSlots = std::uint64_t{1} << 14;

// std::vector allocates through operator new, which aborts the whole wasm module (built without
// exceptions) when the heap is full. Probing with malloc first turns that into a `false`: the memory just
// freed is what the reserve then gets (one thread, nothing allocates in between).
template <class T>
[[nodiscard]] bool reserve_nothrow(std::vector<T>& v, std::size_t n) noexcept {
  if (v.capacity() >= n) return true;
  if (!addressable(n, sizeof(T))) return false;
  void* probe = std::malloc(n * sizeof(T));
  if (probe == nullptr) return false;
  std::free(probe);
  v.reserve(n);
  return true;
}

// One step of a kick-out walk: where the fingerprint that evicted another one is (for the undo).
struct PathStep {
  std::uint32_t bucket;
  std::uint32_t slot;
};

// Where place_direct() stored a fingerprint (slot -1: both buckets are full).
struct DirectPlacement {
  std::uint32_t bucket;
  int slot;
};

struct SubFilter {
  std::uint64_t capacity = 0;  // the items it was sized for
  std::uint64_t num_buckets = 0;
  unsigned fingerprint_bits = 0;
  std::uint64_t fingerprint_value_count = 0;  // fingerprint_values(fingerprint_bits), for locate()
  BucketTable table;
  std::uint64_t size = 0;  // stored fingerprints (invariant: the table's occupied slots)

  // An empty table of this shape; false (and nothing held) when the memory cannot be had.
  // `zeroed` false: for a caller that writes every byte of the table (an import).
  [[nodiscard]] CUCKOO_COLD bool allocate(std::uint64_t items, std::uint64_t buckets, unsigned bits,
                                          unsigned bucket_size, bool semi_sorted, bool zeroed = true) noexcept {
    capacity = items;
    num_buckets = buckets;
    fingerprint_bits = bits;
    fingerprint_value_count = fingerprint_values(bits);
    size = 0;
    return table.allocate(buckets, bucket_size, bits, semi_sorted, zeroed);
  }

  // Makes this an exact copy of `from`; false when the memory cannot be had.
  [[nodiscard]] CUCKOO_COLD bool copy_of(const SubFilter& from) noexcept {
    if (!allocate(from.capacity, from.num_buckets, from.fingerprint_bits, from.table.bucket_size(),
                  from.table.semi_sorted()))
      return false;
    std::memcpy(table.mutable_data(), from.table.data(), from.table.byte_length());
    size = from.size;
    return true;
  }

  [[nodiscard]] Location locate(std::uint64_t hash) const noexcept {
    const std::uint32_t index = index_of(hash, num_buckets);
    const std::uint32_t fingerprint = fingerprint_from(hash, fingerprint_value_count);
    return {hash, index, alternate_index(index, fingerprint, num_buckets), fingerprint};
  }

  [[nodiscard]] bool contains(const Location& at) const noexcept {
    return table.contains_either(at.index, at.alternate_index, at.fingerprint);
  }

  [[nodiscard]] std::size_t count(const Location& at) const noexcept {
    return table.count(at.index, at.fingerprint) + table.count(at.alternate_index, at.fingerprint);
  }

  // The expected number of slots a lookup of a key not stored here matches: 2b x load / (2^f - 1). At least
  // the chance that it matches one, whatever fingerprints are stored (the key's own is uniform and
  // independent of them), where 1 - miss_probability() takes the stored ones as independent too.
  [[nodiscard]] double expected_matches() const noexcept {
    const double per_slot = 1.0 / (std::ldexp(1.0, static_cast<int>(fingerprint_bits)) - 1.0);
    return 2.0 * static_cast<double>(size) / static_cast<double>(num_buckets) * per_slot;
  }
  // Probability that a lookup of a key not stored here matches nothing: it compares with 2b slots, each
  // occupied with probability load and then matching with 1 / (2^f - 1).
  [[nodiscard]] double miss_probability() const noexcept {
    const double per_slot = 1.0 / (std::ldexp(1.0, static_cast<int>(fingerprint_bits)) - 1.0);
    const double load = static_cast<double>(size) / static_cast<double>(num_buckets * table.bucket_size());
    // (1 - p)^x as exp(x * log1p(-p)): the same value, accurate for tiny p, and without pow's code.
    return std::exp(2.0 * table.bucket_size() * load * std::log1p(-per_slot));
  }

  // The first placement every insert tries: the first free slot of the primary bucket, else of the
  // alternate one. Does not count the fingerprint (the caller does, once it knows).
  DirectPlacement place_direct(const Location& at) noexcept {
    // Start the second bucket's miss now: waiting for the first bucket to prove full before asking for
    // the second would serialise two misses whenever it is. (A native prefetch; in wasm the discarded
    // load is dropped, and the second bucket is loaded when it is needed.)
    (void)table.prefetch(at.alternate_index);
#if !defined(__wasm__)
    // Natively, the same placement through a probe of the table's shape: one branch here instead of four
    // per bucket on the general path (semi-sorted? one word? whole bytes? semi-sorted again for the
    // write); side by side with the reference code, inserts 4-11% faster. Not in wasm, whose module has a
    // size budget and whose batches of adds already go through the probe (add_many_word).
    if (table.fits_word()) {
      auto probe = table.word_probe();
      const int slot = probe.insert_if_room(at.index, at.fingerprint);
      if (slot >= 0) return {at.index, slot};
      return {at.alternate_index, probe.insert_if_room(at.alternate_index, at.fingerprint)};
    }
#endif
    const int slot = table.insert_if_room(at.index, at.fingerprint);
    if (slot >= 0) return {at.index, slot};
    return {at.alternate_index, table.insert_if_room(at.alternate_index, at.fingerprint)};
  }

  // Removes one copy of the fingerprint from the key's buckets. Within one table, keys with the same
  // bucket pair and fingerprint are interchangeable, so removing any copy is exact.
  bool remove(const Location& at) noexcept {
    (void)table.prefetch(at.alternate_index);  // see place_direct()
    for (const std::uint32_t bucket : {at.index, at.alternate_index}) {
      if (table.remove_one(bucket, at.fingerprint)) {
        --size;
        return true;
      }
    }
    return false;
  }

  // Stores the fingerprint, evicting residents along a walk of at most `max_kicks` steps when both buckets
  // are full. A walk that finds no room is undone, leaving the table exactly as it was. `path` has room
  // for max_kicks steps. With Traced, every step is recorded into *trace; a step's slot is where its
  // fingerprint is once the step is done (in a semi-sorted bucket, its place in the re-sorted order).
  template <bool Traced>
  InsertOutcome insert(const Location& at, unsigned max_kicks, PathStep* path, InsertTrace* trace) {
    if constexpr (Traced) {
      trace->reset();
      trace->hash = at.hash;
      trace->fingerprint = at.fingerprint;
      trace->index = at.index;
      trace->alternate_offset = alternate_offset(at.fingerprint, num_buckets);
      trace->alternate_index = at.alternate_index;
    }
    if (const DirectPlacement placed = place_direct(at); placed.slot >= 0) {
      if constexpr (Traced)
        trace->steps.push_back(
            {TraceStepKind::place, placed.bucket, static_cast<std::uint32_t>(placed.slot), at.fingerprint, 0});
      ++size;
      return InsertOutcome::placed;
    }
    // Both buckets are full. If all 2b slots already hold this fingerprint, no walk can make room.
    const unsigned b = table.bucket_size();
    if (table.all_equal(at.index, at.fingerprint) && table.all_equal(at.alternate_index, at.fingerprint)) {
      if constexpr (Traced) trace->outcome = InsertOutcome::duplicate_limit;
      return InsertOutcome::duplicate_limit;
    }

    SplitMix64 rng{at.hash};
    const std::uint64_t first = rng.next();
    std::uint32_t bucket = (first & 1) != 0 ? at.alternate_index : at.index;
    std::uint32_t homeless = at.fingerprint;
    for (unsigned kick = 0; kick < max_kicks; ++kick) {
      // A resident that can move straight to a free slot if there is one, else a random one (b is a power
      // of two, so the mask picks a uniform slot).
      const int movable = resident_with_room(bucket);
      const auto slot =
          movable >= 0 ? static_cast<std::uint32_t>(movable) : static_cast<std::uint32_t>(rng.next() & (b - 1));
      const std::uint32_t evicted = table.get(bucket, slot);
      const unsigned placed_at = table.set(bucket, slot, homeless);
      path[kick] = {bucket, placed_at};
      if constexpr (Traced) trace->steps.push_back({TraceStepKind::kick, bucket, placed_at, homeless, evicted});
      homeless = evicted;
      bucket = alternate_index(bucket, homeless, num_buckets);
      const int free_slot = table.insert_if_room(bucket, homeless);
      if (free_slot >= 0) {
        if constexpr (Traced)
          trace->steps.push_back({TraceStepKind::place, bucket, static_cast<std::uint32_t>(free_slot), homeless, 0});
        ++size;
        return InsertOutcome::placed;
      }
    }
    // Out of kicks: walk the path backwards, putting each evicted fingerprint back where it was. Undoing
    // the later steps first leaves each bucket as it was right after step k, so the slot recorded then
    // holds the fingerprint placed by step k; restoring the evicted one makes that one homeless, and after
    // the first step it is the new key's fingerprint again, which is dropped. A semi-sorted bucket is
    // re-sorted by the write, but its bits depend only on the fingerprints it holds: they come back exactly.
    for (unsigned kick = max_kicks; kick-- > 0;) {
      const PathStep step = path[kick];
      const std::uint32_t placed = table.get(step.bucket, step.slot);
      const unsigned restored_at = table.set(step.bucket, step.slot, homeless);
      if constexpr (Traced) trace->steps.push_back({TraceStepKind::undo, step.bucket, restored_at, homeless, placed});
      homeless = placed;
    }
    if constexpr (Traced) trace->outcome = InsertOutcome::table_full;
    return InsertOutcome::table_full;
  }

  // The first slot of `bucket` whose fingerprint has a free slot in its other bucket, or -1. Looking one
  // step ahead before evicting shortens the kick-out walks of a nearly full table several times over: a
  // random victim's other bucket is full most of the time at 95% load, and each step of the walk is a
  // cache miss that waits for the one before, while the b look-ahead loads are independent of each other.
  [[nodiscard]] int resident_with_room(std::uint32_t bucket) const noexcept {
    constexpr unsigned kMaxBucketSize = 8;
    std::uint32_t other[kMaxBucketSize];
    const unsigned b = table.bucket_size();
    for (unsigned s = 0; s < b; ++s) {
      other[s] = alternate_index(bucket, table.get(bucket, s), num_buckets);
      (void)table.prefetch(other[s]);
    }
    for (unsigned s = 0; s < b; ++s)
      if (table.find(other[s], 0) >= 0) return static_cast<int>(s);
    return -1;
  }
};

}  // namespace detail
}  // namespace v1
}  // namespace cuckoo
