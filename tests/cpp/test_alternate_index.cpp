// The alternate-bucket function: applied twice it gives the original bucket, and it never gives the
// same bucket. The kick-out walk and every lookup depend on both.
#include <catch2/catch.hpp>

#include <cuckoo/hashing.hpp>
#include <random>
#include <set>

using namespace cuckoo;

TEST_CASE("alternate_index is an involution without fixed points: exhaustive on small tables", "[alternate]") {
  for (std::uint64_t n = 2; n <= 64; n += 2) {
    for (std::uint32_t fp = 1; fp < 256; ++fp) {
      for (std::uint32_t i = 0; i < n; ++i) {
        const auto j = alternate_index(i, fp, n);
        REQUIRE(j < n);
        REQUIRE(j != i);
        REQUIRE(alternate_index(j, fp, n) == i);
      }
    }
  }
}

TEST_CASE("alternate_index is an involution without fixed points: random on large tables", "[alternate]") {
  std::mt19937_64 rng(7);
  for (std::uint64_t n : {std::uint64_t{263158}, std::uint64_t{1} << 20, (std::uint64_t{1} << 20) + 2,
                          std::uint64_t{4210526}, kMaxBuckets}) {
    for (int t = 0; t < 200000; ++t) {
      const auto i = static_cast<std::uint32_t>(rng() % n);
      const auto fp = static_cast<std::uint32_t>(rng() % 0xFFFFFFFFull) + 1;
      const auto j = alternate_index(i, fp, n);
      REQUIRE(j < n);
      REQUIRE(j != i);
      REQUIRE(alternate_index(j, fp, n) == i);
    }
  }
}

TEST_CASE("the alternate bucket depends on the fingerprint", "[alternate]") {
  // Keys sharing a primary bucket must scatter to different alternates, or kick chains cannot escape.
  std::set<std::uint32_t> alternates;
  for (std::uint32_t fp = 1; fp <= 4095; ++fp) alternates.insert(alternate_index(1234, fp, 263158));
  CHECK(alternates.size() > 4000);
}
