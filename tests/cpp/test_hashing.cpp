// Hashing: the pieces that turn key bytes into (bucket, fingerprint). Exact outputs are pinned by the
// golden vectors (test_golden.cpp); these tests check the properties the filter relies on.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cuckoo/hashing.hpp>
#include <random>
#include <vector>

using namespace cuckoo;

TEST_CASE("hash_bytes is XXH3-64 with the seed", "[hashing]") {
  // XXH3-64 of the empty input with seed 0, from the xxHash specification's test vectors.
  CHECK(hash_bytes("", 0, 0) == 0x2D06800538D394C2ull);
  CHECK(hash_bytes("abc", 3, 1) != hash_bytes("abc", 3, 2));
  CHECK(hash_bytes("abc", 3, 7) == hash_bytes("abc", 3, 7));
}

TEST_CASE("KeyHasher equals hash_bytes for every length and seed", "[hashing]") {
  // KeyHasher re-implements XXH3's paths up to 128 bytes (the short ones with precomputed seed constants);
  // any difference would change every filter's layout, so compare it with the library on all lengths up to
  // 200 (each path and each boundary: 0, 1-3, 4-8, 9-16, 17-32, 33-64, 65-96, 97-128, and the library's own
  // code above 128), at unaligned offsets, with
  // seeds whose halves exercise the 4-8 byte path's byte swap and the borrow of its subtraction.
  SplitMix64 rng{2024};
  std::array<std::uint8_t, 208> buffer{};
  const std::uint64_t seeds[] = {
      0, 1, kDefaultSeed, 0xFFFFFFFFFFFFFFFFull, 0x00000000FFFFFFFFull, 0xFFFFFFFF00000000ull, 0x0123456789ABCDEFull};
  std::size_t mismatches = 0, compared = 0;
  for (std::uint64_t seed : seeds) {
    for (int extra = 0; extra < 40; ++extra) {
      const std::uint64_t s = extra == 0 ? seed : rng.next();
      const KeyHasher hasher(s);
      CHECK(hasher.seed() == s);
      for (std::size_t length = 0; length <= 200; ++length) {
        for (std::size_t offset = 0; offset < 3; ++offset) {
          for (auto& byte : buffer) byte = static_cast<std::uint8_t>(rng.next());
          const std::uint8_t* key = buffer.data() + offset;
          mismatches += hasher(key, length) != hash_bytes(key, length, s);
          ++compared;
        }
      }
    }
  }
  CHECK(compared == 7u * 40u * 201u * 3u);
  CHECK(mismatches == 0);
  // All-ones and all-zero keys push the 9-16 byte path's 128-bit product to its extremes.
  const KeyHasher hasher(kDefaultSeed);
  std::array<std::uint8_t, 16> ones{}, zeros{};
  ones.fill(0xFF);
  for (std::size_t length = 0; length <= 16; ++length) {
    CHECK(hasher(ones.data(), length) == hash_bytes(ones.data(), length, kDefaultSeed));
    CHECK(hasher(zeros.data(), length) == hash_bytes(zeros.data(), length, kDefaultSeed));
  }
}

// byteswap64 has its own steps in wasm (bits.hpp): each byte to its mirror place, for random words and
// for every single byte at every place, against the byte-by-byte definition.
TEST_CASE("byteswap64 reverses the bytes of a word", "[hashing]") {
  const auto by_bytes = [](std::uint64_t x) {
    std::uint64_t out = 0;
    for (unsigned i = 0; i < 8; ++i) out |= ((x >> (8 * i)) & 0xFF) << (8 * (7 - i));
    return out;
  };
  std::mt19937_64 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t x = rng();
    REQUIRE(cuckoo::detail::byteswap64(x) == by_bytes(x));
  }
  for (unsigned place = 0; place < 8; ++place)
    for (std::uint64_t byte = 0; byte < 256; ++byte)
      REQUIRE(cuckoo::detail::byteswap64(byte << (8 * place)) == by_bytes(byte << (8 * place)));
  static_assert(cuckoo::detail::byteswap64(0x0102030405060708ull) == 0x0807060504030201ull);
}

TEST_CASE("reduce32 maps onto [0, n) proportionally", "[hashing]") {
  const std::uint64_t sizes[] = {1, 2, 3, 1000, 0xFFFFFFFE};
  for (std::uint64_t n : sizes) {
    CHECK(reduce32(0, n) == 0);
    CHECK(reduce32(0xFFFFFFFFu, n) == n - 1);
    CHECK(reduce32(0x80000000u, n) == n / 2);
  }
}

TEST_CASE("index_of stays in range for extreme hashes", "[hashing]") {
  const std::uint64_t sizes[] = {2, 6, 263158, kMaxBuckets};
  for (std::uint64_t n : sizes) {
    for (std::uint64_t h : {0ull, ~0ull, 0xFFFFFFFF00000000ull, 0x00000000FFFFFFFFull}) CHECK(index_of(h, n) < n);
  }
}

TEST_CASE("fingerprints are never 0 and cover [1, 2^f - 1] uniformly", "[hashing]") {
  for (unsigned bits = 4; bits <= 32; ++bits) {
    const std::uint64_t top = (std::uint64_t{1} << bits) - 1;
    CHECK(fingerprint_of(0, bits) == 1);
    CHECK(fingerprint_of(0xFFFFFFFFull, bits) == top);
    CHECK(fingerprint_of(0xFFFFFFFF00000000ull, bits) == 1);  // only the low half is used
  }
  // 4-bit fingerprints over many real hashes: each of the 15 values gets close to 1/15 of them.
  std::array<int, 16> counts{};
  const int samples = 150000;
  for (int i = 0; i < samples; ++i) counts[fingerprint_of(hash_bytes(&i, sizeof i, 42), 4)]++;
  CHECK(counts[0] == 0);
  for (int v = 1; v < 16; ++v) CHECK(std::abs(counts[v] - samples / 15) < 400);
}

TEST_CASE("alternate offsets are odd, in range, and spread over the table", "[hashing]") {
  const std::uint64_t sizes[] = {2, 4, 10, 1000, kMaxBuckets};
  for (std::uint64_t n : sizes) {
    for (std::uint32_t fp = 1; fp < 5000; ++fp) {
      const auto r = alternate_offset(fp, n);
      REQUIRE(r % 2 == 1);
      REQUIRE(r < n);
    }
  }
  // Evenly: the 4095 offsets of 12-bit fingerprints are all distinct, and no two lie closer than a quarter
  // of the mean gap (random offsets would put some within a bucket or two of each other).
  const std::uint32_t n = 1000000;
  std::vector<std::uint32_t> offsets;
  for (std::uint32_t fp = 1; fp < 4096; ++fp) offsets.push_back(alternate_offset(fp, n));
  std::sort(offsets.begin(), offsets.end());
  std::uint32_t min_gap = n;
  for (std::size_t k = 1; k < offsets.size(); ++k) min_gap = std::min(min_gap, offsets[k] - offsets[k - 1]);
  CHECK(min_gap > n / 4095 / 4);
  // The largest gap, including the one that wraps around, is at most four mean gaps.
  std::uint32_t max_gap = offsets.front() + (n - offsets.back());
  for (std::size_t k = 1; k < offsets.size(); ++k) max_gap = std::max(max_gap, offsets[k] - offsets[k - 1]);
  CHECK(max_gap < 4 * (n / 4095));
}

TEST_CASE("SplitMix64 is reproducible from its seed", "[hashing]") {
  SplitMix64 a{123}, b{123}, c{124};
  for (int i = 0; i < 10; ++i) {
    const auto va = a.next();
    CHECK(va == b.next());
    CHECK(va != c.next());
  }
}
