// Filters with semi-sorted buckets (Options::semi_sorted): the options, the space they save, and every
// mechanism on them: the kick-out walk and its undo, duplicates, batches, growth, merge and union, the
// export format and its checks, and the trace. (The model test is in test_model.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace cuckoo;
using cuckoo_test::error_of;
using cuckoo_test::key;
using cuckoo_test::make_filter;
using cuckoo_test::measured_fp_rate;

namespace {
CuckooFilter semi(std::uint64_t capacity, unsigned bits, unsigned max_kicks = 500) {
  return make_filter(capacity, bits, 4, max_kicks, kDefaultSeed, true);
}
}  // namespace

TEST_CASE("semi_sorted options: bucket size 4 and 5..32 bits, or a clear error", "[semi_sort]") {
  Options o;
  o.capacity = 1000;
  o.semi_sorted = true;
  Layout layout;
  CHECK(resolve_layout(o, layout).ok());
  CHECK(layout.semi_sorted);
  CHECK(layout.fingerprint_bits == 13);  // fp_rate 0.001: the same width as plain buckets

  o.bucket_size = 8;
  CHECK_THAT(resolve_layout(o, layout).message, Catch::Contains("semi_sorted needs bucket_size 4 (got 8)"));
  o.bucket_size = 4;
  o.fingerprint_bits = 4;
  CHECK_THAT(resolve_layout(o, layout).message,
             Catch::Contains("semi_sorted needs fingerprint_bits from 5 to 32 (got 4)"));
  // A rate that plain buckets meet with 4 bits gets 5: a lower rate than asked, never a refusal.
  o.fingerprint_bits.reset();
  o.fp_rate = 0.6;
  REQUIRE(resolve_layout(o, layout).ok());
  CHECK(layout.fingerprint_bits == 5);

  // Not set: plain buckets when the width is given.
  Options plain;
  plain.capacity = 1000;
  plain.fingerprint_bits = 13;
  REQUIRE(resolve_layout(plain, layout).ok());
  CHECK_FALSE(layout.semi_sorted);
}

TEST_CASE("semi-sorted buckets save one bit per fingerprint: a 0.001 filter takes 12.63 bits per item", "[semi_sort]") {
  const std::uint64_t capacity = 1'000'000;
  Options o;
  o.capacity = capacity;
  o.fp_rate = 0.001;
  o.semi_sorted = false;
  const CuckooFilter plain(o);
  o.semi_sorted = true;
  const CuckooFilter sorted(o);
  REQUIRE(plain.fingerprint_bits() == sorted.fingerprint_bits());
  const auto bits_per_item = [&](const CuckooFilter& f) {
    return static_cast<double>(f.serialized_size() - format::kHeaderSize - format::kChecksumSize) * 8 /
           static_cast<double>(capacity);
  };
  CHECK(bits_per_item(plain) == Approx(13.0 / 0.95).epsilon(0.001));   // 13.68
  CHECK(bits_per_item(sorted) == Approx(12.0 / 0.95).epsilon(0.001));  // 12.63
  CHECK(sorted.byte_size() < plain.byte_size());
}

TEST_CASE("semi-sorted fill: capacity items fit and the false-positive rate is the plain table's",
          "[fill][semi_sort]") {
  const std::uint64_t capacity = GENERATE(1000ull, 65537ull, 300000ull);
  Options o;
  o.capacity = capacity;
  o.fp_rate = 0.001;
  o.semi_sorted = true;
  CuckooFilter f(o);
  for (std::uint64_t i = 0; i < capacity; ++i) REQUIRE(f.add(key("in", i)));
  for (std::uint64_t i = 0; i < capacity; ++i) REQUIRE(f.contains(key("in", i)));
  const double measured = measured_fp_rate(f, "out", 400'000);
  const double bits_per_item = static_cast<double>(f.byte_size()) * 8 / static_cast<double>(capacity);
  INFO("capacity " << capacity << ": FPR " << measured << " (expected " << f.expected_fp_rate() << "), "
                   << bits_per_item << " bits per item");
  CHECK(measured <= 0.001);
  CHECK(measured == Approx(f.expected_fp_rate()).epsilon(0.25));
  if (capacity >= 65537) CHECK(bits_per_item <= 12.7);
}

TEST_CASE("a failed add on semi-sorted buckets leaves the filter bit for bit unchanged", "[semi_sort]") {
  const unsigned bits = GENERATE(5u, 8u, 9u, 13u, 16u, 17u, 24u, 31u, 32u);
  INFO("f=" << bits);
  auto f = semi(200, bits, 200);
  cuckoo_test::check_failed_adds_change_nothing(f);
  CHECK(f.load_factor() > 0.9);
}

TEST_CASE("semi-sorted: 2b copies of a key, count and delete", "[semi_sort]") {
  auto f = semi(100, 9);
  for (int i = 0; i < 8; ++i) REQUIRE(f.add("dup"));
  CHECK(f.count("dup") == 8);
  const auto before = f.serialize();
  CHECK_FALSE(f.add("dup"));
  CHECK(f.last_add_failure() == AddFailure::duplicate_limit);
  CHECK(f.serialize() == before);
  for (int i = 8; i-- > 0;) {
    REQUIRE(f.remove("dup"));
    CHECK(f.count("dup") == static_cast<std::size_t>(i));
  }
  CHECK_FALSE(f.contains("dup"));
  CHECK(f.size() == 0);
}

TEST_CASE("semi-sorted batches give the same results and the same table as single calls", "[semi_sort]") {
  const unsigned bits = GENERATE(7u, 12u, 16u, 17u, 25u);
  INFO("f=" << bits);
  auto single = semi(3000, bits);
  auto batched = semi(3000, bits);
  std::string bytes;
  std::vector<std::uint32_t> offsets{0};
  for (std::uint64_t i = 0; i < 3300; ++i) {  // past capacity: some adds find no room
    bytes += key("b", i % 3100);
    offsets.push_back(static_cast<std::uint32_t>(bytes.size()));
  }
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const std::size_t n = offsets.size() - 1;
  std::vector<std::uint8_t> results(n);
  batched.add_many(data, offsets.data(), n, results.data());
  for (std::size_t i = 0; i < n; ++i) {
    const bool ok = single.add(std::string_view(bytes).substr(offsets[i], offsets[i + 1] - offsets[i]));
    REQUIRE(results[i] == static_cast<std::uint8_t>(ok ? KeyResult::yes : KeyResult::no_room));
  }
  CHECK(batched.serialize() == single.serialize());
  batched.contains_many(data, offsets.data(), n, results.data());
  for (std::size_t i = 0; i < n; ++i)
    REQUIRE(results[i] == static_cast<std::uint8_t>(yes_or_no(single.contains(
                              std::string_view(bytes).substr(offsets[i], offsets[i + 1] - offsets[i])))));
  std::vector<std::uint64_t> ints(500);
  for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = i * 7919;
  std::vector<std::uint8_t> int_results(ints.size());
  auto fresh = semi(1000, bits);
  fresh.add_many(std::span<const std::uint64_t>(ints), int_results.data());
  for (const std::uint64_t k : ints) REQUIRE(fresh.contains(k));
  fresh.remove_many(std::span<const std::uint64_t>(ints), int_results.data());
  CHECK(fresh.size() == 0);
}

TEST_CASE("a growing semi-sorted filter: each sub-filter one bit wider and semi-sorted, nothing lost",
          "[semi_sort][growth]") {
  Options o;
  o.capacity = 500;
  o.fp_rate = 0.01;
  o.growth = 2;
  o.semi_sorted = true;
  CuckooFilter f(o);
  for (std::uint64_t i = 0; i < 20000; ++i) REQUIRE(f.add(key("g", i)));
  REQUIRE(f.sub_filter_count() >= 5);
  for (std::uint64_t i = 0; i < 20000; ++i) REQUIRE(f.contains(key("g", i)));
  CHECK(measured_fp_rate(f, "never", 200'000) <= 0.01);
  // The chain round-trips through version 4 with the flag, and its bytes are its own.
  const auto bytes = f.serialize();
  CHECK(detail::get_le(bytes.data() + format::offset::flags, 4) == format::kFlagSemiSorted);
  const auto back = CuckooFilter::deserialize(bytes);
  CHECK(back.serialize() == bytes);
  CHECK(back.layout().semi_sorted);
  for (std::uint64_t i = 0; i < 20000; i += 7) REQUIRE(back.contains(key("g", i)));
}

TEST_CASE("merge and union of semi-sorted filters; a plain and a semi-sorted one are refused", "[semi_sort][merge]") {
  auto a = semi(2000, 14);
  auto b = semi(2000, 14);
  for (std::uint64_t i = 0; i < 700; ++i) REQUIRE(a.add(key("a", i)));
  for (std::uint64_t i = 0; i < 700; ++i) REQUIRE(b.add(key("b", i)));
  auto merged = semi(2000, 14);
  REQUIRE(merged.merge(a).ok());
  REQUIRE(merged.merge(b).ok());
  CHECK(merged.size() == 1400);
  for (std::uint64_t i = 0; i < 700; ++i) REQUIRE((merged.contains(key("a", i)) && merged.contains(key("b", i))));
  // The union with a subset changes nothing.
  const auto before = merged.serialize();
  REQUIRE(merged.union_with(a).ok());
  CHECK(merged.serialize() == before);
  // Merging into itself doubles every count.
  auto twice = semi(2000, 14);
  REQUIRE(twice.merge(a).ok());
  REQUIRE(twice.merge(a).ok());
  CHECK(twice.count(key("a", 3)) >= 2);
  CHECK(twice.size() == 1400);

  auto plain = make_filter(2000, 14, 4);
  const Status s = plain.merge(a);
  CHECK(s.code == ErrorCode::invalid_argument);
  CHECK_THAT(s.message, Catch::Contains("semi-sorted"));
}

TEST_CASE("semi-sorted exports: the flag, the length, and buckets no writer writes are refused",
          "[semi_sort][format]") {
  auto f = semi(64, 13);
  for (std::uint64_t i = 0; i < 40; ++i) REQUIRE(f.add(key("x", i)));
  const auto good = f.serialize();
  CHECK(detail::get_le(good.data() + format::offset::flags, 4) == format::kFlagSemiSorted);
  CHECK(detail::get_le(good.data() + format::offset::table_length, 8) == (f.num_buckets() * 48 + 7) / 8);
  REQUIRE(error_of(good) == "(accepted)");
  const auto with_checksum = [](std::vector<std::uint8_t> bytes) {
    cuckoo_test::reseal(bytes);
    return bytes;
  };
  // Without the flag the same bytes are a plain table of another length.
  auto bytes = good;
  detail::put_le(bytes.data() + format::offset::flags, 0, 4);
  CHECK_THAT(error_of(with_checksum(bytes)), Catch::Contains("table length"));
  // A code that is none of the 3,876 (bucket 0's first 12 bits), with a valid checksum.
  bytes = good;
  bytes[format::kHeaderSize] = 0xFF;
  bytes[format::kHeaderSize + 1] |= 0x0F;
  CHECK_THAT(error_of(with_checksum(bytes)), Catch::Contains("bucket 0 is not a semi-sorted bucket"));
  // Equal nibbles whose low bits are out of order: code 0 (four zero nibbles), then the 9-bit low fields
  // 5, 3, 0, 0 (bucket 0 is the table's first 48 bits: the code, then a low field at bits 12 + 9s).
  bytes = good;
  detail::put_le(bytes.data() + format::kHeaderSize, std::uint64_t{5} << 12 | std::uint64_t{3} << 21, 6);
  const std::string message = error_of(with_checksum(bytes));
  CHECK_THAT(message, Catch::Contains("bucket 0 is not a semi-sorted bucket"));
  // The flag with another bucket size.
  auto eight = make_filter(64, 13, 8);
  bytes = eight.serialize();
  detail::put_le(bytes.data() + format::offset::flags, format::kFlagSemiSorted, 4);
  CHECK_THAT(error_of(with_checksum(bytes)), Catch::Contains("semi-sorted buckets with bucket size 8"));
}

TEST_CASE("the trace of a semi-sorted insert says where each fingerprint is after each step", "[semi_sort][trace]") {
  auto f = semi(60, 8);
  InsertTrace trace;
  f.set_trace(&trace);
  std::size_t kicks_seen = 0, failures = 0, moved = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    // The table before the insert, bucket by bucket, as multisets in slot order.
    std::vector<std::array<std::uint32_t, 4>> buckets(f.num_buckets());
    for (std::uint64_t bk = 0; bk < f.num_buckets(); ++bk)
      for (unsigned s = 0; s < 4; ++s) buckets[bk][s] = static_cast<std::uint32_t>(f.slot(bk, s));
    const bool added = f.add(key("t", i));
    CHECK(added == (trace.outcome == InsertOutcome::placed));
    for (const auto& step : trace.steps) {
      auto& b = buckets[step.bucket];
      // Replay: the fingerprint that leaves (0 for a placement into a free slot) is replaced by the one
      // that arrives, and the bucket re-sorts; the step's slot is where the arriving one is then.
      const std::uint32_t leaving = step.kind == TraceStepKind::place ? 0 : step.fingerprint_out;
      auto it = std::find(b.begin(), b.end(), leaving);
      REQUIRE(it != b.end());
      const auto before_slot = static_cast<unsigned>(it - b.begin());
      *it = step.fingerprint_in;
      std::sort(b.begin(), b.end());
      REQUIRE(b[step.slot] == step.fingerprint_in);
      moved += before_slot != step.slot;
      kicks_seen += step.kind == TraceStepKind::kick;
    }
    failures += !added;
    for (std::uint64_t bk = 0; bk < f.num_buckets(); ++bk)
      for (unsigned s = 0; s < 4; ++s) REQUIRE(f.slot(bk, s) == buckets[bk][s]);
  }
  CHECK(kicks_seen > 0);
  CHECK(failures > 0);
  CHECK(moved > 0);  // re-sorting did move fingerprints to other slots than the one written
}

TEST_CASE("expected_fp_rate of a semi-sorted filter is that of plain buckets of the same width", "[semi_sort]") {
  auto a = semi(5000, 11);
  auto b = make_filter(5000, 11, 4);
  for (std::uint64_t i = 0; i < 4000; ++i) {
    REQUIRE(a.add(key("e", i)));
    REQUIRE(b.add(key("e", i)));
  }
  CHECK(a.expected_fp_rate() == b.expected_fp_rate());
  CHECK(a.byte_size() < b.byte_size());
}

TEST_CASE("semi-sorted fill at every width 5..32: capacity items fit, FPR within the full-load bound",
          "[fill][semi_sort]") {
  const std::uint64_t capacity = 20000;
  for (unsigned bits = 5; bits <= 32; ++bits) {
    INFO("f=" << bits);
    auto f = semi(capacity, bits);
    for (std::uint64_t i = 0; i < capacity; ++i) REQUIRE(f.add(key("in", i)));
    for (std::uint64_t i = 0; i < capacity; ++i) REQUIRE(f.contains(key("in", i)));
    // The bound at full load, with room for the sampling error of 100,000 probes.
    CHECK(measured_fp_rate(f, "out", 100'000) <= detail::full_load_fp_bound(4, bits) * 1.1 + 3e-4);
    CHECK(f.byte_size() * 8 <= (capacity * (4 * bits - 4) / 4) * 100 / 95 + 8 * 64 + 64);
  }
}
