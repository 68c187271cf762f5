// Semi-sorted buckets (detail/semi_sort.hpp, BucketTable's semi-sorted mode): a one-to-one code for the
// 3,876 sorted nibble tuples; buckets of four fingerprints of every width 5..32 that read back what was
// written, sorted, whatever the order it was given in; and a table whose buckets behave as multisets,
// against an exact model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cuckoo/detail/semi_sort.hpp>
#include <cuckoo/bucket_table.hpp>
#include <random>
#include <set>
#include <vector>

using namespace cuckoo::detail;
using namespace cuckoo::detail::semi_sort;

namespace {
using Bucket = std::array<std::uint32_t, kSlots>;

Bucket sorted(Bucket b) {
  std::sort(b.begin(), b.end());
  return b;
}

// Four fingerprints of f bits, with the empty slots, duplicates and extreme values real buckets have.
Bucket random_bucket(std::mt19937_64& rng, unsigned f) {
  const std::uint64_t top = (std::uint64_t{1} << f) - 1;
  Bucket fps{};
  for (auto& fp : fps) {
    const auto pick = rng() % 8;
    fp = pick == 0   ? 0u
         : pick == 1 ? static_cast<std::uint32_t>(top)
         : pick == 2 ? fps[0]
                     : static_cast<std::uint32_t>(rng() & top);
  }
  return fps;
}
}  // namespace

TEST_CASE("every sorted nibble tuple has its own 12-bit code, and decodes back", "[semi_sort]") {
  std::set<std::uint32_t> codes;
  const auto& table = nibble_table();
  for (std::uint32_t a = 0; a < 16; ++a)
    for (std::uint32_t b = a; b < 16; ++b)
      for (std::uint32_t c = b; c < 16; ++c)
        for (std::uint32_t d = c; d < 16; ++d) {
          const std::uint32_t code = encode_nibbles({a, b, c, d});
          REQUIRE(code < kNibbleTuples);
          codes.insert(code);
          REQUIRE(table[code] == (a | b << 4 | c << 8 | d << 12));
        }
  CHECK(codes.size() == kNibbleTuples);
  CHECK(kNibbleTuples < (1u << kCodeBits));
  CHECK(encode_nibbles({0, 0, 0, 0}) == 0);
  CHECK(encode_nibbles({15, 15, 15, 15}) == kNibbleTuples - 1);
}

TEST_CASE("a bucket takes 4f - 4 bits: one bit less per fingerprint", "[semi_sort]") {
  for (unsigned f = kMinFingerprintBits; f <= kMaxFingerprintBits; ++f) CHECK(bucket_bits(f) == 4 * f - 4);
}

TEST_CASE("buckets of every width read back sorted, from any order, touching only their own bits", "[semi_sort]") {
  std::mt19937_64 rng(20261123);
  for (unsigned f = kMinFingerprintBits; f <= kMaxFingerprintBits; ++f) {
    INFO("f = " << f);
    const unsigned width = bucket_bits(f);
    for (int trial = 0; trial < 2000; ++trial) {
      // The bucket at an odd bit offset between two runs of ones: it must replace exactly its own bits.
      const std::uint64_t at = 8 + rng() % 8;
      std::vector<std::uint8_t> stream(48, 0xFF);
      const Bucket fps = random_bucket(rng, f);
      write_bucket(stream.data(), at, fps, f);
      REQUIRE(read_bucket(stream.data(), at, f) == sorted(fps));
      for (std::uint64_t bit = 0; bit < 40 * 8; ++bit)
        if (bit < at || bit >= at + width) REQUIRE(((stream[bit / 8] >> (bit % 8)) & 1) == 1);
      // Canonical: every order of the same four gives the same bits; four empty slots give zeros.
      Bucket order = sorted(fps);
      do {
        std::vector<std::uint8_t> other(stream);
        write_bucket(other.data(), at, order, f);
        REQUIRE(other == stream);
      } while (std::next_permutation(order.begin(), order.end()));
      write_bucket(stream.data(), at, {0, 0, 0, 0}, f);
      for (std::uint64_t bit = at; bit < at + width; ++bit) REQUIRE(((stream[bit / 8] >> (bit % 8)) & 1) == 0);
    }
  }
}

TEST_CASE("different buckets get different bits", "[semi_sort]") {
  // Exhaustive for f = 5 (16-bit buckets): each of the C(35, 4) multisets of four fingerprints 0..31.
  std::set<std::uint32_t> seen;
  std::size_t buckets = 0;
  for (std::uint32_t a = 0; a < 32; ++a)
    for (std::uint32_t b = a; b < 32; ++b)
      for (std::uint32_t c = b; c < 32; ++c)
        for (std::uint32_t d = c; d < 32; ++d) {
          std::array<std::uint8_t, 16> stream{};
          write_bucket(stream.data(), 0, {d, b, a, c}, 5);
          seen.insert(stream[0] | stream[1] << 8);
          ++buckets;
        }
  CHECK(buckets == 52360);
  CHECK(seen.size() == buckets);
}

TEST_CASE("a semi-sorted table's buckets are multisets: random operations against a model", "[semi_sort]") {
  std::mt19937_64 rng(7);
  for (unsigned f : {5u, 6u, 9u, 12u, 13u, 16u, 17u, 24u, 28u, 31u, 32u}) {
    INFO("f = " << f);
    const std::uint64_t buckets = 37;
    BucketTable table;
    REQUIRE(table.allocate(buckets, kSlots, f, true));
    CHECK(table.byte_length() == (buckets * (4 * f - 4) + 7) / 8);
    std::vector<std::multiset<std::uint32_t>> model(buckets);
    const std::uint32_t top = static_cast<std::uint32_t>((std::uint64_t{1} << f) - 1);
    // A few values per width, so that duplicates and shared nibbles are common.
    const std::array<std::uint32_t, 6> values = {1, 2, top, top - 1, top >> 1, (top >> 4) + 1};
    for (int step = 0; step < 20000; ++step) {
      const std::uint64_t b = rng() % buckets;
      const std::uint32_t fp = values[rng() % values.size()];
      auto& m = model[b];
      switch (rng() % 4) {
        case 0: {  // insert
          const int slot = table.insert_if_room(b, fp);
          REQUIRE((slot >= 0) == (m.size() < kSlots));
          if (slot >= 0) {
            m.insert(fp);
            REQUIRE(table.get(b, static_cast<unsigned>(slot)) == fp);
          }
          break;
        }
        case 1: {  // remove one copy, as the filter does: find, then set the slot to 0
          const int slot = table.find(b, fp);
          REQUIRE((slot >= 0) == (m.count(fp) > 0));
          if (slot >= 0) {
            table.set(b, static_cast<unsigned>(slot), 0);
            m.erase(m.find(fp));
          }
          break;
        }
        case 2: {  // a kick-out step and its undo by value: the bits come back exactly
          if (m.size() < kSlots) break;
          const std::vector<std::uint8_t> before(table.data(), table.data() + table.byte_length());
          const auto slot = static_cast<unsigned>(rng() % kSlots);
          const std::uint32_t evicted = table.get(b, slot);
          const unsigned placed_at = table.set(b, slot, fp);
          REQUIRE(table.get(b, placed_at) == fp);
          REQUIRE(table.count(b, fp) == m.count(fp) + (evicted == fp ? 0 : 1));
          const unsigned restored_at = table.set(b, placed_at, evicted);  // the undo of a kick-out step
          REQUIRE(table.get(b, restored_at) == evicted);
          REQUIRE(std::vector<std::uint8_t>(table.data(), table.data() + table.byte_length()) == before);
          break;
        }
        default: {  // lookups
          REQUIRE(table.contains(b, fp) == (m.count(fp) > 0));
          REQUIRE(table.count(b, fp) == m.count(fp));
          REQUIRE(table.all_equal(b, fp) == (m.count(fp) == kSlots));
          const std::uint64_t other = (b + 1) % buckets;
          REQUIRE(table.contains_either(b, other, fp) == (m.count(fp) + model[other].count(fp) > 0));
        }
      }
    }
    std::uint64_t occupied = 0;
    for (std::uint64_t b = 0; b < buckets; ++b) {
      Bucket expected{};  // the model's bucket, ascending, empties first
      std::size_t i = kSlots - model[b].size();
      for (const std::uint32_t fp : model[b]) expected[i++] = fp;
      REQUIRE(table.semi_sorted_bucket(b) == expected);
      occupied += model[b].size();
    }
    CHECK(table.count_occupied() == occupied);
    table.clear();
    CHECK(table.count_occupied() == 0);
  }
}

TEST_CASE("a semi-sorted table too large to address is refused, and the table stays as it was", "[semi_sort]") {
  BucketTable table;
  REQUIRE(table.allocate(10, kSlots, 13, true));
  for (const std::uint32_t fp : {7u, 5u, 7u}) REQUIRE(table.insert_if_room(3, fp) >= 0);
  // Its bit count overflows 64 bits. (A size calloc refuses is not tried here: ASan aborts on it.)
  CHECK_FALSE(table.allocate(std::uint64_t{1} << 62, kSlots, 13, true));
  CHECK(table.num_buckets() == 10);
  CHECK(table.fingerprint_bits() == 13);
  CHECK(table.semi_sorted());
  CHECK(table.semi_sorted_bucket(3) == Bucket{0, 5, 7, 7});
  CHECK(table.contains_either(2, 3, 5));
}
