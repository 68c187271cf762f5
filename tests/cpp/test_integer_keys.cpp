// Integer keys: an integer is the same key as its 8 little-endian bytes (two's complement for negative
// values), through single calls and batches, and with byte keys in the same filter.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "test_support.hpp"

using cuckoo::CuckooFilter;
using cuckoo_test::make_filter;

namespace {

std::vector<std::uint8_t> le_bytes(std::uint64_t v) {
  std::vector<std::uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
  return out;
}

std::string as_text(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

std::vector<std::uint64_t> sample_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> keys = {
      0, 1, 0xFFFFFFFFull, 0x100000000ull, 0x8000000000000000ull, ~0ull, static_cast<std::uint64_t>(std::int64_t{-42})};
  while (keys.size() < n) keys.push_back(rng());
  return keys;
}

}  // namespace

TEST_CASE("an integer key is its 8 little-endian bytes, with any seed", "[integer]") {
  for (const std::uint64_t seed : {std::uint64_t{0}, cuckoo::kDefaultSeed, std::uint64_t{0x0123456789ABCDEF}}) {
    cuckoo::Options o;
    o.capacity = 1000;
    o.seed = seed;
    const CuckooFilter f(o);
    for (const std::uint64_t k : sample_keys(20000, seed + 1)) {
      const auto bytes = le_bytes(k);
      REQUIRE(f.hash_of(bytes.data(), 8) == cuckoo::hash_bytes(bytes.data(), 8, seed));
      const cuckoo::Location a = f.locate(k);
      const cuckoo::Location b = f.locate(std::span<const std::uint8_t>(bytes));
      REQUIRE(a.hash == b.hash);
      REQUIRE(a.index == b.index);
      REQUIRE(a.alternate_index == b.alternate_index);
      REQUIRE(a.fingerprint == b.fingerprint);
    }
  }
  // -1 as a signed 64-bit integer is the key ff ff ff ff ff ff ff ff.
  auto f = make_filter(100, 12, 4);
  REQUIRE(f.add(static_cast<std::uint64_t>(std::int64_t{-1})));
  CHECK(f.contains(std::span<const std::uint8_t>(le_bytes(~0ull))));
  CHECK(f.count(~0ull) == 1);
  CHECK(f.remove(std::span<const std::uint8_t>(le_bytes(~0ull))));
  CHECK_FALSE(f.contains(~0ull));
}

TEST_CASE("integer batches give the results of single calls, also when the chain grows mid-batch", "[integer]") {
  const unsigned growth = GENERATE(0u, 2u);
  CAPTURE(growth);
  cuckoo::Options o;
  o.capacity = 500;
  o.fingerprint_bits = 12;
  o.max_kicks = 50;
  if (growth != 0) o.growth = growth;
  CuckooFilter single(o), batched(o);
  auto keys = sample_keys(1500, 7);
  keys.insert(keys.end(), keys.begin(), keys.begin() + 200);  // repeats
  std::vector<std::uint8_t> results(keys.size(), 9);
  std::size_t added = 0;
  for (std::size_t start = 0; start < keys.size(); start += 400) {
    const std::size_t n = std::min<std::size_t>(400, keys.size() - start);
    added += batched.add_many(std::span<const std::uint64_t>(keys.data() + start, n), results.data() + start);
  }
  std::size_t single_added = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool ok = single.add(keys[i]);
    single_added += ok;
    REQUIRE(results[i] == static_cast<std::uint8_t>(ok ? cuckoo::KeyResult::yes : cuckoo::KeyResult::no_room));
  }
  CHECK(added == single_added);
  CHECK(batched.serialize() == single.serialize());
  if (growth == 0)
    CHECK(added < keys.size());
  else
    CHECK(single.sub_filter_count() > 1);

  batched.contains_many(std::span<const std::uint64_t>(keys), results.data());
  for (std::size_t i = 0; i < keys.size(); ++i) REQUIRE(results[i] == (single.contains(keys[i]) ? 1 : 0));
  const std::size_t removed = batched.remove_many(std::span<const std::uint64_t>(keys.data(), 300), results.data());
  std::size_t single_removed = 0;
  for (std::size_t i = 0; i < 300; ++i) {
    const bool ok = single.remove(keys[i]);
    single_removed += ok;
    REQUIRE(results[i] == (ok ? 1 : 0));
  }
  CHECK(removed == single_removed);
  CHECK(batched.serialize() == single.serialize());
}

TEST_CASE("integer and byte keys in one filter against an exact multiset", "[integer][model]") {
  auto f = make_filter(4000, 16, 4, 500);
  std::map<std::string, int> model;  // keys by their bytes: an integer by its 8 LE bytes
  std::mt19937_64 rng(99);
  for (int op = 0; op < 20000; ++op) {
    const std::uint64_t v = rng() % 3000;
    const bool as_integer = (rng() & 1) != 0;
    // Half of the byte keys are 8-byte encodings of the same integers: the same keys by another route.
    const std::vector<std::uint8_t> bytes =
        (rng() & 1) != 0 ? le_bytes(v) : cuckoo_test::bytes_of(cuckoo_test::key("k", v));
    const bool integer = as_integer && bytes.size() == 8;
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data(), std::min<std::size_t>(8, bytes.size()));
    const auto span = std::span<const std::uint8_t>(bytes);
    if (rng() % 3 != 0) {
      if (integer ? f.add(value) : f.add(span)) ++model[as_text(bytes)];
    } else if (model.count(as_text(bytes)) != 0) {
      REQUIRE((integer ? f.remove(value) : f.remove(span)));
      if (--model[as_text(bytes)] == 0) model.erase(as_text(bytes));
    }
    if (op % 1000 == 0)
      for (const auto& [k, copies] : model) REQUIRE(f.contains(std::string_view(k)));
  }
  for (const auto& [k, copies] : model) {
    REQUIRE(f.contains(std::string_view(k)));
    if (k.size() == 8) {
      std::uint64_t value = 0;
      std::memcpy(&value, k.data(), 8);
      REQUIRE(f.contains(value));
      REQUIRE(f.count(value) >= static_cast<std::size_t>(copies));
    }
  }
}

TEST_CASE("32-bit integer batches are the same keys as their 64-bit values", "[integer]") {
  auto a = make_filter(3000, 12, 4);
  auto b = make_filter(3000, 12, 4);
  std::vector<std::uint32_t> narrow;
  std::vector<std::uint64_t> wide;
  for (std::uint32_t i = 0; i < 2000; ++i) {
    narrow.push_back(i * 2654435761u);
    wide.push_back(narrow.back());
  }
  std::vector<std::uint8_t> ra(narrow.size()), rb(wide.size());
  CHECK(a.add_many(std::span<const std::uint32_t>(narrow), ra.data()) ==
        b.add_many(std::span<const std::uint64_t>(wide), rb.data()));
  CHECK(ra == rb);
  CHECK(a.serialize() == b.serialize());
  a.contains_many(std::span<const std::uint32_t>(narrow), ra.data());
  for (std::size_t i = 0; i < narrow.size(); ++i) REQUIRE(ra[i] == static_cast<std::uint8_t>(cuckoo::KeyResult::yes));
  CHECK(a.remove_many(std::span<const std::uint32_t>(narrow), ra.data()) == narrow.size());
  CHECK(a.size() == 0);
}
