// The packed slot table. It only stores and finds fingerprints; which buckets a key uses and the kick-out
// walk belong to the filter.
//
// Layout (this is also the table part of the export format): bucket i takes B bits starting at bit i*B of
// a little-endian bit stream, i.e. bit k of the stream is bit (k % 8) of byte k / 8, with no padding
// between buckets. A slot value of 0 means "empty". Two encodings of a bucket:
// - plain: B = b*f, slot j in bits [j*f, j*f + f) of its bucket;
// - semi-sorted (b = 4, 5 <= f <= 32; detail/semi_sort.hpp): B = 4f - 4, the four fingerprints kept in
//   ascending order, their high nibbles as one 12-bit code. Slot j is then the j-th smallest fingerprint:
//   writing a slot re-sorts the bucket, so set() and insert_if_room() return where the fingerprint is
//   afterwards. A bucket's bits are a function of the multiset it holds, so a write is undone exactly by
//   writing the old fingerprint over the new one's slot.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <utility>

#include "detail/bits.hpp"
#include "detail/compiler.hpp"
#include "detail/edition.hpp"
#include "detail/semi_sort.hpp"
#include "detail/table_memory.hpp"

namespace cuckoo {
inline namespace v1 {
namespace detail {

static_assert(kLittleEndian, "the table is read with native 64-bit loads and must be little-endian");

// The bits one bucket takes (see the layout above).
[[nodiscard]] constexpr unsigned bucket_bits(unsigned bucket_size, unsigned fingerprint_bits,
                                             bool semi_sorted) noexcept {
  return semi_sorted ? semi_sort::bucket_bits(fingerprint_bits) : bucket_size * fingerprint_bits;
}

// The bytes a table of this shape takes (without padding): its bits rounded up. The unused bits of the
// last byte are zero.
[[nodiscard]] constexpr std::uint64_t table_bytes(std::uint64_t num_buckets, unsigned bucket_size,
                                                  unsigned fingerprint_bits, bool semi_sorted) noexcept {
  return (num_buckets * bucket_bits(bucket_size, fingerprint_bits, semi_sorted) + 7) / 8;
}

// Whether a table of this shape may be semi-sorted.
[[nodiscard]] constexpr bool semi_sortable(unsigned bucket_size, unsigned fingerprint_bits) noexcept {
  return bucket_size == semi_sort::kSlots && fingerprint_bits >= semi_sort::kMinFingerprintBits &&
         fingerprint_bits <= semi_sort::kMaxFingerprintBits;
}

class BucketTable {
 public:
  // Bytes after the packed data so that a 64-bit load at any slot's first byte stays in bounds.
  static constexpr std::size_t kTailPadding = 8;
  // Twice the second-level cache of current x86 cores (2 MiB a core).
  static constexpr std::uint64_t kPrefetchBothEndsBytes = std::uint64_t{4} << 20;

  BucketTable() = default;
  BucketTable(BucketTable&&) noexcept = default;
  BucketTable& operator=(BucketTable&&) noexcept = default;

  // Returns false if the memory cannot be had, or the bit count would overflow; the table is then
  // unchanged. Precondition for a semi-sorted table: semi_sortable(bucket_size, fingerprint_bits).
  // `zeroed` false: the table's bytes are left as the allocator gave them, for a caller that writes them
  // all (an import; allocate_table_memory).
  [[nodiscard]] CUCKOO_COLD bool allocate(std::uint64_t num_buckets, unsigned bucket_size, unsigned fingerprint_bits,
                                          bool semi_sorted = false, bool zeroed = true) noexcept {
    const unsigned bucket_bits = detail::bucket_bits(bucket_size, fingerprint_bits, semi_sorted);
    if (num_buckets > (UINT64_MAX - 7) / bucket_bits) return false;
    const std::uint64_t bytes = table_bytes(num_buckets, bucket_size, fingerprint_bits, semi_sorted);
    TableMemory memory = allocate_table_memory(bytes, kTailPadding, zeroed);
    if (!memory) return false;
    data_ = std::move(memory);
    spread_ = !detail::kSizedOnly && semi_sorted ? semi_sort::spread_table(fingerprint_bits) : nullptr;
    semi_sorted_ = semi_sorted;
    num_buckets_ = num_buckets;
    bucket_size_ = bucket_size;
    bits_ = fingerprint_bits;
    byte_length_ = static_cast<std::size_t>(bytes);
    bucket_bits_ = bucket_bits;
    slot_mask_ = (std::uint64_t{1} << fingerprint_bits) - 1;
    // A bucket fits one 64-bit load when its bits plus the largest possible bit offset inside the first
    // byte fit. Bucket starts are multiples of gcd(bucket_bits, 8) bits, so that offset is at most
    // 8 - gcd(bucket_bits, 8). (Semi-sorted buckets are never read as a plain word.)
    fits_word_ = !semi_sorted && bucket_bits_ + (8 - std::gcd(bucket_bits_, 8u)) <= 64;
    bucket_bytes_ = fits_word_ && bucket_bits_ % 8 == 0 ? bucket_bits_ / 8 : 0;
    if (fits_word_) bucket_mask_ = bucket_bits_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bucket_bits_) - 1;
    // Four slots too wide for one load, but two of them fit one (with up to 7 bits of offset): a bucket
    // is tested as two words of two fields each.
    pair_words_ = !semi_sorted && !fits_word_ && bucket_size == 4 && 2 * fingerprint_bits + 7 <= 64;
    // From a bucket's first byte to the last one a read of it loads: a 64-bit load at the first byte (one
    // word), at the third slot's (pair words), at the last slot's (otherwise; semi-sorted reads stay
    // within that too). In bounds for the last bucket: the 8 bytes of tail padding.
    touch_span_ = fits_word_ ? 7 : pair_words_ ? (7 + 2 * fingerprint_bits) / 8 + 7 : (7 + bucket_bits_ - 1) / 8 + 7;
    // Only tables past the second-level cache have a prefetch touch both ends of a bucket: in cache, the
    // second line costs little when it is needed, and the second load on every bucket costs 6% of a batch
    // lookup's time (wasm, 1M keys, 1.7 MB of table).
    prefetch_both_ends_ = bytes >= kPrefetchBothEndsBytes;
    // The SWAR constants of a plain bucket's word, of semi_word()'s, or of a pair-words bucket's two words.
    if (fits_word_ || spread() || pair_words_) {
      low_bits_ = 0;
      const unsigned fields = pair_words_ ? 2 : bucket_size;
      for (unsigned s = 0; s < fields; ++s) low_bits_ |= std::uint64_t{1} << (s * fingerprint_bits);
      high_bits_ = low_bits_ << (fingerprint_bits - 1);
      // floor(n / f) == (n * ceil(2^16 / f)) >> 16 for every n <= 64 and f <= 32.
      slot_reciprocal_ = ((1u << 16) + fingerprint_bits - 1) / fingerprint_bits;
    }
    if (spread() != nullptr)
      for (unsigned s = 0; s < semi_sort::kSlots; ++s)
        low_at_[s] = ((std::uint64_t{1} << (fingerprint_bits - 4)) - 1) << (s * fingerprint_bits);
    return true;
  }

  [[nodiscard]] bool semi_sorted() const noexcept { return semi(); }

  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return num_buckets_; }
  [[nodiscard]] unsigned bucket_size() const noexcept { return bucket_size_; }
  [[nodiscard]] unsigned fingerprint_bits() const noexcept { return bits_; }
  // The packed bytes, without the tail padding.
  [[nodiscard]] std::size_t byte_length() const noexcept { return byte_length_; }
  [[nodiscard]] std::size_t allocated_bytes() const noexcept { return data_ ? byte_length_ + kTailPadding : 0; }
  [[nodiscard]] const std::uint8_t* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::uint8_t* mutable_data() noexcept { return data_.get(); }

  [[nodiscard]] std::uint32_t get(std::uint64_t bucket, unsigned slot) const noexcept {
    if (semi()) return semi_get(bucket, slot);
    return plain_get(bucket, slot);
  }

  // Replaces the fingerprint in `slot`; returns the slot it is in afterwards (the first of its copies in
  // a semi-sorted bucket, which is re-sorted; `slot` itself in a plain one, where only its bits change).
  unsigned set(std::uint64_t bucket, unsigned slot, std::uint32_t fingerprint) noexcept {
    if (semi()) return semi_set(bucket, slot, fingerprint);
    plain_set(bucket, slot, fingerprint);
    return slot;
  }

  // The bucket's four fingerprints in slot order (ascending). Precondition: semi_sorted().
  [[nodiscard]] std::array<std::uint32_t, semi_sort::kSlots> semi_sorted_bucket(std::uint64_t bucket) const noexcept {
    return semi_read(bucket);
  }
  // The 12-bit code of the bucket's high nibbles. Precondition: semi_sorted().
  [[nodiscard]] std::uint32_t semi_sorted_code(std::uint64_t bucket) const noexcept {
    return static_cast<std::uint32_t>(bits_at(data_.get(), bucket * bucket_bits_) & (semi_sort::kCodeValues - 1));
  }

  [[nodiscard]] bool contains(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    if (fits_word_) return has_field_equal(raw_bucket_word(bucket), fingerprint);
    if (semi()) return semi_contains(bucket, fingerprint);
    for (unsigned s = 0; s < bucket_size_; ++s)
      if (plain_get(bucket, s) == fingerprint) return true;
    return false;
  }

  // Both candidate buckets at once: no early exit, so there is no branch to mispredict per key.
  [[nodiscard]] bool contains_either(std::uint64_t b1, std::uint64_t b2, std::uint32_t fingerprint) const noexcept {
    // Whole-byte buckets (the common shapes) are tested first, so they cost one predictable branch.
    if (bucket_bytes_ != 0)
      return either_has_field_equal(load64(data_.get() + b1 * bucket_bytes_), load64(data_.get() + b2 * bucket_bytes_),
                                    fingerprint, low_bits_, high_bits_);
    if (fits_word_)
      return either_has_field_equal(raw_bucket_word(b1), raw_bucket_word(b2), fingerprint, low_bits_, high_bits_);
    if (pair_words_) {
      const std::uint64_t pattern = fingerprint * low_bits_;
      return (zero_field_bits(pair_low(b1) ^ pattern) | zero_field_bits(pair_high(b1) ^ pattern) |
              zero_field_bits(pair_low(b2) ^ pattern) | zero_field_bits(pair_high(b2) ^ pattern)) != 0;
    }
    if (spread()) return semi_contains_either(b1, b2, fingerprint);
    return contains(b1, fingerprint) || contains(b2, fingerprint);
  }

  // The table's word-sized operations with its shape copied into the probe, for tables whose buckets fit
  // one 64-bit load (fits_word()). A batch keeps the probe in locals (registers in wasm, where every call
  // through the table reloads its fields from memory). Byte is `const std::uint8_t` for a read-only probe.
  // The results are those of contains_either, find(bucket, 0) and set().
  template <class Byte>
  class WordProbe {
   public:
    [[nodiscard]] bool contains_either(std::uint64_t b1, std::uint64_t b2, std::uint32_t fingerprint) const noexcept {
      return either_has_field_equal(word(b1), word(b2), fingerprint, low_bits_, high_bits_);
    }

    // Stores into the first empty slot; returns that slot or -1 when the bucket is full.
    int insert_if_room(std::uint64_t bucket, std::uint32_t fingerprint) noexcept {
      const std::uint64_t empty = zero_fields(word(bucket), low_bits_, high_bits_);
      if (empty == 0) return -1;
      const unsigned slot = lowest_field(empty, slot_reciprocal_);
      store_field(data_, bucket * bucket_bits_ + slot * bits_, slot_mask_, fingerprint);
      return static_cast<int>(slot);
    }

   private:
    friend class BucketTable;
    [[nodiscard]] std::uint64_t word(std::uint64_t bucket) const noexcept {
      return bits_at(data_, bucket * bucket_bits_);
    }

    Byte* data_;
    std::uint64_t low_bits_;
    std::uint64_t high_bits_;
    std::uint64_t slot_mask_;
    unsigned bucket_bits_;
    unsigned bits_;
    unsigned slot_reciprocal_;
  };
  [[nodiscard]] bool fits_word() const noexcept { return fits_word_; }
  // Precondition: fits_word().
  [[nodiscard]] WordProbe<const std::uint8_t> word_probe() const noexcept {
    return probe<const std::uint8_t>(data_.get());
  }
  [[nodiscard]] WordProbe<std::uint8_t> word_probe() noexcept { return probe<std::uint8_t>(data_.get()); }

  // The first slot of the bucket holding `fingerprint` (0 finds an empty slot), or -1.
  [[nodiscard]] int find(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    if (fits_word_) {
      // Branch-free search: a loop that tests slot after slot branches on data that was just loaded,
      // and its mispredictions serialize the cache misses of consecutive operations.
      const std::uint64_t matches = zero_field_bits(raw_bucket_word(bucket) ^ (fingerprint * low_bits_));
      if (matches == 0) return -1;
      return static_cast<int>(lowest_field(matches, slot_reciprocal_));
    }
    if (pair_words_) {
      const std::uint64_t pattern = fingerprint * low_bits_;
      const std::uint64_t low = zero_field_bits(pair_low(bucket) ^ pattern);
      if (low != 0) return static_cast<int>(lowest_field(low, slot_reciprocal_));
      const std::uint64_t high = zero_field_bits(pair_high(bucket) ^ pattern);
      if (high != 0) return 2 + static_cast<int>(lowest_field(high, slot_reciprocal_));
      return -1;
    }
    if (semi()) return semi_find(bucket, fingerprint);
    for (unsigned s = 0; s < bucket_size_; ++s)
      if (plain_get(bucket, s) == fingerprint) return static_cast<int>(s);
    return -1;
  }

  // One bucket's part of an add-if-absent that this bucket alone decides (CuckooFilter::add_if_absent_ranges):
  // 1 when the bucket holds `fingerprint`; else the fingerprint goes into the first empty slot and the
  // answer is 0, or -1 when the bucket is full (nothing stored). One read of the bucket for both tests.
  int find_or_insert(std::uint64_t bucket, std::uint32_t fingerprint) noexcept {
    const std::uint64_t pattern = fingerprint * low_bits_;
    std::uint64_t empty = 0;
    unsigned first = 0;  // the slot of empty's lowest field
    if (fits_word_) {
      const std::uint64_t word = raw_bucket_word(bucket);
      if (zero_field_bits(word ^ pattern) != 0) return 1;
      empty = zero_field_bits(word);
    } else if (pair_words_) {
      const std::uint64_t low = pair_low(bucket);
      const std::uint64_t high = pair_high(bucket);
      if ((zero_field_bits(low ^ pattern) | zero_field_bits(high ^ pattern)) != 0) return 1;
      empty = zero_field_bits(low);
      if (empty == 0) {
        empty = zero_field_bits(high);
        first = 2;
      }
    } else {
      if (find(bucket, fingerprint) >= 0) return 1;
      return insert_if_room(bucket, fingerprint) >= 0 ? 0 : -1;
    }
    if (empty == 0) return -1;
    plain_set(bucket, first + lowest_field(empty, slot_reciprocal_), fingerprint);
    return 0;
  }

  // True when every slot of the bucket holds `fingerprint`.
  [[nodiscard]] bool all_equal(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    if (fits_word_) return bucket_word(bucket) == fingerprint * low_bits_;
    return count(bucket, fingerprint) == bucket_size_;
  }

  [[nodiscard]] CUCKOO_OUT_OF_LINE_IN_WASM unsigned count(std::uint64_t bucket,
                                                          std::uint32_t fingerprint) const noexcept {
    if (semi()) return semi_count(bucket, fingerprint);
    unsigned n = 0;
    for (unsigned s = 0; s < bucket_size_; ++s) n += plain_get(bucket, s) == fingerprint;
    return n;
  }

  // Empties one slot holding `fingerprint`; false (nothing changed) when the bucket holds none.
  bool remove_one(std::uint64_t bucket, std::uint32_t fingerprint) noexcept {
    if (semi()) return semi_remove_one(bucket, fingerprint);
    const int slot = find(bucket, fingerprint);
    if (slot < 0) return false;
    plain_set(bucket, static_cast<unsigned>(slot), 0);
    return true;
  }

  // Stores into an empty slot; returns the slot the fingerprint is in afterwards, or -1 when the bucket
  // is full.
  int insert_if_room(std::uint64_t bucket, std::uint32_t fingerprint) noexcept {
    if (semi()) return semi_insert_if_room(bucket, fingerprint);
    const int slot = find(bucket, 0);
    if (slot >= 0) set(bucket, static_cast<unsigned>(slot), fingerprint);
    return slot;
  }

  // Starts loading a bucket that will be used soon: its first byte, and in a large table also the last
  // byte its reads touch, which can be in the next cache line (a 6- or 12-byte bucket, or a word load
  // running past a line's end).
  // WebAssembly has no prefetch instruction (the builtin compiles to nothing), so there these are real
  // one-byte loads, which only happen if the caller folds their value into a result it keeps (as the
  // batches do: the loads of a group are independent, so their cache misses overlap). A caller that
  // discards the value gets a hint natively and nothing in wasm.
  [[nodiscard]] std::uint8_t prefetch(std::uint64_t bucket) const noexcept {
    const std::uint64_t first = bucket * bucket_bits_ / 8;
#if defined(__wasm__)
    const std::uint8_t touched = data_[first];
    if (!prefetch_both_ends_) return touched;
    return touched ^ data_[first + touch_span_];
#elif defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(data_.get() + first);
    if (prefetch_both_ends_) __builtin_prefetch(data_.get() + first + touch_span_);
    return 0;
#else
    (void)first;
    return 0;
#endif
  }

  void clear() noexcept {
    if (data_) std::memset(data_.get(), 0, byte_length_);
  }

  [[nodiscard]] std::uint64_t count_occupied() const noexcept {
    std::uint64_t n = 0;
    for (std::uint64_t b = 0; b < num_buckets_; ++b)
      for (unsigned s = 0; s < bucket_size_; ++s) n += get(b, s) != 0;
    return n;
  }

  // The first bucket that is not as this table writes buckets (a semi-sorted bucket with a code that is
  // none, or fingerprints out of order), or num_buckets() when there is none: bytes read from an export
  // are checked with it before anything else reads them. Plain buckets are always as written.
  [[nodiscard]] CUCKOO_COLD std::uint64_t first_noncanonical_bucket() const noexcept {
    if (!semi()) return num_buckets_;
    for (std::uint64_t b = 0; b < num_buckets_; ++b)
      if (!semi_sort::canonical_bucket(data_.get(), b * bucket_bits_, bits_)) return b;
    return num_buckets_;
  }

 private:
  template <class Byte>
  [[nodiscard]] WordProbe<Byte> probe(Byte* data) const noexcept {
    WordProbe<Byte> p;
    p.data_ = data;
    p.low_bits_ = low_bits_;
    p.high_bits_ = high_bits_;
    p.slot_mask_ = slot_mask_;
    p.bucket_bits_ = bucket_bits_;
    p.bits_ = bits_;
    p.slot_reciprocal_ = slot_reciprocal_;
    return p;
  }

  // The bucket's slots in the low bucket_bits_ bits, and nothing above them.
  [[nodiscard]] std::uint64_t bucket_word(std::uint64_t bucket) const noexcept {
    return raw_bucket_word(bucket) & bucket_mask_;
  }
  // The bucket's slots in the low bucket_bits_ bits; the bits above may hold the next bucket's slots.
  // The SWAR tests below may use it unmasked: they only look at this bucket's fields, and a subtraction's
  // borrows only travel upwards, so bits above the top field cannot change a field's result.
  [[nodiscard]] std::uint64_t raw_bucket_word(std::uint64_t bucket) const noexcept {
    // Buckets of whole bytes (b = 4 with even f, b = 8) start on a byte: no shift needed.
    if (bucket_bytes_ != 0) return load64(data_.get() + bucket * bucket_bytes_);
    return bits_at(data_.get(), bucket * bucket_bits_);
  }

  // Slot `slot` of a plain bucket, and its write (only that slot's bits change).
  [[nodiscard]] std::uint32_t plain_get(std::uint64_t bucket, unsigned slot) const noexcept {
    return static_cast<std::uint32_t>(bits_at(data_.get(), plain_slot_bit(bucket, slot)) & slot_mask_);
  }
  void plain_set(std::uint64_t bucket, unsigned slot, std::uint32_t fingerprint) noexcept {
    store_field(data_.get(), plain_slot_bit(bucket, slot), slot_mask_, fingerprint);
  }
  [[nodiscard]] std::uint64_t plain_slot_bit(std::uint64_t bucket, unsigned slot) const noexcept {
    return (bucket * bucket_size_ + slot) * bits_;
  }

  // --- semi-sorted buckets (out of line in wasm: one copy in the module, not one per caller) ----------
  using SemiBucket = std::array<std::uint32_t, semi_sort::kSlots>;

  [[nodiscard]] CUCKOO_OUT_OF_LINE_IN_WASM std::uint32_t semi_get(std::uint64_t bucket, unsigned slot) const noexcept {
    return semi_read(bucket)[slot];
  }
  [[nodiscard]] CUCKOO_OUT_OF_LINE_IN_WASM SemiBucket semi_read(std::uint64_t bucket) const noexcept {
    return semi_sort::read_bucket(data_.get(), bucket * bucket_bits_, bits_);
  }
  // Writes the bucket and returns the slot `fingerprint` (one of b's) is in now: the first of its copies.
  CUCKOO_OUT_OF_LINE_IN_WASM unsigned semi_write_and_locate(std::uint64_t bucket, SemiBucket b,
                                                            std::uint32_t fingerprint) noexcept {
    semi_sort::sort4(b);
    semi_sort::write_sorted_bucket(data_.get(), bucket * bucket_bits_, b, bits_);
    return static_cast<unsigned>(std::find(b.begin(), b.end(), fingerprint) - b.begin());
  }
  CUCKOO_OUT_OF_LINE_IN_WASM unsigned semi_set(std::uint64_t bucket, unsigned slot,
                                               std::uint32_t fingerprint) noexcept {
    SemiBucket b = semi_read(bucket);
    b[slot] = fingerprint;
    return semi_write_and_locate(bucket, b, fingerprint);
  }
  CUCKOO_OUT_OF_LINE_IN_WASM int semi_insert_if_room(std::uint64_t bucket, std::uint32_t fingerprint) noexcept {
    // A full bucket is told from its first field alone: the smallest fingerprint is not 0 (its nibble, the
    // code's first, or its low bits are not).
    const std::uint64_t raw = bits_at(data_.get(), bucket * bucket_bits_);
    if ((semi_sort::nibble_table()[raw & (semi_sort::kCodeValues - 1)] & 0xFu) != 0 ||
        ((raw >> semi_sort::kCodeBits) & slot_mask_ >> 4) != 0)
      return -1;
    SemiBucket b = semi_read(bucket);
    if (b[0] != 0) return -1;  // ascending: an empty slot, if any, is first
    b[0] = fingerprint;
    return static_cast<int>(semi_write_and_locate(bucket, b, fingerprint));
  }
  // One decode for the search and the write (find() then set() would decode twice).
  CUCKOO_OUT_OF_LINE_IN_WASM bool semi_remove_one(std::uint64_t bucket, std::uint32_t fingerprint) noexcept {
    SemiBucket b = semi_read(bucket);
    auto* at = std::find(b.begin(), b.end(), fingerprint);
    if (at == b.end()) return false;
    *at = 0;
    semi_sort::sort4(b);
    semi_sort::write_sorted_bucket(data_.get(), bucket * bucket_bits_, b, bits_);
    return true;
  }
  [[nodiscard]] CUCKOO_OUT_OF_LINE_IN_WASM int semi_find(std::uint64_t bucket,
                                                         std::uint32_t fingerprint) const noexcept {
    const SemiBucket b = semi_read(bucket);
    for (unsigned s = 0; s < semi_sort::kSlots; ++s)
      if (b[s] == fingerprint) return static_cast<int>(s);
    return -1;
  }
  [[nodiscard]] CUCKOO_OUT_OF_LINE_IN_WASM unsigned semi_count(std::uint64_t bucket,
                                                               std::uint32_t fingerprint) const noexcept {
    unsigned n = 0;
    for (const std::uint32_t fp : semi_read(bucket)) n += fp == fingerprint;
    return n;
  }
  [[nodiscard]] CUCKOO_OUT_OF_LINE_IN_WASM bool semi_contains(std::uint64_t bucket,
                                                              std::uint32_t fingerprint) const noexcept {
    if (spread()) return has_field_equal(semi_word(bucket), fingerprint);
    return semi_find(bucket, fingerprint) >= 0;
  }
  [[nodiscard]] CUCKOO_OUT_OF_LINE_IN_WASM bool semi_contains_either(std::uint64_t b1, std::uint64_t b2,
                                                                     std::uint32_t fingerprint) const noexcept {
    return either_has_field_equal(semi_word(b1), semi_word(b2), fingerprint, low_bits_, high_bits_);
  }

  // The semi-sorted bucket rewritten as a plain bucket's word, slot s in bits [s f, s f + f), so that
  // the plain table's SWAR tests apply. Low field s moves from bit 12 + s (f - 4) to bit s f: right by
  // 12 - 4s, a constant; the four high nibbles come from spread_[code] (semi_sort::spread_table).
  [[nodiscard]] std::uint64_t semi_word(std::uint64_t bucket) const noexcept {
    const std::uint64_t raw = bits_at(data_.get(), bucket * bucket_bits_);
    return spread_[raw & (semi_sort::kCodeValues - 1)] | ((raw >> 12) & low_at_[0]) | ((raw >> 8) & low_at_[1]) |
           ((raw >> 4) & low_at_[2]) | (raw & low_at_[3]);
  }

  // Slots 0-1 and slots 2-3 of a pair-words bucket, each in the low bits of a word (neighbours above).
  [[nodiscard]] std::uint64_t pair_low(std::uint64_t bucket) const noexcept {
    return bits_at(data_.get(), bucket * bucket_bits_);
  }
  [[nodiscard]] std::uint64_t pair_high(std::uint64_t bucket) const noexcept {
    return bits_at(data_.get(), bucket * bucket_bits_ + 2 * bits_);
  }

  // The one-word form of either_has_field_equal.
  [[nodiscard]] bool has_field_equal(std::uint64_t word, std::uint32_t fingerprint) const noexcept {
    return zero_field_bits(word ^ (fingerprint * low_bits_)) != 0;
  }

  [[nodiscard]] std::uint64_t zero_field_bits(std::uint64_t x) const noexcept {
    return zero_fields(x, low_bits_, high_bits_);
  }

  TableMemory data_;
  std::uint64_t num_buckets_ = 0;
  std::size_t byte_length_ = 0;
  std::uint64_t slot_mask_ = 0;
  std::uint64_t bucket_mask_ = 0;
  std::uint64_t low_bits_ = 0;   // bit 0 of each field
  std::uint64_t high_bits_ = 0;  // top bit of each field
  unsigned bucket_size_ = 0;
  unsigned bits_ = 0;
  unsigned bucket_bits_ = 0;
  unsigned slot_reciprocal_ = 0;
  unsigned bucket_bytes_ = 0;        // bytes per bucket when that is whole and fits a load, else 0
  bool fits_word_ = false;           // a plain table whose buckets fit one 64-bit load
  bool pair_words_ = false;          // a plain table of 4-slot buckets tested as two words (see allocate)
  unsigned touch_span_ = 0;          // the last byte a read of a bucket touches, from its first (see allocate)
  bool prefetch_both_ends_ = false;  // prefetch() touches the bucket's last byte too (see allocate)
  // Whether the buckets are semi-sorted, and their decoding table: constants in a build without them
  // (detail/edition.hpp), so that the semi-sorted code is left out.
  [[nodiscard]] bool semi() const noexcept { return !detail::kSizedOnly && semi_sorted_; }
  [[nodiscard]] const std::uint64_t* spread() const noexcept { return detail::kSizedOnly ? nullptr : spread_; }
  bool semi_sorted_ = false;
  // Semi-sorted tables with word lookups: the shared table of the four nibbles of each code placed as in
  // a plain word (semi_sort::spread_table), and where each low field goes in it. Null otherwise.
  const std::uint64_t* spread_ = nullptr;
  std::uint64_t low_at_[semi_sort::kSlots] = {};
};

}  // namespace detail
}  // namespace v1
}  // namespace cuckoo
