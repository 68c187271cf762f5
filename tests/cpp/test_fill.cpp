// Fill tests: a filter sized for `capacity` items at fp_rate 0.001 takes all of them, answers within the
// promised false-positive rate, and uses the promised memory, at capacities around powers of two too.
#include <catch2/catch.hpp>

#include "test_support.hpp"

using namespace cuckoo;

TEST_CASE("capacity items fit, FPR within the bound, bits per item under 13.7", "[fill]") {
  const std::uint64_t capacity = GENERATE(1000ull, 65535ull, 65536ull, 65537ull, 300000ull, 1048575ull, 1048577ull);
  Options o;
  o.capacity = capacity;
  o.fp_rate = 0.001;
  CuckooFilter f(o);
  for (std::uint64_t i = 0; i < capacity; ++i) REQUIRE(f.add(cuckoo_test::key("in", i)));
  CHECK(f.size() == capacity);
  for (std::uint64_t i = 0; i < capacity; ++i) REQUIRE(f.contains(cuckoo_test::key("in", i)));

  const double measured = cuckoo_test::measured_fp_rate(f, "out", 1'000'000);
  const double bits_per_item = static_cast<double>(f.byte_size()) * 8 / static_cast<double>(capacity);
  INFO("capacity " << capacity << ": FPR " << measured << " (expected " << f.expected_fp_rate() << "), "
                   << bits_per_item << " bits per item");
  CHECK(measured <= 0.001);
  CHECK(measured == Approx(f.expected_fp_rate()).epsilon(0.2));
  if (capacity >= 65535) CHECK(bits_per_item <= 13.7);
}
