// A cuckoo filter that grows a bucket at a time (linear hashing), so that its table stays at its fill
// however far it grows: the step after growth in place (doubling_filter.hpp), which is half empty just
// after each doubling and so cannot stay within twice a sized filter's memory (docs/GROWTH.md, "Why a
// table that doubles stays above 2x"). Not yet behind CuckooFilter: measured natively against the sized
// filter and the table that doubles (bench/split_bench.cpp, docs/GROWTH.md "Growing a bucket at a time");
// what wiring it in takes is listed there.
//
// The index. A key's position z is the P = 64 - F bits of its hash that the fixed fingerprint (below) does
// not use, its lowest bits the hash's top 32. The table has M = 2^L + p buckets (0 <= p < 2^L): a position
// whose low L bits c are below p lies in a bucket that was split, bucket z mod 2^(L+1) (level L + 1);
// otherwise in bucket c (level L). Splitting bucket p moves the entries whose position bit L is 1 to the
// new last bucket, 2^L + p; when p reaches 2^L, L grows by one and p starts again at 0. So any M is a table
// (exact sizing), and the table grows by one bucket at a time.
//
// The other bucket. The key's other position is z ^ D(f), D(f) = (2f + 1) * K mod 2^P for its fixed
// fingerprint f: odd, so the two buckets differ in their lowest bit at every size. D changes bits at every
// level, so a kick-out walk reaches the whole table (a table that doubles keeps its walks within classes
// of its first size, so a class not yet split could not even out its load: docs/GROWTH.md).
//
// An entry is a slot of W bits, [f: F bits][0 ... 0][1][ext: e bits]: the fixed fingerprint, then the
// bits of its position above its bucket's level (bit `level` of the position at bit 0), right-aligned
// under a marker 1. So an entry knows `len` = level + e bits of its position (the bucket's index tells the
// low `level`), and len never changes as the entry moves: a split or a move to a bucket of level L + 1
// takes the ext field's bit 0 as the index bit (the tail shifts right), a move down to level L gives it
// back (the tail shifts left). An entry added when the table is at level L gets len = L + E (E = W - F - 1,
// at most P), so at level L it has e = E bits, at level L + 1 e = E - 1; as L grows past its add, e
// shrinks. An entry with e = 0 cannot tell which half of a split it belongs to: it is copied into both
// (each copy then knows its half's bit, and matches only what the entry matched there), and it cannot move
// to a bucket of level L + 1 (a walk passes it over).
//
// Matching. A key at a bucket of level l presents [f][1][the E bits of its position above l] (every level
// the table reaches leaves a position E bits above it: a static_assert); an entry matches when its fixed
// bits and its e ext bits equal the key's lowest e. Removing a key takes
// its matching entry of the greatest len: any shorter match agrees with the key on fewer bits of the same
// frame (the two positions of a key differ by D(f), the same for every entry of fingerprint f), so it
// matches every key the longest matched: deleting added keys never loses another (the copies of an entry
// whose bits ran out stay, as in the table that doubles).
//
// The rate. An absent key's bucket pair holds a given entry's bucket with probability 2 * 2^-level, and
// then matches its F + e bits with 2^-(F + e): an entry adds 2^(1 - F - len) to the expected rate, fixed at
// its add (copies split it in two halves). Adds at level L give len = L + E; the table takes about
// 4 a 2^L of them at that level (a: the fill), so each level adds about 8 a 2^-(W - 1) to the rate, and
// expected_fp_rate() sums the real value from the count of entries of each len. An add that would take the
// sum past `fp_rate` is refused (growth_limit), so the expected rate stays at most fp_rate at every size
// (and the measured one follows it: bench/split_bench.cpp, test_split_filter.cpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "detail/table_memory.hpp"
#include "hashing.hpp"
#include "status.hpp"

namespace cuckoo {
inline namespace v1 {

struct SplitOptions {
  std::uint64_t capacity = 1000;  // items the first table holds at `fill`
  double fp_rate = 0.001;         // expected_fp_rate() stays at most this
  double fill = 0.8;              // the table splits a bucket whenever an add would pass this share of its slots
  unsigned max_kicks = 500;
  std::uint64_t seed = kDefaultSeed;
};

// W: the slot width, 16, 20, 24 or 32 bits (rates from 0.0028, 1.9e-4, 1.2e-5 and 4.5e-8 up, as the table
// that doubles chooses them); F: the fixed fingerprint's bits. 16-bit slots take F = 7, so E = 8: entries
// run out of ext bits a level later, and copies took 2.3% of the slots at 10,000 times the first size
// where with F = 8 they took 5.5% (and 2.00 times a sized filter's memory there, 1.94 with 7); the rate
// is F + len bits either way, and 128 offsets still spread a bucket's entries. (40-bit slots, for the
// deduplicator's rates, would leave a key fewer than E ext bits past 2^25 buckets: not built yet.)
template <unsigned W, unsigned F = (W == 16   ? 7
                                    : W <= 24 ? 8
                                              : 16)>
class SplitFilter {
  static_assert(W == 16 || W == 20 || W == 24 || W == 32);
  static_assert(F >= 4 && F + 2 <= W && F <= 16);
  static_assert(32 + (W - F - 1) <= 64 - F, "a key keeps E ext bits at every level");
  static_assert(std::endian::native == std::endian::little);

 public:
  using Slot = std::uint64_t;
  __extension__ typedef unsigned __int128 Wide;  // a GNU type (clang and gcc, wasm too), fine under -pedantic
  static constexpr unsigned kSlotBits = W;
  static constexpr unsigned kFixedBits = F;
  static constexpr unsigned kExtBits = W - F - 1;    // E
  static constexpr unsigned kPositionBits = 64 - F;  // P
  static constexpr unsigned kBucketSize = 4;
  static constexpr unsigned kBucketBytes = W * kBucketSize / 8;
  static constexpr unsigned kMaxLevel = 31;  // bucket indexes fit 32 bits (a split one has level 32)

  // The most items a first table takes: its buckets below 2^kMaxLevel (the level the table stops at).
  static constexpr std::uint64_t kMaxCapacity = (std::uint64_t{1} << (kMaxLevel - 1)) * kBucketSize / 2;

  // ok, or invalid_argument naming what is wrong: a capacity from 1 to kMaxCapacity, a fill from 0.5 to 0.9
  // (past it walks fail faster than splits make room), an fp_rate in (0, 1), and 1 to 65,535 kicks.
  [[nodiscard]] static Status check_options(const SplitOptions& o) {
    if (o.capacity < 1 || o.capacity > kMaxCapacity)
      return Status::error(ErrorCode::invalid_argument, "capacity must be from 1 to " + std::to_string(kMaxCapacity));
    if (!(o.fill >= 0.5 && o.fill <= 0.9))
      return Status::error(ErrorCode::invalid_argument, "fill must be from 0.5 to 0.9");
    if (!(o.fp_rate > 0 && o.fp_rate < 1))
      return Status::error(ErrorCode::invalid_argument, "fp_rate must be in (0, 1)");
    if (o.max_kicks < 1 || o.max_kicks > 65535)
      return Status::error(ErrorCode::invalid_argument, "max_kicks must be from 1 to 65535");
    return {};
  }

  // Throws std::invalid_argument for options check_options() refuses, std::bad_alloc without memory.
  explicit SplitFilter(const SplitOptions& o) : o_(o), hasher_(o.seed) {
    if (const Status s = check_options(o); !s.ok()) throw std::invalid_argument(s.message);
    const double wanted = static_cast<double>(o.capacity) / (kBucketSize * o.fill);
    std::uint64_t m = std::max<std::uint64_t>(2, static_cast<std::uint64_t>(wanted) + 1);
    level_ = static_cast<unsigned>(std::bit_width(m) - 1);
    split_ = m - (std::uint64_t{1} << level_);
    // A walk's undo record, whole from the start: a push that could fail mid-walk would lose the entry it
    // had just moved.
    path_.reserve(o.max_kicks);
    reserve(m);
    set_split_at();
  }
  ~SplitFilter() { std::free(table_); }
  SplitFilter(const SplitFilter&) = delete;
  SplitFilter& operator=(const SplitFilter&) = delete;

  // --- keys ---------------------------------------------------------------------------------------------
  bool add(const void* key, std::size_t n) { return add_hash(hasher_(key, n)); }
  [[nodiscard]] bool contains(const void* key, std::size_t n) const { return contains_hash(hasher_(key, n)); }
  bool remove(const void* key, std::size_t n) { return remove_hash(hasher_(key, n)); }
  [[nodiscard]] std::size_t count(const void* key, std::size_t n) const { return count_hash(hasher_(key, n)); }
  bool add(std::uint64_t key) { return add_hash(hasher_(key)); }
  [[nodiscard]] bool contains(std::uint64_t key) const { return contains_hash(hasher_(key)); }
  bool remove(std::uint64_t key) { return remove_hash(hasher_(key)); }

  // An add: false when refused, with last_add_failure() saying why (the filter is then unchanged, but for
  // buckets split on the way, which change no answer).
  bool add_hash(std::uint64_t hash) {
    failure_ = AddFailure::none;
    const Key k = key_of(hash);
    const unsigned len = std::min(kPositionBits, level_ + kExtBits);
    if (rate_ + 2.0 * rate_of_len(len) > o_.fp_rate) return refuse(AddFailure::growth_limit);
    if (occupied_ + 1 > split_at_ && !split_some()) return refuse(AddFailure::growth_limit);
    const Known known{k.f, k.z & low_mask(len), len};
    // A walk that fails (it is undone) splits one more bucket and tries again, walking another way: a few
    // times, then the add is refused as crowded (copies of keys added many times filling the key's buckets
    // and their neighbours; with distinct keys at a fill up to 0.9, none in 10 million adds measured).
    // A split seldom touches the key's buckets (odds about 2 / M): it is the other walk that helps.
    for (unsigned tries = 0;; ++tries) {
      // Each try walks another way (the walk's generator is seeded from the hash and the try): a split
      // rarely touches the key's buckets, and the same walk would fail the same way.
      const Stored r = insert(known, hash + tries * 0x9E3779B97F4A7C15ull);
      if (r == Stored::yes) {
        ++count_by_len_[len];
        rate_ += 2.0 * rate_of_len(len);
        ++size_;
        ++occupied_;
        return true;
      }
      if (r == Stored::copies) return refuse(AddFailure::duplicate_limit);
      if (tries == kSplitTries) return refuse(AddFailure::crowded);
      if (!split_one()) return refuse(AddFailure::growth_limit);
    }
  }

  // A bucket's fixed bits are compared a word at a time (same_fixed()): most absent keys end there. Where
  // some agree, one such slot is matched (matches()) without a branch on which bucket or slot it is: a
  // present key lies in either bucket, in any slot, and branching slot by slot on where mispredicted
  // (docs/GROWTH.md has the times). A second slot that agrees (odds about 7 / 2^F) has every slot matched
  // at once (matching_slots()).
  [[nodiscard]] bool contains_hash(std::uint64_t hash) const noexcept {
    const Key k = key_of(hash);
    const Probe a = probe(k.f, k.z), b = probe(k.f, k.z ^ offset(k.f));
    // The words of both buckets, a's first, and the slots whose fixed bits are the key's in each.
    std::uint64_t word[2 * kWords], same[2 * kWords];
    const std::uint64_t fixed = in_every_slot(a.key & ~kTailMask);
    for (unsigned h = 0; h < kWords; ++h) {
      word[h] = bucket_word(a.bucket, h);
      word[kWords + h] = bucket_word(b.bucket, h);
    }
    std::uint64_t any = 0;
    for (unsigned i = 0; i < 2 * kWords; ++i) any |= same[i] = same_fixed(word[i], fixed);
    if (any == 0) return false;
    std::uint64_t pick_word = 0, pick = 0;
    Slot pick_key = 0;
    unsigned words_with = 0, several = 0;
    for (unsigned i = 2 * kWords; i-- > 0;) {
      const bool has = same[i] != 0;
      pick_word = has ? word[i] : pick_word;
      pick = has ? same[i] : pick;
      pick_key = has ? (i < kWords ? a.key : b.key) : pick_key;
      words_with += has;
      several |= (same[i] & (same[i] - 1)) != 0;
    }
    if (matches(slot_at(pick_word, top_bit(pick)), pick_key)) return true;
    if (words_with < 2 && several == 0) return false;
    std::uint64_t found = 0;
    for (unsigned h = 0; h < kWords; ++h)
      found |= matching_slots(word[h], a.key) | matching_slots(word[kWords + h], b.key);
    return found != 0;
  }

  [[nodiscard]] std::size_t count_hash(std::uint64_t hash) const noexcept { return copies(key_of(hash)); }

  // Removes the key's matching entry of the greatest len (the file's comment).
  bool remove_hash(std::uint64_t hash) noexcept {
    const Key k = key_of(hash);
    std::uint64_t best_bucket = 0;
    unsigned best_slot = kBucketSize, best_len = 0;
    for (const Probe& at : {probe(k.f, k.z), probe(k.f, k.z ^ offset(k.f))}) {
      Slot v[kBucketSize];
      read_bucket(at.bucket, v);
      for (unsigned s = 0; s < kBucketSize; ++s) {
        if (!matches(v[s], at.key)) continue;
        const unsigned len = at.level + ext_bits(v[s]);
        if (best_slot == kBucketSize || len > best_len) {
          best_bucket = at.bucket;
          best_slot = s;
          best_len = len;
        }
      }
    }
    if (best_slot == kBucketSize) return false;
    put(best_bucket, best_slot, 0);
    --count_by_len_[best_len];
    rate_ -= 2.0 * rate_of_len(best_len);
    --occupied_;
    if (size_ > 0) --size_;
    return true;
  }

  // --- the whole filter -----------------------------------------------------------------------------------
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }          // adds less removes
  [[nodiscard]] std::uint64_t occupied() const noexcept { return occupied_; }  // entries, copies included
  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return (std::uint64_t{1} << level_) + split_; }
  [[nodiscard]] std::uint64_t slots() const noexcept { return num_buckets() * kBucketSize; }
  [[nodiscard]] unsigned level() const noexcept { return level_; }
  [[nodiscard]] std::uint64_t splits() const noexcept { return splits_; }
  [[nodiscard]] std::uint64_t kicks() const noexcept { return kicks_; }
  // The table's bytes (what an export would hold), and what its allocation takes.
  [[nodiscard]] std::uint64_t byte_size() const noexcept { return num_buckets() * kBucketBytes; }
  [[nodiscard]] std::uint64_t allocated_bytes() const noexcept { return allocated_ * kBucketBytes + kPad; }
  [[nodiscard]] AddFailure last_add_failure() const noexcept { return failure_; }
  // Summed afresh from the count of entries of each len (rate_, kept as entries come and go, is what adds
  // are held to).
  [[nodiscard]] double expected_fp_rate() const noexcept {
    double rate = 0;
    for (unsigned len = 0; len <= kPositionBits; ++len)
      if (count_by_len_[len] != 0) rate += 2.0 * static_cast<double>(count_by_len_[len]) * rate_of_len(len);
    return rate;
  }
  // The mean occupied slots of a bucket split in this level (level L + 1, both halves) and of one not yet
  // split (level L). A bucket not yet split holds the positions of two split ones.
  struct Loads {
    double split, unsplit;
  };
  [[nodiscard]] Loads bucket_loads() const noexcept {
    std::uint64_t split = 0, unsplit = 0;
    for (std::uint64_t b = 0; b < num_buckets(); ++b) {
      unsigned n = 0;
      for (unsigned s = 0; s < kBucketSize; ++s) n += get(b, s) != 0;
      ((b < split_ || b >> level_ != 0) ? split : unsplit) += n;
    }
    const std::uint64_t unsplit_buckets = (std::uint64_t{1} << level_) - split_;
    return {split_ == 0 ? 0.0 : static_cast<double>(split) / static_cast<double>(2 * split_),
            static_cast<double>(unsplit) / static_cast<double>(unsplit_buckets)};
  }
  // Entries with no ext bit left (copied at their bucket's next split).
  [[nodiscard]] std::uint64_t spent_entries() const noexcept {
    std::uint64_t n = 0;
    for (std::uint64_t b = 0; b < num_buckets(); ++b)
      for (unsigned s = 0; s < kBucketSize; ++s) n += get(b, s) != 0 && ext_bits(get(b, s)) == 0;
    return n;
  }

 private:
  static constexpr std::uint64_t kOffsetMultiplier = 0x9E3779B97F4A7C15ull;
  static constexpr unsigned kSplitTries = 8;
  static constexpr std::size_t kPad = 8;  // a slot is read as the 8 bytes from its first byte
  static constexpr Slot kSlotMask = (W == 64) ? ~Slot{0} : (Slot{1} << W) - 1;
  static constexpr Slot kTailMask = (Slot{1} << (W - F)) - 1;

  struct Key {
    std::uint32_t f;
    std::uint64_t z;  // P bits
  };
  // What an entry knows of its position: its low `len` bits.
  struct Known {
    std::uint32_t f;
    std::uint64_t bits;
    unsigned len;
  };
  // A key's bucket for one of its positions, and the value it compares there.
  struct Probe {
    std::uint64_t bucket;
    unsigned level;
    Slot key;
  };

  static constexpr std::uint64_t low_mask(unsigned n) noexcept {
    return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  }
  static double rate_of_len(unsigned len) noexcept {
    return 1.0 / static_cast<double>(std::uint64_t{1} << std::min(63u, F + len));
  }
  void set_split_at() noexcept { split_at_ = static_cast<std::uint64_t>(o_.fill * static_cast<double>(slots())); }

  Key key_of(std::uint64_t hash) const noexcept {
    const auto low = static_cast<std::uint32_t>(hash);
    const std::uint32_t f = low >> (32 - F);
    const std::uint64_t z = (hash >> 32) | ((std::uint64_t{low} & low_mask(32 - F)) << 32);
    return {f, z};
  }
  static std::uint64_t offset(std::uint32_t f) noexcept {
    return ((2 * std::uint64_t{f} + 1) * kOffsetMultiplier) & low_mask(kPositionBits);
  }
  static unsigned ext_bits(Slot v) noexcept {
    return static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(v & kTailMask))) - 1;
  }
  static Slot encode(std::uint32_t f, std::uint64_t ext, unsigned e) noexcept {
    return (Slot{f} << (W - F)) | (Slot{1} << e) | (ext & ((Slot{1} << e) - 1));
  }
  // v matches a key's value there: the same fixed bits, and v's ext bits the key's lowest ones.
  static bool matches(Slot v, Slot key) noexcept {
    const Slot tail = v & kTailMask;
    // No branch (tail | 1 is never 0): whether a lookup's slot is empty is a coin toss.
    const Slot below_marker = (Slot{1} << (std::bit_width(static_cast<std::uint64_t>(tail | 1)) - 1)) - 1;
    return (tail != 0) & (((v ^ key) & (~kTailMask | below_marker) & kSlotMask) == 0);
  }

  // The bucket of a full position, its level and the key's value there.
  // Branchless: whether a position's bucket was split is a coin toss while p runs through the level.
  Probe probe(std::uint32_t f, std::uint64_t z) const noexcept {
    const std::uint64_t level_mask = (std::uint64_t{1} << level_) - 1;
    const auto split = static_cast<unsigned>((z & level_mask) < split_);
    const unsigned level = level_ + split;
    const std::uint64_t bucket = z & (level_mask | (std::uint64_t{split} << level_));
    // Every level a table reaches leaves the key E bits (level <= kMaxLevel + 1 <= P - E: static_assert).
    return {bucket, level, encode(f, z >> level, kExtBits)};
  }
  // Where an entry that knows `k` goes now (false: it lacks the bit a split bucket needs).
  bool place(const Known& k, std::uint64_t& bucket, Slot& value) const noexcept {
    const std::uint64_t c = k.bits & low_mask(level_);
    unsigned level = level_;
    if (c < split_) {
      if (k.len <= level_) return false;
      level = level_ + 1;
    }
    bucket = k.bits & low_mask(level);
    value = encode(k.f, k.bits >> level, k.len - level);
    return true;
  }
  // What the entry v in `bucket` knows.
  Known known_of(std::uint64_t bucket, Slot v) const noexcept {
    const unsigned level = (bucket < split_ || bucket >> level_ != 0) ? level_ + 1 : level_;
    const unsigned e = ext_bits(v);
    const auto f = static_cast<std::uint32_t>(v >> (W - F));
    return {f, bucket | ((static_cast<std::uint64_t>(v) & low_mask(e)) << level), level + e};
  }
  Known other(const Known& k) const noexcept { return {k.f, k.bits ^ (offset(k.f) & low_mask(k.len)), k.len}; }

  // --- a bucket's slots compared at once: the bucket as kWords 64-bit words of kWordSlots slots each -----
  // (slot s of word h at its bits (s - h kWordSlots) W; 16-bit slots: one word, wider: two of two slots)
  static constexpr unsigned kWordSlots = W == 16 ? 4 : 2;
  static constexpr unsigned kWords = kBucketSize / kWordSlots;
  static constexpr std::uint64_t in_every_slot(std::uint64_t v) noexcept {
    std::uint64_t x = 0;
    for (unsigned s = 0; s < kWordSlots; ++s) x |= v << (s * W);
    return x;
  }
  static constexpr std::uint64_t kWordMask = in_every_slot(kSlotMask);
  static constexpr std::uint64_t kTails = in_every_slot(kTailMask);
  static constexpr std::uint64_t kFixedFields = in_every_slot(kSlotMask & ~kTailMask);
  static constexpr std::uint64_t kTops = in_every_slot(Slot{1} << (W - 1));  // each slot's top bit
  static constexpr std::uint64_t kBelowTops = in_every_slot(kSlotMask >> 1);
  static constexpr std::uint64_t kTailCarries = in_every_slot(kTailMask + 1);
  // The smear in matching_slots() shifts a word right by up to bit_floor(E - 1) and masks it to the tails:
  // a slot's tail lies F bits below the next slot's, so no bit crosses from one slot to another.
  static_assert(kExtBits < 2 || std::bit_floor(kExtBits - 1) <= F, "a smear step stays within a slot");

  std::uint64_t bucket_word(std::uint64_t bucket, unsigned h) const noexcept {
    std::uint64_t x;  // past the bucket's end for the last bucket: within the table's 8 bytes of padding
    std::memcpy(&x, table_ + bucket * kBucketBytes + h * (kWordSlots * W / 8), sizeof x);
    return x & kWordMask;
  }
  // The top bit of each slot of `word` that is occupied (its tail, marker and ext bits, is not 0).
  static std::uint64_t occupied_slots(std::uint64_t word) noexcept {
    return (((word & kTails) + kTails) & kTailCarries) << (F - 1);  // a tail's carry, moved to the top bit
  }
  // The highest set bit of c (0 for 0), without a branch: c | 1 is never 0.
  static unsigned top_bit(std::uint64_t c) noexcept { return static_cast<unsigned>(std::bit_width(c | 1)) - 1; }
  // The slot of `word` that holds bit `bit`.
  static Slot slot_at(std::uint64_t word, unsigned bit) noexcept {
    return static_cast<Slot>(word >> (bit / W * W)) & kSlotMask;
  }
  // The top bit of each slot of `word` whose fixed bits are those of `fixed` (the key's in every slot).
  static std::uint64_t same_fixed(std::uint64_t word, std::uint64_t fixed) noexcept {
    const std::uint64_t differ = (word ^ fixed) & kFixedFields;
    return ~(((differ & kBelowTops) + kBelowTops) | differ) & kTops;
  }
  // The top bit of each slot of `word` whose entry matches a key whose value there is `key` (matches(),
  // for every slot at once). Each slot's bits below its marker are its tail shifted right by 1, smeared
  // down (within a slot: no carry or shift crosses into another, static_assert above); the slot matches
  // when its fixed bits and those equal the key's, that is when (word ^ key) masked to them is 0 in the
  // slot: ((x & low) + low) | x has a slot's top bit set exactly when the slot's x is not 0.
  static std::uint64_t matching_slots(std::uint64_t word, Slot key) noexcept {
    const std::uint64_t tails = word & kTails;
    std::uint64_t below = (tails >> 1) & kTails;
    for (unsigned k = 1; k < kExtBits; k *= 2) below |= (below >> k) & kTails;
    const std::uint64_t differ = (word ^ (static_cast<std::uint64_t>(key) * in_every_slot(1))) & (kFixedFields | below);
    const std::uint64_t differs = ((differ & kBelowTops) + kBelowTops) | differ;
    return ~differs & occupied_slots(word) & kTops;
  }
  // The copies of the key an add is storing: its entries know at most the add's len bits of its position.
  std::size_t copies(const Known& k) const noexcept { return copies(Key{k.f, k.bits}); }
  std::size_t copies(const Key& k) const noexcept {
    std::size_t n = 0;
    for (const Probe& at : {probe(k.f, k.z), probe(k.f, k.z ^ offset(k.f))}) {
      Slot v[kBucketSize];
      read_bucket(at.bucket, v);
      for (unsigned s = 0; s < kBucketSize; ++s) n += matches(v[s], at.key);
    }
    return n;
  }

  // --- storage: bucket b at bytes b * kBucketBytes, slot s at its bits s W .. s W + W - 1 ----------------
  Slot get(std::uint64_t bucket, unsigned s) const noexcept {
    const std::uint8_t* p = table_ + bucket * kBucketBytes + (s * W) / 8;
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    return (word >> ((s * W) % 8)) & kSlotMask;
  }
  void put(std::uint64_t bucket, unsigned s, Slot v) noexcept {
    std::uint8_t* p = table_ + bucket * kBucketBytes + (s * W) / 8;
    const unsigned shift = (s * W) % 8;
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    word = (word & ~(static_cast<std::uint64_t>(kSlotMask) << shift)) | (static_cast<std::uint64_t>(v) << shift);
    std::memcpy(p, &word, sizeof word);
  }
  // A bucket's free slots: how many, and the first (-1: none), from one read.
  struct Room {
    unsigned count;
    int first;
  };
  // From its words: a slot is free when its tail is 0 (occupied_slots()).
  Room room_in(std::uint64_t bucket) const noexcept {
    Room r{0, -1};
    for (unsigned h = kWords; h-- > 0;) {
      const std::uint64_t free = ~occupied_slots(bucket_word(bucket, h)) & kTops;
      // The count of free slots: their top bits moved to each slot's bit 0, summed into the last slot's.
      r.count += static_cast<unsigned>((((free >> (W - 1)) * in_every_slot(1)) >> ((kWordSlots - 1) * W)) & 7);
      if (free != 0) r.first = static_cast<int>(h * kWordSlots + static_cast<unsigned>(std::countr_zero(free)) / W);
    }
    return r;
  }
  void touch(std::uint64_t bucket) const noexcept { __builtin_prefetch(table_ + bucket * kBucketBytes); }
  // A whole bucket at once: one read (or write) of its bytes, where slot by slot the overlapping 8-byte
  // windows of packed slots stall on each other (a split took 39 ns natively).
  // Two 8-byte loads, its first and its last 8 bytes (one for 16-bit slots), each slot taken from the one
  // that holds it whole.
  void read_bucket(std::uint64_t bucket, Slot (&v)[kBucketSize]) const noexcept {
    const std::uint8_t* p = table_ + bucket * kBucketBytes;
    std::uint64_t low, high = 0;
    std::memcpy(&low, p, sizeof low);
    if constexpr (kBucketBytes > 8) std::memcpy(&high, p + kBucketBytes - 8, sizeof high);
    for (unsigned s = 0; s < kBucketSize; ++s) {
      const unsigned bit = s * W;
      if (bit + W <= 64)
        v[s] = (low >> bit) & kSlotMask;
      else
        v[s] = (high >> (bit - (kBucketBytes - 8) * 8)) & kSlotMask;
    }
  }
  void write_bucket(std::uint64_t bucket, const Slot (&v)[kBucketSize]) noexcept {
    static_assert(kBucketBytes <= sizeof(Wide));
    Wide x = 0;
    for (unsigned s = 0; s < kBucketSize; ++s) x |= static_cast<Wide>(v[s]) << (s * W);
    std::memcpy(table_ + bucket * kBucketBytes, &x, kBucketBytes);
  }
  int free_slot(std::uint64_t bucket) const noexcept { return room_in(bucket).first; }

  // Room for `buckets` buckets. The allocation grows by a 32nd (and 16 buckets), so a split seldom
  // reallocates and the slack stays small (it is memory the process holds: at an eighth, 10% more than the
  // table's bytes); realloc of a large block remaps pages on Linux, it does not copy them.
  void reserve(std::uint64_t buckets) {
    if (buckets <= allocated_) return;
    const std::uint64_t to = std::max(buckets, allocated_ + allocated_ / 32 + 16);
    // Past what size_t counts (4 GiB in wasm32) the size would wrap: no memory for it.
    if (!detail::addressable(to, kBucketBytes) || to * kBucketBytes > SIZE_MAX - kPad) throw std::bad_alloc();
    auto* grown = static_cast<std::uint8_t*>(std::realloc(table_, to * kBucketBytes + kPad));
    if (grown == nullptr) throw std::bad_alloc();
    std::memset(grown + allocated_ * kBucketBytes, 0, (to - allocated_) * kBucketBytes + kPad);
    table_ = grown;
    allocated_ = to;
    detail::advise_huge_pages(table_, to * kBucketBytes + kPad);  // as the sized and doubling tables are
  }

  // Splits buckets until the table is below its fill again, and at least a run of them at once (up to
  // 64, at most a 64th of the table): the buckets p, p + 1, ... and the new ones at the end are then read and written
  // in order, a cache line for several, where one split every few adds took two cache misses each (natively, adds at
  // 70% fill took 110 ns with one at a time, 63 ns with none). False at the last level.
  bool split_some() {
    const std::uint64_t run = std::clamp<std::uint64_t>(num_buckets() >> 6, 1, 64);
    for (std::uint64_t i = 0; i < run || occupied_ + 1 > split_at_; ++i)
      if (!split_one()) return occupied_ + 1 <= split_at_;
    return true;
  }

  // Splits bucket p (the file's comment). False at the last level.
  bool split_one() {
    if (level_ == kMaxLevel && split_ + 1 == (std::uint64_t{1} << level_)) return false;
    const std::uint64_t from = split_, to = num_buckets();
    reserve(to + 1);
    Slot v[kBucketSize], stay[kBucketSize] = {}, go[kBucketSize] = {};
    read_bucket(from, v);
    unsigned kept = 0, moved = 0;
    for (unsigned s = 0; s < kBucketSize; ++s) {
      if (v[s] == 0) continue;
      const Slot tail = v[s] & kTailMask;
      const Slot fixed = v[s] & ~kTailMask;
      if (tail == 1) {  // e = 0: a copy for each half, each knowing its half's bit
        stay[kept++] = v[s];
        go[moved++] = v[s];
        const unsigned len = level_;  // the bucket's level, with no ext bit
        --count_by_len_[len];
        count_by_len_[len + 1] += 2;
        ++occupied_;
      } else if ((tail & 1) != 0) {
        go[moved++] = fixed | (tail >> 1);
      } else {
        stay[kept++] = fixed | (tail >> 1);
      }
    }
    write_bucket(from, stay);
    write_bucket(to, go);
    ++splits_;
    if (++split_ == (std::uint64_t{1} << level_)) {
      ++level_;
      split_ = 0;
    }
    set_split_at();
    return true;
  }

  // Stores an entry that knows `k`: its first bucket, its second, else a kick-out walk (undone when it
  // fails). The same walk as doubling_filter.hpp's insert(): a resident whose other bucket has room is
  // moved first; else one at random, passing over entries that cannot move.
  enum class Stored { yes, no, copies };
  // copies: both buckets are full and hold 2b copies of the key (a free slot means fewer: 2b fill both).
  Stored insert(const Known& k, std::uint64_t walk_seed) {
    const Known k2 = other(k);
    std::uint64_t b1 = 0, b2 = 0;
    Slot v1 = 0, v2 = 0;
    place(k, b1, v1);  // an add knows L + E > L bits: always placed
    place(k2, b2, v2);
    touch(b1);  // the two cache misses overlap
    touch(b2);
    // The emptier of the two buckets (two choices keep the load even: a bucket not yet split takes the
    // positions of two split ones).
    const Room room1 = room_in(b1), room2 = room_in(b2);
    if ((room1.count | room2.count) != 0) {
      const bool first = room1.count >= room2.count;
      put(first ? b1 : b2, static_cast<unsigned>(first ? room1.first : room2.first), first ? v1 : v2);
      return Stored::yes;
    }
    if (copies(k) >= 2 * kBucketSize) return Stored::copies;
    SplitMix64 rng{walk_seed};
    const bool second = (rng.next() & 1) != 0;
    std::uint64_t bucket = second ? b2 : b1;
    Slot homeless = second ? v2 : v1;
    path_.clear();
    for (unsigned kick = 0; kick < o_.max_kicks; ++kick) {
      std::uint64_t next_bucket = 0;
      Slot next_value = 0;
      int s = -1;
      // A resident whose other bucket has room; else the first that can move, from a random slot. The
      // residents' other buckets are touched first, so that their misses overlap.
      std::uint64_t to[kBucketSize];
      Slot moved[kBucketSize];
      bool can[kBucketSize];
      Slot here[kBucketSize];
      read_bucket(bucket, here);
      for (unsigned i = 0; i < kBucketSize; ++i) {
        can[i] = place(other(known_of(bucket, here[i])), to[i], moved[i]);
        touch(can[i] ? to[i] : bucket);
      }
      for (unsigned i = 0; i < kBucketSize && s < 0; ++i) {
        if (can[i] && free_slot(to[i]) >= 0) {
          s = static_cast<int>(i);
          next_bucket = to[i];
          next_value = moved[i];
        }
      }
      if (s < 0) {
        const unsigned start = static_cast<unsigned>(rng.next() & (kBucketSize - 1));
        for (unsigned i = 0; i < kBucketSize && s < 0; ++i) {
          const unsigned t = (start + i) & (kBucketSize - 1);
          if (can[t]) {
            s = static_cast<int>(t);
            next_bucket = to[t];
            next_value = moved[t];
          }
        }
        if (s < 0) break;
      }
      const Slot evicted = here[s];
      path_.push_back({bucket, static_cast<unsigned>(s), evicted});  // reserved: never reallocates
      put(bucket, static_cast<unsigned>(s), homeless);
      ++kicks_;
      if (const int room = free_slot(next_bucket); room >= 0) {
        put(next_bucket, static_cast<unsigned>(room), next_value);
        return Stored::yes;
      }
      bucket = next_bucket;
      homeless = next_value;
    }
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) put(it->bucket, it->slot, it->value);
    return Stored::no;
  }

  bool refuse(AddFailure why) noexcept {
    failure_ = why;
    return false;
  }

  struct Step {
    std::uint64_t bucket;
    unsigned slot;
    Slot value;
  };

  SplitOptions o_;
  KeyHasher hasher_;
  unsigned level_ = 0;       // L
  std::uint64_t split_ = 0;  // p
  std::uint8_t* table_ = nullptr;
  std::uint64_t allocated_ = 0;  // buckets
  std::uint64_t size_ = 0, occupied_ = 0, splits_ = 0, kicks_ = 0;
  std::uint64_t split_at_ = 0;  // occupied() past which an add first splits a bucket: fill * slots()
  double rate_ = 0;             // expected_fp_rate(), kept
  std::uint64_t count_by_len_[65] = {};
  AddFailure failure_ = AddFailure::none;
  std::vector<Step> path_;
};

}  // namespace v1
}  // namespace cuckoo
