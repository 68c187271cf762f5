// Semi-sorting (Fan et al., CoNEXT 2014, section 5.2), the encoding only: the order of a bucket's four
// fingerprints carries no information, so a bucket can keep them sorted and store the sorted 4-tuple of
// their high nibbles, one of C(19, 4) = 3,876 multisets of four values 0..15, as a 12-bit code instead of
// 16 bits: one bit saved per fingerprint. A bucket of four f-bit fingerprints then takes 4f - 4 bits: the
// code, then the low f - 4 bits of each fingerprint in sorted order.
//
// The encoding is canonical: every order of the same four fingerprints gives the same bits, and four
// empty slots (fingerprint 0) give all zeros, so a zeroed table is an empty one. (Not yet used by the
// filter: the semi-sorted table is work in progress, issue "Semi-sorted buckets".)
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "../bucket_table.hpp"

namespace cuckoo {
inline namespace v1 {
namespace detail::semi_sort {

inline constexpr unsigned kSlots = 4;
inline constexpr unsigned kNibbleTuples = 3876;  // C(16 + 4 - 1, 4)
inline constexpr unsigned kCodeBits = 12;        // 3,876 <= 4,096
inline constexpr unsigned kMinFingerprintBits = 5;
inline constexpr unsigned kMaxFingerprintBits = 32;

// The bits a semi-sorted bucket of four f-bit fingerprints takes.
[[nodiscard]] constexpr unsigned bucket_bits(unsigned fingerprint_bits) noexcept {
  return kCodeBits + kSlots * (fingerprint_bits - 4);
}

// C(n, k) for n < 19 and k <= 4: the ranks below never need more.
[[nodiscard]] constexpr std::uint32_t binomial(unsigned n, unsigned k) noexcept {
  if (k > n) return 0;
  std::uint32_t r = 1;
  for (unsigned i = 1; i <= k; ++i) r = r * (n - k + i) / i;  // exact at every step: r is C(n - k + i, i)
  return r;
}

// The code of four nibbles n0 <= n1 <= n2 <= n3: with c_i = n_i + i, a strictly increasing 4-subset of
// 0..18, its rank in the combinatorial number system, C(c0, 1) + C(c1, 2) + C(c2, 3) + C(c3, 4), which
// maps the 3,876 subsets one to one onto 0..3,875 (and 0, 0, 0, 0 onto 0).
[[nodiscard]] constexpr std::uint32_t encode_nibbles(const std::array<std::uint32_t, kSlots>& sorted) noexcept {
  std::uint32_t code = 0;
  for (unsigned i = 0; i < kSlots; ++i) code += binomial(sorted[i] + i, i + 1);
  return code;
}

// The four sorted nibbles of every code, packed as n0 | n1 << 4 | n2 << 8 | n3 << 12; computed on first
// use (7.6 KB), not shipped as data.
[[nodiscard]] inline const std::array<std::uint16_t, kNibbleTuples>& nibble_table() noexcept {
  static const std::array<std::uint16_t, kNibbleTuples> table = [] {
    std::array<std::uint16_t, kNibbleTuples> t{};
    for (std::uint32_t a = 0; a < 16; ++a)
      for (std::uint32_t b = a; b < 16; ++b)
        for (std::uint32_t c = b; c < 16; ++c)
          for (std::uint32_t d = c; d < 16; ++d)
            t[encode_nibbles({a, b, c, d})] = static_cast<std::uint16_t>(a | b << 4 | c << 8 | d << 12);
    return t;
  }();
  return table;
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
inline void write_bucket(std::uint8_t* data, std::uint64_t bit, std::array<std::uint32_t, kSlots> fingerprints,
                         unsigned f) noexcept {
  std::sort(fingerprints.begin(), fingerprints.end());
  const unsigned low_bits = f - 4;
  const std::uint64_t low_mask = (std::uint64_t{1} << low_bits) - 1;
  std::array<std::uint32_t, kSlots> nibbles{};
  for (unsigned i = 0; i < kSlots; ++i) nibbles[i] = fingerprints[i] >> low_bits;
  store_field(data, bit, (1u << kCodeBits) - 1, encode_nibbles(nibbles));
  for (unsigned i = 0; i < kSlots; ++i)
    store_field(data, bit + low_field_at(i, f), low_mask, static_cast<std::uint32_t>(fingerprints[i] & low_mask));
}

// The four fingerprints of the bucket at bit `bit`, in ascending order. Precondition: its code is below
// kNibbleTuples (write_bucket never writes another; a reader of untrusted bytes must check).
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

}  // namespace detail::semi_sort
}  // namespace v1
}  // namespace cuckoo
