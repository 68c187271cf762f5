// A cuckoo filter that grows in place: when an add finds no room, its table doubles, and every entry moves
// to one of its bucket's two successors. Lookups read two buckets at any size, where a chain of
// sub-filters (cuckoo_filter.hpp's growth) reads two per sub-filter. Not yet behind CuckooFilter's API:
// this is the core and its tests (docs/GROWTH.md, "In place").
//
// The index. With N = N0 * 2^g buckets (N0 even, any size: exact sizing; g the doublings so far), a key's
// first bucket is the multiply-shift index of the top 32 bits h of its hash: i1 = floor(h * N / 2^32).
// Write h * N0 = q * 2^32 + frac: then i1 = q * 2^g + (the top g bits of frac), and doubling N appends
// the next bit of frac to the index (i1' = 2 * i1 + that bit). So an entry can carry "the bits after its
// index" and give one up at each doubling, which decides where it moves.
//
// The other bucket. The key's two buckets differ only in q, the part fixed at the start, and share the
// low g bits s: i2 = alt(q) * 2^g + s, with alt the involution of hashing.hpp on N0 buckets and the odd
// offset r taken from F fingerprint bits that an entry keeps for ever. So both buckets of a key extend by
// the same bit when the table doubles, and from (bucket, entry) the other bucket is known at every size:
// the table is 2^g classes of N0 buckets (by s), and a kick-out walk stays in its class.
//
// An entry (a slot of W bits, W = 16 or 32) is [fp: F bits][ext: e bits][1][0 ... 0]: the fixed
// fingerprint, then the e index bits that come after the index at the current size (e = E = W - 1 - F for
// an entry added now; one fewer per doubling since), then a 1 that marks where they end. The empty slot is
// 0. An absent key matches an entry with probability 2^-(F + e): newer entries keep longer fingerprints,
// and the rate a doubling raises is paid by the entries that were there before it (expected_fp_rate()
// sums it from the count of entries of each length). An entry whose ext bits are used up (e = 0) cannot
// move, so the table stops doubling before any would be: at most E doublings.
//
// A key K matches an entry v when v's bits above its marker equal K's full value V's:
//   (v ^ V) & ~(v ^ (v - 1)) == 0, v != 0.
// Removing a key takes its longest matching entry. Every shorter entry that matches K also matches any
// key that the longest one matched (they agree with K on fewer bits), so a remove never takes the last
// match of another key that was added: deleting added keys never loses another (no "false deletion").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "detail/table_memory.hpp"
#include "hashing.hpp"
#include "status.hpp"
#include "sub_filter.hpp"

namespace cuckoo {
inline namespace v1 {

template <class Slot>
class DoublingFilter {
  static_assert(std::is_same_v<Slot, std::uint16_t> || std::is_same_v<Slot, std::uint32_t>);

 public:
  static constexpr unsigned kSlotBits = 8 * sizeof(Slot);     // W
  static constexpr unsigned kBucketSize = 4;                  // b
  static constexpr unsigned kFixedBits = kSlotBits / 2;       // F: 8 of 16, 16 of 32 (alternates need a few)
  static constexpr unsigned kExtBits = kSlotBits - 1 - kFixedBits;  // E: the most doublings
  // Buckets of a class at the least: a kick-out walk stays in its class, and classes of a few buckets
  // fill unevenly (the first full one doubles the whole table).
  static constexpr std::uint64_t kMinBaseBuckets = 256;

  struct Options {
    std::uint64_t capacity = 0;  // items the first table holds at 95% load
    unsigned max_kicks = 500;
    std::uint64_t seed = kDefaultSeed;
    bool grows = true;
  };

  // The non-throwing constructor: invalid_argument or out_of_memory.
  [[nodiscard]] static Status make(const Options& o, std::unique_ptr<DoublingFilter>& out) {
    if (o.capacity == 0) return Status::error(ErrorCode::invalid_argument, "capacity must be at least 1");
    std::uint64_t buckets = (o.capacity * 100 + 95 * kBucketSize - 1) / (95 * kBucketSize);
    if (buckets < kMinBaseBuckets) buckets = kMinBaseBuckets;
    buckets += buckets & 1;  // even (hashing.hpp's alternate)
    if (buckets > kMaxBuckets) return Status::error(ErrorCode::invalid_argument, "capacity is too large");
    auto f = std::unique_ptr<DoublingFilter>(new (std::nothrow) DoublingFilter());
    if (!f) return Status::error(ErrorCode::out_of_memory, "cannot allocate the filter");
    f->hasher_ = KeyHasher(o.seed);
    f->capacity_ = o.capacity;
    f->base_buckets_ = buckets;
    f->max_kicks_ = o.max_kicks;
    f->grows_ = o.grows;
    f->slots_ = static_cast<Slot*>(std::calloc(buckets * kBucketSize, sizeof(Slot)));
    if (f->slots_ == nullptr || !detail::reserve_nothrow(f->path_, o.max_kicks))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate the table");
    f->path_.resize(o.max_kicks);
    out = std::move(f);
    return {};
  }

  DoublingFilter(const DoublingFilter&) = delete;
  DoublingFilter& operator=(const DoublingFilter&) = delete;
  ~DoublingFilter() { std::free(slots_); }

  // --- keys -------------------------------------------------------------------------------------------
  // False only when there is no room and the table cannot double (or the key has 2b copies); the filter
  // then holds exactly the keys it held.
  bool add(std::string_view key) { return add_hash(hasher_(key.data(), key.size())); }
  [[nodiscard]] bool contains(std::string_view key) const noexcept { return contains_hash(hasher_(key.data(), key.size())); }
  bool remove(std::string_view key) noexcept { return remove_hash(hasher_(key.data(), key.size())); }
  [[nodiscard]] std::size_t count(std::string_view key) const noexcept { return count_hash(hasher_(key.data(), key.size())); }

  bool add(std::uint64_t key) { return add_hash(hasher_(key)); }
  [[nodiscard]] bool contains(std::uint64_t key) const noexcept { return contains_hash(hasher_(key)); }
  bool remove(std::uint64_t key) noexcept { return remove_hash(hasher_(key)); }

  bool add_hash(std::uint64_t hash) {
    if (grows_ && size_ >= fill_limit() && !double_in_place()) return false;
    for (;;) {
      const Place at = locate(hash);
      if (copies(at) >= 2 * kBucketSize) return false;
      if (insert(at)) return true;
      if (!grows_ || !double_in_place()) return false;
    }
  }

  // Items the table takes before it doubles: `capacity` in the first, then 90% of the slots. The rate
  // depends on when entries were added: an entry added to a table of S slots adds about 2b / S / 2^(W-1)
  // to it for ever (it loses a bit per doubling, as the slots double). Filling each doubled table to 90%
  // instead of the 96% a walk reaches keeps 16-bit slots under 0.001 through all 7 doublings (about 128
  // times the first capacity), at the same memory at 10, 30 and 100 times it.
  [[nodiscard]] std::uint64_t fill_limit() const noexcept {
    return generation_ == 0 ? capacity_ : num_buckets() * kBucketSize * 9 / 10;
  }

  [[nodiscard]] bool contains_hash(std::uint64_t hash) const noexcept {
    const Place at = locate(hash);
    // No branch on the first answer: on a stream of present and absent keys it would mispredict half
    // the time (as in CuckooFilter::contains_located).
    return (static_cast<int>(matches_in(at.i1, at.value)) | static_cast<int>(matches_in(at.i2, at.value))) != 0;
  }

  [[nodiscard]] std::size_t count_hash(std::uint64_t hash) const noexcept { return copies(locate(hash)); }

  // Removes the key's longest matching entry (see the file's comment).
  bool remove_hash(std::uint64_t hash) noexcept {
    const Place at = locate(hash);
    Slot* best = nullptr;
    for (const std::uint32_t bucket : {at.i1, at.i2}) {
      Slot* b = slots_ + std::size_t{bucket} * kBucketSize;
      for (unsigned s = 0; s < kBucketSize; ++s)
        if (matches(b[s], at.value) && (best == nullptr || marker_bit(b[s]) < marker_bit(*best))) best = b + s;
    }
    if (best == nullptr) return false;
    --length_counts_[entry_bits(*best)];
    *best = 0;
    --size_;
    return true;
  }

  // --- the whole filter -------------------------------------------------------------------------------
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return base_buckets_ << generation_; }
  [[nodiscard]] unsigned generation() const noexcept { return generation_; }
  [[nodiscard]] std::uint64_t byte_size() const noexcept { return num_buckets() * kBucketSize * sizeof(Slot); }
  [[nodiscard]] double load_factor() const noexcept {
    return static_cast<double>(size_) / static_cast<double>(num_buckets() * kBucketSize);
  }
  // The probability that a key never added matches: 2b slots compared, each entry of F + e bits
  // matching with 2^-(F + e).
  [[nodiscard]] double expected_fp_rate() const noexcept {
    double matching = 0;
    for (unsigned bits = kFixedBits; bits < kSlotBits; ++bits)
      matching += static_cast<double>(length_counts_[bits]) / static_cast<double>(std::uint64_t{1} << bits);
    return 2.0 * kBucketSize * matching / static_cast<double>(num_buckets() * kBucketSize);
  }
  // Entries of F + e bits, for e = 0 .. E.
  [[nodiscard]] std::uint64_t entries_of_bits(unsigned bits) const noexcept { return length_counts_[bits]; }
  [[nodiscard]] Slot slot(std::uint64_t bucket, unsigned s) const noexcept { return slots_[bucket * kBucketSize + s]; }

  // Doubles the table now; false when it cannot (an entry has no ext bit left, the bucket count would
  // pass 2^32, or no memory), and the filter is then unchanged.
  bool double_in_place() noexcept {
    if (length_counts_[kFixedBits] != 0 || generation_ >= kExtBits) return false;
    const std::uint64_t old_buckets = num_buckets();
    if (2 * old_buckets > kMaxBuckets) return false;
    void* grown = std::realloc(slots_, 2 * old_buckets * kBucketSize * sizeof(Slot));
    if (grown == nullptr) return false;
    slots_ = static_cast<Slot*>(grown);
    detail::advise_huge_pages(slots_, 2 * old_buckets * kBucketSize * sizeof(Slot));
    // From the top down: old bucket i's entries go to buckets 2i and 2i + 1, which lie above every old
    // bucket not yet moved (for i = 0, the old bucket is read before its place is written).
    constexpr Slot kTailMask = static_cast<Slot>((1u << (kSlotBits - kFixedBits)) - 1);
    constexpr unsigned kTopTailBit = kSlotBits - kFixedBits - 1;
    for (std::uint64_t i = old_buckets; i-- > 0;) {
      Slot old[kBucketSize];
      std::memcpy(old, slots_ + i * kBucketSize, sizeof old);
      Slot* to = slots_ + 2 * i * kBucketSize;
      std::memset(to, 0, 2 * kBucketSize * sizeof(Slot));
      unsigned used[2] = {0, 0};
      for (const Slot v : old) {
        if (v == 0) continue;
        const Slot tail = v & kTailMask;
        const unsigned half = tail >> kTopTailBit;
        to[half * kBucketSize + used[half]++] = static_cast<Slot>((v & ~kTailMask) | ((tail << 1) & kTailMask));
      }
    }
    for (unsigned bits = kFixedBits; bits + 1 < kSlotBits; ++bits) length_counts_[bits] = length_counts_[bits + 1];
    length_counts_[kSlotBits - 1] = 0;
    ++generation_;
    return true;
  }

 private:
  DoublingFilter() = default;

  struct Place {
    std::uint64_t hash;
    std::uint32_t i1;
    std::uint32_t i2;
    Slot value;  // the entry this key would get now: all E ext bits
  };

  [[nodiscard]] std::uint32_t fixed_of(Slot v) const noexcept { return static_cast<std::uint32_t>(v) >> (kSlotBits - kFixedBits); }

  [[nodiscard]] Place locate(std::uint64_t hash) const noexcept {
    const std::uint64_t product = (hash >> 32) * base_buckets_;
    const auto q = static_cast<std::uint32_t>(product >> 32);
    const auto frac = static_cast<std::uint32_t>(product);
    const unsigned g = generation_;
    const std::uint32_t s = g == 0 ? 0 : frac >> (32 - g);
    // The E bits after the index (g + E <= 30 < 32, so they are all bits of frac).
    const std::uint32_t ext = static_cast<std::uint32_t>((std::uint64_t{frac} << g) >> (32 - kExtBits)) & ((1u << kExtBits) - 1);
    const std::uint32_t fixed = static_cast<std::uint32_t>(hash) >> (32 - kFixedBits);
    const auto value = static_cast<Slot>((fixed << (kSlotBits - kFixedBits)) | (ext << 1) | 1u);
    const std::uint32_t q2 = alternate_index(q, fixed, base_buckets_);
    return {hash, (q << g) | s, (q2 << g) | s, value};
  }

  // The other bucket of an entry in `bucket`.
  [[nodiscard]] std::uint32_t other_bucket(std::uint32_t bucket, Slot v) const noexcept {
    const unsigned g = generation_;
    const std::uint32_t s = bucket & ((std::uint32_t{1} << g) - 1);
    return (alternate_index(bucket >> g, fixed_of(v), base_buckets_) << g) | s;
  }

  [[nodiscard]] static bool matches(Slot v, Slot key) noexcept {
    const std::uint32_t x = v;
    return x != 0 && ((x ^ key) & ~(x ^ (x - 1))) == 0;
  }
  // The position of the marker: lower means more ext bits.
  [[nodiscard]] static unsigned marker_bit(Slot v) noexcept { return static_cast<unsigned>(__builtin_ctz(static_cast<std::uint32_t>(v))); }
  // F + e for an entry.
  [[nodiscard]] static unsigned entry_bits(Slot v) noexcept { return kSlotBits - 1 - marker_bit(v); }

  [[nodiscard]] bool matches_in(std::uint32_t bucket, Slot key) const noexcept {
    const Slot* b = slots_ + std::size_t{bucket} * kBucketSize;
    if constexpr (sizeof(Slot) == 2) {
      std::uint64_t word;
      std::memcpy(&word, b, sizeof word);
      return any_lane_matches(word, key);
    } else {
      bool any = false;
      for (unsigned s = 0; s < kBucketSize; ++s) any |= matches(b[s], key);
      return any;
    }
  }

  // matches() on the four 16-bit slots of a bucket at once (SWAR). An entry's marker lies in its low
  // 16 - F = 8 bits (the tail), which are 0 only in an empty slot, so the bits at and below the marker,
  // v ^ (v - 1), are the tail's: lane-wise tail - 1 is (tail | 0x100) - 1, which never borrows from the
  // next lane. A lane is nonzero when (its low 15 bits + 0x7FFF) or itself has bit 15 set (no carry out).
  [[nodiscard]] static bool any_lane_matches(std::uint64_t word, Slot key) noexcept {
    constexpr std::uint64_t kLanes = 0x0001000100010001ull;
    constexpr std::uint64_t kTail = 0x00FF00FF00FF00FFull;
    constexpr std::uint64_t kHigh = 0x8000800080008000ull;
    constexpr std::uint64_t kLow15 = 0x7FFF7FFF7FFF7FFFull;
    static_assert(kSlotBits - kFixedBits == 8);
    const std::uint64_t tail = word & kTail;
    const std::uint64_t below_marker = (tail ^ ((tail | (kLanes << 8)) - kLanes)) & kTail;
    const std::uint64_t mismatch = (word ^ (kLanes * key)) & ~below_marker;
    const std::uint64_t occupied = (tail + kLow15) & kHigh;
    const std::uint64_t differs = (((mismatch & kLow15) + kLow15) | mismatch) & kHigh;
    return (occupied & ~differs) != 0;
  }

  [[nodiscard]] std::size_t copies(const Place& at) const noexcept {
    std::size_t n = 0;
    for (const std::uint32_t bucket : {at.i1, at.i2}) {  // never the same bucket (hashing.hpp's alternate)
      const Slot* b = slots_ + std::size_t{bucket} * kBucketSize;
      for (unsigned s = 0; s < kBucketSize; ++s) n += matches(b[s], at.value);
    }
    return n;
  }

  [[nodiscard]] int free_slot(std::uint32_t bucket) const noexcept {
    const Slot* b = slots_ + std::size_t{bucket} * kBucketSize;
    for (unsigned s = 0; s < kBucketSize; ++s)
      if (b[s] == 0) return static_cast<int>(s);
    return -1;
  }

  void store(std::uint32_t bucket, unsigned s, Slot v) noexcept {
    slots_[std::size_t{bucket} * kBucketSize + s] = v;
  }

  // Stores the key's entry, kicking residents out along a walk of at most max_kicks steps when both
  // buckets are full; a walk that finds no room is undone.
  bool insert(const Place& at) noexcept {
    for (const std::uint32_t bucket : {at.i1, at.i2}) {
      if (const int s = free_slot(bucket); s >= 0) {
        store(bucket, static_cast<unsigned>(s), at.value);
        counted_in(at.value);
        return true;
      }
    }
    SplitMix64 rng{at.hash};
    std::uint32_t bucket = (rng.next() & 1) != 0 ? at.i2 : at.i1;
    Slot homeless = at.value;
    for (unsigned kick = 0; kick < max_kicks_; ++kick) {
      int s = resident_with_room(bucket);
      if (s < 0) s = static_cast<int>(rng.next() & (kBucketSize - 1));
      Slot& victim = slots_[std::size_t{bucket} * kBucketSize + static_cast<unsigned>(s)];
      const Slot evicted = victim;
      victim = homeless;
      path_[kick] = {bucket, static_cast<std::uint32_t>(s)};
      homeless = evicted;
      bucket = other_bucket(bucket, homeless);
      if (const int room = free_slot(bucket); room >= 0) {
        store(bucket, static_cast<unsigned>(room), homeless);
        counted_in(at.value);
        return true;
      }
    }
    for (unsigned kick = max_kicks_; kick-- > 0;) {
      Slot& placed = slots_[std::size_t{path_[kick].bucket} * kBucketSize + path_[kick].slot];
      const Slot put = placed;
      placed = homeless;
      homeless = put;
    }
    return false;
  }

  // A slot of `bucket` whose entry has a free slot in its other bucket, or -1.
  [[nodiscard]] int resident_with_room(std::uint32_t bucket) const noexcept {
    const Slot* b = slots_ + std::size_t{bucket} * kBucketSize;
    for (unsigned s = 0; s < kBucketSize; ++s)
      if (free_slot(other_bucket(bucket, b[s])) >= 0) return static_cast<int>(s);
    return -1;
  }

  void counted_in(Slot v) noexcept {
    ++length_counts_[entry_bits(v)];
    ++size_;
  }

  KeyHasher hasher_;
  std::uint64_t capacity_ = 0;      // the first table's items
  std::uint64_t base_buckets_ = 0;  // N0
  unsigned generation_ = 0;         // g: doublings so far
  unsigned max_kicks_ = 0;
  bool grows_ = true;
  Slot* slots_ = nullptr;           // N0 * 2^g buckets of kBucketSize slots
  std::uint64_t size_ = 0;
  std::uint64_t length_counts_[kSlotBits] = {};  // entries by F + e
  std::vector<detail::PathStep> path_;
};

}  // namespace v1
}  // namespace cuckoo
