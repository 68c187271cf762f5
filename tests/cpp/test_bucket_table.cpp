// The packed table, for every supported width: what is written is read back, neighbours never change,
// and the SWAR lookup and search agree with a slot-by-slot scan.
#include <catch2/catch.hpp>

#include <cuckoo/bucket_table.hpp>
#include <random>
#include <vector>

using cuckoo::detail::BucketTable;

namespace {

struct Model {
  std::uint64_t buckets;
  unsigned b;
  std::vector<std::uint32_t> slots;
  std::uint32_t& at(std::uint64_t i, unsigned s) { return slots[i * b + s]; }
  bool contains(std::uint64_t i, std::uint32_t fp) { return first(i, fp) >= 0; }
  int first(std::uint64_t i, std::uint32_t fp) {
    for (unsigned s = 0; s < b; ++s)
      if (at(i, s) == fp) return static_cast<int>(s);
    return -1;
  }
};

// The first slot holding fp, read slot by slot with get() (independent of find's word search).
int first_slot(const BucketTable& table, std::uint64_t bucket, std::uint32_t fp) {
  for (unsigned s = 0; s < table.bucket_size(); ++s)
    if (table.get(bucket, s) == fp) return static_cast<int>(s);
  return -1;
}

}  // namespace

TEST_CASE("table packing round-trips every width and bucket size", "[table]") {
  const unsigned b = GENERATE(2u, 4u, 8u);
  const unsigned bits = GENERATE(range(4u, 33u));
  const std::uint64_t buckets = 38;  // not a power of two, and odd bit totals for odd widths
  BucketTable table;
  REQUIRE(table.allocate(buckets, b, bits));
  CHECK(table.byte_length() == (buckets * b * bits + 7) / 8);
  CHECK(table.allocated_bytes() == table.byte_length() + BucketTable::kTailPadding);

  Model model{buckets, b, std::vector<std::uint32_t>(buckets * b, 0)};
  std::mt19937_64 rng(bits * 100 + b);
  const std::uint64_t top = (std::uint64_t{1} << bits) - 1;
  for (int step = 0; step < 4000; ++step) {
    const auto i = rng() % buckets;
    const auto s = static_cast<unsigned>(rng() % b);
    // Extreme values (all ones, 1) as well as random ones, so carries across slot borders show up.
    const auto kind = rng() % 4;
    const auto fp = static_cast<std::uint32_t>(kind == 0 ? top : kind == 1 ? 1 : kind == 2 ? 0 : rng() % top + 1);
    table.set(i, s, fp);
    model.at(i, s) = fp;
    if (step % 97 == 0) {
      for (std::uint64_t bi = 0; bi < buckets; ++bi)
        for (unsigned si = 0; si < b; ++si) REQUIRE(table.get(bi, si) == model.at(bi, si));
    }
  }
  for (std::uint64_t i = 0; i < buckets; ++i) {
    for (unsigned s = 0; s < b; ++s) {
      const auto fp = model.at(i, s);
      REQUIRE(table.get(i, s) == fp);
      REQUIRE(table.contains(i, fp));
      REQUIRE(table.find(i, fp) == model.first(i, fp));
    }
    for (int probe = 0; probe < 20; ++probe) {
      const auto fp = static_cast<std::uint32_t>(rng() % top + 1);
      REQUIRE(table.contains(i, fp) == model.contains(i, fp));
      REQUIRE(table.find(i, fp) == model.first(i, fp));
      REQUIRE(table.contains_either(i, (i + 1) % buckets, fp) ==
              (model.contains(i, fp) || model.contains((i + 1) % buckets, fp)));
    }
  }
  // The padding after the packed bytes is never written.
  const std::uint8_t* tail = table.data() + table.byte_length();
  for (std::size_t k = 0; k < BucketTable::kTailPadding; ++k) CHECK(tail[k] == 0);
  // Bits past the last slot in the last byte stay zero (the export format requires it).
  const std::uint64_t used = buckets * b * bits;
  if (used % 8 != 0) CHECK((table.data()[table.byte_length() - 1] >> (used % 8)) == 0);
}

TEST_CASE("insert_if_room fills slots in order and reports a full bucket", "[table]") {
  const unsigned b = GENERATE(2u, 4u, 8u);
  BucketTable table;
  REQUIRE(table.allocate(4, b, 12));
  for (unsigned s = 0; s < b; ++s) CHECK(table.insert_if_room(1, 100 + s) == static_cast<int>(s));
  CHECK(table.insert_if_room(1, 7) == -1);
  CHECK(table.count(1, 100) == 1);
  CHECK(table.count_occupied() == b);
  table.set(1, 0, 0);
  CHECK(table.insert_if_room(1, 7) == 0);
  table.clear();
  CHECK(table.count_occupied() == 0);
}

TEST_CASE("SWAR match agrees with the scan on adversarial neighbours", "[table]") {
  // A field one below the probe next to a zero field is the classic false match of naive SWAR tests.
  for (unsigned bits : {4u, 7u, 8u, 12u, 13u, 16u}) {
    BucketTable table;
    REQUIRE(table.allocate(2, 4, bits));
    const std::uint32_t top = (1u << bits) - 1;
    for (std::uint32_t probe : {1u, 2u, top, top - 1, 1u << (bits - 1)}) {
      table.clear();
      table.set(0, 0, probe - 1 == 0 ? top : probe - 1);
      table.set(0, 1, 0);
      table.set(0, 2, probe + 1 > top ? 1 : probe + 1);
      table.set(0, 3, probe ^ 1);
      REQUIRE_FALSE(table.contains(0, probe));
      table.set(0, 3, probe);
      REQUIRE(table.contains(0, probe));
    }
  }
}

TEST_CASE("insert_if_room picks the lowest empty slot, for every width", "[table]") {
  const unsigned b = GENERATE(2u, 4u, 8u);
  const unsigned bits = GENERATE(range(4u, 33u));
  BucketTable table;
  REQUIRE(table.allocate(6, b, bits));
  std::mt19937_64 rng(bits * 7 + b);
  const std::uint64_t top = (std::uint64_t{1} << bits) - 1;
  for (int round = 0; round < 300; ++round) {
    const auto bucket = rng() % 6;
    // A random occupancy pattern, with extreme values next to the empty slots.
    for (unsigned s = 0; s < b; ++s)
      table.set(bucket, s, rng() % 3 == 0 ? 0 : static_cast<std::uint32_t>(rng() % 2 ? top : rng() % top + 1));
    const int expected = first_slot(table, bucket, 0);
    const auto fp = static_cast<std::uint32_t>(rng() % top + 1);
    REQUIRE(table.insert_if_room(bucket, fp) == expected);
    if (expected >= 0) REQUIRE(table.get(bucket, static_cast<unsigned>(expected)) == fp);
  }
}

TEST_CASE("all_equal is true only when every slot holds the fingerprint", "[table]") {
  const unsigned b = GENERATE(2u, 4u, 8u);
  const unsigned bits = GENERATE(4u, 9u, 12u, 16u, 31u, 32u);
  BucketTable table;
  REQUIRE(table.allocate(4, b, bits));
  const auto top = static_cast<std::uint32_t>((std::uint64_t{1} << bits) - 1);
  for (std::uint32_t fp : {1u, top}) {
    for (unsigned s = 0; s < b; ++s) table.set(2, s, fp);
    CHECK(table.all_equal(2, fp));
    table.set(2, b - 1, fp == 1 ? 2 : 1);
    CHECK_FALSE(table.all_equal(2, fp));
    table.set(2, b - 1, 0);
    CHECK_FALSE(table.all_equal(2, fp));
  }
  CHECK_FALSE(table.all_equal(0, 1));  // an empty bucket
}

TEST_CASE("a table past the huge-page threshold is zeroed, usable to its last slot, and 2 MiB-aligned on Linux",
          "[table]") {
  // 16-bit slots, 4 a bucket: 8 bytes a bucket, so this table is just over the threshold.
  const std::uint64_t buckets = cuckoo::detail::kHugePageTableBytes / 8 + 3;
  BucketTable table;
  REQUIRE(table.allocate(buckets, 4, 16));
  REQUIRE(table.byte_length() >= cuckoo::detail::kHugePageTableBytes);
#if CUCKOO_HUGE_PAGE_TABLES
  // Its own mapping at a page boundary, so that every 2 MiB of it can be one huge page.
  CHECK(reinterpret_cast<std::uintptr_t>(table.data()) % cuckoo::detail::kHugePageBytes == 0);
#endif
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> sample = {0, buckets - 2, buckets - 1};
  for (int i = 0; i < 2000; ++i) sample.push_back(rng() % buckets);
  for (const std::uint64_t bucket : sample)
    for (unsigned s = 0; s < 4; ++s) REQUIRE(table.get(bucket, s) == 0);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> written;
  for (const std::uint64_t bucket : sample) {
    const auto fp = static_cast<std::uint32_t>(rng() % 0xFFFF + 1);
    if (table.insert_if_room(bucket, fp) >= 0) written.emplace_back(bucket, fp);
  }
  REQUIRE(written.size() == sample.size());  // at most a few repeats in a bucket of four
  for (const auto& [bucket, fp] : written) CHECK(table.contains_either(bucket, buckets - 1, fp));
  for (unsigned s = 0; s < 4; ++s)
    table.set(buckets - 1, s, 0xFFFF);  // the last bucket full: its word load stays in bounds
  CHECK(table.all_equal(buckets - 1, 0xFFFF));
  BucketTable moved = std::move(table);
  CHECK(moved.contains_either(buckets - 1, buckets - 1, 0xFFFF));
}
