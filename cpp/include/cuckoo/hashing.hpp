// Key hashing and the index arithmetic of the filter: which two buckets a key may live in and which
// fingerprint represents it. Everything here is pure integer arithmetic on fixed-width types, so the
// native and the wasm builds compute bit-identical results (pinned by tests/vectors/golden.json).
#pragma once

#include <cstddef>
#include <cstdint>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace cuckoo {
inline namespace v1 {

// The seed used when Options::seed is not set. Fixed, so that filters are reproducible by default.
inline constexpr std::uint64_t kDefaultSeed = 0x9E3779B97F4A7C15ull;

// The largest bucket count: index_of() maps into [0, N) with a 32x32->64 multiply, so N must fit in 32
// bits; it must also be even (see alternate_index).
inline constexpr std::uint64_t kMaxBuckets = 0xFFFFFFFEull;

[[nodiscard]] inline std::uint64_t hash_bytes(const void* data, std::size_t length,
                                              std::uint64_t seed) noexcept {
  return XXH3_64bits_withSeed(data, length, seed);
}

// Lemire's multiply-shift range reduction: maps a uniform 32-bit value onto [0, n) without a division
// and without requiring n to be a power of two (this is what makes exact sizing possible).
[[nodiscard]] constexpr std::uint32_t reduce32(std::uint32_t value, std::uint64_t n) noexcept {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(value) * n) >> 32);
}

// The primary bucket comes from the high half of the hash, the fingerprint from the low half, so the
// two are independent.
[[nodiscard]] constexpr std::uint32_t index_of(std::uint64_t hash, std::uint64_t num_buckets) noexcept {
  return reduce32(static_cast<std::uint32_t>(hash >> 32), num_buckets);
}

// Fingerprints are uniform over [1, 2^bits - 1]: 0 is reserved for "empty slot".
[[nodiscard]] constexpr std::uint32_t fingerprint_of(std::uint64_t hash, unsigned bits) noexcept {
  const std::uint64_t nonzero_values = (std::uint64_t{1} << bits) - 1;
  return reduce32(static_cast<std::uint32_t>(hash), nonzero_values) + 1;
}

// Murmur3's 32-bit finalizer: spreads the fingerprint's few bits over all 32, so that the offset below
// differs between fingerprints even when the table is small.
[[nodiscard]] constexpr std::uint32_t mix32(std::uint32_t x) noexcept {
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}

// The odd offset r in [1, N-1] that links a fingerprint's two buckets. N is even, so N-1 is odd and
// `| 1` never leaves the range.
[[nodiscard]] constexpr std::uint32_t alternate_offset(std::uint32_t fingerprint,
                                                       std::uint64_t num_buckets) noexcept {
  return reduce32(mix32(fingerprint), num_buckets) | 1u;
}

// alt(i) = (N - i - r) mod N, for an even bucket count N and an odd r.
// Invariant 1 (involution): alt(alt(i)) = N - (N - i - r) - r = i (mod N), so a fingerprint evicted from
//   either of its buckets always finds the other one from the bucket it is in and its own bits alone.
// Invariant 2 (two distinct buckets): alt(i) = i would need 2i = -r (mod N); with N even the left side is
//   even and the right side odd, so it never happens.
// Both hold for any even N, which is why the table needs no power-of-two size.
[[nodiscard]] constexpr std::uint32_t alternate_index(std::uint32_t index, std::uint32_t fingerprint,
                                                      std::uint64_t num_buckets) noexcept {
  const auto n = static_cast<std::int64_t>(num_buckets);
  // With 0 <= i <= N-1 and 1 <= r <= N-1, N - i - r lies in [2 - N, N - 1]: one conditional +N reduces
  // it. The sign mask keeps that branchless; a branch here is taken at random and mispredicts half the time.
  std::int64_t x = n - static_cast<std::int64_t>(index) - static_cast<std::int64_t>(alternate_offset(fingerprint, num_buckets));
  x += n & (x >> 63);
  return static_cast<std::uint32_t>(x);
}

// SplitMix64: the kick-out walk's generator. It is seeded from the key's hash, so every insert is
// reproducible from the key alone and the filter carries no generator state to serialize.
struct SplitMix64 {
  std::uint64_t state;
  constexpr std::uint64_t next() noexcept {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

}  // namespace v1
}  // namespace cuckoo
