// The export format: round trips are exact, and every kind of damaged input is refused with a
// FormatError that says what is wrong, never a crash or a half-read filter.
#include <catch2/catch.hpp>

#include <random>

#include "test_support.hpp"

using namespace cuckoo;
using cuckoo_test::error_of;
using cuckoo_test::key;
using cuckoo_test::make_filter;
using cuckoo_test::reseal;

namespace {

std::vector<std::uint8_t> small_export(unsigned bits = 12, unsigned b = 4, int items = 30) {
  auto f = make_filter(40, bits, b);
  for (int i = 0; i < items; ++i) f.add(key("x", i));
  return f.serialize();
}

void put(std::vector<std::uint8_t>& bytes, std::size_t offset, std::uint64_t value, unsigned width) {
  format::put_le(bytes.data() + offset, value, width);
}

}  // namespace

TEST_CASE("serialize then deserialize gives an identical filter", "[format]") {
  const unsigned b = GENERATE(2u, 4u, 8u);
  const unsigned bits = GENERATE(4u, 7u, 12u, 13u, 16u, 32u);
  Options o;
  o.capacity = 5000;
  o.fingerprint_bits = bits;
  o.bucket_size = b;
  o.max_kicks = 321;
  o.seed = 0xDEADBEEF12345678ull;
  CuckooFilter f(o);
  for (int i = 0; i < 4000; ++i) f.add(key("r", i));
  const auto bytes = f.serialize();
  REQUIRE(bytes.size() == f.serialized_size());
  auto g = CuckooFilter::deserialize(bytes);
  CHECK(g.serialize() == bytes);
  CHECK(g.size() == f.size());
  CHECK(g.capacity() == f.capacity());
  CHECK(g.max_kicks() == 321);
  CHECK(g.seed() == o.seed);
  CHECK(g.num_buckets() == f.num_buckets());
  for (int i = 0; i < 4000; ++i) REQUIRE(g.contains(key("r", i)) == f.contains(key("r", i)));
  // The loaded filter keeps working exactly like the original.
  for (int i = 4000; i < 4500; ++i) REQUIRE(g.add(key("r", i)) == f.add(key("r", i)));
  CHECK(g.serialize() == f.serialize());
}

TEST_CASE("every truncation is refused", "[format]") {
  const auto bytes = small_export();
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    const std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length));
    REQUIRE_THROWS_AS(CuckooFilter::deserialize(cut), FormatError);
  }
  CHECK_THAT(error_of({bytes.begin(), bytes.begin() + 10}), Catch::Contains("truncated"));
  CHECK_THAT(error_of({bytes.begin(), bytes.end() - 1}), Catch::Contains("truncated"));
}

TEST_CASE("every single bit flip is refused", "[format]") {
  const auto bytes = small_export();
  for (std::size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    auto damaged = bytes;
    damaged[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    REQUIRE_THROWS_AS(CuckooFilter::deserialize(damaged), FormatError);
  }
}

TEST_CASE("each header field is checked and named", "[format]") {
  const auto good = small_export();
  REQUIRE(error_of(good) == "(accepted)");
  auto bytes = good;
  bytes[0] = 'X';
  CHECK_THAT(error_of(bytes), Catch::Contains("magic"));

  bytes = good;
  put(bytes, format::offset::version, 9, 2);
  CHECK_THAT(error_of(bytes), Catch::Contains("unsupported format version 9"));
  // The pre-release versions had other alternate buckets: their tables would be misread, so they are
  // refused by name rather than loaded.
  for (const unsigned retired : {1u, 2u}) {
    bytes = good;
    put(bytes, format::offset::version, retired, 2);
    CHECK_THAT(error_of(bytes),
               Catch::Contains("format version " + std::to_string(retired) + " was written by a pre-release build"));
  }

  bytes = good;
  put(bytes, format::offset::flags, 2, 4);
  CHECK_THAT(error_of(bytes), Catch::Contains("unknown flags 2"));
  // Bit 0 (semi-sorted buckets) changes the table's length: this plain table's is then wrong.
  bytes = good;
  put(bytes, format::offset::flags, 1, 4);
  CHECK_THAT(error_of(bytes), Catch::Contains("semi-sorted"));

  bytes = good;
  put(bytes, format::offset::bucket_size, 3, 1);
  CHECK_THAT(error_of(bytes), Catch::Contains("bucket size 3"));

  bytes = good;
  put(bytes, format::offset::fingerprint_bits, 33, 1);
  CHECK_THAT(error_of(bytes), Catch::Contains("fingerprint bits 33"));

  bytes = good;
  put(bytes, format::offset::max_kicks, 0xFFFFFFFF, 4);
  CHECK_THAT(error_of(bytes), Catch::Contains("max kicks"));

  bytes = good;
  put(bytes, format::offset::capacity, 0, 8);
  CHECK_THAT(error_of(bytes), Catch::Contains("capacity"));

  // At most one item per slot: a larger capacity is not one this library writes.
  const std::uint64_t slots = format::get_le(good.data() + format::offset::num_buckets, 8) * 4;
  bytes = good;
  put(bytes, format::offset::capacity, slots + 1, 8);
  reseal(bytes);
  CHECK_THAT(error_of(bytes), Catch::Contains("capacity " + std::to_string(slots + 1) + " exceeds the " +
                                              std::to_string(slots) + " slots"));
  bytes = good;
  put(bytes, format::offset::capacity, slots, 8);
  reseal(bytes);
  CHECK(error_of(bytes) == "(accepted)");

  bytes = good;
  put(bytes, format::offset::num_buckets, 13, 8);
  CHECK_THAT(error_of(bytes), Catch::Contains("number of buckets 13"));

  bytes = good;
  put(bytes, format::offset::num_buckets, ~0ull, 8);
  CHECK_THAT(error_of(bytes), Catch::Contains("number of buckets"));
}

TEST_CASE("lengths that disagree with the data are refused before any allocation", "[format]") {
  const auto good = small_export();
  auto bytes = good;
  put(bytes, format::offset::table_length, std::uint64_t{1} << 62, 8);
  CHECK_THAT(error_of(bytes), Catch::Contains("table length"));

  // A header that describes a huge (but valid-looking) table, with no table behind it.
  bytes = good;
  const std::uint64_t buckets = kMaxBuckets;
  put(bytes, format::offset::num_buckets, buckets, 8);
  put(bytes, format::offset::table_length, cuckoo::detail::table_bytes(buckets, 4, 12, false), 8);
  CHECK_THAT(error_of(bytes), Catch::Contains("truncated"));

  bytes = good;
  bytes.push_back(0);
  CHECK_THAT(error_of(bytes), Catch::Contains("trailing"));
}

TEST_CASE("content checks behind a valid checksum", "[format]") {
  auto bytes = small_export();
  bytes[bytes.size() - 1] ^= 1;
  CHECK_THAT(error_of(bytes), Catch::Contains("checksum"));

  bytes = small_export();
  const auto items = format::get_le(bytes.data() + format::offset::item_count, 8);
  put(bytes, format::offset::item_count, items + 1, 8);
  reseal(bytes);
  CHECK_THAT(error_of(bytes), Catch::Contains("does not match"));

  bytes = small_export();
  put(bytes, format::offset::item_count, 1000000, 8);
  reseal(bytes);
  CHECK_THAT(error_of(bytes), Catch::Contains("exceeds"));

  // 2 buckets x 2 slots x 5 bits = 20 bits: the last byte has 4 unused bits, which must be zero.
  auto f = make_filter(1, 5, 2);
  REQUIRE(f.num_buckets() == 2);
  bytes = f.serialize();
  bytes[format::kHeaderSize + 2] |= 0x80;
  reseal(bytes);
  CHECK_THAT(error_of(bytes), Catch::Contains("unused bits"));
}

TEST_CASE("random bytes are refused", "[format]") {
  std::mt19937_64 rng(99);
  const auto good = small_export();
  for (int t = 0; t < 2000; ++t) {
    std::vector<std::uint8_t> bytes(rng() % 300);
    for (auto& byte : bytes) byte = static_cast<std::uint8_t>(rng());
    // Half of them with a valid magic and version, so the later checks are reached.
    if (t % 2 == 0 && bytes.size() >= 8) std::copy(good.begin(), good.begin() + 8, bytes.begin());
    REQUIRE_THROWS_AS(CuckooFilter::deserialize(bytes), FormatError);
  }
}

TEST_CASE("the non-throwing parser reports bad_format and leaves the output empty", "[format]") {
  std::optional<CuckooFilter> out;
  const std::vector<std::uint8_t> junk(100, 7);
  const Status s = CuckooFilter::parse(junk, out);
  CHECK(s.code == ErrorCode::bad_format);
  CHECK_FALSE(out.has_value());
  CHECK(CuckooFilter::parse(small_export(), out).ok());
  CHECK(out.has_value());
}
