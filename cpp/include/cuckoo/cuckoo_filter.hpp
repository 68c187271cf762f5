// A cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014): an approximate multiset of keys
// with add, contains, remove and count, no false negatives, and a false-positive rate set by the
// fingerprint size.
//
// The filter owns the index/fingerprint arithmetic (hashing.hpp) and the kick-out walk; the table
// (bucket_table.hpp) only packs slots.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "bucket_table.hpp"
#include "format.hpp"
#include "hashing.hpp"
#include "options.hpp"
#include "trace.hpp"

namespace cuckoo {
inline namespace v1 {

// Where a key lives: what the filter computes from its bytes before touching the table.
struct Location {
  std::uint64_t hash;
  std::uint32_t index;            // i1
  std::uint32_t alternate_index;  // i2
  std::uint32_t fingerprint;
};

class CuckooFilter {
 public:
  // The non-throwing constructor: on error `out` is left empty and the Status says why
  // (invalid_argument or out_of_memory).
  [[nodiscard]] static Status make(const Options& options, std::optional<CuckooFilter>& out) {
    Layout layout;
    if (Status s = resolve_layout(options, layout); !s.ok()) return s;
    return make_from_layout(layout, out);
  }

  // The non-throwing reader of the export format: on error `out` is left empty and the Status (always
  // bad_format, or out_of_memory) names what is wrong.
  [[nodiscard]] static Status parse(std::span<const std::uint8_t> bytes, std::optional<CuckooFilter>& out);

#if defined(__cpp_exceptions)
  // Throws std::invalid_argument for bad options and std::bad_alloc when the table cannot be allocated.
  explicit CuckooFilter(const Options& options) {
    std::optional<CuckooFilter> made;
    const Status s = make(options, made);
    if (s.code == ErrorCode::out_of_memory) throw std::bad_alloc();
    if (!s.ok()) throw std::invalid_argument(s.message);
    *this = std::move(*made);
  }

  // Throws FormatError (with a message naming what is wrong) for anything but a valid export.
  [[nodiscard]] static CuckooFilter deserialize(std::span<const std::uint8_t> bytes) {
    std::optional<CuckooFilter> parsed;
    const Status s = parse(bytes, parsed);
    if (s.code == ErrorCode::out_of_memory) throw std::bad_alloc();
    if (!s.ok()) throw FormatError(s.message);
    return std::move(*parsed);
  }
#endif

  CuckooFilter(CuckooFilter&&) noexcept = default;
  CuckooFilter& operator=(CuckooFilter&&) noexcept = default;

  // --- keys -------------------------------------------------------------------------------------------
  // Returns false only when there is no room (or the key already has 2b copies); the filter is then
  // exactly as it was before the call.
  bool add(std::string_view key) { return add_hash(hash_of(key.data(), key.size())); }
  bool add(std::span<const std::uint8_t> key) { return add_hash(hash_of(key.data(), key.size())); }

  [[nodiscard]] bool contains(std::string_view key) const noexcept {
    return contains_hash(hash_of(key.data(), key.size()));
  }
  [[nodiscard]] bool contains(std::span<const std::uint8_t> key) const noexcept {
    return contains_hash(hash_of(key.data(), key.size()));
  }

  // Removes one copy of the key's fingerprint. Removing a key that was never added may remove another
  // key's identical fingerprint (a false positive), which can then create a false negative for that key.
  bool remove(std::string_view key) noexcept { return remove_hash(hash_of(key.data(), key.size())); }
  bool remove(std::span<const std::uint8_t> key) noexcept { return remove_hash(hash_of(key.data(), key.size())); }

  // Copies of the key's fingerprint in its two buckets: the number of times it was added, plus any
  // other key's colliding fingerprints.
  [[nodiscard]] std::size_t count(std::string_view key) const noexcept {
    return count_hash(hash_of(key.data(), key.size()));
  }
  [[nodiscard]] std::size_t count(std::span<const std::uint8_t> key) const noexcept {
    return count_hash(hash_of(key.data(), key.size()));
  }

  [[nodiscard]] Location locate(std::string_view key) const noexcept { return locate_hash(hash_of(key.data(), key.size())); }
  [[nodiscard]] Location locate(std::span<const std::uint8_t> key) const noexcept {
    return locate_hash(hash_of(key.data(), key.size()));
  }

  // The same operations on a hash from hash_of(); lets callers that hash in bulk skip re-hashing.
  [[nodiscard]] std::uint64_t hash_of(const void* data, std::size_t length) const noexcept {
    return hash_bytes(data, length, layout_.seed);
  }
  bool add_hash(std::uint64_t hash) {
    return trace_ != nullptr ? insert<true>(locate_hash(hash)) : insert<false>(locate_hash(hash));
  }
  [[nodiscard]] bool contains_hash(std::uint64_t hash) const noexcept {
    const Location at = locate_hash(hash);
    return table_.contains_either(at.index, at.alternate_index, at.fingerprint);
  }
  bool remove_hash(std::uint64_t hash) noexcept { return remove_located(locate_hash(hash)); }
  [[nodiscard]] std::size_t count_hash(std::uint64_t hash) const noexcept {
    const Location at = locate_hash(hash);
    return table_.count(at.index, at.fingerprint) + table_.count(at.alternate_index, at.fingerprint);
  }
  [[nodiscard]] Location locate_hash(std::uint64_t hash) const noexcept {
    const std::uint32_t index = index_of(hash, layout_.num_buckets);
    const std::uint32_t fingerprint = fingerprint_of(hash, layout_.fingerprint_bits);
    return {hash, index, alternate_index(index, fingerprint, layout_.num_buckets), fingerprint};
  }

  // --- batches ----------------------------------------------------------------------------------------
  // Key i is bytes[offsets[i], offsets[i+1]); `offsets` has count + 1 entries. `results[i]` receives the
  // answer for key i (1 or 0). The keys are processed in order, with the same results as single calls;
  // batches are faster because a group of keys is hashed and its buckets prefetched before any of them
  // is touched, so the cache misses of a group overlap.
  void contains_many(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                     std::uint8_t* results) const noexcept {
    for_each_located(bytes, offsets, count, [&](std::size_t i, const Location& at) {
      results[i] = table_.contains_either(at.index, at.alternate_index, at.fingerprint);
    });
  }
  // Returns how many keys were added.
  std::size_t add_many(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                       std::uint8_t* results) {
    std::size_t added = 0;
    for_each_located(bytes, offsets, count, [&](std::size_t i, const Location& at) {
      const bool ok = trace_ != nullptr ? insert<true>(at) : insert<false>(at);
      results[i] = ok;
      added += ok;
    });
    return added;
  }
  // Returns how many keys were removed.
  std::size_t remove_many(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                          std::uint8_t* results) noexcept {
    std::size_t removed = 0;
    for_each_located(bytes, offsets, count, [&](std::size_t i, const Location& at) {
      const bool ok = remove_located(at);
      results[i] = ok;
      removed += ok;
    });
    return removed;
  }

  // Add-if-absent for keys given as byte ranges of one buffer: key i is bytes[ranges[2i], ranges[2i+1]).
  // Lets a caller pass a block of text and the bounds of its lines without copying the lines apart.
  // results[i]: 0 = already present (nothing added), 1 = added, 2 = absent but no room (nothing added).
  // Returns how many keys were added.
  std::size_t add_if_absent_ranges(const std::uint8_t* bytes, const std::uint32_t* ranges, std::size_t count,
                                   std::uint8_t* results) {
    std::size_t added = 0;
    for_each_located_key(
        count, [&](std::size_t i) { return KeyBytes{bytes + ranges[2 * i], ranges[2 * i + 1] - ranges[2 * i]}; },
        [&](std::size_t i, const Location& at) {
          if (table_.contains_either(at.index, at.alternate_index, at.fingerprint)) {
            results[i] = 0;
          } else if (trace_ != nullptr ? insert<true>(at) : insert<false>(at)) {
            results[i] = 1;
            ++added;
          } else {
            results[i] = 2;
          }
        });
    return added;
  }

  // --- whole filter -----------------------------------------------------------------------------------
  void clear() noexcept {
    table_.clear();
    size_ = 0;
  }
  [[nodiscard]] std::size_t size() const noexcept { return static_cast<std::size_t>(size_); }
  [[nodiscard]] std::size_t capacity() const noexcept { return static_cast<std::size_t>(layout_.capacity); }
  // Memory held by the table (including 8 bytes of load padding); the object itself is ~100 bytes more.
  [[nodiscard]] std::size_t byte_size() const noexcept { return table_.allocated_bytes(); }
  [[nodiscard]] std::uint64_t slot_count() const noexcept { return layout_.num_buckets * layout_.bucket_size; }
  [[nodiscard]] double load_factor() const noexcept {
    return static_cast<double>(size_) / static_cast<double>(slot_count());
  }
  // Probability that a key never added is reported present, at the current load: each of the 2b slots a
  // lookup compares with is occupied with probability load_factor() and then matches with 1 / (2^f - 1).
  [[nodiscard]] double expected_fp_rate() const noexcept {
    const double per_slot = 1.0 / (std::ldexp(1.0, static_cast<int>(layout_.fingerprint_bits)) - 1.0);
    return 1.0 - std::pow(1.0 - per_slot, 2.0 * layout_.bucket_size * load_factor());
  }
  [[nodiscard]] const Layout& layout() const noexcept { return layout_; }
  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return layout_.num_buckets; }
  [[nodiscard]] unsigned bucket_size() const noexcept { return layout_.bucket_size; }
  [[nodiscard]] unsigned fingerprint_bits() const noexcept { return layout_.fingerprint_bits; }
  [[nodiscard]] unsigned max_kicks() const noexcept { return layout_.max_kicks; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return layout_.seed; }

  // Read-only view of the table, for visualisation and tests.
  [[nodiscard]] std::uint32_t slot(std::uint64_t bucket, unsigned slot_index) const noexcept {
    return table_.get(bucket, slot_index);
  }
  [[nodiscard]] std::span<const std::uint8_t> table_bytes() const noexcept {
    return {table_.data(), table_.byte_length()};
  }

  // While attached, every add() records its steps into *trace (reset at the start of each add).
  void set_trace(InsertTrace* trace) noexcept { trace_ = trace; }

  // --- export -----------------------------------------------------------------------------------------
  [[nodiscard]] std::size_t serialized_size() const noexcept {
    return format::kHeaderSize + table_.byte_length() + format::kChecksumSize;
  }
  // Writes exactly serialized_size() bytes.
  void serialize_into(std::uint8_t* out) const noexcept {
    format::write_header(out, layout_, size_);
    std::memcpy(out + format::kHeaderSize, table_.data(), table_.byte_length());
    const std::size_t body = format::kHeaderSize + table_.byte_length();
    format::put_le(out + body, format::checksum(out, body), 8);
  }
  [[nodiscard]] std::vector<std::uint8_t> serialize() const {
    std::vector<std::uint8_t> out(serialized_size());
    serialize_into(out.data());
    return out;
  }

 private:
  struct PathStep {
    std::uint32_t bucket;
    std::uint32_t slot;
  };

  CuckooFilter() = default;

  bool remove_located(const Location& at) noexcept {
    for (const std::uint32_t bucket : {at.index, at.alternate_index}) {
      const int slot = table_.find(bucket, at.fingerprint);
      if (slot >= 0) {
        table_.set(bucket, static_cast<unsigned>(slot), 0);
        --size_;
        return true;
      }
    }
    return false;
  }

  struct KeyBytes {
    const std::uint8_t* data;
    std::size_t length;
  };

  // Keys packed back to back: key i is bytes[offsets[i], offsets[i+1]).
  template <class Op>
  void for_each_located(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                        Op&& op) const {
    for_each_located_key(
        count, [&](std::size_t i) { return KeyBytes{bytes + offsets[i], offsets[i + 1] - offsets[i]}; },
        std::forward<Op>(op));
  }

  // Hashes and prefetches a group of keys, then hands each location to `op`, in key order.
  template <class KeyAt, class Op>
  void for_each_located_key(std::size_t count, KeyAt&& key_at, Op&& op) const {
    constexpr std::size_t kGroup = 16;
    Location group[kGroup];
    std::uint8_t touched = 0;
    for (std::size_t start = 0; start < count; start += kGroup) {
      const std::size_t n = count - start < kGroup ? count - start : kGroup;
      for (std::size_t j = 0; j < n; ++j) {
        const KeyBytes key = key_at(start + j);
        group[j] = locate_hash(hash_of(key.data, key.length));
        touched = static_cast<std::uint8_t>(touched ^ table_.prefetch(group[j].index) ^
                                            table_.prefetch(group[j].alternate_index));
      }
      for (std::size_t j = 0; j < n; ++j) op(start + j, group[j]);
    }
    prefetch_sink_ = touched;
  }

  [[nodiscard]] static Status make_from_layout(const Layout& layout, std::optional<CuckooFilter>& out) {
    CuckooFilter filter;
    filter.layout_ = layout;
    if (!filter.table_.allocate(layout.num_buckets, layout.bucket_size, layout.fingerprint_bits))
      return Status::error(ErrorCode::out_of_memory,
                           "cannot allocate " +
                               std::to_string(format::table_bytes(layout.num_buckets, layout.bucket_size,
                                                                  layout.fingerprint_bits)) +
                               " bytes for the table");
    filter.path_.resize(layout.max_kicks);
    out.emplace(std::move(filter));
    return {};
  }

  template <bool Traced>
  bool insert(const Location& at) {
    [[maybe_unused]] InsertTrace* const trace = trace_;
    if constexpr (Traced) {
      trace->reset();
      trace->hash = at.hash;
      trace->fingerprint = at.fingerprint;
      trace->index = at.index;
      trace->alternate_offset = alternate_offset(at.fingerprint, layout_.num_buckets);
      trace->alternate_index = at.alternate_index;
    }
    for (const std::uint32_t bucket : {at.index, at.alternate_index}) {
      const int slot = table_.insert_if_room(bucket, at.fingerprint);
      if (slot >= 0) {
        if constexpr (Traced)
          trace->steps.push_back({TraceStepKind::place, bucket, static_cast<std::uint32_t>(slot), at.fingerprint, 0});
        ++size_;
        return true;
      }
    }
    // Both buckets are full. If all 2b slots already hold this fingerprint, no walk can make room.
    const unsigned b = layout_.bucket_size;
    if (table_.all_equal(at.index, at.fingerprint) && table_.all_equal(at.alternate_index, at.fingerprint)) {
      if constexpr (Traced) trace->outcome = InsertOutcome::duplicate_limit;
      return false;
    }

    SplitMix64 rng{at.hash};
    const std::uint64_t first = rng.next();
    std::uint32_t bucket = (first & 1) != 0 ? at.alternate_index : at.index;
    std::uint32_t homeless = at.fingerprint;
    for (unsigned kick = 0; kick < layout_.max_kicks; ++kick) {
      // b is a power of two, so the mask picks a uniform slot.
      const auto slot = static_cast<std::uint32_t>(rng.next() & (b - 1));
      const std::uint32_t evicted = table_.get(bucket, slot);
      table_.set(bucket, slot, homeless);
      path_[kick] = {bucket, slot};
      if constexpr (Traced) trace->steps.push_back({TraceStepKind::kick, bucket, slot, homeless, evicted});
      homeless = evicted;
      bucket = alternate_index(bucket, homeless, layout_.num_buckets);
      const int free_slot = table_.insert_if_room(bucket, homeless);
      if (free_slot >= 0) {
        if constexpr (Traced)
          trace->steps.push_back({TraceStepKind::place, bucket, static_cast<std::uint32_t>(free_slot), homeless, 0});
        ++size_;
        return true;
      }
    }
    // Out of kicks: walk the path backwards, putting each evicted fingerprint back where it was. Each
    // slot on the path now holds the fingerprint placed there; restoring it makes that one homeless,
    // and after the first step it is the new key's fingerprint again, which is dropped.
    for (unsigned kick = layout_.max_kicks; kick-- > 0;) {
      const PathStep step = path_[kick];
      const std::uint32_t placed = table_.get(step.bucket, step.slot);
      table_.set(step.bucket, step.slot, homeless);
      if constexpr (Traced) trace->steps.push_back({TraceStepKind::undo, step.bucket, step.slot, homeless, placed});
      homeless = placed;
    }
    if constexpr (Traced) trace->outcome = InsertOutcome::table_full;
    return false;
  }

  Layout layout_;
  detail::BucketTable table_;
  std::uint64_t size_ = 0;
  std::vector<PathStep> path_;  // scratch for undoing a failed walk; max_kicks entries
  InsertTrace* trace_ = nullptr;
  // Keeps the loads of for_each_located alive where prefetching is a real load (wasm).
  mutable std::uint8_t prefetch_sink_ = 0;
};

inline Status CuckooFilter::parse(std::span<const std::uint8_t> bytes, std::optional<CuckooFilter>& out) {
  Layout layout;
  std::uint64_t items = 0;
  if (Status s = format::read_header(bytes, layout, items); !s.ok()) return s;
  std::optional<CuckooFilter> filter;
  if (Status s = make_from_layout(layout, filter); !s.ok()) return s;
  const std::size_t table_length = filter->table_.byte_length();
  std::memcpy(filter->table_.mutable_data(), bytes.data() + format::kHeaderSize, table_length);
  const std::uint64_t used_bits = layout.num_buckets * layout.bucket_size * layout.fingerprint_bits;
  if (used_bits % 8 != 0 && (bytes[format::kHeaderSize + table_length - 1] >> (used_bits % 8)) != 0)
    return Status::error(ErrorCode::bad_format, "the unused bits after the last slot are not zero");
  const std::uint64_t occupied = filter->table_.count_occupied();
  if (occupied != items)
    return Status::error(ErrorCode::bad_format, "item count " + std::to_string(items) + " does not match the " +
                                                    std::to_string(occupied) + " occupied slots");
  filter->size_ = items;
  out = std::move(filter);
  return {};
}

}  // namespace v1
}  // namespace cuckoo
