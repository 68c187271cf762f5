// Hashing: the pieces that turn key bytes into (bucket, fingerprint). Exact outputs are pinned by the
// golden vectors (test_golden.cpp); these tests check the properties the filter relies on.
#include <catch2/catch.hpp>

#include <array>
#include <cstdlib>
#include <cuckoo/hashing.hpp>
#include <set>

using namespace cuckoo;

TEST_CASE("hash_bytes is XXH3-64 with the seed", "[hashing]") {
  // XXH3-64 of the empty input with seed 0, from the xxHash specification's test vectors.
  CHECK(hash_bytes("", 0, 0) == 0x2D06800538D394C2ull);
  CHECK(hash_bytes("abc", 3, 1) != hash_bytes("abc", 3, 2));
  CHECK(hash_bytes("abc", 3, 7) == hash_bytes("abc", 3, 7));
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
  std::set<std::uint32_t> distinct;
  for (std::uint32_t fp = 1; fp < 4096; ++fp) distinct.insert(alternate_offset(fp, 1000000));
  CHECK(distinct.size() > 4000);
}

TEST_CASE("SplitMix64 is reproducible from its seed", "[hashing]") {
  SplitMix64 a{123}, b{123}, c{124};
  for (int i = 0; i < 10; ++i) {
    const auto va = a.next();
    CHECK(va == b.next());
    CHECK(va != c.next());
  }
}
