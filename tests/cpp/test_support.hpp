// Helpers shared by the Catch2 suites.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>

namespace cuckoo_test {

// Distinct keys per (prefix, i): "prefix-<i>".
inline std::string key(const char* prefix, std::uint64_t i) { return std::string(prefix) + "-" + std::to_string(i); }

// The share of `probes` keys "prefix-<i>" (none of them added) that the filter answers as present.
inline double measured_fp_rate(const cuckoo::CuckooFilter& f, const char* prefix, std::uint64_t probes) {
  std::uint64_t false_positives = 0;
  for (std::uint64_t i = 0; i < probes; ++i) false_positives += f.contains(key(prefix, i));
  return static_cast<double>(false_positives) / static_cast<double>(probes);
}

inline cuckoo::CuckooFilter make_filter(std::uint64_t capacity, unsigned bits, unsigned bucket_size,
                                        unsigned max_kicks = 500, std::uint64_t seed = cuckoo::kDefaultSeed,
                                        bool semi_sorted = false) {
  cuckoo::Options o;
  o.semi_sorted = semi_sorted;
  o.capacity = capacity;
  o.fingerprint_bits = bits;
  o.bucket_size = bucket_size;
  o.max_kicks = max_kicks;
  o.seed = seed;
  return cuckoo::CuckooFilter(o);
}

inline std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// Rewrites an export's checksum, so that a test of a damaged field reaches the check behind the checksum.
inline void reseal(std::vector<std::uint8_t>& bytes) {
  const std::size_t body = bytes.size() - cuckoo::format::kChecksumSize;
  cuckoo::format::put_le(bytes.data() + body, cuckoo::format::checksum(bytes.data(), body), 8);
}

// What the reader says of these bytes: its error message, or "(accepted)".
inline std::string error_of(const std::vector<std::uint8_t>& bytes) {
  try {
    (void)cuckoo::CuckooFilter::deserialize(bytes);
  } catch (const cuckoo::FormatError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Adds keys "fill-<i>" until 20 adds have failed: each failed add must leave the export byte for byte as
// it was, and every key added must still be found.
inline void check_failed_adds_change_nothing(cuckoo::CuckooFilter& f) {
  std::vector<std::string> added;
  int failures = 0;
  for (std::uint64_t i = 0; failures < 20 && i < 5000; ++i) {
    const auto k = key("fill", i);
    const auto before = f.serialize();
    if (f.add(k)) {
      added.push_back(k);
    } else {
      ++failures;
      REQUIRE(f.serialize() == before);
    }
  }
  REQUIRE(failures == 20);
  CHECK(f.size() == added.size());
  for (const auto& k : added) REQUIRE(f.contains(k));
}

}  // namespace cuckoo_test
