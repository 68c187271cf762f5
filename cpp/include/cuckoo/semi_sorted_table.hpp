// A table of semi-sorted buckets (detail/semi_sort.hpp): four slots and 4f - 4 bits a bucket, bucket i
// at bit i * (4f - 4) of a little-endian bit stream with no padding (as BucketTable's layout, one bit less
// per slot). It offers BucketTable's slot operations, with one difference a caller must know: a bucket
// keeps its fingerprints in ascending order, so writing a slot re-sorts the bucket and a fingerprint's
// slot is its rank there, which other writes to the bucket can change. What a bucket holds is a multiset,
// and its bits are a function of that multiset alone: undoing a write by value restores the bits exactly.
//
// Work in progress (issue "Semi-sorted buckets"): not yet used by the filter, the format or the package.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <utility>

#include "bucket_table.hpp"
#include "detail/semi_sort.hpp"

namespace cuckoo {
inline namespace v1 {
namespace detail {

class SemiSortedTable {
 public:
  static constexpr unsigned kBucketSize = semi_sort::kSlots;
  using Bucket = std::array<std::uint32_t, kBucketSize>;

  // Returns false if the memory cannot be had (the table is then unchanged). 5 <= fingerprint_bits <= 32.
  [[nodiscard]] bool allocate(std::uint64_t num_buckets, unsigned fingerprint_bits) noexcept {
    const unsigned bucket_bits = semi_sort::bucket_bits(fingerprint_bits);
    if (num_buckets > (UINT64_MAX - 7) / bucket_bits) return false;
    const std::uint64_t bytes = (num_buckets * bucket_bits + 7) / 8;
    auto memory = allocate_packed(bytes, BucketTable::kTailPadding);
    if (!memory) return false;
    data_ = std::move(memory);
    bucket_bits_ = bucket_bits;
    num_buckets_ = num_buckets;
    bits_ = fingerprint_bits;
    byte_length_ = static_cast<std::size_t>(bytes);
    make_word_lookup();
    return true;
  }

  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return num_buckets_; }
  [[nodiscard]] static constexpr unsigned bucket_size() noexcept { return kBucketSize; }
  [[nodiscard]] unsigned fingerprint_bits() const noexcept { return bits_; }
  [[nodiscard]] std::size_t byte_length() const noexcept { return byte_length_; }
  [[nodiscard]] const std::uint8_t* data() const noexcept { return data_.get(); }

  // The bucket's fingerprints, ascending (empty slots, 0, first).
  [[nodiscard]] Bucket read(std::uint64_t bucket) const noexcept {
    return semi_sort::read_bucket(data_.get(), bucket * bucket_bits_, bits_);
  }
  void write(std::uint64_t bucket, const Bucket& fingerprints) noexcept {
    semi_sort::write_bucket(data_.get(), bucket * bucket_bits_, fingerprints, bits_);
  }

  [[nodiscard]] std::uint32_t get(std::uint64_t bucket, unsigned slot) const noexcept { return read(bucket)[slot]; }

  // Replaces the fingerprint in `slot` and re-sorts the bucket; returns the slot the new one is in now
  // (the first of its copies).
  unsigned set(std::uint64_t bucket, unsigned slot, std::uint32_t fingerprint) noexcept {
    Bucket b = read(bucket);
    b[slot] = fingerprint;
    return write_and_locate(bucket, b, fingerprint);
  }

  // The first slot holding `fingerprint` (0 finds an empty slot), or -1.
  [[nodiscard]] int find(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    const Bucket b = read(bucket);
    for (unsigned s = 0; s < kBucketSize; ++s)
      if (b[s] == fingerprint) return static_cast<int>(s);
    return -1;
  }

  [[nodiscard]] bool contains(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    if (spread_) return zero_fields(plain_word(bucket) ^ (fingerprint * plain_low_), plain_low_, plain_high_) != 0;
    return find(bucket, fingerprint) >= 0;
  }
  [[nodiscard]] bool contains_either(std::uint64_t b1, std::uint64_t b2, std::uint32_t fingerprint) const noexcept {
    if (spread_)  // both buckets, no early exit: no branch on the data
      return either_has_field_equal(plain_word(b1), plain_word(b2), fingerprint, plain_low_, plain_high_);
    return contains(b1, fingerprint) || contains(b2, fingerprint);
  }

  [[nodiscard]] unsigned count(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    unsigned n = 0;
    for (const std::uint32_t fp : read(bucket)) n += fp == fingerprint;
    return n;
  }
  [[nodiscard]] bool all_equal(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    return count(bucket, fingerprint) == kBucketSize;
  }

  // Stores into an empty slot; returns the slot the fingerprint is in after re-sorting, or -1 when the
  // bucket is full.
  int insert_if_room(std::uint64_t bucket, std::uint32_t fingerprint) noexcept {
    Bucket b = read(bucket);
    if (b[0] != 0) return -1;  // ascending: an empty slot, if any, is first
    b[0] = fingerprint;
    return static_cast<int>(write_and_locate(bucket, b, fingerprint));
  }

  // Removes one copy of `old_fingerprint` and stores `new_fingerprint` in its place: the undo of a
  // kick-out step, by value, since slots move. Returns false (nothing changed) when there is no copy.
  bool replace(std::uint64_t bucket, std::uint32_t old_fingerprint, std::uint32_t new_fingerprint) noexcept {
    const int slot = find(bucket, old_fingerprint);
    if (slot < 0) return false;
    (void)set(bucket, static_cast<unsigned>(slot), new_fingerprint);
    return true;
  }

  void clear() noexcept {
    if (data_) std::memset(data_.get(), 0, byte_length_);
  }

  [[nodiscard]] std::uint64_t count_occupied() const noexcept {
    std::uint64_t n = 0;
    for (std::uint64_t b = 0; b < num_buckets_; ++b)
      for (const std::uint32_t fp : read(b)) n += fp != 0;
    return n;
  }

 private:
  // Writes the bucket and returns the slot `fingerprint` (one of b's) is in now: the first of its copies.
  unsigned write_and_locate(std::uint64_t bucket, Bucket b, std::uint32_t fingerprint) noexcept {
    write(bucket, b);
    std::sort(b.begin(), b.end());  // as write() stored them
    return static_cast<unsigned>(std::find(b.begin(), b.end(), fingerprint) - b.begin());
  }

  // Lookups without sorting, for f <= 16 (a bucket fits one 64-bit load, and four fingerprints a word):
  // the bucket rewritten as BucketTable's word, slot s in bits [s f, s f + f), so the plain
  // table's SWAR test applies. Low field s moves from bit 12 + s (f - 4) to bit s f: right by 12 - 4s, a
  // constant; the four high nibbles come from spread_[code], the code's nibbles already at bits
  // s f + f - 4 (3,876 words for this f, made at allocate()).
  // Without the memory for it, lookups decode instead.
  void make_word_lookup() noexcept {
    spread_.reset();
    const unsigned f = bits_;
    const unsigned bucket_bits = semi_sort::bucket_bits(f);
    if (kBucketSize * f > 64 || bucket_bits + (8 - std::gcd(bucket_bits, 8u)) > 64) return;  // f = 17 passes the second
    spread_.reset(static_cast<std::uint64_t*>(std::malloc(semi_sort::kNibbleTuples * sizeof(std::uint64_t))));
    if (!spread_) return;
    const auto& nibbles = semi_sort::nibble_table();
    for (std::uint32_t code = 0; code < semi_sort::kNibbleTuples; ++code) {
      std::uint64_t w = 0;
      for (unsigned s = 0; s < kBucketSize; ++s) w |= std::uint64_t{(nibbles[code] >> (4u * s)) & 0xFu} << (s * f + f - 4);
      spread_[code] = w;
    }
    plain_low_ = 0;
    for (unsigned s = 0; s < kBucketSize; ++s) plain_low_ |= std::uint64_t{1} << (s * f);
    plain_high_ = plain_low_ << (f - 1);
    for (unsigned s = 0; s < kBucketSize; ++s) low_at_[s] = ((std::uint64_t{1} << (f - 4)) - 1) << (s * f);
  }
  [[nodiscard]] std::uint64_t plain_word(std::uint64_t bucket) const noexcept {
    const std::uint64_t raw = bits_at(data_.get(), bucket * bucket_bits_);
    return spread_[raw & ((1u << semi_sort::kCodeBits) - 1)] | ((raw >> 12) & low_at_[0]) | ((raw >> 8) & low_at_[1]) |
           ((raw >> 4) & low_at_[2]) | (raw & low_at_[3]);
  }

  std::unique_ptr<std::uint8_t[], FreeDeleter> data_;
  std::uint64_t num_buckets_ = 0;
  std::size_t byte_length_ = 0;
  unsigned bits_ = 0;
  unsigned bucket_bits_ = 0;
  std::unique_ptr<std::uint64_t[], FreeDeleter> spread_;  // null: no word lookups (f > 16)
  std::uint64_t plain_low_ = 0;        // bit 0 of each f-bit field of a plain word
  std::uint64_t plain_high_ = 0;       // the top bit of each
  std::uint64_t low_at_[kBucketSize] = {};  // where each low field goes in a plain word
};

}  // namespace detail
}  // namespace v1
}  // namespace cuckoo
