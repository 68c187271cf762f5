// Helpers shared by the Catch2 suites.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>

namespace cuckoo_test {

// Distinct keys per (prefix, i): "prefix-<i>".
inline std::string key(const char* prefix, std::uint64_t i) { return std::string(prefix) + "-" + std::to_string(i); }

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

}  // namespace cuckoo_test
