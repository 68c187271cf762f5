// A cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014): an approximate multiset of keys
// with add, contains, remove and count, no false negatives, and a false-positive rate set by the
// fingerprint size.
//
// A filter is a chain of sub-filters (sub_filter.hpp: one table, its counters and its kick-out walk): just
// one unless the growth option is set, in which case a full filter chains a larger one (docs/GROWTH.md).
// With growth 2 (options.hpp says when exactly) it is instead one table that doubles in place
// (doubling_filter.hpp), to which every operation here is handed.
// This class is the public API, the chain and the batches; the export format is format.hpp, merging
// merge.hpp, and docs/ARCHITECTURE.md shows how the files fit together.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "bucket_table.hpp"
#include "detail/compiler.hpp"
#include "detail/edition.hpp"
#include "doubling_filter.hpp"
#include "format.hpp"
#include "hashing.hpp"
#include "merge.hpp"
#include "options.hpp"
#include "status.hpp"
#include "sub_filter.hpp"
#include "trace.hpp"

namespace cuckoo {
inline namespace v1 {

class CuckooFilter {
  // Growth in place (defined first: the members below return what these return).
  using NarrowTable = DoublingFilter<std::uint16_t>;
  using Table20 = DoublingFilter<Slot20>;
  using Table24 = DoublingFilter<Slot24>;
  using WideTable = DoublingFilter<std::uint32_t>;
  using PackedTable = DoublingFilter<Slot40>;

  // Whether the filter is a table that doubles in place, and whether it is one sub-filter: constants in a
  // build of sized filters only (detail/edition.hpp), which then leaves the rest out.
  [[nodiscard]] bool in_place_now() const noexcept { return !detail::kSizedOnly && layout_.in_place; }
  [[nodiscard]] bool single() const noexcept { return detail::kSizedOnly || tail_.empty(); }
  // No trace is attached (always, in that build: its module has no call that attaches one).
  [[nodiscard]] bool untraced() const noexcept { return detail::kSizedOnly || trace_ == nullptr; }

  // fn(the table), whichever width it has (in_place_now()).
  template <class Fn>
  decltype(auto) in_place(Fn&& fn) {
    return packed_    ? fn(*packed_)
           : narrow_  ? fn(*narrow_)
           : table20_ ? fn(*table20_)
           : table24_ ? fn(*table24_)
                      : fn(*wide_);
  }
  template <class Fn>
  decltype(auto) in_place(Fn&& fn) const {
    return const_cast<CuckooFilter&>(*this).in_place([&](auto& t) { return fn(std::as_const(t)); });
  }
  // fn(the member that holds a table of `slot_bits`), for making one.
  template <class Fn>
  decltype(auto) in_place_member(unsigned slot_bits, Fn&& fn) {
    return slot_bits == 40   ? fn(packed_)
           : slot_bits == 16 ? fn(narrow_)
           : slot_bits == 20 ? fn(table20_)
           : slot_bits == 24 ? fn(table24_)
                             : fn(wide_);
  }

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

  // A filter moved from may only be destroyed or assigned to: its tables went with the move, and any other
  // call on it reads none (a filter that doubles in place crashed on contains(), an outside review found).
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

  // Integer keys: the same key as the integer's 8 little-endian bytes (two's complement for signed
  // values), whatever it was stored as; 42 and "42" are different keys.
  bool add(std::uint64_t key) { return add_hash(hasher_(key)); }
  [[nodiscard]] bool contains(std::uint64_t key) const noexcept { return contains_hash(hasher_(key)); }
  bool remove(std::uint64_t key) noexcept { return remove_hash(hasher_(key)); }
  [[nodiscard]] std::size_t count(std::uint64_t key) const noexcept { return count_hash(hasher_(key)); }
  [[nodiscard]] Location locate(std::uint64_t key) const noexcept { return locate_hash(hasher_(key)); }

  // The key's place in the first sub-filter.
  [[nodiscard]] Location locate(std::string_view key) const noexcept {
    return locate_hash(hash_of(key.data(), key.size()));
  }
  [[nodiscard]] Location locate(std::span<const std::uint8_t> key) const noexcept {
    return locate_hash(hash_of(key.data(), key.size()));
  }

  // The same operations on a hash from hash_of(); lets callers that hash in bulk skip re-hashing.
  [[nodiscard]] std::uint64_t hash_of(const void* data, std::size_t length) const noexcept {
    return hasher_(data, length);
  }
  bool add_hash(std::uint64_t hash) {
    if (in_place_now()) [[unlikely]]
      return add_widening(hash);
    return add_located(locate_hash(hash));
  }
  [[nodiscard]] bool contains_hash(std::uint64_t hash) const noexcept {
    if (in_place_now()) [[unlikely]]
      return in_place([&](const auto& t) { return t.contains_hash(hash); });
    return contains_located(locate_hash(hash));
  }
  bool remove_hash(std::uint64_t hash) noexcept {
    if (in_place_now()) [[unlikely]]
      return in_place([&](auto& t) { return t.remove_hash(hash); });
    return remove_located(locate_hash(hash));
  }
  [[nodiscard]] std::size_t count_hash(std::uint64_t hash) const noexcept {
    if (in_place_now()) return in_place([&](const auto& t) { return t.count_hash(hash); });
    std::size_t n = 0;
    for_each_sub_filter([&](const SubFilter& s) { n += s.count(s.locate(hash)); });
    return n;
  }
  // In place: the key's two buckets at the table's present size, and the entry it would get.
  [[nodiscard]] Location locate_hash(std::uint64_t hash) const noexcept {
    if (in_place_now()) [[unlikely]]
      return in_place([&](const auto& t) {
        const auto at = t.locate(hash);
        const auto entry = std::uint64_t{at.value};
        return Location{hash, at.i1, at.i2, static_cast<std::uint32_t>(entry), static_cast<std::uint32_t>(entry >> 32)};
      });
    return head_.locate(hash);
  }

  [[nodiscard]] AddFailure last_add_failure() const noexcept {
    if (in_place_now()) return in_place([](const auto& t) { return t.last_failure(); });
    return last_failure_;
  }

  // --- batches ----------------------------------------------------------------------------------------
  // Key i is bytes[offsets[i], offsets[i+1]); `offsets` has count + 1 entries (or, in the overloads on a
  // span, the integer keys[i], 32- or 64-bit). `results[i]` receives the answer for key i, a KeyResult byte. The keys
  // are processed in order, with the same results as single calls; batches are faster because a group of keys is hashed
  // and its buckets prefetched before any of them is touched, so the cache misses of a group overlap.
  void contains_many(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                     std::uint8_t* results) const noexcept {
    contains_hashes(PackedOrWideKeys{hasher_, bytes, offsets}, count, results);
  }
  template <class Integer,
            class = std::enable_if_t<std::is_same_v<Integer, std::uint64_t> || std::is_same_v<Integer, std::uint32_t>>>
  void contains_many(std::span<const Integer> keys, std::uint8_t* results) const noexcept {
    contains_hashes(keys_of(keys), keys.size(), results);
  }
  // Returns how many keys were added. results[i]: yes (added) or no_room (no room, or the duplicate
  // limit). When the chain cannot grow any more (growth_limit, out_of_memory) the batch stops there: that
  // key gets stopped_here, the keys after it are not tried and get not_tried; last_add_failure() says why.
  std::size_t add_many(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                       std::uint8_t* results) {
    return add_hashes(PackedOrWideKeys{hasher_, bytes, offsets}, count, results);
  }
  template <class Integer,
            class = std::enable_if_t<std::is_same_v<Integer, std::uint64_t> || std::is_same_v<Integer, std::uint32_t>>>
  std::size_t add_many(std::span<const Integer> keys, std::uint8_t* results) {
    return add_hashes(keys_of(keys), keys.size(), results);
  }
  // Returns how many keys were removed.
  std::size_t remove_many(const std::uint8_t* bytes, const std::uint32_t* offsets, std::size_t count,
                          std::uint8_t* results) noexcept {
    return remove_hashes(PackedOrWideKeys{hasher_, bytes, offsets}, count, results);
  }
  template <class Integer,
            class = std::enable_if_t<std::is_same_v<Integer, std::uint64_t> || std::is_same_v<Integer, std::uint32_t>>>
  std::size_t remove_many(std::span<const Integer> keys, std::uint8_t* results) noexcept {
    return remove_hashes(keys_of(keys), keys.size(), results);
  }

  // Add-if-absent for keys given as byte ranges of one buffer: key i is bytes[ranges[2i], ranges[2i+1]).
  // Lets a caller pass a block of text and the bounds of its lines without copying the lines apart.
  // results[i]: no = already present (nothing added), yes = added, no_room = absent but no room (nothing
  // added). As in add_many, the batch stops when the chain cannot grow: that key gets stopped_here, the
  // rest get not_tried. Returns how many were added. Unlike single calls, in a filter that has only had
  // keys added (see first_bucket_decides_) a key whose first bucket has a free slot is not compared with
  // its second bucket, where it cannot be: it can only miss a false positive there.
  std::size_t add_if_absent_ranges(const std::uint8_t* bytes, const std::uint32_t* ranges, std::size_t count,
                                   std::uint8_t* results) {
    return add_if_absent_keys(PackedOrWideKeys{hasher_, bytes, ranges, 2}, count, results);
  }
  // The same for keys already hashed (hash_of): hashes[i] is key i's hash. LineDeduper's partitioned runs
  // hash every key to find its thread, then decide their own share's keys here.
  std::size_t add_if_absent_hashes(const std::uint64_t* hashes, std::size_t count, std::uint8_t* results) {
    return add_if_absent_keys(
        PackedOrWideKeys{hasher_, reinterpret_cast<const std::uint8_t*>(hashes), nullptr, 1, true}, count, results);
  }

  // --- merge ------------------------------------------------------------------------------------------
  // Adds every fingerprint of `other` (a filter made with the same options and seed, e.g. built from
  // another part of the data) to this one, without the original keys: afterwards this filter answers
  // "possibly present" for every key either held. All or nothing: if the fingerprints find no room, this
  // filter is left exactly as it was and the Status is capacity_exceeded; incompatible filters give
  // invalid_argument naming the difference. With growth, a sub-filter of the other that does not fit is
  // taken over as a copy (up to max_sub_filters), so the merged false-positive rate is at most the sum of
  // the two filters' rates. In a table that doubles, joined entries keep the bits they had in their own
  // filter: a join that would take the rate past what the options allow (rate_limit) is refused with
  // capacity_exceeded, and so is one that would give a fingerprint more than 2b copies.
  [[nodiscard]] Status merge(const CuckooFilter& other) { return combine(other, detail::Combine::multiset_sum); }

  // The set union with `other` (same options and seed as merge): each fingerprint of `other` is added only
  // where its bucket pair here holds fewer copies of it than `other` does, so the union with itself or
  // with a filter of a subset of the keys changes nothing, and every key of either is still found. With
  // growth, a sub-filter of `other` is compared with every sub-filter of its shape here, so a union
  // repeated changes nothing however the chains grew. All or nothing, with the Status of merge.
  [[nodiscard]] Status union_with(const CuckooFilter& other) { return combine(other, detail::Combine::set_union); }

  // --- whole filter -----------------------------------------------------------------------------------
  void clear() noexcept {
    if (in_place_now()) {
      in_place([](auto& t) { t.clear(); });
      return narrow_to_plan();  // the first table's slots
    }
    head_.table.clear();
    head_.size = 0;
    tail_.clear();
    first_bucket_decides_ = true;
  }
  // 64-bit counts, also in the 32-bit wasm build: a chain can pass 2^32 slots.
  [[nodiscard]] std::uint64_t size() const noexcept {
    if (in_place_now()) return in_place([](const auto& t) { return t.size(); });
    std::uint64_t n = 0;
    for_each_sub_filter([&](const SubFilter& s) { n += s.size; });
    return n;
  }
  // The capacity of the whole chain (the first sub-filter's, without growth); in place, the items the
  // table takes before it doubles again.
  [[nodiscard]] std::uint64_t capacity() const noexcept {
    if (in_place_now()) return in_place([](const auto& t) { return t.fill_limit(); });
    std::uint64_t n = 0;
    for_each_sub_filter([&](const SubFilter& s) { n += s.capacity; });
    return n;
  }
  // Memory held by the tables (including 8 bytes of load padding each); the objects are ~100 bytes more.
  // Natively on Linux a table of 8 MiB or more is mapped in whole 2 MiB pages (detail/table_memory.hpp),
  // which can hold up to 2 MiB more than this once its last page is touched; the count stays the same
  // on every platform, so that native and wasm statistics agree.
  [[nodiscard]] std::uint64_t byte_size() const noexcept {
    if (in_place_now()) return in_place([](const auto& t) { return t.byte_size(); });
    std::uint64_t n = 0;
    for_each_sub_filter([&](const SubFilter& s) { n += s.table.allocated_bytes(); });
    return n;
  }
  [[nodiscard]] std::uint64_t slot_count() const noexcept {
    if (in_place_now()) return num_buckets() * layout_.bucket_size;
    std::uint64_t n = 0;
    for_each_sub_filter([&](const SubFilter& s) { n += s.num_buckets; });
    return n * layout_.bucket_size;
  }
  [[nodiscard]] double load_factor() const noexcept {
    return static_cast<double>(size()) / static_cast<double>(slot_count());
  }
  // Probability that a key never added is reported present, at the current load: in each sub-filter a
  // lookup compares with 2b slots, each occupied with probability load and then matching with
  // 1 / (2^f - 1); a key is a false positive if any sub-filter matches. Sub-filters of one shape (a join
  // takes a part's over as copies) give a key the same bucket pair and the same fingerprint, so their
  // matches are not independent: a union keeps an entry in one of them only, and their rates add up (the
  // sum, at most 1, an upper bound whatever they hold). With 1 - the product over them, the union of ten
  // chains of 8-bit fingerprints said 0.310 where 0.361 was measured, and merge's 0.361 of the same parts.
  // Sub-filters that growth adds are each of a shape of their own.
  [[nodiscard]] double expected_fp_rate() const noexcept {
    if (in_place_now()) return in_place([](const auto& t) { return t.expected_fp_rate(); });
    if (detail::kSizedOnly) return 1.0 - head_.miss_probability();
    return chain_fp_rate();
  }
  // At least the probability that a key never added is taken for present, whatever was added and how: the
  // expected number of entries it matches. A table that doubles in place: expected_fp_rate(), a sum over
  // its entries already. A sized table or a chain: each sub-filter's 2b x load / (2^f - 1), summed.
  // expected_fp_rate() there takes the stored fingerprints as independent, and add-if-absent leaves fewer
  // repeats of one in a bucket pair than adds of random keys do: with 4-bit fingerprints, a chain filled
  // by a deduplicator's 20,000 distinct lines said 0.60 and matched 0.77 of absent keys (an outside
  // review, 2026-12-02). LineDeduper::expected_wrong_drops counts with this.
  [[nodiscard]] double match_bound() const noexcept {
    if (in_place_now()) return expected_fp_rate();
    if (detail::kSizedOnly) return head_.expected_matches();
    double sum = 0;
    for (std::size_t i = 0, n = sub_filter_count(); i < n; ++i)
      sum += (i == 0 ? head_ : tail_[i - 1]).expected_matches();
    return sum;
  }
  // Plain loops, not for_each_sub_filter: its lambdas would be functions of their own, compiled for speed.
  [[nodiscard]] CUCKOO_COLD double chain_fp_rate() const noexcept {
    const std::size_t n = sub_filter_count();
    const auto at = [&](std::size_t k) -> const SubFilter& { return k == 0 ? head_ : tail_[k - 1]; };
    double none = 1.0;
    for (std::size_t i = 0; i < n; ++i) {
      const SubFilter& s = at(i);
      // The first sub-filter of its shape counts for all of them; a later one was counted with it.
      bool first = true;
      double shape_rate = 0;
      std::size_t alike = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const SubFilter& t = at(j);
        if (t.num_buckets != s.num_buckets || t.fingerprint_bits != s.fingerprint_bits) continue;
        if (j < i) first = false;
        shape_rate += 1.0 - t.miss_probability();
        ++alike;
      }
      if (first) none *= alike == 1 ? s.miss_probability() : 1.0 - std::min(1.0, shape_rate);
    }
    return 1.0 - none;
  }
  [[nodiscard]] const Layout& layout() const noexcept { return layout_; }
  // The first sub-filter's shape (the whole filter's, without growth; in place, the table's now, and the
  // slot width).
  [[nodiscard]] std::uint64_t num_buckets() const noexcept {
    if (in_place_now()) return in_place([](const auto& t) { return t.num_buckets(); });
    return head_.num_buckets;
  }
  // In place: the slot width of the table now (its slots may widen as it doubles: WidthPlan).
  [[nodiscard]] unsigned fingerprint_bits() const noexcept {
    return in_place_now() ? in_place([](const auto& t) { return t.kSlotBits; }) : layout_.fingerprint_bits;
  }
  // Growth in place: whether this filter has it, how often its table has doubled, and how often it may.
  [[nodiscard]] bool grows_in_place() const noexcept { return in_place_now(); }
  [[nodiscard]] unsigned doublings() const noexcept {
    return in_place_now() ? in_place([](const auto& t) { return t.generation(); }) : 0;
  }
  [[nodiscard]] unsigned max_doublings() const noexcept { return layout_.max_doublings; }
  [[nodiscard]] unsigned bucket_size() const noexcept { return layout_.bucket_size; }
  [[nodiscard]] unsigned max_kicks() const noexcept { return layout_.max_kicks; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return layout_.seed; }
  [[nodiscard]] unsigned growth() const noexcept { return layout_.growth; }
  [[nodiscard]] unsigned max_sub_filters() const noexcept { return layout_.max_sub_filters; }
  [[nodiscard]] std::size_t sub_filter_count() const noexcept { return 1 + (detail::kSizedOnly ? 0 : tail_.size()); }
  [[nodiscard]] bool semi_sorted() const noexcept { return !detail::kSizedOnly && layout_.semi_sorted; }

  // Read-only view of the first sub-filter's table, for visualisation and tests.
  [[nodiscard]] std::uint64_t slot(std::uint64_t bucket, unsigned slot_index) const noexcept {
    if (in_place_now()) return in_place([&](const auto& t) { return std::uint64_t{t.slot(bucket, slot_index)}; });
    return head_.table.get(bucket, slot_index);
  }
  // A semi-sorted bucket's 12-bit code of its four high nibbles (0 for a plain table): what the table stores
  // in place of them.
  [[nodiscard]] std::uint32_t bucket_code(std::uint64_t bucket) const noexcept {
    return semi_sorted() ? head_.table.semi_sorted_code(bucket) : 0;
  }
  [[nodiscard]] std::span<const std::uint8_t> table_bytes() const noexcept {
    if (in_place_now())
      return in_place([](const auto& t) {
        return std::span<const std::uint8_t>{t.data(), static_cast<std::size_t>(t.byte_size())};
      });
    return {head_.table.data(), head_.table.byte_length()};
  }

  // While attached, every add() records its steps into *trace (reset at the start of each add). A filter
  // that grows in place records nothing.
  void set_trace(InsertTrace* trace) noexcept { trace_ = trace; }

  // --- export -----------------------------------------------------------------------------------------
  // Filters without growth write format version 3, chains version 4, tables that double version 5
  // (format.hpp).
  [[nodiscard]] std::uint64_t serialized_size() const noexcept {
    if (in_place_now()) return format::kInPlaceHeaderSize + byte_size() + format::kChecksumSize;
    if (detail::kSizedOnly || layout_.growth == 0)
      return format::kHeaderSize + head_.table.byte_length() + format::kChecksumSize;
    std::uint64_t n = format::kChainHeaderSize + format::kChecksumSize;
    for_each_sub_filter([&](const SubFilter& s) { n += format::kSubFilterHeaderSize + s.table.byte_length(); });
    return n;
  }
  // Writes exactly serialized_size() bytes.
  CUCKOO_COLD void serialize_into(std::uint8_t* out) const noexcept {
    if (in_place_now()) {
      format::Exporter exporter(layout_, in_place_table());
      exporter.read(out, static_cast<std::size_t>(exporter.size()));
      return;
    }
    format::Exporter exporter(layout_, head_, tail_);
    exporter.read(out, static_cast<std::size_t>(exporter.size()));
  }
  [[nodiscard]] std::vector<std::uint8_t> serialize() const {
    std::vector<std::uint8_t> out(serialized_size());
    serialize_into(out.data());
    return out;
  }
  // A reader of the export in pieces (for exports larger than a second copy would allow), or null when it
  // cannot be allocated. The filter must not change while it is read.
  [[nodiscard]] std::unique_ptr<format::Exporter> exporter() const noexcept {
    if (in_place_now())
      return std::unique_ptr<format::Exporter>(new (std::nothrow) format::Exporter(layout_, in_place_table()));
    return std::unique_ptr<format::Exporter>(new (std::nothrow) format::Exporter(layout_, head_, tail_));
  }
  // The filter an Importer has read, once it has read all of it: the Status of Importer::finish, or
  // out_of_memory.
  [[nodiscard]] CUCKOO_COLD static Status from_import(format::Importer& importer, std::optional<CuckooFilter>& out) {
    format::Chain chain;
    if (Status s = importer.finish(chain); !s.ok()) return s;
    CuckooFilter filter;
    if (Status s = filter.take_layout(chain.layout); !s.ok()) return s;
    if (!detail::kSizedOnly && chain.layout.in_place) {
      if (Status s = filter.adopt_in_place(chain); !s.ok()) return s;
      out.emplace(std::move(filter));
      return {};
    }
    filter.head_ = std::move(chain.sub_filters.front());
    if constexpr (!detail::kSizedOnly)
      for (std::size_t k = 1; k < chain.sub_filters.size(); ++k)
        filter.tail_.push_back(std::move(chain.sub_filters[k]));
    filter.first_bucket_decides_ = false;  // whatever made these tables, it was not this filter's adds
    out.emplace(std::move(filter));
    return {};
  }

 private:
  using SubFilter = detail::SubFilter;

  // Key sources for the batches: the hash of key i.
  // Each holds a copy of the hasher: its constants then cannot alias the table the batch writes, and stay
  // in registers.
  // Packed byte keys, or 64-bit integers: one source for both, so that the batches the wasm module calls
  // are compiled once (a source each cost 1.3 KB of the package's gzipped size). The branch on `offsets`
  // goes the same way for a whole batch.
  struct PackedOrWideKeys {
    KeyHasher hasher;
    const std::uint8_t* bytes;
    // Key i is bytes[offsets[stride i], offsets[stride i + 1]): consecutive offsets (stride 1) or the
    // ranges of add_if_absent_ranges (stride 2); null: the u64 at bytes + 8i.
    const std::uint32_t* offsets;
    std::size_t stride = 1;
    bool hashed = false;  // without offsets: the u64 at bytes + 8i is the key's hash already
    std::uint64_t operator()(std::size_t i) const noexcept {
      if (offsets != nullptr) return hasher(bytes + offsets[stride * i], offsets[stride * i + 1] - offsets[stride * i]);
      const std::uint64_t word = detail::load64(bytes + 8 * i);
      return hashed ? word : hasher(word);
    }
  };
  struct NarrowKeys {  // 32-bit integers, widened
    KeyHasher hasher;
    const std::uint32_t* keys;
    std::uint64_t operator()(std::size_t i) const noexcept { return hasher(std::uint64_t{keys[i]}); }
  };
  // The source of a batch of integers.
  [[nodiscard]] PackedOrWideKeys keys_of(std::span<const std::uint64_t> keys) const noexcept {
    return {hasher_, reinterpret_cast<const std::uint8_t*>(keys.data()), nullptr};
  }
  [[nodiscard]] NarrowKeys keys_of(std::span<const std::uint32_t> keys) const noexcept {
    return {hasher_, keys.data()};
  }

  // add_if_absent_ranges and add_if_absent_hashes: one body for both key sources (comment above).
  template <class HashAt>
  [[gnu::noinline]] std::size_t add_if_absent_keys(HashAt&& hash_at, std::size_t count, std::uint8_t* results) {
    std::memset(results, static_cast<int>(KeyResult::not_tried), count);
    if (in_place_now()) return add_in_place(hash_at, count, results, true);
    std::size_t added = 0;
    // In such a filter most keys are decided on their first bucket: one bucket loaded instead of two, and
    // read once for both the lookup and the store (docs/PERFORMANCE.md, "Measured reasons in the code").
    const bool first_bucket = first_bucket_decides_ && single() && untraced();
    for_each_located(
        count, hash_at, results,
        [&](const Location& at) {
          if (first_bucket) {
            const int found = head_.table.find_or_insert(at.index, at.fingerprint);
            if (found > 0) return KeyResult::no;
            if (found == 0) {
              ++head_.size;
              last_failure_ = AddFailure::none;
              ++added;
              return KeyResult::yes;
            }
          }
          if (contains_located(at)) return KeyResult::no;
          if (add_located(at)) {
            ++added;
            return KeyResult::yes;
          }
          return not_added();
        },
        !first_bucket);
    return added;
  }

  // Out of line: several batch overloads call each of these with one key source, and at -O3 each call
  // got its own copy.
  template <class HashAt>
  [[gnu::noinline]] void contains_hashes(HashAt&& hash_at, std::size_t count, std::uint8_t* results) const noexcept {
    if (in_place_now()) {
      in_place_groups(hash_at, count, [&](const std::uint64_t* hashes, std::size_t start, std::size_t n) {
        in_place([&](const auto& t) { t.contains_group(hashes, n, results + start); });
        return true;
      });
      return;
    }
    if (single() && head_.table.fits_word()) {
      const auto probe = std::as_const(head_.table).word_probe();
      for_each_located(count, hash_at, results, [&](const Location& at) {
        return yes_or_no(probe.contains_either(at.index, at.alternate_index, at.fingerprint));
      });
      return;
    }
    for_each_located(count, hash_at, results, [&](const Location& at) { return yes_or_no(contains_located(at)); });
  }

  template <class HashAt>
  [[gnu::noinline]] std::size_t add_hashes(HashAt&& hash_at, std::size_t count, std::uint8_t* results) {
    std::memset(results, static_cast<int>(KeyResult::not_tried), count);
    if (in_place_now()) return add_in_place(hash_at, count, results, false);
    if (single() && untraced() && head_.table.fits_word()) return add_many_word(hash_at, count, results);
    std::size_t added = 0;
    for_each_located(count, hash_at, results, [&](const Location& at) {
      const bool ok = add_located(at);
      added += ok;
      return ok ? KeyResult::yes : not_added();
    });
    return added;
  }

  template <class HashAt>
  [[gnu::noinline]] std::size_t remove_hashes(HashAt&& hash_at, std::size_t count, std::uint8_t* results) noexcept {
    if (in_place_now()) {
      std::size_t removed = 0;
      in_place_groups(hash_at, count, [&](const std::uint64_t* hashes, std::size_t start, std::size_t n) {
        removed += in_place([&](auto& t) { return t.remove_group(hashes, n, results + start); });
        return true;
      });
      return removed;
    }
    std::size_t removed = 0;
    for_each_located(count, hash_at, results, [&](const Location& at) {
      const bool ok = remove_located(at);
      removed += ok;
      return yes_or_no(ok);
    });
    return removed;
  }

  CuckooFilter() = default;

  // Sets the layout, the hasher and the bookkeeping (kick path, room for the chain); not the tables.
  [[nodiscard]] CUCKOO_COLD Status take_layout(const Layout& layout) {
    layout_ = layout;
    hasher_ = KeyHasher(layout.seed);
    if (!detail::reserve_nothrow(path_, layout.max_kicks) ||
        (!detail::kSizedOnly && !detail::reserve_nothrow(tail_, layout.max_sub_filters - 1)))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate the filter's bookkeeping");
    path_.resize(layout.max_kicks);
    return {};
  }

  [[nodiscard]] CUCKOO_COLD static Status make_from_layout(const Layout& layout, std::optional<CuckooFilter>& out) {
    CuckooFilter filter;
    if (!detail::kSizedOnly && layout.in_place) {
      if (Status s = filter.take_layout(layout); !s.ok()) return s;
      const auto options = in_place_options(layout);
      if (Status s = filter.in_place_member(
              layout.fingerprint_bits,
              [&](auto& table) { return std::remove_reference_t<decltype(*table)>::make(options, table); });
          !s.ok())
        return s;
      out.emplace(std::move(filter));
      return {};
    }
    if (!filter.head_.allocate(layout.capacity, layout.num_buckets, layout.fingerprint_bits, layout.bucket_size,
                               layout.semi_sorted))
      return Status::error(ErrorCode::out_of_memory,
                           "cannot allocate " +
                               std::to_string(detail::table_bytes(layout.num_buckets, layout.bucket_size,
                                                                  layout.fingerprint_bits, layout.semi_sorted)) +
                               " bytes for the table");
    if (Status s = filter.take_layout(layout); !s.ok()) return s;
    out.emplace(std::move(filter));
    return {};
  }

  // fn(sub-filter) for each, oldest first.
  template <class Fn>
  void for_each_sub_filter(Fn&& fn) const {
    fn(head_);
    if constexpr (!detail::kSizedOnly)
      for (const SubFilter& s : tail_) fn(s);
  }

  // With one sub-filter the answer is the head's, with no branch on it: a branch on whether the key was
  // found mispredicts half the time on a stream of present and absent keys, and each mispredict also
  // discards the lookups the CPU had started after it: natively, on keys half present in random order, it
  // made single lookups half as fast as on all-present or all-absent keys (docs/PERFORMANCE.md, "Measured
  // reasons in the code"). From JavaScript the call costs far more than the mispredict.
  [[nodiscard]] bool contains_located(const Location& at) const noexcept {
    const bool in_head = head_.contains(at);
    if (single()) return in_head;
    return in_head || contains_in_tail(at.hash);
  }
  // Kept out of line so that contains_located stays small enough to inline into callers' loops; it takes
  // the hash alone so that the caller's Location can stay in registers.
  [[gnu::noinline]] [[nodiscard]] bool contains_in_tail(std::uint64_t hash) const noexcept {
    for (const SubFilter& s : tail_)
      if (s.contains(s.locate(hash))) return true;
    return false;
  }

  // Newest sub-filter first. Across sub-filters copies are not interchangeable: the key may match
  // another key's fingerprint in a sub-filter it does not live in (a false positive there), and removing
  // that copy would lose the other key ("false deletion", chance about the false-positive rate per
  // delete). Newer sub-filters have longer fingerprints and hold most keys, which makes that least likely.
  bool remove_located(const Location& at) noexcept {
    bool removed = false;
    if constexpr (!detail::kSizedOnly)
      for (auto it = tail_.rbegin(); it != tail_.rend() && !removed; ++it) removed = it->remove(it->locate(at.hash));
    if (!removed) removed = head_.remove(at);
    if (removed) first_bucket_decides_ = false;
    return removed;
  }

  [[nodiscard]] bool chain_exhausted() const noexcept {
    return last_failure_ == AddFailure::growth_limit || last_failure_ == AddFailure::out_of_memory;
  }
  // The batch result of an add that found no room.
  [[nodiscard]] KeyResult not_added() const noexcept {
    return chain_exhausted() ? KeyResult::stopped_here : KeyResult::no_room;
  }

  // add_many for the common shape (one sub-filter, no trace, buckets of one word): add_located's direct
  // placement through a probe of the table, the rest (kicks, growth) through add_located_slow. Once the
  // chain has grown, new keys belong to its newest sub-filter, so tail_ is checked for every key. Not
  // inlined: inside add_many it made g++ compile the general loop worse (b = 8 batch inserts 15% slower).
  template <class HashAt>
  [[gnu::noinline]] std::size_t add_many_word(HashAt hash_at, std::size_t count, std::uint8_t* results) {
    std::size_t added = 0;
    auto probe = head_.table.word_probe();
    for_each_located(count, hash_at, results, [&](const Location& at) {
      if (single() && (probe.insert_if_room(at.index, at.fingerprint) >= 0 ||
                       probe.insert_if_room(at.alternate_index, at.fingerprint) >= 0)) {
        ++head_.size;
        last_failure_ = AddFailure::none;
        ++added;
        return KeyResult::yes;
      }
      const bool ok = add_located_slow(at.hash);
      added += ok;
      return ok ? KeyResult::yes : not_added();
    });
    return added;
  }

  // New keys go to the newest sub-filter; when it has no room and growth is on, a larger one is chained.
  // Precondition: head_at == locate_hash(head_at.hash) (every caller passes exactly that).
  bool add_located(const Location& head_at) {
    // The common case, kept small enough to inline into callers' loops: one sub-filter, no trace, and a
    // free slot in one of the two buckets (insert() starts with the same place_direct).
    if (single() && untraced() && head_.place_direct(head_at).slot >= 0) {
      ++head_.size;
      last_failure_ = AddFailure::none;
      return true;
    }
    return add_located_slow(head_at.hash);
  }

  // Both buckets full (a kick-out walk), a trace to record, or a chain of sub-filters. It takes the hash
  // alone (and locates it again) so that the fast path's Location can stay in registers.
  [[gnu::noinline]] bool add_located_slow(std::uint64_t hash) {
    SubFilter& target = single() ? head_ : tail_.back();
    const InsertOutcome outcome = insert_traced(target, target.locate(hash));
    if (outcome == InsertOutcome::placed) {
      last_failure_ = AddFailure::none;
      return true;
    }
    if (outcome == InsertOutcome::duplicate_limit || detail::kSizedOnly || layout_.growth == 0) {
      last_failure_ = outcome == InsertOutcome::duplicate_limit ? AddFailure::duplicate_limit : AddFailure::table_full;
      return false;
    }
    // Copies of keys added many times crowd the key's buckets in the newest sub-filter, far from full: a
    // larger sub-filter would not make room for the next copy of such a key, and each such failure chained
    // one (5,000 keys added 8 times each took 9 sub-filters and 249 MB, where 40,000 distinct keys take 4
    // and 187 KB). As DoublingFilter::crowded(): a key with copies there under half full, another under
    // an eighth (in one of more than detail::kCrowdedFloorSlots slots).
    // (At the chain's limit, grow() says so: growth_limit.)
    const bool may_chain = 1 + tail_.size() < layout_.max_sub_filters;
    const std::uint64_t slots = target.num_buckets * layout_.bucket_size;
    if (may_chain &&
        (target.count(target.locate(hash)) > 0 ? 2 * target.size < slots
                                               : 8 * target.size < slots && slots > detail::kCrowdedFloorSlots)) {
      last_failure_ = AddFailure::crowded;
      return false;
    }
    last_failure_ = grow();
    if (last_failure_ != AddFailure::none) return false;
    // An empty table always has room.
    insert_traced(tail_.back(), tail_.back().locate(hash));
    return true;
  }

  // Appends the next sub-filter of the chain.
  [[nodiscard]] AddFailure grow() noexcept {
    const SubFilter& last = single() ? head_ : tail_.back();
    if (1 + tail_.size() >= layout_.max_sub_filters) return AddFailure::growth_limit;
    if (last.fingerprint_bits >= kMaxFingerprintBits) return AddFailure::growth_limit;
    if (last.capacity > detail::kMaxCapacity / layout_.growth) return AddFailure::growth_limit;
    const std::uint64_t capacity = last.capacity * layout_.growth;
    const std::uint64_t buckets = detail::buckets_for(capacity, layout_.bucket_size);
    if (buckets > kMaxBuckets) return AddFailure::growth_limit;
    SubFilter next;
    if (!next.allocate(capacity, buckets, last.fingerprint_bits + 1, layout_.bucket_size, layout_.semi_sorted) ||
        !detail::reserve_nothrow(tail_, tail_.size() + 1))
      return AddFailure::out_of_memory;
    tail_.push_back(std::move(next));
    return AddFailure::none;
  }

  InsertOutcome insert_traced(SubFilter& s, const Location& at) {
    return untraced() ? s.insert<false>(at, layout_.max_kicks, path_.data(), nullptr) : insert_recording(s, at);
  }

  // Inserts while recording a trace: for teaching and tests, so compiled for size.
  CUCKOO_COLD InsertOutcome insert_recording(SubFilter& s, const Location& at) {
    return s.insert<true>(at, layout_.max_kicks, path_.data(), trace_);
  }

  // Hashes and prefetches a group of keys, then stores op(place in the first sub-filter), a KeyResult, for
  // each one, in key order, into results. A result of stopped_here ends the walk after that key; results
  // past it keep what they held. A group's results are gathered in a local buffer and copied out once: a
  // store through the caller's byte pointer may alias anything, so storing each one directly would make
  // the compiler reload the table's fields for every key (a third of a lookup's time in wasm). Without
  // `alternate_too`, only the first bucket is prefetched (for an op that mostly needs no other).
  template <class HashAt, class Op>
  void for_each_located(std::size_t count, HashAt hash_at, std::uint8_t* results, Op&& op,
                        bool alternate_too = true) const {
    constexpr std::size_t kGroup = 16;
    Location group[kGroup];
    std::uint8_t group_results[kGroup];
    std::uint8_t touched = 0;
    for (std::size_t start = 0; start < count; start += kGroup) {
      const std::size_t n = count - start < kGroup ? count - start : kGroup;
      for (std::size_t j = 0; j < n; ++j) group[j] = locate_hash(hash_at(start + j));
      // A loop of its own, after the hashing: in wasm these are real loads, which stall retirement until
      // they arrive; back to back, all of a group's misses fit in the CPU's window at once.
      for (std::size_t j = 0; j < n; ++j)
        touched = static_cast<std::uint8_t>(touched ^ head_.table.prefetch(group[j].index) ^
                                            (alternate_too ? head_.table.prefetch(group[j].alternate_index) : 0));
      for (std::size_t j = 0; j < n; ++j) {
        const KeyResult r = op(group[j]);
        group_results[j] = static_cast<std::uint8_t>(r);
        if (r == KeyResult::stopped_here) {
          std::memcpy(results + start, group_results, j + 1);
          prefetch_sink_.keep(touched);
          return;
        }
      }
      // A whole group as a copy of constant size (two 8-byte stores): in wasm a copy of variable size is a
      // memory.copy, which V8 runs as a call (string-key batches 5-7% slower).
      if (n == kGroup) {
        std::memcpy(results + start, group_results, kGroup);
      } else {
        std::memcpy(results + start, group_results, n);
      }
    }
    prefetch_sink_.keep(touched);
  }

  [[nodiscard]] Status combine(const CuckooFilter& other, detail::Combine mode);

  // --- growth in place --------------------------------------------------------------------------------
  [[nodiscard]] static DoublingOptions in_place_options(const Layout& layout) noexcept {
    const WidthPlan plan = layout.widen_at[0] == 0
                               ? WidthPlan{}
                               : WidthPlan{layout.fingerprint_bits, {layout.widen_at[0], layout.widen_at[1]}};
    return {layout.capacity, layout.max_kicks, layout.seed, layout.max_doublings, true, layout.in_place_version, plan};
  }
  [[nodiscard]] format::InPlaceTable in_place_table() const noexcept {
    return in_place([](const auto& t) {
      return format::InPlaceTable{t.kSlotBits, t.data(), t.byte_size(), t.size(), t.generation()};
    });
  }
  [[nodiscard]] CUCKOO_COLD Status adopt_in_place(format::Chain& chain) {
    const auto options = in_place_options(chain.layout);
    const format::InPlaceInfo& info = chain.in_place;
    std::uint8_t* slots = chain.slots.release();
    if (Status s = in_place_member(info.slot_bits,
                                   [&](auto& table) {
                                     return std::remove_reference_t<decltype(*table)>::adopt(
                                         options, info.generation, info.item_count, slots, table);
                                   });
        !s.ok())
      return s;
    return keep_spares(info.slot_bits) ? Status{}
                                       : Status::error(ErrorCode::out_of_memory, "cannot allocate the filter");
  }
  // A table of `bits` wider than its first (its slots widened) keeps the objects of the narrower tables at
  // hand, so that moving back to them (a failed add, clear()) needs no memory. false: one could not be had.
  [[nodiscard]] CUCKOO_COLD bool keep_spares(unsigned bits) noexcept {
    const unsigned first = layout_.fingerprint_bits;
    const bool need16 = first == 16 && bits > 16;
    const bool need20 = first <= 20 && bits > 20;
    if (need16 && !spare16_) spare16_ = NarrowTable::shell();
    if (need20 && !spare20_) spare20_ = Table20::shell();
    return (!need16 || spare16_) && (!need20 || spare20_);
  }
  // Hashes the keys in groups of the table's batch size and hands each to group(hashes, first key, count),
  // which returns false to stop.
  template <class HashAt, class Group>
  static void in_place_groups(HashAt& hash_at, std::size_t count, Group&& group) {
    constexpr std::size_t kGroup = NarrowTable::kGroup;
    std::uint64_t hashes[kGroup];
    for (std::size_t start = 0; start < count; start += kGroup) {
      const std::size_t n = count - start < kGroup ? count - start : kGroup;
      for (std::size_t j = 0; j < n; ++j) hashes[j] = hash_at(start + j);
      if (!group(hashes, start, n)) return;
    }
  }
  // The adds of a batch (results already not_tried), or add-if-absent. A key whose add the table refused
  // because its slots must widen first (needs_wider) is added alone (add_widening), and the batch goes on.
  template <class HashAt>
  std::size_t add_in_place(HashAt&& hash_at, std::size_t count, std::uint8_t* results, bool if_absent) {
    std::size_t added = 0;
    in_place_groups(hash_at, count, [&](const std::uint64_t* hashes, std::size_t start, std::size_t n) {
      for (std::size_t from = 0; from < n;) {
        bool stopped = false;
        added += in_place(
            [&](auto& t) { return t.add_group(hashes + from, n - from, results + start + from, if_absent, stopped); });
        if (!stopped) return true;
        if (last_add_failure() != AddFailure::needs_wider) return false;
        from = add_stopped_widening(hashes, results + start, from, added);
        if (from == 0) return false;
      }
      return true;
    });
    return added;
  }

  // A batch's key from `from` on that the table refused for needs_wider (results[j] stopped_here): added
  // alone (add_widened), its result set. The key after it, or 0 when the batch ends there.
  [[nodiscard]] [[gnu::noinline]] CUCKOO_COLD std::size_t add_stopped_widening(const std::uint64_t* hashes,
                                                                               std::uint8_t* results, std::size_t from,
                                                                               std::size_t& added) noexcept {
    std::size_t j = from;
    while (results[j] != static_cast<std::uint8_t>(KeyResult::stopped_here)) ++j;
    // Key j was found absent (if_absent) or is added whatever it is: it needed a doubling.
    const bool ok = add_widened(hashes[j]);
    added += ok;
    const KeyResult r = ok ? KeyResult::yes : NarrowTable::refused_result(last_add_failure());
    results[j] = static_cast<std::uint8_t>(r);
    return r == KeyResult::stopped_here ? 0 : j + 1;
  }
  // An add to the table that doubles, widening its slots where its plan says (format version 8): when the
  // table refuses a key because the doubling it needs is one that widens (needs_wider), it doubles to
  // there, moves its entries to slots 4 bits wider, doubles, and adds again. A failed add leaves the table
  // as it was, width and all.
  bool add_widening(std::uint64_t hash) noexcept {
    if (in_place([&](auto& t) { return t.add_hash(hash); })) [[likely]]
      return true;
    return last_add_failure() == AddFailure::needs_wider && add_widened(hash);
  }
  [[nodiscard]] [[gnu::noinline]] CUCKOO_COLD bool add_widened(std::uint64_t hash) noexcept {
    const unsigned before = in_place_generation();
    for (;;) {
      // The table is as the add found it (it undid its doublings): grow it through the next widening.
      AddFailure why = grow_through_widening();
      if (why == AddFailure::none) {
        if (in_place([&](auto& t) { return t.add_hash(hash); })) return true;
        why = last_add_failure();
        if (why == AddFailure::needs_wider) continue;
      }
      shrink_in_place_to(before);
      in_place([&](auto& t) { t.note_failure(why); });
      return false;
    }
  }
  [[nodiscard]] unsigned in_place_generation() const noexcept {
    return in_place([](const auto& t) { return t.generation(); });
  }
  // Doubles the table up to its next widening, moves its entries to slots 4 bits wider (take_slots) and
  // doubles that. On failure, whatever it did is undone: none, or why.
  CUCKOO_COLD AddFailure grow_through_widening() noexcept {
    const unsigned before = in_place_generation();
    const auto widen = [&](auto& narrow, auto& spare, auto& wide) -> AddFailure {
      while (narrow->plan().bits_at(narrow->generation() + 1, 0) == narrow->kSlotBits)
        if (const AddFailure why = narrow->double_in_place(); why != AddFailure::none) return why;
      // The narrower object is kept without its table (spare), so that undoing the widening needs no memory.
      if (!widen_slots(narrow, spare, wide)) return AddFailure::out_of_memory;
      if (const AddFailure why = wide->double_in_place(); why != AddFailure::none) {
        narrow_to_plan();  // as it was: its entries fit, none was added since
        return why;
      }
      return AddFailure::none;
    };
    AddFailure why = AddFailure::growth_limit;
    if (narrow_ && narrow_->plan().widens())
      why = widen(narrow_, spare16_, table20_);
    else if (table20_ && table20_->plan().widens())
      why = widen(table20_, spare20_, table24_);
    if (why != AddFailure::none) shrink_in_place_to(before);
    return why;
  }
  // Halves the table back to `generation` doublings, narrowing its slots where its plan says: what undoes a
  // failed add's growth.
  CUCKOO_COLD void shrink_in_place_to(unsigned generation) noexcept {
    while (in_place_generation() > generation) {
      in_place([](auto& t) { t.halve_in_place(); });
      narrow_to_plan();
    }
  }
  // Moves the entries of a table wider than its plan says for its size (one that was halved, or cleared)
  // to slots as narrow as that, into the object kept at the widening (spare16_, spare20_; made here if
  // there is none, and left wider if that cannot be had).
  CUCKOO_COLD void narrow_to_plan() noexcept {
    const auto narrow = [](auto& wide, auto& spare, auto& into) {
      if (!spare) spare = std::remove_reference_t<decltype(spare)>::element_type::shell();
      if (!spare || !spare->take_slots(*wide)) return false;
      into = std::move(spare);
      wide.reset();  // without a table now
      return true;
    };
    for (bool narrowed = true; narrowed;) {
      narrowed = false;
      if (table24_ && table24_->plan().widens() && table24_->plan().bits_at(table24_->generation(), 0) < 24)
        narrowed = narrow(table24_, spare20_, table20_);
      else if (table20_ && table20_->plan().widens() && table20_->plan().bits_at(table20_->generation(), 0) < 20)
        narrowed = narrow(table20_, spare16_, narrow_);
    }
  }
  // Merge and union of two tables that double: into a copy, so that a failure leaves this one as it was.
  [[nodiscard]] CUCKOO_COLD Status combine_in_place(const CuckooFilter& other, detail::Combine mode) {
    // The copy is grown to the other's size first, so that its slots are at least as wide as the other's
    // (the same plan): absorb() doubles too, but a doubling that widens the slots is the filter's. Where the
    // joined entries fill the copy up to such a doubling (needs_wider), the join starts again from a copy
    // that doubled once more.
    // An other filter with no entry moves nothing here, whatever its size (an outside review found a merge
    // with an emptied filter that doubled this one to its size).
    if (other.in_place([](const auto& t) { return t.occupied() == 0; })) return {};
    unsigned size = other.in_place_generation();
    for (;;) {
      CuckooFilter work;
      work.layout_ = layout_;
      work.hasher_ = hasher_;
      const Status copied = in_place([&](const auto& t) {
        using Table = std::remove_cvref_t<decltype(t)>;
        return Table::copy_of(t, work.template table_member<Table>());
      });
      if (!copied.ok()) return detail::merge_copy_out_of_memory();
      AddFailure why = AddFailure::none;
      while (why == AddFailure::none && work.in_place_generation() < size) why = work.double_once();
      // The other's entries in slots as wide as the copy's: its own table, or a copy of it widened (the
      // same plan: the other has doubled less).
      CuckooFilter wider;
      const CuckooFilter* theirs = &other;
      if (why == AddFailure::none && other.fingerprint_bits() != work.fingerprint_bits()) {
        if (!wider.copy_widened(other, work.fingerprint_bits())) return detail::merge_copy_out_of_memory();
        theirs = &wider;
      }
      if (why == AddFailure::none)
        why = work.in_place([&](auto& mine) {
          using Table = std::remove_cvref_t<decltype(mine)>;
          return mine.absorb(*theirs->template table_member<Table>(), mode == detail::Combine::set_union);
        });
      if (why == AddFailure::needs_wider) {
        size = work.in_place_generation() + 1;
        continue;
      }
      if (why == AddFailure::out_of_memory)
        return Status::error(ErrorCode::out_of_memory,
                             "cannot double the table for the merge (this filter was left unchanged)");
      if (why == AddFailure::duplicate_limit)
        return Status::error(ErrorCode::capacity_exceeded,
                             "a fingerprint would have more than " + std::to_string(2 * layout_.bucket_size) +
                                 " copies (a key added more than " + std::to_string(2 * layout_.bucket_size) +
                                 " times in all; this filter was left unchanged)");
      if (why == AddFailure::crowded)
        return Status::error(ErrorCode::capacity_exceeded,
                             "copies crowd the buckets of a joined fingerprint: keys added many times (here and in "
                             "the other filter) fill them, and growing would not make room (this filter was left "
                             "unchanged)");
      if (why != AddFailure::none)
        return Status::error(ErrorCode::capacity_exceeded, "the merged fingerprints do not fit in " +
                                                               std::to_string(layout_.max_doublings) +
                                                               " doublings (this filter was left unchanged)");
      if (Status s = work.in_place(
              [](const auto& t) { return detail::check_joined_rate(t.expected_fp_rate(), t.rate_limit()); });
          !s.ok())
        return s;
      // The joined table may be wider than this one was: its narrower objects are had first.
      if (!keep_spares(work.fingerprint_bits())) return detail::merge_copy_out_of_memory();
      packed_ = std::move(work.packed_);
      narrow_ = std::move(work.narrow_);
      table20_ = std::move(work.table20_);
      table24_ = std::move(work.table24_);
      wide_ = std::move(work.wide_);
      return {};
    }
  }
  // This filter a copy of `from`'s table (same options, the same plan) with its slots widened to `bits`.
  [[nodiscard]] CUCKOO_COLD bool copy_widened(const CuckooFilter& from, unsigned bits) noexcept {
    layout_ = from.layout_;
    hasher_ = from.hasher_;
    const Status copied = from.in_place([&](const auto& t) {
      using Table = std::remove_cvref_t<decltype(t)>;
      return Table::copy_of(t, table_member<Table>());
    });
    if (!copied.ok()) return false;
    while (fingerprint_bits() < bits) {
      const bool widened = narrow_    ? widen_slots(narrow_, spare16_, table20_)
                           : table20_ ? widen_slots(table20_, spare20_, table24_)
                                      : false;
      if (!widened) return false;
    }
    return fingerprint_bits() == bits;
  }
  // Moves the table's entries to slots 4 bits wider (take_slots), keeping the emptied object in `spare`.
  template <class Narrow, class Wide>
  [[nodiscard]] static bool widen_slots(std::unique_ptr<Narrow>& narrow, std::unique_ptr<Narrow>& spare,
                                        std::unique_ptr<Wide>& wide) noexcept {
    std::unique_ptr<Wide> table = Wide::shell();
    if (!table || !table->take_slots(*narrow)) return false;
    wide = std::move(table);
    spare = std::move(narrow);
    return true;
  }
  // One doubling of the table, or the doubling that widens its slots (grow_through_widening).
  CUCKOO_COLD AddFailure double_once() noexcept {
    const AddFailure why = in_place([](auto& t) { return t.double_in_place(); });
    return why == AddFailure::needs_wider ? grow_through_widening() : why;
  }
  template <class Table>
  [[nodiscard]] const std::unique_ptr<Table>& table_member() const noexcept {
    return const_cast<CuckooFilter*>(this)->table_member<Table>();
  }
  template <class Table>
  [[nodiscard]] std::unique_ptr<Table>& table_member() noexcept {
    if constexpr (std::is_same_v<Table, PackedTable>)
      return packed_;
    else if constexpr (std::is_same_v<Table, NarrowTable>)
      return narrow_;
    else if constexpr (std::is_same_v<Table, Table20>)
      return table20_;
    else if constexpr (std::is_same_v<Table, Table24>)
      return table24_;
    else
      return wide_;
  }

  KeyHasher hasher_;             // hashes keys with layout_.seed
  Layout layout_;                // the options; capacity, num_buckets and fingerprint_bits are the first sub-filter's
  SubFilter head_;               // the first sub-filter (invariant: its shape is layout_'s)
  std::vector<SubFilter> tail_;  // sub-filters chained by growth, oldest first
  std::vector<detail::PathStep> path_;  // scratch for undoing a failed walk; max_kicks entries
  // The table, when it doubles in place: one of these, by its slot width (in_place_slot_bits).
  std::unique_ptr<PackedTable> packed_;  // 40-bit slots
  std::unique_ptr<NarrowTable> narrow_;  // 16-bit
  std::unique_ptr<Table20> table20_;     // 20-bit
  std::unique_ptr<Table24> table24_;     // 24-bit
  std::unique_ptr<WideTable> wide_;      // 32-bit
  // After the slots widened (grow_through_widening): the narrower table's object, without its table, so that
  // undoing the widening of a failed add needs no memory.
  std::unique_ptr<NarrowTable> spare16_;
  std::unique_ptr<Table20> spare20_;
  InsertTrace* trace_ = nullptr;
  AddFailure last_failure_ = AddFailure::none;
  // True while every fingerprint in the head's table was put there by this filter's adds since it was
  // empty (no remove, merge or import). Then a key whose first bucket has a free slot is in that bucket
  // or absent: an add stores into the first bucket when it has room, else the second, and a full bucket
  // stays full (a kick-out swaps one fingerprint for another; an undone walk restores every bucket), so a
  // key stored in its second bucket has a full first one.
  bool first_bucket_decides_ = true;
  detail::PrefetchSink prefetch_sink_;  // for_each_located's loads (wasm)
};

// Merges into copies of this filter's sub-filters (merge.hpp), so that a merge that does not fit leaves
// this filter untouched, then takes the copies.
CUCKOO_COLD inline Status CuckooFilter::combine(const CuckooFilter& other, detail::Combine mode) {
  if (Status s = detail::check_mergeable(layout_, other.layout_, mode); !s.ok()) return s;
  if (in_place_now()) return combine_in_place(other, mode);
  std::vector<SubFilter> work;
  if (!detail::reserve_nothrow(work, layout_.max_sub_filters))
    return Status::error(ErrorCode::out_of_memory, "cannot allocate the merge's bookkeeping");
  work.resize(sub_filter_count());
  std::size_t k = 0;
  bool copied = true;
  for_each_sub_filter([&](const SubFilter& s) { copied = copied && work[k++].copy_of(s); });
  if (!copied) return detail::merge_copy_out_of_memory();
  const std::size_t own = work.size();
  k = 0;
  Status status;
  other.for_each_sub_filter([&](const SubFilter& from) {
    if (status.ok()) status = detail::merge_sub_filter(work, own, k, from, mode, layout_, path_.data());
    ++k;
  });
  if (!status.ok()) return status;
  detail::order_chain(work);
  first_bucket_decides_ = false;  // a merged fingerprint may be in the second bucket of its key, beside room
  head_ = std::move(work.front());
  tail_.clear();
  for (std::size_t i = 1; i < work.size(); ++i) tail_.push_back(std::move(work[i]));
  return {};
}

CUCKOO_COLD inline Status CuckooFilter::parse(std::span<const std::uint8_t> bytes, std::optional<CuckooFilter>& out) {
  format::Importer importer(bytes.size());
  (void)importer.push(bytes.data(), bytes.size());
  return from_import(importer, out);
}

}  // namespace v1
}  // namespace cuckoo
