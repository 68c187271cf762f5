// Model test: millions of random operations, checked against an exact multiset. The filter may answer
// "present" for keys it never saw (false positives) but must never miss a key the model holds, and its
// size must always equal the model's.
#include <catch2/catch.hpp>

#include <random>
#include <unordered_map>

#include "test_support.hpp"

using namespace cuckoo;

namespace {

struct Config {
  unsigned bucket_size;
  unsigned bits;
  std::uint64_t capacity;
  int operations;
  bool semi_sorted = false;
};

void run_model(const Config& c, std::uint64_t seed) {
  auto f = cuckoo_test::make_filter(c.capacity, c.bits, c.bucket_size, 500, seed, c.semi_sorted);
  REQUIRE(f.layout().semi_sorted == c.semi_sorted);
  std::mt19937_64 rng(seed);
  // More distinct keys than the filter holds, so that it runs full and adds fail; few enough that
  // keys repeat (duplicates).
  const std::uint64_t pool = c.capacity * 3 / 2;
  std::vector<std::string> keys;
  keys.reserve(pool);
  for (std::uint64_t i = 0; i < pool; ++i) keys.push_back(cuckoo_test::key("m", i));
  std::unordered_map<std::uint64_t, unsigned> model;  // key index -> copies
  std::vector<std::uint64_t> present;                 // key indices with copies (may repeat)
  std::uint64_t model_size = 0, failed_adds = 0, false_positives = 0, absent_lookups = 0;

  const auto check_all = [&] {
    REQUIRE(f.size() == model_size);
    for (const auto& [k, copies] : model) {
      REQUIRE(f.contains(keys[k]));
      // count includes other keys' identical fingerprints, so it is a bound; with 32-bit fingerprints a
      // collision is unlikely enough that it is exact.
      REQUIRE(f.count(keys[k]) >= copies);
      if (c.bits == 32) REQUIRE(f.count(keys[k]) == copies);
    }
  };

  for (int op = 0; op < c.operations; ++op) {
    const auto roll = rng() % 100;
    if (roll < 45) {
      const auto k = rng() % pool;
      const auto before = f.size();
      if (f.add(keys[k])) {
        ++model[k];
        present.push_back(k);
        ++model_size;
      } else {
        ++failed_adds;
        REQUIRE(f.size() == before);
      }
    } else if (roll < 75) {
      // Only remove what was added: removing a never-added key is documented as unsafe.
      if (present.empty()) continue;
      const auto pick = rng() % present.size();
      const auto k = present[pick];
      present[pick] = present.back();
      present.pop_back();
      REQUIRE(f.remove(keys[k]));
      if (--model[k] == 0) model.erase(k);
      --model_size;
    } else {
      const auto k = rng() % pool;
      const bool in_model = model.count(k) != 0;
      const bool answer = f.contains(keys[k]);
      if (in_model) REQUIRE(answer);
      if (!in_model) {
        ++absent_lookups;
        false_positives += answer;
      }
    }
    if (op % 50000 == 0) check_all();
  }
  check_all();
  INFO("failed adds " << failed_adds << ", false positives " << false_positives << " of " << absent_lookups);
  CHECK(failed_adds > 0);  // the run did reach a full table
  // The false-positive rate stays under the full-load bound.
  CHECK(static_cast<double>(false_positives) / static_cast<double>(absent_lookups) <=
        detail::full_load_fp_bound(c.bucket_size, c.bits) * 1.5 + 1e-4);
}

}  // namespace

// Under AddressSanitizer (npm test's third Catch2 run) a quarter of the operations: still millions of
// checks that fill every table past full, in a quarter of its 100 s there (natively and in wasm, all).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUCKOO_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CUCKOO_TEST_SANITIZED 1
#endif
#if defined(CUCKOO_TEST_SANITIZED)
constexpr int kOperationsDivisor = 4;
#else
constexpr int kOperationsDivisor = 1;
#endif

TEST_CASE("random operations agree with an exact multiset", "[model][model_ops]") {
  Config config = GENERATE(Config{4, 12, 20000, 1'500'000}, Config{2, 8, 3000, 400'000}, Config{8, 16, 20000, 700'000},
                           Config{4, 32, 5000, 400'000}, Config{4, 5, 2000, 200'000});
  config.operations /= kOperationsDivisor;
  INFO("b=" << config.bucket_size << " f=" << config.bits << " capacity=" << config.capacity);
  run_model(config, 1000 + config.bits);
}

TEST_CASE("semi-sorted buckets, every width 5..32: random operations agree with an exact multiset",
          "[model][semi_sort]") {
  const unsigned bits = GENERATE(range(5u, 33u));
  INFO("semi-sorted, f=" << bits);
  run_model(Config{4, bits, 1000, 20'000, true}, 2000 + bits);
}
