// Lookups of one filter from several threads at once, as the standard library allows for const member
// functions ([res.on.data.races]): native only (the wasm module runs on one thread). scripts/test.sh runs
// this under ThreadSanitizer, which reports any write that a lookup makes to the filter it reads; a batch
// lookup used to store the value of its wasm prefetch loads in a member, from a const function.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>

namespace {

struct Case {
  const char* name;
  cuckoo::Options options;
  std::uint64_t keys;
};

cuckoo::Options options_of(std::uint64_t capacity, std::optional<unsigned> growth,
                           std::optional<unsigned> max_sub_filters = std::nullopt) {
  cuckoo::Options o;
  o.capacity = capacity;
  o.growth = growth;
  o.max_sub_filters = max_sub_filters;
  return o;
}

}  // namespace

TEST_CASE("lookups of one filter from several threads at once answer as from one", "[threads]") {
  const Case cases[] = {
      {"sized", options_of(20000, std::nullopt), 18000},
      {"doubling in place", options_of(1000, 2u), 18000},
      {"a chain of sub-filters", options_of(1000, 4u), 18000},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      std::optional<cuckoo::CuckooFilter> made;
      REQUIRE(cuckoo::CuckooFilter::make(c.options, made).ok());
      cuckoo::CuckooFilter& filter = *made;
      // Keys 0 .. keys - 1 added; the batch asks for twice as many, half of them absent.
      std::vector<std::uint64_t> asked(2 * c.keys);
      for (std::uint64_t i = 0; i < asked.size(); ++i) asked[i] = i * 0x9e3779b97f4a7c15ull;
      std::vector<std::uint8_t> added(c.keys);
      REQUIRE(filter.add_many(std::span<const std::uint64_t>(asked.data(), c.keys), added.data()) == c.keys);
      const cuckoo::CuckooFilter& shared = filter;
      std::vector<std::uint8_t> alone(asked.size());
      shared.contains_many(std::span<const std::uint64_t>(asked), alone.data());
      for (std::uint64_t i = 0; i < c.keys; ++i) REQUIRE(alone[i] == static_cast<std::uint8_t>(cuckoo::KeyResult::yes));

      constexpr unsigned kThreads = 4;
      std::vector<std::vector<std::uint8_t>> answers(kThreads, std::vector<std::uint8_t>(asked.size()));
      std::vector<unsigned> single_mismatches(kThreads, 0);
      {
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < kThreads; ++t)
          threads.emplace_back([&, t] {
            for (int round = 0; round < 8; ++round)
              shared.contains_many(std::span<const std::uint64_t>(asked), answers[t].data());
            for (std::uint64_t i = t; i < asked.size(); i += 7)
              single_mismatches[t] +=
                  shared.contains(asked[i]) != (alone[i] == static_cast<std::uint8_t>(cuckoo::KeyResult::yes));
          });
        for (std::thread& th : threads) th.join();
      }
      for (unsigned t = 0; t < kThreads; ++t) {
        CHECK(answers[t] == alone);
        CHECK(single_mismatches[t] == 0);
      }
    }
  }
}
