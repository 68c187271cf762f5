// A cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014): an approximate multiset of keys
// with add, contains, remove and count, no false negatives, and a false-positive rate set by the
// fingerprint size.
//
// The filter owns the index/fingerprint arithmetic (hashing.hpp) and the kick-out walk; the table
// (bucket_table.hpp) only packs slots. A filter is a chain of sub-filters ("segments"): just one unless
// the growth option is set, in which case a full filter chains a larger one (docs/GROWTH.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
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

// Why the last add() returned false.
enum class AddFailure : std::uint8_t {
  none = 0,
  table_full = 1,       // no growth, and the kick-out walk found no room (it was undone)
  duplicate_limit = 2,  // the key's buckets already hold 2b copies of its fingerprint
  growth_limit = 3,     // growth is on, but the chain has its maximum number of sub-filters
  out_of_memory = 4,    // growth is on, but the next sub-filter could not be allocated
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
  // exactly as it was before the call, and last_add_failure() says why.
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
  // With growth, even removing an added key has that risk, at about the false-positive rate (see
  // remove_located and docs/GROWTH.md).
  bool remove(std::string_view key) noexcept { return remove_hash(hash_of(key.data(), key.size())); }
  bool remove(std::span<const std::uint8_t> key) noexcept { return remove_hash(hash_of(key.data(), key.size())); }

  // Copies of the key's fingerprint in its buckets: the number of times it was added, plus any other
  // key's colliding fingerprints.
  [[nodiscard]] std::size_t count(std::string_view key) const noexcept {
    return count_hash(hash_of(key.data(), key.size()));
  }
  [[nodiscard]] std::size_t count(std::span<const std::uint8_t> key) const noexcept {
    return count_hash(hash_of(key.data(), key.size()));
  }

  // The key's place in the first sub-filter.
  [[nodiscard]] Location locate(std::string_view key) const noexcept { return locate_hash(hash_of(key.data(), key.size())); }
  [[nodiscard]] Location locate(std::span<const std::uint8_t> key) const noexcept {
    return locate_hash(hash_of(key.data(), key.size()));
  }

  // The same operations on a hash from hash_of(); lets callers that hash in bulk skip re-hashing.
  [[nodiscard]] std::uint64_t hash_of(const void* data, std::size_t length) const noexcept {
    return hasher_(data, length);
  }
  bool add_hash(std::uint64_t hash) { return add_located(locate_hash(hash)); }
  [[nodiscard]] bool contains_hash(std::uint64_t hash) const noexcept { return contains_located(locate_hash(hash)); }
  bool remove_hash(std::uint64_t hash) noexcept { return remove_located(locate_hash(hash)); }
  [[nodiscard]] std::size_t count_hash(std::uint64_t hash) const noexcept {
    const Location at = locate_hash(hash);
    std::size_t n = head_.table.count(at.index, at.fingerprint) + head_.table.count(at.alternate_index, at.fingerprint);
    for (const Segment& s : tail_) {
      const Location t = locate_in(s, hash);
      n += s.table.count(t.index, t.fingerprint) + s.table.count(t.alternate_index, t.fingerprint);
    }
    return n;
  }
  [[nodiscard]] Location locate_hash(std::uint64_t hash) const noexcept { return locate_in(head_, hash); }

  [[nodiscard]] AddFailure last_add_failure() const noexcept { return last_failure_; }

  // --- batches ----------------------------------------------------------------------------------------
  // Key i is bytes[offsets[i], offsets[i+1]); `offsets` has count + 1 entries. `results[i]` receives the
  // answer for key i (1 or 0). The keys are processed in order, with the same results as single calls;
  // batches are faster because a group of keys is hashed and its buckets prefetched before any of them
  // is touched, so the cache misses of a group overlap.
  void contains_many(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                     std::uint8_t* results) const noexcept {
    if (tail_.empty() && head_.table.fits_word()) {
      const auto probe = std::as_const(head_.table).word_probe();
      for_each_located(bytes, offsets, count, results, [&](const Location& at) -> std::uint8_t {
        return probe.contains_either(at.index, at.alternate_index, at.fingerprint);
      });
      return;
    }
    for_each_located(bytes, offsets, count, results,
                     [&](const Location& at) -> std::uint8_t { return contains_located(at); });
  }
  // Returns how many keys were added. results[i]: 1 added, 0 no room (or the duplicate limit). When the
  // chain cannot grow any more (growth_limit, out_of_memory) the batch stops there: that key gets
  // kStoppedHere, the keys after it are not tried and keep kNotTried; last_add_failure() says why.
  static constexpr std::uint8_t kNotTried = 2;
  static constexpr std::uint8_t kStoppedHere = 3;
  std::size_t add_many(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                       std::uint8_t* results) {
    for (std::size_t i = 0; i < count; ++i) results[i] = kNotTried;
    if (tail_.empty() && trace_ == nullptr && head_.table.fits_word()) return add_many_word(bytes, offsets, count, results);
    std::size_t added = 0;
    for_each_located(bytes, offsets, count, results, [&](const Location& at) -> std::uint8_t {
      const bool ok = add_located(at);
      added += ok;
      return ok ? 1 : chain_exhausted() ? kStoppedHere : 0;
    });
    return added;
  }
  // Returns how many keys were removed.
  std::size_t remove_many(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                          std::uint8_t* results) noexcept {
    std::size_t removed = 0;
    for_each_located(bytes, offsets, count, results, [&](const Location& at) -> std::uint8_t {
      const bool ok = remove_located(at);
      removed += ok;
      return ok;
    });
    return removed;
  }

  // Add-if-absent for keys given as byte ranges of one buffer: key i is bytes[ranges[2i], ranges[2i+1]).
  // Lets a caller pass a block of text and the bounds of its lines without copying the lines apart.
  // results[i]: 0 = already present (nothing added), 1 = added, 2 = absent but no room (nothing added).
  // As in add_many, the batch stops when the chain cannot grow: that key gets kStoppedHere, the rest
  // keep kNotTried. Returns how many were added.
  std::size_t add_if_absent_ranges(const std::uint8_t* bytes, const std::uint32_t* ranges, std::size_t count,
                                   std::uint8_t* results) {
    std::size_t added = 0;
    for (std::size_t i = 0; i < count; ++i) results[i] = kNotTried;
    for_each_located_key(
        count, [&](std::size_t i) { return KeyBytes{bytes + ranges[2 * i], ranges[2 * i + 1] - ranges[2 * i]}; },
        results, [&](const Location& at) -> std::uint8_t {
          if (contains_located(at)) return 0;
          if (add_located(at)) {
            ++added;
            return 1;
          }
          return chain_exhausted() ? kStoppedHere : 2;
        });
    return added;
  }

  // --- merge ------------------------------------------------------------------------------------------
  // Adds every fingerprint of `other` (a filter made with the same options and seed, e.g. built from
  // another part of the data) to this one, without the original keys: afterwards this filter answers
  // "possibly present" for every key either held. All or nothing: if the fingerprints find no room, this
  // filter is left exactly as it was and the Status is capacity_exceeded; incompatible filters give
  // invalid_argument naming the difference. With growth, a sub-filter of the other that does not fit is
  // taken over as a copy (up to max_sub_filters), so the merged false-positive rate is at most the sum of
  // the two filters' rates.
  [[nodiscard]] Status merge(const CuckooFilter& other) { return combine(other, Combine::multiset_sum); }

  // The set union with `other` (same options and seed as merge): each fingerprint of `other` is added only
  // where its bucket pair here holds fewer copies of it than `other` does, so the union with itself or
  // with a filter of a subset of the keys changes nothing, and every key of either is still found. With
  // growth, sub-filter k is compared with sub-filter k (keys of a chain that grew differently may be
  // counted twice, never lost). All or nothing, with the Status of merge.
  [[nodiscard]] Status union_with(const CuckooFilter& other) { return combine(other, Combine::set_union); }

  // --- whole filter -----------------------------------------------------------------------------------
  void clear() noexcept {
    head_.table.clear();
    head_.size = 0;
    tail_.clear();
  }
  // 64-bit counts, also in the 32-bit wasm build: a chain can pass 2^32 slots.
  [[nodiscard]] std::uint64_t size() const noexcept {
    std::uint64_t n = head_.size;
    for (const Segment& s : tail_) n += s.size;
    return n;
  }
  // The capacity of the whole chain (the first sub-filter's, without growth).
  [[nodiscard]] std::uint64_t capacity() const noexcept {
    std::uint64_t n = head_.capacity;
    for (const Segment& s : tail_) n += s.capacity;
    return n;
  }
  // Memory held by the tables (including 8 bytes of load padding each); the objects are ~100 bytes more.
  [[nodiscard]] std::uint64_t byte_size() const noexcept {
    std::uint64_t n = head_.table.allocated_bytes();
    for (const Segment& s : tail_) n += s.table.allocated_bytes();
    return n;
  }
  [[nodiscard]] std::uint64_t slot_count() const noexcept {
    std::uint64_t n = head_.num_buckets;
    for (const Segment& s : tail_) n += s.num_buckets;
    return n * layout_.bucket_size;
  }
  [[nodiscard]] double load_factor() const noexcept {
    return static_cast<double>(size()) / static_cast<double>(slot_count());
  }
  // Probability that a key never added is reported present, at the current load: in each sub-filter a
  // lookup compares with 2b slots, each occupied with probability load and then matching with
  // 1 / (2^f - 1); a key is a false positive if any sub-filter matches.
  [[nodiscard]] double expected_fp_rate() const noexcept {
    double none = segment_miss_probability(head_);
    for (const Segment& s : tail_) none *= segment_miss_probability(s);
    return 1.0 - none;
  }
  [[nodiscard]] const Layout& layout() const noexcept { return layout_; }
  // The first sub-filter's shape (the whole filter's, without growth).
  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return head_.num_buckets; }
  [[nodiscard]] unsigned fingerprint_bits() const noexcept { return head_.fingerprint_bits; }
  [[nodiscard]] unsigned bucket_size() const noexcept { return layout_.bucket_size; }
  [[nodiscard]] unsigned max_kicks() const noexcept { return layout_.max_kicks; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return layout_.seed; }
  [[nodiscard]] unsigned growth() const noexcept { return layout_.growth; }
  [[nodiscard]] unsigned max_sub_filters() const noexcept { return layout_.max_sub_filters; }
  [[nodiscard]] std::size_t sub_filter_count() const noexcept { return 1 + tail_.size(); }

  // Read-only view of the first sub-filter's table, for visualisation and tests.
  [[nodiscard]] std::uint32_t slot(std::uint64_t bucket, unsigned slot_index) const noexcept {
    return head_.table.get(bucket, slot_index);
  }
  [[nodiscard]] std::span<const std::uint8_t> table_bytes() const noexcept {
    return {head_.table.data(), head_.table.byte_length()};
  }

  // While attached, every add() records its steps into *trace (reset at the start of each add).
  void set_trace(InsertTrace* trace) noexcept { trace_ = trace; }

  // --- export -----------------------------------------------------------------------------------------
  // Filters without growth write format version 3, growing ones version 4 (format.hpp).
  class Exporter;
  class Importer;
  [[nodiscard]] std::uint64_t serialized_size() const noexcept {
    if (layout_.growth == 0) return format::kHeaderSize + head_.table.byte_length() + format::kChecksumSize;
    std::uint64_t n = format::kChainHeaderSize + format::kChecksumSize;
    for_each_segment([&](const Segment& s) { n += format::kSegmentHeaderSize + s.table.byte_length(); });
    return n;
  }
  // Writes exactly serialized_size() bytes.
  void serialize_into(std::uint8_t* out) const noexcept;
  [[nodiscard]] std::vector<std::uint8_t> serialize() const {
    std::vector<std::uint8_t> out(serialized_size());
    serialize_into(out.data());
    return out;
  }

 private:
  struct Segment {
    std::uint64_t capacity = 0;
    std::uint64_t num_buckets = 0;
    unsigned fingerprint_bits = 0;
    detail::BucketTable table;
    std::uint64_t size = 0;
  };

  struct PathStep {
    std::uint32_t bucket;
    std::uint32_t slot;
  };

  struct KeyBytes {
    const std::uint8_t* data;
    std::size_t length;
  };

  CuckooFilter() = default;

  [[nodiscard]] static bool allocate_segment(Segment& s, std::uint64_t capacity, std::uint64_t buckets,
                                             unsigned bits, unsigned bucket_size) noexcept {
    s.capacity = capacity;
    s.num_buckets = buckets;
    s.fingerprint_bits = bits;
    s.size = 0;
    return s.table.allocate(buckets, bucket_size, bits);
  }

  [[nodiscard]] CUCKOO_COLD static Status make_from_layout(const Layout& layout, std::optional<CuckooFilter>& out) {
    CuckooFilter filter;
    filter.layout_ = layout;
    filter.hasher_ = KeyHasher(layout.seed);
    if (!allocate_segment(filter.head_, layout.capacity, layout.num_buckets, layout.fingerprint_bits, layout.bucket_size))
      return Status::error(ErrorCode::out_of_memory,
                           "cannot allocate " +
                               std::to_string(format::table_bytes(layout.num_buckets, layout.bucket_size,
                                                                  layout.fingerprint_bits)) +
                               " bytes for the table");
    if (!reserve_nothrow(filter.path_, layout.max_kicks) ||
        !reserve_nothrow(filter.tail_, layout.max_sub_filters - 1))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate the filter's bookkeeping");
    filter.path_.resize(layout.max_kicks);
    out.emplace(std::move(filter));
    return {};
  }

  // std::vector allocates through operator new, which aborts the whole wasm module (built without
  // exceptions) when the heap is full. Probing with malloc first turns that into an out_of_memory Status:
  // the memory just freed is what the reserve then gets (one thread, nothing allocates in between).
  template <class T>
  [[nodiscard]] static bool reserve_nothrow(std::vector<T>& v, std::size_t n) noexcept {
    if (v.capacity() >= n) return true;
    void* probe = std::malloc(n * sizeof(T));
    if (probe == nullptr) return false;
    std::free(probe);
    v.reserve(n);
    return true;
  }

  template <class Fn>
  void for_each_segment(Fn&& fn) const {
    fn(head_);
    for (const Segment& s : tail_) fn(s);
  }

  [[nodiscard]] static double segment_miss_probability(const Segment& s) noexcept {
    const double per_slot = 1.0 / (std::ldexp(1.0, static_cast<int>(s.fingerprint_bits)) - 1.0);
    const double load = static_cast<double>(s.size) / static_cast<double>(s.num_buckets * s.table.bucket_size());
    // (1 - p)^x as exp(x * log1p(-p)): the same value, accurate for tiny p, and without pow's code.
    return std::exp(2.0 * s.table.bucket_size() * load * std::log1p(-per_slot));
  }

  [[nodiscard]] static Location locate_in(const Segment& s, std::uint64_t hash) noexcept {
    const std::uint32_t index = index_of(hash, s.num_buckets);
    const std::uint32_t fingerprint = fingerprint_of(hash, s.fingerprint_bits);
    return {hash, index, alternate_index(index, fingerprint, s.num_buckets), fingerprint};
  }

  [[nodiscard]] bool contains_located(const Location& at) const noexcept {
    if (head_.table.contains_either(at.index, at.alternate_index, at.fingerprint)) return true;
    return !tail_.empty() && contains_in_tail(at.hash);
  }
  // Kept out of line so that contains_located stays small enough to inline into callers' loops; it takes
  // the hash alone so that the caller's Location can stay in registers.
  [[gnu::noinline]] [[nodiscard]] bool contains_in_tail(std::uint64_t hash) const noexcept {
    for (const Segment& s : tail_) {
      const Location t = locate_in(s, hash);
      if (s.table.contains_either(t.index, t.alternate_index, t.fingerprint)) return true;
    }
    return false;
  }

  static bool remove_from(Segment& s, const Location& at) noexcept {
    (void)s.table.prefetch(at.alternate_index);  // see place_direct()
    for (const std::uint32_t bucket : {at.index, at.alternate_index}) {
      const int slot = s.table.find(bucket, at.fingerprint);
      if (slot >= 0) {
        s.table.set(bucket, static_cast<unsigned>(slot), 0);
        --s.size;
        return true;
      }
    }
    return false;
  }

  // Newest sub-filter first. Within one table, keys with the same bucket pair and fingerprint are
  // interchangeable, so removing any copy is exact. Across sub-filters they are not: the key may match
  // another key's fingerprint in a sub-filter it does not live in (a false positive there), and removing
  // that copy would lose the other key ("false deletion", chance about the false-positive rate per
  // delete). Newer sub-filters have longer fingerprints and hold most keys, which makes that least likely.
  bool remove_located(const Location& at) noexcept {
    for (auto it = tail_.rbegin(); it != tail_.rend(); ++it)
      if (remove_from(*it, locate_in(*it, at.hash))) return true;
    return remove_from(head_, at);
  }

  [[nodiscard]] bool chain_exhausted() const noexcept {
    return last_failure_ == AddFailure::growth_limit || last_failure_ == AddFailure::out_of_memory;
  }

  // add_many for the common shape (one sub-filter, no trace, buckets of one word): add_located's direct
  // placement through a probe of the table, the rest (kicks, growth) through add_located_slow. Once the
  // chain has grown, new keys belong to its newest sub-filter, so tail_ is checked for every key. Not
  // inlined: inside add_many it made g++ compile the general loop worse (b = 8 batch inserts 15% slower).
  [[gnu::noinline]] std::size_t add_many_word(const std::uint8_t* bytes, const std::uint32_t* offsets,
                                              std::size_t count, std::uint8_t* results) {
    std::size_t added = 0;
    auto probe = head_.table.word_probe();
    for_each_located(bytes, offsets, count, results, [&](const Location& at) -> std::uint8_t {
      if (tail_.empty() && (probe.insert_if_room(at.index, at.fingerprint) >= 0 ||
                            probe.insert_if_room(at.alternate_index, at.fingerprint) >= 0)) {
        ++head_.size;
        last_failure_ = AddFailure::none;
        ++added;
        return 1;
      }
      const bool ok = add_located_slow(at.hash);
      added += ok;
      return ok ? 1 : chain_exhausted() ? kStoppedHere : 0;
    });
    return added;
  }

  // New keys go to the newest sub-filter; when it has no room and growth is on, a larger one is chained.
  // Precondition: head_at == locate_hash(head_at.hash) (every caller passes exactly that).
  bool add_located(const Location& head_at) {
    // The common case, kept small enough to inline into callers' loops: one sub-filter, no trace, and a
    // free slot in one of the two buckets (insert() starts with the same place_direct).
    if (tail_.empty() && trace_ == nullptr && place_direct(head_.table, head_at).slot >= 0) {
      ++head_.size;
      last_failure_ = AddFailure::none;
      return true;
    }
    return add_located_slow(head_at.hash);
  }

  // The first placement every insert tries: the first free slot of the primary bucket, else of the
  // alternate one. Returns where it stored the fingerprint (slot -1: both buckets are full).
  struct DirectPlacement {
    std::uint32_t bucket;
    int slot;
  };
  static DirectPlacement place_direct(detail::BucketTable& table, const Location& at) noexcept {
    // Start the second bucket's miss now: waiting for the first bucket to prove full before asking for
    // the second would serialise two misses whenever it is. (A native prefetch; in wasm the discarded
    // load is dropped, and the second bucket is loaded when it is needed.)
    (void)table.prefetch(at.alternate_index);
    const int slot = table.insert_if_room(at.index, at.fingerprint);
    if (slot >= 0) return {at.index, slot};
    return {at.alternate_index, table.insert_if_room(at.alternate_index, at.fingerprint)};
  }

  // Both buckets full (a kick-out walk), a trace to record, or a chain of sub-filters. It takes the hash
  // alone (and locates it again) so that the fast path's Location can stay in registers.
  [[gnu::noinline]] bool add_located_slow(std::uint64_t hash) {
    const Location head_at = locate_hash(hash);
    Segment& target = tail_.empty() ? head_ : tail_.back();
    const Location at = tail_.empty() ? head_at : locate_in(target, head_at.hash);
    const InsertOutcome outcome = insert_traced(target, at);
    if (outcome == InsertOutcome::placed) {
      last_failure_ = AddFailure::none;
      return true;
    }
    if (outcome == InsertOutcome::duplicate_limit || layout_.growth == 0) {
      last_failure_ = outcome == InsertOutcome::duplicate_limit ? AddFailure::duplicate_limit : AddFailure::table_full;
      return false;
    }
    last_failure_ = grow(tail_);
    if (last_failure_ != AddFailure::none) return false;
    // An empty table always has room.
    insert_traced(tail_.back(), locate_in(tail_.back(), head_at.hash));
    return true;
  }

  // Appends the next sub-filter of the chain to `tail` (this filter's, or a working copy's).
  [[nodiscard]] AddFailure grow(std::vector<Segment>& tail) const noexcept {
    const Segment& last = tail.empty() ? head_ : tail.back();
    if (1 + tail.size() >= layout_.max_sub_filters) return AddFailure::growth_limit;
    if (last.fingerprint_bits >= kMaxFingerprintBits) return AddFailure::growth_limit;
    if (last.capacity > detail::kMaxCapacity / layout_.growth) return AddFailure::growth_limit;
    const std::uint64_t capacity = last.capacity * layout_.growth;
    const std::uint64_t buckets = detail::buckets_for(capacity, layout_.bucket_size);
    if (buckets > kMaxBuckets) return AddFailure::growth_limit;
    Segment next;
    if (!allocate_segment(next, capacity, buckets, last.fingerprint_bits + 1, layout_.bucket_size) ||
        !reserve_nothrow(tail, tail.size() + 1))
      return AddFailure::out_of_memory;
    tail.push_back(std::move(next));
    return AddFailure::none;
  }

  InsertOutcome insert_traced(Segment& s, const Location& at) {
    return trace_ != nullptr ? insert_recording(s, at) : insert<false>(s, at);
  }

  // Inserts while recording a trace: for teaching and tests, so compiled for size.
  CUCKOO_COLD InsertOutcome insert_recording(Segment& s, const Location& at) { return insert<true>(s, at); }

  // Keys packed back to back: key i is bytes[offsets[i], offsets[i+1]).
  template <class Op>
  void for_each_located(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                        std::uint8_t* results, Op&& op) const {
    for_each_located_key(
        count, [&](std::size_t i) { return KeyBytes{bytes + offsets[i], offsets[i + 1] - offsets[i]}; },
        results, std::forward<Op>(op));
  }

  // Hashes and prefetches a group of keys, then stores op(place in the first sub-filter) for each one,
  // in key order, into results. A result of kStoppedHere ends the walk after that key; results past it
  // keep what they held. A group's results are gathered in a local buffer and copied out once: a store
  // through the caller's byte pointer may alias anything, so storing each one directly would make the
  // compiler reload the table's fields for every key (a third of a lookup's time in wasm).
  template <class KeyAt, class Op>
  void for_each_located_key(std::size_t count, KeyAt&& key_at, std::uint8_t* results, Op&& op) const {
    constexpr std::size_t kGroup = 16;
    Location group[kGroup];
    std::uint8_t group_results[kGroup];
    std::uint8_t touched = 0;
    for (std::size_t start = 0; start < count; start += kGroup) {
      const std::size_t n = count - start < kGroup ? count - start : kGroup;
      for (std::size_t j = 0; j < n; ++j) {
        const KeyBytes key = key_at(start + j);
        group[j] = locate_hash(hash_of(key.data, key.length));
      }
      // A loop of its own, after the hashing: in wasm these are real loads, which stall retirement until
      // they arrive; back to back, all of a group's misses fit in the CPU's window at once.
      for (std::size_t j = 0; j < n; ++j)
        touched = static_cast<std::uint8_t>(touched ^ head_.table.prefetch(group[j].index) ^
                                            head_.table.prefetch(group[j].alternate_index));
      for (std::size_t j = 0; j < n; ++j) {
        group_results[j] = op(group[j]);
        if (group_results[j] == kStoppedHere) {
          std::memcpy(results + start, group_results, j + 1);
          prefetch_sink_ = touched;
          return;
        }
      }
      std::memcpy(results + start, group_results, n);
    }
    prefetch_sink_ = touched;
  }

  template <bool Traced>
  InsertOutcome insert(Segment& seg, const Location& at) {
    detail::BucketTable& table = seg.table;
    [[maybe_unused]] InsertTrace* const trace = trace_;
    if constexpr (Traced) {
      trace->reset();
      trace->hash = at.hash;
      trace->fingerprint = at.fingerprint;
      trace->index = at.index;
      trace->alternate_offset = alternate_offset(at.fingerprint, seg.num_buckets);
      trace->alternate_index = at.alternate_index;
    }
    if (const DirectPlacement placed = place_direct(table, at); placed.slot >= 0) {
      if constexpr (Traced)
        trace->steps.push_back(
            {TraceStepKind::place, placed.bucket, static_cast<std::uint32_t>(placed.slot), at.fingerprint, 0});
      ++seg.size;
      return InsertOutcome::placed;
    }
    // Both buckets are full. If all 2b slots already hold this fingerprint, no walk can make room.
    const unsigned b = layout_.bucket_size;
    if (table.all_equal(at.index, at.fingerprint) && table.all_equal(at.alternate_index, at.fingerprint)) {
      if constexpr (Traced) trace->outcome = InsertOutcome::duplicate_limit;
      return InsertOutcome::duplicate_limit;
    }

    SplitMix64 rng{at.hash};
    const std::uint64_t first = rng.next();
    std::uint32_t bucket = (first & 1) != 0 ? at.alternate_index : at.index;
    std::uint32_t homeless = at.fingerprint;
    for (unsigned kick = 0; kick < layout_.max_kicks; ++kick) {
      // A resident that can move straight to a free slot if there is one, else a random one (b is a power
      // of two, so the mask picks a uniform slot).
      const int movable = resident_with_room(table, bucket, seg.num_buckets);
      const auto slot = movable >= 0 ? static_cast<std::uint32_t>(movable) : static_cast<std::uint32_t>(rng.next() & (b - 1));
      const std::uint32_t evicted = table.get(bucket, slot);
      table.set(bucket, slot, homeless);
      path_[kick] = {bucket, slot};
      if constexpr (Traced) trace->steps.push_back({TraceStepKind::kick, bucket, slot, homeless, evicted});
      homeless = evicted;
      bucket = alternate_index(bucket, homeless, seg.num_buckets);
      const int free_slot = table.insert_if_room(bucket, homeless);
      if (free_slot >= 0) {
        if constexpr (Traced)
          trace->steps.push_back({TraceStepKind::place, bucket, static_cast<std::uint32_t>(free_slot), homeless, 0});
        ++seg.size;
        return InsertOutcome::placed;
      }
    }
    // Out of kicks: walk the path backwards, putting each evicted fingerprint back where it was. Each
    // slot on the path now holds the fingerprint placed there; restoring it makes that one homeless,
    // and after the first step it is the new key's fingerprint again, which is dropped.
    for (unsigned kick = layout_.max_kicks; kick-- > 0;) {
      const PathStep step = path_[kick];
      const std::uint32_t placed = table.get(step.bucket, step.slot);
      table.set(step.bucket, step.slot, homeless);
      if constexpr (Traced) trace->steps.push_back({TraceStepKind::undo, step.bucket, step.slot, homeless, placed});
      homeless = placed;
    }
    if constexpr (Traced) trace->outcome = InsertOutcome::table_full;
    return InsertOutcome::table_full;
  }

  // The first slot of `bucket` whose fingerprint has a free slot in its other bucket, or -1. Looking one
  // step ahead before evicting shortens the kick-out walks of a nearly full table several times over: a
  // random victim's other bucket is full most of the time at 95% load, and each step of the walk is a
  // cache miss that waits for the one before, while the b look-ahead loads are independent of each other.
  [[nodiscard]] int resident_with_room(const detail::BucketTable& table, std::uint32_t bucket,
                                       std::uint64_t num_buckets) const noexcept {
    constexpr unsigned kMaxBucketSize = 8;
    std::uint32_t other[kMaxBucketSize];
    const unsigned b = layout_.bucket_size;
    for (unsigned s = 0; s < b; ++s) {
      other[s] = alternate_index(bucket, table.get(bucket, s), num_buckets);
      (void)table.prefetch(other[s]);
    }
    for (unsigned s = 0; s < b; ++s)
      if (table.find(other[s], 0) >= 0) return static_cast<int>(s);
    return -1;
  }

  enum class Combine { multiset_sum, set_union };
  [[nodiscard]] Status combine(const CuckooFilter& other, Combine mode);

  [[nodiscard]] static Status clone_segment(const Segment& from, Segment& to, unsigned bucket_size) noexcept {
    if (!allocate_segment(to, from.capacity, from.num_buckets, from.fingerprint_bits, bucket_size))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate a copy of the table for the merge");
    std::memcpy(to.table.mutable_data(), from.table.data(), from.table.byte_length());
    to.size = from.size;
    return {};
  }

  KeyHasher hasher_;  // hashes keys with layout_.seed
  Layout layout_;  // the options; capacity, num_buckets and fingerprint_bits are the first sub-filter's
  Segment head_;   // the first sub-filter (invariant: its shape is layout_'s)
  std::vector<Segment> tail_;   // sub-filters chained by growth, oldest first
  std::vector<PathStep> path_;  // scratch for undoing a failed walk; max_kicks entries
  InsertTrace* trace_ = nullptr;
  AddFailure last_failure_ = AddFailure::none;
  // Keeps the loads of for_each_located_key alive where prefetching is a real load (wasm).
  mutable std::uint8_t prefetch_sink_ = 0;
};

CUCKOO_COLD inline Status CuckooFilter::combine(const CuckooFilter& other, Combine mode) {
  const auto incompatible = [](const std::string& what) {
    return Status::error(ErrorCode::invalid_argument, "cannot merge filters with different " + what);
  };
  const Layout& a = layout_;
  const Layout& b = other.layout_;
  if (a.growth != b.growth || a.max_sub_filters != b.max_sub_filters)
    return incompatible("growth settings (growth " + std::to_string(a.growth) + " and " + std::to_string(b.growth) + ")");
  if (a.bucket_size != b.bucket_size)
    return incompatible("bucket sizes (" + std::to_string(a.bucket_size) + " and " + std::to_string(b.bucket_size) + ")");
  if (a.fingerprint_bits != b.fingerprint_bits)
    return incompatible("fingerprint bits (" + std::to_string(a.fingerprint_bits) + " and " +
                        std::to_string(b.fingerprint_bits) + ")");
  if (a.num_buckets != b.num_buckets || a.capacity != b.capacity)
    return incompatible("capacities (" + std::to_string(a.capacity) + " and " + std::to_string(b.capacity) + ")");
  if (a.seed != b.seed) return incompatible("seeds");

  // Work on copies, so that a merge that does not fit leaves this filter untouched.
  std::vector<Segment> work;
  if (!reserve_nothrow(work, a.max_sub_filters))
    return Status::error(ErrorCode::out_of_memory, "cannot allocate the merge's bookkeeping");
  work.resize(sub_filter_count());
  std::size_t k = 0;
  Status status;
  for_each_segment([&](const Segment& s) {
    if (status.ok()) status = clone_segment(s, work[k++], a.bucket_size);
  });
  if (!status.ok()) return status;
  const std::size_t own = work.size();

  InsertTrace* const saved_trace = trace_;
  trace_ = nullptr;
  // Sub-filter k of the other goes into this filter's sub-filter k when it has the same shape (both
  // chains grew by the same rule) and room. A fingerprint cannot move to a table of another shape (its
  // buckets and width come from hash bits that are gone), so otherwise, when growth is on, this chain
  // takes a copy of the other's sub-filter: every key is kept, and the false-positive rates add up.
  const auto take_copy = [&](const Segment& from) {
    if (a.growth == 0 || work.size() >= a.max_sub_filters)
      return Status::error(ErrorCode::capacity_exceeded,
                           a.growth == 0 ? "the merged fingerprints do not fit (this filter was left unchanged)"
                                         : "the merged fingerprints do not fit in " + std::to_string(a.max_sub_filters) +
                                               " sub-filters (this filter was left unchanged)");
    work.emplace_back();
    return clone_segment(from, work.back(), a.bucket_size);
  };
  // Places `copies` copies of fp in the bucket pair (i, j) of `into`.
  const auto place = [&](Segment& into, std::uint32_t i, std::uint32_t j, std::uint32_t fp, std::size_t copies) {
    // The walk's generator is seeded from the place (there is no key hash), so merges are reproducible.
    const Location at{(std::uint64_t{i} << 32 | fp) ^ a.seed, i, j, fp};
    for (std::size_t c = 0; c < copies; ++c)
      if (insert<false>(into, at) != InsertOutcome::placed) return false;
    return true;
  };
  k = 0;
  other.for_each_segment([&](const Segment& from) {
    const std::size_t index = k++;
    if (!status.ok()) return;
    if (index >= own || work[index].num_buckets != from.num_buckets ||
        work[index].fingerprint_bits != from.fingerprint_bits) {
      status = take_copy(from);
      return;
    }
    Segment& into = work[index];
    Segment saved;
    if (status = clone_segment(into, saved, a.bucket_size); !status.ok()) return;
    bool fits = true;
    for (std::uint64_t bucket = 0; bucket < from.num_buckets && fits; ++bucket) {
      const auto i = static_cast<std::uint32_t>(bucket);
      for (unsigned slot = 0; slot < a.bucket_size && fits; ++slot) {
        const std::uint32_t fp = from.table.get(i, slot);
        if (fp == 0) continue;
        // The fingerprint's bucket pair is known from where it sits.
        const std::uint32_t j = alternate_index(i, fp, from.num_buckets);
        if (mode == Combine::multiset_sum) {
          fits = place(into, i, j, fp, 1);
          continue;
        }
        // Union: each (pair, fingerprint) once, at its first slot in bucket order; then add what `into`
        // lacks of the copies `from` holds in the pair. Kicks move fingerprints only within their own pair,
        // so the counts of a pair handled earlier stay right.
        if (from.table.find(i, fp) != static_cast<int>(slot) || (j < i && from.table.count(j, fp) != 0)) continue;
        const auto copies_in = [&](const Segment& s) {
          return s.table.count(i, fp) + (j != i ? s.table.count(j, fp) : 0);
        };
        const std::size_t want = copies_in(from);
        const std::size_t have = copies_in(into);
        if (want > have) fits = place(into, i, j, fp, want - have);
      }
    }
    if (!fits) {
      into = std::move(saved);
      status = take_copy(from);
    }
  });
  trace_ = saved_trace;
  if (!status.ok()) return status;
  // Smallest first, so that new keys and growth continue from the largest sub-filter. The first keeps
  // its place: it is the filter's shape (layout_). A stable insertion sort: at most 32 entries, and
  // std::stable_sort would add kilobytes to the wasm module.
  const auto before = [](const Segment& x, const Segment& y) {
    return x.capacity < y.capacity || (x.capacity == y.capacity && x.fingerprint_bits < y.fingerprint_bits);
  };
  for (std::size_t i = 2; i < work.size(); ++i)
    for (std::size_t j = i; j > 1 && before(work[j], work[j - 1]); --j) std::swap(work[j], work[j - 1]);
  head_ = std::move(work.front());
  tail_.clear();
  for (std::size_t i = 1; i < work.size(); ++i) tail_.push_back(std::move(work[i]));
  return {};
}

// Reads a filter's export out in pieces of any size, in order: the headers, each table straight from the
// filter's memory, then the checksum of everything before it. The filter must not change while this reads.
class CuckooFilter::Exporter {
 public:
  CUCKOO_COLD explicit Exporter(const CuckooFilter& f) noexcept {
    using namespace format;
    std::uint8_t* h = headers_;
    if (f.layout_.growth == 0) {
      write_header(h, f.layout_, f.head_.size);
      add(h, kHeaderSize);
      add(f.head_.table.data(), f.head_.table.byte_length());
    } else {
      write_common_header(h, kVersionChained, f.layout_);
      put_le(h + chain_offset::growth, f.layout_.growth, 1);
      put_le(h + chain_offset::max_sub_filters, f.layout_.max_sub_filters, 1);
      put_le(h + chain_offset::sub_filters, f.sub_filter_count(), 2);
      put_le(h + chain_offset::reserved, 0, 4);
      add(h, kChainHeaderSize);
      h += kChainHeaderSize;
      f.for_each_segment([&](const Segment& s) {
        put_le(h + segment_offset::capacity, s.capacity, 8);
        put_le(h + segment_offset::num_buckets, s.num_buckets, 8);
        put_le(h + segment_offset::item_count, s.size, 8);
        put_le(h + segment_offset::table_length, s.table.byte_length(), 8);
        put_le(h + segment_offset::fingerprint_bits, s.fingerprint_bits, 1);
        put_le(h + segment_offset::reserved, 0, 7);
        add(h, kSegmentHeaderSize);
        add(s.table.data(), s.table.byte_length());
        h += kSegmentHeaderSize;
      });
    }
    add(sum_, kChecksumSize);
    for (std::size_t i = 0; i < pieces_count_; ++i) size_ += pieces_[i].length;
  }

  // The export's length: serialized_size().
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

  // Copies the next min(capacity, what is left) bytes to `out` and returns how many (0 at the end).
  CUCKOO_COLD std::size_t read(std::uint8_t* out, std::size_t capacity) noexcept {
    std::size_t written = 0;
    while (written < capacity && piece_ < pieces_count_) {
      const Piece& p = pieces_[piece_];
      if (p.data == sum_ && offset_ == 0) format::put_le(sum_, sum_state_.digest(), format::kChecksumSize);
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(capacity - written, p.length - offset_));
      std::memcpy(out + written, p.data + offset_, n);
      if (p.data != sum_) sum_state_.update(p.data + offset_, n);
      written += n;
      offset_ += n;
      if (offset_ == p.length) {
        ++piece_;
        offset_ = 0;
      }
    }
    return written;
  }

 private:
  struct Piece {
    const std::uint8_t* data;
    std::uint64_t length;
  };
  void add(const std::uint8_t* data, std::uint64_t length) noexcept { pieces_[pieces_count_++] = {data, length}; }

  static constexpr std::size_t kMaxHeaderBytes =
      format::kHeaderSize + format::kChainHeaderSize + kMaxSubFiltersLimit * format::kSegmentHeaderSize;
  std::uint8_t headers_[kMaxHeaderBytes] = {};
  std::uint8_t sum_[format::kChecksumSize] = {};
  Piece pieces_[2 + 2 * kMaxSubFiltersLimit] = {};
  std::size_t pieces_count_ = 0;
  std::size_t piece_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t size_ = 0;
  format::Checksum sum_state_;
};

CUCKOO_COLD inline void CuckooFilter::serialize_into(std::uint8_t* out) const noexcept {
  Exporter exporter(*this);
  exporter.read(out, static_cast<std::size_t>(exporter.size()));
}

// Reads an export that arrives in pieces of any size, writing each table straight into the new filter's
// memory, and checks it as a whole: every header field, every length, the checksum, then each table's
// unused bits and fingerprint count. After the first error every call returns it.
//
// Given the total length in advance (a whole export in memory), it refuses a header that does not
// describe exactly that many bytes before allocating anything; without it (a stream), the tables a header
// describes are allocated when the header arrives.
class CuckooFilter::Importer {
 public:
  static constexpr std::uint64_t kUnknownLength = ~std::uint64_t{0};
  explicit Importer(std::uint64_t total = kUnknownLength) noexcept : total_(total) {}

  // Takes the next `length` bytes of the export.
  CUCKOO_COLD Status push(const std::uint8_t* data, std::size_t length) {
    while (length > 0 && error_.ok()) {
      if (phase_ == Phase::done) {
        error_ = format::bad_format("trailing data: more than the " + std::to_string(received_) +
                                    " bytes the header describes");
        break;
      }
      std::size_t n;
      if (phase_ == Phase::table) {
        n = static_cast<std::size_t>(std::min<std::uint64_t>(length, table_left_));
        std::memcpy(table_at_, data, n);
        table_at_ += n;
        table_left_ -= n;
        sum_.update(data, n);
        received_ += n;
        if (table_left_ == 0) error_ = next_after_table();
      } else {
        n = std::min(length, want_ - have_);
        std::memcpy(pending_ + have_, data, n);
        have_ += n;
        if (phase_ != Phase::checksum) sum_.update(data, n);
        received_ += n;
        if (have_ == want_) error_ = take_pending();
      }
      data += n;
      length -= n;
    }
    return error_;
  }

  // The filter, once the whole export has arrived and checked out.
  CUCKOO_COLD Status finish(std::optional<CuckooFilter>& out) {
    if (error_.ok() && phase_ != Phase::done) error_ = truncated();
    if (!error_.ok()) return error_;
    out = std::move(filter_);
    filter_.reset();
    return {};
  }

 private:
  enum class Phase { version, single_header, chain_header, segment_header, table, checksum, done };

  CUCKOO_COLD Status take_pending() {
    using namespace format;
    have_ = 0;
    switch (phase_) {
      case Phase::version: {
        std::uint16_t version = 0;
        if (Status s = read_version(pending_, version); !s.ok()) return s;
        phase_ = version == kVersion ? Phase::single_header : Phase::chain_header;
        want_ = version == kVersion ? kHeaderSize : kChainHeaderSize;
        have_ = offset::version + 2;  // the header is checked whole: keep its first bytes
        return {};
      }
      case Phase::single_header: {
        SegmentInfo info;
        if (Status s = read_single_header(pending_, layout_, info); !s.ok()) return s;
        const std::uint64_t total = kHeaderSize + info.table_length + kChecksumSize;
        if (total_ != kUnknownLength && total_ != total)
          return bad_format(std::string(total_ < total ? "truncated: " : "trailing data: ") + std::to_string(total_) +
                            " bytes, but the header describes " + std::to_string(total));
        return begin_segment(info);
      }
      case Phase::chain_header:
        if (Status s = read_chain_header(pending_, layout_, segments_left_); !s.ok()) return s;
        phase_ = Phase::segment_header;
        want_ = kSegmentHeaderSize;
        return {};
      case Phase::segment_header: {
        SegmentInfo info;
        const std::uint64_t k = infos_.size();
        if (Status s = read_segment_header(pending_, k, layout_, info); !s.ok()) return s;
        if (total_ != kUnknownLength && (total_ < received_ || total_ - received_ < info.table_length + kChecksumSize))
          return bad_format("truncated: " + std::to_string(total_) + " bytes end inside sub-filter " +
                            std::to_string(k) + ": table");
        if (k == 0) {
          layout_.capacity = info.capacity;
          layout_.num_buckets = info.num_buckets;
        }
        --segments_left_;
        return begin_segment(info);
      }
      case Phase::checksum:
        phase_ = Phase::done;
        if (sum_.digest() != get_le(pending_, kChecksumSize))
          return bad_format("checksum mismatch: the data is corrupted");
        return check_tables();
      default:
        return {};
    }
  }

  // Allocates the sub-filter a header described (the first one makes the filter) and reads its table next.
  CUCKOO_COLD Status begin_segment(const format::SegmentInfo& info) {
    if (!reserve_nothrow(infos_, infos_.size() + 1))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate the reader's bookkeeping");
    Segment* s;
    if (infos_.empty()) {
      if (Status st = make_from_layout(layout_, filter_); !st.ok()) return st;
      s = &filter_->head_;
    } else {
      auto& tail = filter_->tail_;
      if (!reserve_nothrow(tail, tail.size() + 1)) return out_of_memory(infos_.size());
      tail.emplace_back();
      s = &tail.back();
      if (!allocate_segment(*s, info.capacity, info.num_buckets, info.fingerprint_bits, layout_.bucket_size))
        return out_of_memory(infos_.size());
    }
    s->size = info.item_count;
    infos_.push_back(info);
    phase_ = Phase::table;
    table_at_ = s->table.mutable_data();
    table_left_ = info.table_length;
    return {};
  }

  CUCKOO_COLD static Status out_of_memory(std::size_t k) {
    return Status::error(ErrorCode::out_of_memory, "cannot allocate sub-filter " + std::to_string(k));
  }

  CUCKOO_COLD Status next_after_table() {
    using namespace format;
    if (layout_.growth != 0 && segments_left_ > 0) {
      phase_ = Phase::segment_header;
      want_ = kSegmentHeaderSize;
      return {};
    }
    phase_ = Phase::checksum;
    want_ = kChecksumSize;
    if (total_ != kUnknownLength && total_ > received_ + kChecksumSize)
      return bad_format("trailing data: " + std::to_string(total_ - received_ - kChecksumSize) +
                        " bytes after the last sub-filter");
    return {};
  }

  // What the checksum cannot vouch for: the writer's own invariants on each table.
  CUCKOO_COLD Status check_tables() const {
    std::size_t k = 0;
    Status status;
    filter_->for_each_segment([&](const Segment& seg) {
      const format::SegmentInfo& info = infos_[k];
      const std::string which = infos_.size() > 1 ? "sub-filter " + std::to_string(k) + ": " : "";
      ++k;
      if (!status.ok()) return;
      const std::uint64_t used_bits = info.num_buckets * layout_.bucket_size * info.fingerprint_bits;
      const std::uint8_t last = seg.table.data()[info.table_length - 1];
      if (used_bits % 8 != 0 && (last >> (used_bits % 8)) != 0) {
        status = format::bad_format(which + "the unused bits after the last slot are not zero");
        return;
      }
      const std::uint64_t occupied = seg.table.count_occupied();
      if (occupied != info.item_count)
        status = format::bad_format(which + "item count " + std::to_string(info.item_count) + " does not match the " +
                                    std::to_string(occupied) + " occupied slots");
    });
    return status;
  }

  CUCKOO_COLD Status truncated() const {
    using namespace format;
    const std::string n = "truncated: " + std::to_string(received_) + " bytes";
    if (phase_ == Phase::version || phase_ == Phase::single_header)
      return bad_format(n + ", but a filter export is at least " + std::to_string(kHeaderSize + kChecksumSize));
    if (phase_ == Phase::chain_header)
      return bad_format(n + ", but a version 4 export is at least " +
                        std::to_string(kChainHeaderSize + kSegmentHeaderSize + kChecksumSize));
    if (layout_.growth == 0)
      return bad_format(n + ", but the header describes " +
                        std::to_string(kHeaderSize + infos_[0].table_length + kChecksumSize));
    const std::string where = phase_ == Phase::checksum ? "the checksum"
                              : phase_ == Phase::table  ? "sub-filter " + std::to_string(infos_.size() - 1) + ": table"
                                                        : "sub-filter " + std::to_string(infos_.size()) + ": header";
    return bad_format(n + " end inside " + where);
  }

  const std::uint64_t total_;
  Phase phase_ = Phase::version;
  std::uint8_t pending_[format::kHeaderSize] = {};  // the header being gathered (the largest is kHeaderSize)
  std::size_t have_ = 0;
  std::size_t want_ = format::offset::version + 2;
  std::uint64_t received_ = 0;
  format::Checksum sum_;
  Layout layout_;
  std::uint64_t segments_left_ = 0;
  std::vector<format::SegmentInfo> infos_;
  std::optional<CuckooFilter> filter_;
  std::uint8_t* table_at_ = nullptr;
  std::uint64_t table_left_ = 0;
  Status error_;
};

CUCKOO_COLD inline Status CuckooFilter::parse(std::span<const std::uint8_t> bytes, std::optional<CuckooFilter>& out) {
  Importer importer(bytes.size());
  (void)importer.push(bytes.data(), bytes.size());
  return importer.finish(out);
}

}  // namespace v1
}  // namespace cuckoo
