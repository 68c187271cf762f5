// Semi-sorting (Fan et al., CoNEXT 2014, section 5.2), the encoding only: the order of a bucket's four
// fingerprints carries no information, so a bucket can keep them sorted and store the sorted 4-tuple of
// their high nibbles, one of C(19, 4) = 3,876 multisets of four values 0..15, as a 12-bit code instead of
// 16 bits: one bit saved per fingerprint. A bucket of four f-bit fingerprints then takes 4f - 4 bits: the
// code, then the low f - 4 bits of each fingerprint in sorted order.
//
// The encoding is canonical: every order of the same four fingerprints gives the same bits, and four
// empty slots (fingerprint 0) give all zeros, so a zeroed table is an empty one. BucketTable stores
// semi-sorted buckets when a filter is made with the semi_sorted option.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "bits.hpp"
#include "compiler.hpp"

namespace cuckoo {
inline namespace v1 {
namespace detail::semi_sort {

inline constexpr unsigned kSlots = 4;
inline constexpr unsigned kNibbleTuples = 3876;  // C(16 + 4 - 1, 4)
inline constexpr unsigned kCodeBits = 12;        // 3,876 <= 4,096
inline constexpr unsigned kCodeValues = 1u << kCodeBits;
inline constexpr unsigned kMinFingerprintBits = 5;
inline constexpr unsigned kMaxFingerprintBits = 32;

// The bits a semi-sorted bucket of four f-bit fingerprints takes.
[[nodiscard]] constexpr unsigned bucket_bits(unsigned fingerprint_bits) noexcept {
  return kCodeBits + kSlots * (fingerprint_bits - 4);
}

// The code of four nibbles n0 <= n1 <= n2 <= n3: with c_i = n_i + i, a strictly increasing 4-subset of
// 0..18, its rank in the combinatorial number system, C(c0, 1) + C(c1, 2) + C(c2, 3) + C(c3, 4), which
// maps the 3,876 subsets one to one onto 0..3,875 (and 0, 0, 0, 0 onto 0). Each term in closed form,
// C(n + i, i + 1) = n (n + 1) ... (n + i) / (i + 1)!: no table to ship, and divisions by constants (exact,
// the products are multiples of them), which compile to multiplies.
[[nodiscard]] constexpr std::uint32_t encode_nibbles(const std::array<std::uint32_t, kSlots>& sorted) noexcept {
  const std::uint32_t a = sorted[0], b = sorted[1], c = sorted[2], d = sorted[3];
  return a + b * (b + 1) / 2 + c * (c + 1) * (c + 2) / 6 + d * (d + 1) * (d + 2) * (d + 3) / 24;
}

// Fills the table of nibble_table(). Not constexpr on purpose: a constant initializer would be evaluated
// by the compiler and shipped as 8 KB of data in the wasm module.
CUCKOO_COLD inline void fill_nibble_table(std::array<std::uint16_t, kCodeValues>& t) noexcept {
  t.fill(0);
  for (std::uint32_t a = 0; a < 16; ++a)
    for (std::uint32_t b = a; b < 16; ++b)
      for (std::uint32_t c = b; c < 16; ++c)
        for (std::uint32_t d = c; d < 16; ++d)
          t[encode_nibbles({a, b, c, d})] = static_cast<std::uint16_t>(a | b << 4 | c << 8 | d << 12);
}

// The four sorted nibbles of every code, packed as n0 | n1 << 4 | n2 << 8 | n3 << 12; computed on first
// use (8 KB), not shipped as data. The 220 values of 12 bits that are no code map to 0, so that no bits
// can index past the table (a table read from an export is checked for them: canonical_bucket).
[[nodiscard]] inline const std::array<std::uint16_t, kCodeValues>& nibble_table() noexcept {
  static std::array<std::uint16_t, kCodeValues> table;
  static const bool filled = (fill_nibble_table(table), true);
  (void)filled;
  return table;
}

// Lookups without sorting are possible where four fingerprints fit a 64-bit word (f <= 16) and a bucket
// one 64-bit load (f = 17 does not).
[[nodiscard]] constexpr bool word_lookups_possible(unsigned f) noexcept {
  const unsigned bits = bucket_bits(f);
  return kSlots * f <= 64 && bits + (8 - std::gcd(bits, 8u)) <= 64;
}
inline constexpr unsigned kMaxWordLookupBits = 16;
static_assert(word_lookups_possible(kMaxWordLookupBits) && !word_lookups_possible(kMaxWordLookupBits + 1));

// The nibbles of every code placed as in a plain bucket's word of f-bit fields (nibble s at bit
// s f + f - 4): kCodeValues words, or null when the memory cannot be had.
CUCKOO_COLD inline std::uint64_t* make_spread_table(unsigned f) noexcept {
  auto* t = static_cast<std::uint64_t*>(std::malloc(kCodeValues * sizeof(std::uint64_t)));
  if (t == nullptr) return nullptr;
  const auto& nibbles = nibble_table();
  for (std::uint32_t code = 0; code < kCodeValues; ++code) {
    std::uint64_t w = 0;
    for (unsigned s = 0; s < kSlots; ++s) w |= std::uint64_t{(nibbles[code] >> (4u * s)) & 0xFu} << (s * f + f - 4);
    t[code] = w;
  }
  return t;
}
template <unsigned F>
[[nodiscard]] const std::uint64_t* spread_table_of() noexcept {
  static const std::uint64_t* const table = make_spread_table(F);  // thread-safe first use; kept for the process
  return table;
}
template <std::size_t... I>
[[nodiscard]] const std::uint64_t* spread_table_at(unsigned f, std::index_sequence<I...>) noexcept {
  using Maker = const std::uint64_t* (*)() noexcept;
  static constexpr Maker makers[] = {&spread_table_of<kMinFingerprintBits + I>...};
  return makers[f - kMinFingerprintBits]();
}
// The table for f-bit fingerprints (32 KB), made on first use and shared by every table of that width;
// null where word lookups are not possible or the memory could not be had (lookups then decode).
[[nodiscard]] inline const std::uint64_t* spread_table(unsigned f) noexcept {
  if (f < kMinFingerprintBits || f > kMaxWordLookupBits) return nullptr;
  return spread_table_at(f, std::make_index_sequence<kMaxWordLookupBits - kMinFingerprintBits + 1>{});
}

// Sorts four values ascending: five compare-exchanges (a sorting network), smaller and faster than
// std::sort for four.
inline void sort4(std::array<std::uint32_t, kSlots>& v) noexcept {
  const auto exchange = [&](unsigned i, unsigned j) {
    const std::uint32_t lo = std::min(v[i], v[j]), hi = std::max(v[i], v[j]);
    v[i] = lo;
    v[j] = hi;
  };
  exchange(0, 1);
  exchange(2, 3);
  exchange(0, 2);
  exchange(1, 3);
  exchange(1, 2);
}

// Where a bucket's fields lie, from its first bit: the code, then the low f - 4 bits of each fingerprint
// in ascending order of the fingerprints.
[[nodiscard]] constexpr unsigned low_field_at(unsigned slot, unsigned fingerprint_bits) noexcept {
  return kCodeBits + slot * (fingerprint_bits - 4);
}

// Writes four f-bit fingerprints (5 <= f <= 32; 0 is an empty slot), in any order, as the bucket that
// starts at bit `bit` of a little-endian bit stream (the packed table's convention: bit k is bit k % 8 of
// byte k / 8). Only the bucket's 4f - 4 bits change; 8 bytes past the field holding its last bit must be
// addressable (the tables' tail padding).
// write_bucket for fingerprints already in ascending order.
inline void write_sorted_bucket(std::uint8_t* data, std::uint64_t bit, const std::array<std::uint32_t, kSlots>& sorted,
                                unsigned f) noexcept {
  const unsigned low_bits = f - 4;
  const std::uint64_t low_mask = (std::uint64_t{1} << low_bits) - 1;
  const std::uint32_t code =
      encode_nibbles({sorted[0] >> low_bits, sorted[1] >> low_bits, sorted[2] >> low_bits, sorted[3] >> low_bits});
  if (bucket_bits(f) <= 57) {  // f <= 15: the whole bucket in one read-modify-write of a 64-bit word
    std::uint64_t bucket = code;
    for (unsigned i = 0; i < kSlots; ++i) bucket |= (sorted[i] & low_mask) << low_field_at(i, f);
    store_field(data, bit, (std::uint64_t{1} << bucket_bits(f)) - 1, bucket);
    return;
  }
  store_field(data, bit, kCodeValues - 1, code);
  for (unsigned i = 0; i < kSlots; ++i) store_field(data, bit + low_field_at(i, f), low_mask, sorted[i] & low_mask);
}

inline void write_bucket(std::uint8_t* data, std::uint64_t bit, std::array<std::uint32_t, kSlots> fingerprints,
                         unsigned f) noexcept {
  sort4(fingerprints);
  write_sorted_bucket(data, bit, fingerprints, f);
}

// The four fingerprints of the bucket at bit `bit`, in ascending order when the bucket is canonical (as
// write_bucket writes it; a reader of untrusted bytes checks canonical_bucket).
[[nodiscard]] inline std::array<std::uint32_t, kSlots> read_bucket(const std::uint8_t* data, std::uint64_t bit,
                                                                   unsigned f) noexcept {
  const unsigned low_bits = f - 4;
  const std::uint64_t low_mask = (std::uint64_t{1} << low_bits) - 1;
  const std::uint32_t nibbles = nibble_table()[bits_at(data, bit) & ((1u << kCodeBits) - 1)];
  std::array<std::uint32_t, kSlots> out{};
  for (unsigned i = 0; i < kSlots; ++i) {
    const auto low = static_cast<std::uint32_t>(bits_at(data, bit + low_field_at(i, f)) & low_mask);
    out[i] = ((nibbles >> (4 * i)) & 0xF) << low_bits | low;
  }
  return out;
}

// True when the bucket at bit `bit` is one write_bucket can write: its code is one of the 3,876, and
// its fingerprints are in ascending order (equal nibbles with descending low bits are not). Anything else
// would read back as fingerprints whose next write changes other bits than that write's own.
[[nodiscard]] inline bool canonical_bucket(const std::uint8_t* data, std::uint64_t bit, unsigned f) noexcept {
  if ((bits_at(data, bit) & (kCodeValues - 1)) >= kNibbleTuples) return false;
  const std::array<std::uint32_t, kSlots> b = read_bucket(data, bit, f);
  return std::is_sorted(b.begin(), b.end());
}

}  // namespace detail::semi_sort
}  // namespace v1
}  // namespace cuckoo
