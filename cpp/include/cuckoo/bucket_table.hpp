// The packed slot table. It only stores and finds fingerprints; which buckets a key uses and the kick-out
// walk belong to the filter.
//
// Layout (this is also the table part of the export format): slot j of bucket i holds f bits starting at
// bit (i*b + j)*f of a little-endian bit stream, i.e. bit k of the stream is bit (k % 8) of byte k / 8.
// There is no padding between slots or buckets. A slot value of 0 means "empty".
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <utility>

#include "detail/bits.hpp"

namespace cuckoo {
inline namespace v1 {
namespace detail {

static_assert(kLittleEndian, "the table is read with native 64-bit loads and must be little-endian");

// The arithmetic on the packed bit stream, shared by BucketTable and its WordProbe.

// The 64 bits of the stream from bit `bit` on (bits past a slot or bucket belong to its neighbours).
[[nodiscard]] inline std::uint64_t bits_at(const std::uint8_t* data, std::uint64_t bit) noexcept {
  return load64(data + bit / 8) >> (bit % 8);
}

// Replaces the field of the stream at bit `bit` (width given by `field_mask`); the neighbours sharing the
// 64-bit word are rewritten with their own bits.
inline void store_field(std::uint8_t* data, std::uint64_t bit, std::uint64_t field_mask, std::uint32_t value) noexcept {
  std::uint8_t* p = data + bit / 8;
  const unsigned shift = static_cast<unsigned>(bit % 8);
  store64(p, (load64(p) & ~(field_mask << shift)) | (static_cast<std::uint64_t>(value) << shift));
}

// Frees what calloc and malloc gave.
struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

// A packed table's bytes: `bytes` zeroed bytes and `padding` more after them; null when they cannot be had.
[[nodiscard]] inline std::unique_ptr<std::uint8_t[], FreeDeleter> allocate_packed(std::uint64_t bytes,
                                                                                std::size_t padding) noexcept {
  if (bytes > SIZE_MAX - padding) return nullptr;
  return std::unique_ptr<std::uint8_t[], FreeDeleter>(
      static_cast<std::uint8_t*>(std::calloc(static_cast<std::size_t>(bytes) + padding, 1)));
}

class BucketTable {
 public:
  // Bytes after the packed data so that a 64-bit load at any slot's first byte stays in bounds.
  static constexpr std::size_t kTailPadding = 8;

  BucketTable() = default;
  BucketTable(BucketTable&&) noexcept = default;
  BucketTable& operator=(BucketTable&&) noexcept = default;

  // Returns false if the memory cannot be had; the table is then left empty.
  [[nodiscard]] bool allocate(std::uint64_t num_buckets, unsigned bucket_size,
                              unsigned fingerprint_bits) noexcept {
    const std::uint64_t bits = num_buckets * bucket_size * fingerprint_bits;
    const std::uint64_t bytes = (bits + 7) / 8;
    auto memory = allocate_packed(bytes, kTailPadding);
    if (!memory) return false;
    data_ = std::move(memory);
    num_buckets_ = num_buckets;
    bucket_size_ = bucket_size;
    bits_ = fingerprint_bits;
    byte_length_ = static_cast<std::size_t>(bytes);
    bucket_bits_ = bucket_size * fingerprint_bits;
    slot_mask_ = (std::uint64_t{1} << fingerprint_bits) - 1;
    // A bucket fits one 64-bit load when its bits plus the largest possible bit offset inside the first
    // byte fit. Bucket starts are multiples of gcd(bucket_bits, 8) bits, so that offset is at most
    // 8 - gcd(bucket_bits, 8).
    fits_word_ = bucket_bits_ + (8 - std::gcd(bucket_bits_, 8u)) <= 64;
    bucket_bytes_ = fits_word_ && bucket_bits_ % 8 == 0 ? bucket_bits_ / 8 : 0;
    if (fits_word_) {
      bucket_mask_ = bucket_bits_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bucket_bits_) - 1;
      low_bits_ = 0;
      for (unsigned s = 0; s < bucket_size; ++s) low_bits_ |= std::uint64_t{1} << (s * fingerprint_bits);
      high_bits_ = low_bits_ << (fingerprint_bits - 1);
      // floor(n / f) == (n * ceil(2^16 / f)) >> 16 for every n <= 64 and f <= 32.
      slot_reciprocal_ = ((1u << 16) + fingerprint_bits - 1) / fingerprint_bits;
    }
    return true;
  }

  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return num_buckets_; }
  [[nodiscard]] unsigned bucket_size() const noexcept { return bucket_size_; }
  [[nodiscard]] unsigned fingerprint_bits() const noexcept { return bits_; }
  // The packed bytes, without the tail padding.
  [[nodiscard]] std::size_t byte_length() const noexcept { return byte_length_; }
  [[nodiscard]] std::size_t allocated_bytes() const noexcept {
    return data_ ? byte_length_ + kTailPadding : 0;
  }
  [[nodiscard]] const std::uint8_t* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::uint8_t* mutable_data() noexcept { return data_.get(); }

  [[nodiscard]] std::uint32_t get(std::uint64_t bucket, unsigned slot) const noexcept {
    const std::uint64_t bit = (bucket * bucket_size_ + slot) * bits_;
    return static_cast<std::uint32_t>(bits_at(data_.get(), bit) & slot_mask_);
  }

  // Only this slot's bits change.
  void set(std::uint64_t bucket, unsigned slot, std::uint32_t fingerprint) noexcept {
    store_field(data_.get(), (bucket * bucket_size_ + slot) * bits_, slot_mask_, fingerprint);
  }

  [[nodiscard]] bool contains(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    if (fits_word_) return has_field_equal(raw_bucket_word(bucket), fingerprint);
    for (unsigned s = 0; s < bucket_size_; ++s)
      if (get(bucket, s) == fingerprint) return true;
    return false;
  }

  // Both candidate buckets at once: no early exit, so there is no branch to mispredict per key.
  [[nodiscard]] bool contains_either(std::uint64_t b1, std::uint64_t b2,
                                     std::uint32_t fingerprint) const noexcept {
    // Whole-byte buckets (the common shapes) are tested first, so they cost one predictable branch.
    if (bucket_bytes_ != 0)
      return either_has_field_equal(load64(data_.get() + b1 * bucket_bytes_), load64(data_.get() + b2 * bucket_bytes_),
                                    fingerprint, low_bits_, high_bits_);
    if (fits_word_)
      return either_has_field_equal(raw_bucket_word(b1), raw_bucket_word(b2), fingerprint, low_bits_, high_bits_);
    return contains(b1, fingerprint) || contains(b2, fingerprint);
  }

  // The table's word-sized operations with its shape copied into the probe, for tables whose buckets fit
  // one 64-bit load (fits_word()). A batch keeps the probe in locals (registers in wasm, where every call
  // through the table reloads its fields from memory). Byte is `const std::uint8_t` for a read-only probe.
  // The results are those of contains_either, find(bucket, 0) and set().
  template <class Byte>
  class WordProbe {
   public:
    [[nodiscard]] bool contains_either(std::uint64_t b1, std::uint64_t b2,
                                       std::uint32_t fingerprint) const noexcept {
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
    [[nodiscard]] std::uint64_t word(std::uint64_t bucket) const noexcept { return bits_at(data_, bucket * bucket_bits_); }

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
    for (unsigned s = 0; s < bucket_size_; ++s)
      if (get(bucket, s) == fingerprint) return static_cast<int>(s);
    return -1;
  }

  // True when every slot of the bucket holds `fingerprint`.
  [[nodiscard]] bool all_equal(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    if (fits_word_) return bucket_word(bucket) == fingerprint * low_bits_;
    return count(bucket, fingerprint) == bucket_size_;
  }

  [[nodiscard]] unsigned count(std::uint64_t bucket, std::uint32_t fingerprint) const noexcept {
    unsigned n = 0;
    for (unsigned s = 0; s < bucket_size_; ++s) n += get(bucket, s) == fingerprint;
    return n;
  }

  // Stores into the first empty slot; returns that slot or -1 when the bucket is full.
  int insert_if_room(std::uint64_t bucket, std::uint32_t fingerprint) noexcept {
    const int slot = find(bucket, 0);
    if (slot >= 0) set(bucket, static_cast<unsigned>(slot), fingerprint);
    return slot;
  }

  // Starts loading a bucket that will be used soon. WebAssembly has no prefetch instruction (the builtin
  // compiles to nothing), so there it is a real one-byte load, which only happens if the caller folds its
  // value into a result it keeps (as the batches do: the loads of a group are independent, so their cache
  // misses overlap). A caller that discards the value gets a hint natively and nothing in wasm.
  [[nodiscard]] std::uint8_t prefetch(std::uint64_t bucket) const noexcept {
#if defined(__wasm__)
    return data_[bucket * bucket_bits_ / 8];
#elif defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(data_.get() + bucket * bucket_bits_ / 8);
    return 0;
#else
    (void)bucket;
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

  // The one-word form of either_has_field_equal.
  [[nodiscard]] bool has_field_equal(std::uint64_t word, std::uint32_t fingerprint) const noexcept {
    return zero_field_bits(word ^ (fingerprint * low_bits_)) != 0;
  }

  [[nodiscard]] std::uint64_t zero_field_bits(std::uint64_t x) const noexcept { return zero_fields(x, low_bits_, high_bits_); }

  std::unique_ptr<std::uint8_t[], FreeDeleter> data_;
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
  unsigned bucket_bytes_ = 0;  // bytes per bucket when that is whole and fits a load, else 0
  bool fits_word_ = false;
};

}  // namespace detail
}  // namespace v1
}  // namespace cuckoo
