// Lookups of one filter from several threads at once (contains, count and contains_many, of integer and
// byte-string keys), as the standard library allows for const member functions ([res.on.data.races]), for
// each kind of filter: native only (the wasm module runs on one thread). scripts/test.sh runs this under
// ThreadSanitizer, which reports any write that a lookup makes to the filter it reads; a batch lookup used
// to store the value of its wasm prefetch loads in a member, from a const function.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>

namespace {

struct Case {
  const char* name;
  cuckoo::Options options;
  std::uint64_t keys;
};

cuckoo::Options options_of(std::uint64_t capacity, std::optional<unsigned> growth, bool semi_sorted = false) {
  cuckoo::Options o;
  o.capacity = capacity;
  o.growth = growth;
  if (semi_sorted) o.semi_sorted = true;
  return o;
}

// Byte-string keys packed back to back, as the batch calls take them: key i is bytes[offsets[i], offsets[i+1]).
struct PackedKeys {
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint32_t> offsets{0};
  [[nodiscard]] std::size_t count() const { return offsets.size() - 1; }
  [[nodiscard]] std::string_view key(std::size_t i) const {
    return {reinterpret_cast<const char*>(bytes.data()) + offsets[i], offsets[i + 1] - offsets[i]};
  }
};

constexpr auto kYes = static_cast<std::uint8_t>(cuckoo::KeyResult::yes);

}  // namespace

TEST_CASE("lookups of one filter from several threads at once answer as from one", "[threads]") {
  const Case cases[] = {
      {"sized", options_of(24000, std::nullopt), 20000},
      {"doubling in place", options_of(1000, 2u), 20000},
      {"a chain of sub-filters", options_of(1000, 4u), 20000},
      {"semi-sorted buckets", options_of(24000, std::nullopt, true), 20000},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      std::optional<cuckoo::CuckooFilter> made;
      REQUIRE(cuckoo::CuckooFilter::make(c.options, made).ok());
      cuckoo::CuckooFilter& filter = *made;
      // Integer keys: the first `keys` added; the batch asks for twice as many.
      std::vector<std::uint64_t> asked(2 * c.keys);
      for (std::uint64_t i = 0; i < asked.size(); ++i) asked[i] = i * 0x9e3779b97f4a7c15ull;
      std::vector<std::uint8_t> added(c.keys);
      REQUIRE(filter.add_many(std::span<const std::uint64_t>(asked.data(), c.keys), added.data()) == c.keys);
      // String keys "s-<i>": the first half added.
      PackedKeys strings;
      for (std::uint64_t i = 0; i < 4000; ++i) {
        const std::string key = "s-" + std::to_string(i);
        strings.bytes.insert(strings.bytes.end(), key.begin(), key.end());
        strings.offsets.push_back(static_cast<std::uint32_t>(strings.bytes.size()));
        if (i < 2000) REQUIRE(filter.add(key));
      }

      const cuckoo::CuckooFilter& shared = filter;
      std::vector<std::uint8_t> alone(asked.size());
      shared.contains_many(std::span<const std::uint64_t>(asked), alone.data());
      std::vector<std::uint8_t> strings_alone(strings.count());
      shared.contains_many(strings.bytes.data(), strings.offsets.data(), strings.count(), strings_alone.data());
      for (std::uint64_t i = 0; i < c.keys; ++i) REQUIRE(alone[i] == kYes);
      for (std::size_t i = 0; i < 2000; ++i) REQUIRE(strings_alone[i] == kYes);

      constexpr unsigned kThreads = 4;
      std::vector<std::vector<std::uint8_t>> answers(kThreads, std::vector<std::uint8_t>(asked.size()));
      std::vector<std::vector<std::uint8_t>> string_answers(kThreads, std::vector<std::uint8_t>(strings.count()));
      std::vector<unsigned> single_mismatches(kThreads, 0);
      {
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < kThreads; ++t)
          threads.emplace_back([&, t] {
            for (int round = 0; round < 6; ++round) {
              shared.contains_many(std::span<const std::uint64_t>(asked), answers[t].data());
              shared.contains_many(strings.bytes.data(), strings.offsets.data(), strings.count(),
                                   string_answers[t].data());
            }
            for (std::uint64_t i = t; i < asked.size(); i += 7) {
              const bool present = alone[i] == kYes;
              single_mismatches[t] += shared.contains(asked[i]) != present;
              single_mismatches[t] += (shared.count(asked[i]) > 0) != present;
            }
            for (std::size_t i = t; i < strings.count(); i += 3) {
              const bool present = strings_alone[i] == kYes;
              single_mismatches[t] += shared.contains(strings.key(i)) != present;
              single_mismatches[t] += (shared.count(strings.key(i)) > 0) != present;
            }
          });
        for (std::thread& th : threads) th.join();
      }
      for (unsigned t = 0; t < kThreads; ++t) {
        CHECK(answers[t] == alone);
        CHECK(string_answers[t] == strings_alone);
        CHECK(single_mismatches[t] == 0);
      }
    }
  }
}
