// Merge: filters built from parts of the data combine into one that answers for every key of every part.
#include <catch2/catch.hpp>

#include "test_support.hpp"

using namespace cuckoo;
using cuckoo_test::key;

namespace {
CuckooFilter make(std::uint64_t capacity, std::uint64_t seed = 1, std::optional<unsigned> growth = {}) {
  Options o;
  o.capacity = capacity;
  o.fp_rate = 0.001;
  o.seed = seed;
  o.growth = growth;
  if (growth) o.max_sub_filters = cuckoo::kDefaultMaxSubFilters;  // a chain (growth 2 alone doubles in place)
  return CuckooFilter(o);
}
}  // namespace

TEST_CASE("merging filters of disjoint and overlapping key sets answers for every key", "[merge]") {
  const std::uint64_t overlap = GENERATE(0ull, 500ull);
  auto a = make(4000);
  auto b = make(4000);
  auto all = make(4000);
  for (std::uint64_t i = 0; i < 1500; ++i) {
    REQUIRE(a.add(key("m", i)));
    REQUIRE(all.add(key("m", i)));
  }
  for (std::uint64_t i = 1500 - overlap; i < 3000 - overlap; ++i) {
    REQUIRE(b.add(key("m", i)));
    REQUIRE(all.add(key("m", i)));
  }
  REQUIRE(a.merge(b).ok());
  CHECK(a.size() == all.size());
  for (std::uint64_t i = 0; i < 3000 - overlap; ++i) {
    REQUIRE(a.contains(key("m", i)));
    REQUIRE(a.count(key("m", i)) == all.count(key("m", i)));
  }
  // b is untouched.
  CHECK(b.size() == 1500);
}

TEST_CASE("incompatible filters are refused, naming the difference", "[merge]") {
  auto a = make(1000, 1);
  a.add("x");
  const auto before = a.serialize();
  CHECK_THAT(a.merge(make(1000, 2)).message, Catch::Contains("different seeds"));
  CHECK_THAT(a.merge(make(2000, 1)).message, Catch::Contains("different capacities (1000 and 2000)"));
  {
    // An export may give a capacity with more buckets than this library sizes for it (any even count that
    // holds it): the same capacity then, other bucket counts, and the message names those.
    auto wide_bytes = make(1200).serialize();
    format::put_le(wide_bytes.data() + format::offset::capacity, 1000, 8);
    cuckoo_test::reseal(wide_bytes);
    auto wide = CuckooFilter::deserialize(wide_bytes);
    REQUIRE(wide.capacity() == 1000);
    REQUIRE(wide.num_buckets() != a.num_buckets());
    CHECK_THAT(a.merge(wide).message, Catch::Contains("different bucket counts (" + std::to_string(a.num_buckets()) +
                                                      " and " + std::to_string(wide.num_buckets()) + ")"));
    CHECK_THAT(a.union_with(wide).message, Catch::Contains("different bucket counts"));
  }
  CHECK_THAT(a.merge(make(1000, 1, 2u)).message, Catch::Contains("different growth settings"));
  Options other;
  other.capacity = 1000;
  other.fingerprint_bits = 16;
  other.seed = 1;
  CHECK_THAT(a.merge(CuckooFilter(other)).message, Catch::Contains("different fingerprint bits (13 and 16)"));
  other.fingerprint_bits = 13;
  other.bucket_size = 2;
  const auto status = a.merge(CuckooFilter(other));
  CHECK(status.code == ErrorCode::invalid_argument);
  CHECK_THAT(status.message, Catch::Contains("different bucket sizes (4 and 2)"));
  CHECK(a.serialize() == before);
}

TEST_CASE("a merge that does not fit fails and leaves the filter unchanged", "[merge]") {
  auto a = make(1000);
  auto b = make(1000);
  for (std::uint64_t i = 0; i < 700; ++i) {
    a.add(key("a", i));
    b.add(key("b", i));
  }
  const auto before = a.serialize();
  const Status status = a.merge(b);
  CHECK(status.code == ErrorCode::capacity_exceeded);
  CHECK_THAT(status.message, Catch::Contains("do not fit"));
  CHECK(a.serialize() == before);
}

TEST_CASE("with growth, a merge that does not fit in place takes the other's sub-filters", "[merge]") {
  auto a = make(100, 1, 2u);
  auto b = make(100, 1, 2u);
  for (std::uint64_t i = 0; i < 150; ++i) REQUIRE(a.add(key("a", i)));
  for (std::uint64_t i = 0; i < 1000; ++i) REQUIRE(b.add(key("b", i)));
  REQUIRE(b.sub_filter_count() > a.sub_filter_count());
  const double rate_a = a.expected_fp_rate();
  const double rate_b = b.expected_fp_rate();
  REQUIRE(a.merge(b).ok());
  CHECK(a.sub_filter_count() > b.sub_filter_count());
  CHECK(a.size() == 1150);
  for (std::uint64_t i = 0; i < 150; ++i) REQUIRE(a.contains(key("a", i)));
  for (std::uint64_t i = 0; i < 1000; ++i) REQUIRE(a.contains(key("b", i)));
  CHECK(a.expected_fp_rate() <= rate_a + rate_b + 1e-12);
  // The merged chain exports, loads, and goes on growing.
  CHECK(CuckooFilter::deserialize(a.serialize()).serialize() == a.serialize());
  for (std::uint64_t i = 0; i < 2000; ++i) REQUIRE(a.add(key("c", i)));
  for (std::uint64_t i = 0; i < 1000; ++i) REQUIRE(a.contains(key("b", i)));
}

TEST_CASE("with growth, a merge that fits in place keeps the chain's shape", "[merge]") {
  auto a = make(1000, 1, 2u);
  auto b = make(1000, 1, 2u);
  for (std::uint64_t i = 0; i < 300; ++i) {
    REQUIRE(a.add(key("a", i)));
    REQUIRE(b.add(key("b", i)));
  }
  REQUIRE(a.merge(b).ok());
  CHECK(a.sub_filter_count() == 1);
  CHECK(a.size() == 600);
}

TEST_CASE("with growth, the chain limit still bounds a merge", "[merge]") {
  Options o;
  o.capacity = 50;
  o.fp_rate = 0.01;
  o.growth = 2;
  o.max_sub_filters = 2;
  CuckooFilter a(o), b(o);
  std::uint64_t i = 0;
  while (a.add(key("a", i))) ++i;
  for (std::uint64_t j = 0; j < i; ++j) REQUIRE(b.add(key("b", j)));
  const auto before = a.serialize();
  const Status status = a.merge(b);
  CHECK(status.code == ErrorCode::capacity_exceeded);
  CHECK_THAT(status.message, Catch::Contains("do not fit in 2 sub-filters"));
  CHECK(a.serialize() == before);
}

TEST_CASE("merging a filter into itself doubles every count", "[merge]") {
  auto a = make(1000);
  for (std::uint64_t i = 0; i < 100; ++i) a.add(key("self", i));
  REQUIRE(a.merge(a).ok());
  CHECK(a.size() == 200);
  CHECK(a.count("self-7") >= 2);
}

TEST_CASE("a join refused for its rate says the rate and the limit in three digits", "[merge]") {
  CHECK(cuckoo::detail::rate_text(2.714e-2) == "2.71e-2");
  CHECK(cuckoo::detail::rate_text(9.996e-5) == "1.00e-4");
  CHECK(cuckoo::detail::rate_text(1.0e-4) == "1.00e-4");
  CHECK(cuckoo::detail::rate_text(1.605e-1) == "1.61e-1");
  CHECK(cuckoo::detail::rate_text(0) == "0");
  CHECK(cuckoo::detail::check_joined_rate(1.6e-4, 1.6e-4).ok());
  // (Two digits said "of 1.6e-4, above the 1.6e-4" of the README's recipe: test_in_place.cpp.)
  const cuckoo::Status near = cuckoo::detail::check_joined_rate(1.6049e-4, 1.5921e-4);
  CHECK(near.code == cuckoo::ErrorCode::capacity_exceeded);
  CHECK(near.message.find("rate of 1.60e-4, above the 1.59e-4 its options allow") != std::string::npos);
}
