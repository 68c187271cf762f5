// Key hashing and the index arithmetic of the filter: which two buckets a key may live in and which
// fingerprint represents it. Everything here is pure integer arithmetic on fixed-width types, so the
// native and the wasm builds compute bit-identical results (pinned by tests/vectors/golden.json).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
// In wasm, xxHash's forced inlining is off: it copied XXH3's long-input code whole into each function of
// the export checksum (format.hpp), about 1 KB of the package's gzipped size. The key paths that matter
// are KeyHasher's own below (up to 128 bytes); exports of 30 MB and 150-byte keys measured no slower.
#if defined(__wasm__) && !defined(XXH_NO_INLINE_HINTS)
#define XXH_NO_INLINE_HINTS 1
#endif
#include <xxhash.h>

#include "detail/bits.hpp"

namespace cuckoo {
inline namespace v1 {

// The seed used when Options::seed is not set. Fixed, so that filters are reproducible by default.
inline constexpr std::uint64_t kDefaultSeed = 0x9E3779B97F4A7C15ull;

// The largest bucket count: index_of() maps into [0, N) with a 32x32->64 multiply, so N must fit in 32
// bits; it must also be even (see alternate_index).
inline constexpr std::uint64_t kMaxBuckets = 0xFFFFFFFEull;

[[nodiscard]] inline std::uint64_t hash_bytes(const void* data, std::size_t length, std::uint64_t seed) noexcept {
  return XXH3_64bits_withSeed(data, length, seed);
}

// hash_bytes for one fixed seed, faster on the short keys that dominate real use (ids, names, 8-byte
// integers). XXH3 hashes keys of up to 16 bytes with a few loads, one or two multiplies and constants
// that depend only on the seed; the library recomputes those constants and dispatches through a large
// out-of-line function on every call. KeyHasher computes them once and inlines the short paths.
// Invariant: (*this)(data, n) == hash_bytes(data, n, seed) for every input (tests/cpp/test_hashing.cpp
// compares all lengths 0..40 over many seeds), so the export format and the golden vectors do not change.
class KeyHasher {
 public:
  KeyHasher() noexcept : KeyHasher(kDefaultSeed) {}
  explicit KeyHasher(std::uint64_t seed) noexcept : seed_(seed) {
    const auto* secret = XXH3_kSecret;
    empty_hash_ = XXH3_64bits_withSeed(nullptr, 0, seed);
    flip_1to3_ = (detail::load32(secret) ^ detail::load32(secret + 4)) + seed;
    const std::uint64_t seed_4to8 = seed ^ (std::uint64_t{detail::byteswap32(static_cast<std::uint32_t>(seed))} << 32);
    flip_4to8_ = (detail::load64(secret + 8) ^ detail::load64(secret + 16)) - seed_4to8;
    flip_9to16_low_ = (detail::load64(secret + 24) ^ detail::load64(secret + 32)) + seed;
    flip_9to16_high_ = (detail::load64(secret + 40) ^ detail::load64(secret + 48)) - seed;
  }

  [[nodiscard]] std::uint64_t operator()(const void* data, std::size_t length) const noexcept {
    const auto* p = static_cast<const std::uint8_t*>(data);
    // Elsewhere than little-endian machines the loads below would need swapping: every call goes to the library.
    if (length > 16 || !detail::kLittleEndian) {
      return length <= 128 && detail::kLittleEndian ? hash_17to128(p, length) : hash_long(data, length, seed_);
    }
    if (length > 8) {
      const std::uint64_t low = detail::load64(p) ^ flip_9to16_low_;
      const std::uint64_t high = detail::load64(p + length - 8) ^ flip_9to16_high_;
      return avalanche(length + detail::byteswap64(low) + high + multiply_fold64(low, high));
    }
    if (length >= 4) {
      const std::uint64_t joined = detail::load32(p + length - 4) + (std::uint64_t{detail::load32(p)} << 32);
      return rrmxmx(joined ^ flip_4to8_, length);
    }
    if (length > 0) {
      const std::uint32_t combined = (std::uint32_t{p[0]} << 16) | (std::uint32_t{p[length >> 1]} << 24) |
                                     std::uint32_t{p[length - 1]} | (static_cast<std::uint32_t>(length) << 8);
      return xxh64_avalanche(combined ^ flip_1to3_);
    }
    return empty_hash_;
  }

  // The hash of an integer key: the same as of its 8 little-endian bytes, (*this)(&bytes, 8), without
  // touching memory (the 4-8 byte path joins the high 32 bits over the low ones).
  [[nodiscard]] std::uint64_t operator()(std::uint64_t key) const noexcept {
    return rrmxmx(((key << 32) | (key >> 32)) ^ flip_4to8_, 8);
  }

  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }

 private:
  // Kept out of line: the short paths above then inline into the batch loops (in wasm the whole call
  // operator, with XXH3's long-key code, was one function called per key).
  [[gnu::noinline]] static std::uint64_t hash_long(const void* data, std::size_t length, std::uint64_t seed) noexcept {
    return XXH3_64bits_withSeed(data, length, seed);
  }

  // XXH3's path for 17 to 128 bytes (XXH3_len_17to128_64b), written out so that its 16-byte mixes are
  // inlined whatever the library's inlining hints (the wasm build turns them off, see the top of this
  // file): the lines of a log or a CSV are mostly this long. Out of line: one copy for every batch loop.
  [[gnu::noinline]] std::uint64_t hash_17to128(const std::uint8_t* p, std::size_t length) const noexcept {
    const std::uint8_t* secret = XXH3_kSecret;
    const std::uint64_t seed = seed_;
    const auto mix16 = [&](std::size_t at, std::size_t secret_at) {
      return multiply_fold64(detail::load64(p + at) ^ (detail::load64(secret + secret_at) + seed),
                             detail::load64(p + at + 8) ^ (detail::load64(secret + secret_at + 8) - seed));
    };
    std::uint64_t acc = length * 0x9E3779B185EBCA87ull;  // XXH_PRIME64_1
    if (length > 32) {
      if (length > 64) {
        if (length > 96) acc += mix16(48, 96) + mix16(length - 64, 112);
        acc += mix16(32, 64) + mix16(length - 48, 80);
      }
      acc += mix16(16, 32) + mix16(length - 32, 48);
    }
    acc += mix16(0, 0) + mix16(length - 16, 16);
    return avalanche(acc);
  }

  static constexpr std::uint64_t rotl64(std::uint64_t x, int r) noexcept { return (x << r) | (x >> (64 - r)); }

  // The low and high halves of the 128-bit product, XORed. wasm32 has no 64x64->128 multiply and the
  // compiler's __int128 fallback is a library call, so there it is built from four 32x32->64 products.
  static std::uint64_t multiply_fold64(std::uint64_t a, std::uint64_t b) noexcept {
#if defined(__SIZEOF_INT128__) && !defined(__wasm__)
    __extension__ typedef unsigned __int128 uint128;  // __extension__: a GNU type, fine under -pedantic
    const uint128 product = static_cast<uint128>(a) * b;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
#else
    const std::uint64_t a_low = a & 0xFFFFFFFFu, a_high = a >> 32;
    const std::uint64_t b_low = b & 0xFFFFFFFFu, b_high = b >> 32;
    const std::uint64_t low_low = a_low * b_low;
    const std::uint64_t high_low = a_high * b_low;
    const std::uint64_t low_high = a_low * b_high;
    const std::uint64_t high_high = a_high * b_high;
    // The middle column cannot overflow: at most (2^32-1)^2 + 2 (2^32-1) = 2^64 - 1.
    const std::uint64_t cross = (low_low >> 32) + (high_low & 0xFFFFFFFFu) + low_high;
    const std::uint64_t high = (high_low >> 32) + (cross >> 32) + high_high;
    const std::uint64_t low = (cross << 32) | (low_low & 0xFFFFFFFFu);
    return low ^ high;
#endif
  }
  static std::uint64_t avalanche(std::uint64_t h) noexcept {
    h ^= h >> 37;
    h *= 0x165667919E3779F9ull;
    return h ^ (h >> 32);
  }
  static std::uint64_t rrmxmx(std::uint64_t h, std::uint64_t length) noexcept {
    h ^= rotl64(h, 49) ^ rotl64(h, 24);
    h *= 0x9FB21C651E98DF25ull;
    h ^= (h >> 35) + length;
    h *= 0x9FB21C651E98DF25ull;
    return h ^ (h >> 28);
  }
  static std::uint64_t xxh64_avalanche(std::uint64_t h) noexcept {
    h ^= h >> 33;
    h *= 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0x165667B19E3779F9ull;
    return h ^ (h >> 32);
  }

  std::uint64_t seed_;
  std::uint64_t empty_hash_;
  std::uint64_t flip_1to3_;
  std::uint64_t flip_4to8_;
  std::uint64_t flip_9to16_low_;
  std::uint64_t flip_9to16_high_;
};

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

// The fingerprint values of `bits`-bit slots: 2^bits - 1, since 0 is reserved for "empty slot".
[[nodiscard]] constexpr std::uint64_t fingerprint_values(unsigned bits) noexcept {
  return (std::uint64_t{1} << bits) - 1;
}

// Fingerprints are uniform over [1, values], values = fingerprint_values(bits). The per-key paths pass
// the count computed once per table: three instructions fewer on every lookup, measurable natively.
[[nodiscard]] constexpr std::uint32_t fingerprint_from(std::uint64_t hash, std::uint64_t values) noexcept {
  return reduce32(static_cast<std::uint32_t>(hash), values) + 1;
}
[[nodiscard]] constexpr std::uint32_t fingerprint_of(std::uint64_t hash, unsigned bits) noexcept {
  return fingerprint_from(hash, fingerprint_values(bits));
}

// Fibonacci hashing's multiplier: 2654435761, Knuth's prime near 2^32 / golden ratio.
inline constexpr std::uint32_t kOffsetMultiplier = 0x9E3779B1u;

// The odd offset r in [1, N-1] that links a fingerprint's two buckets: the top bits of fp x
// kOffsetMultiplier (mod 2^32), scaled onto [0, N). N is even, so N-1 is odd and `| 1` never leaves the
// range.
// One multiply is enough: a key's fingerprint is uniform and independent of its primary bucket, so what
// matters is only how evenly the 2^f - 1 possible offsets cover [0, N), not which fingerprint gets which.
// Fibonacci hashing covers it more evenly than random values would (three-gap theorem: the sorted values
// fp x multiplier mod 2^32 leave at most three distinct gap sizes); tests/cpp/test_hashing.cpp checks the
// spacing. Format versions 1 and 2 mixed the fingerprint with Murmur3's finalizer first: two more
// multiplies on the critical path of every lookup, for no better spread.
[[nodiscard]] constexpr std::uint32_t alternate_offset(std::uint32_t fingerprint, std::uint64_t num_buckets) noexcept {
  return reduce32(fingerprint * kOffsetMultiplier, num_buckets) | 1u;
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
  std::int64_t x =
      n - static_cast<std::int64_t>(index) - static_cast<std::int64_t>(alternate_offset(fingerprint, num_buckets));
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
