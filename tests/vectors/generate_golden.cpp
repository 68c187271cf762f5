// Writes tests/vectors/golden.json from the current implementation. Run it only when an output change is
// intended (a new hash, a new format version), review the diff, and say why in the commit:
//   build/native/cuckoo_golden_gen > tests/vectors/golden.json
#include <cstdio>
#include <limits>
#include <utility>
#include <string>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>

namespace {

std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

std::string hex64(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

struct FilterCase {
  std::uint64_t capacity;
  unsigned bits;
  unsigned bucket_size;
  unsigned max_kicks;
  std::uint64_t seed;
  int key_count;        // keys "golden-0" .. "golden-<n-1>", added in order
  unsigned growth = 0;  // 0: none (format version 3); else a growing chain (format version 4)
  bool semi_sorted = false;
};

// The shape of the filters the locations are computed in.
struct Shape {
  std::uint64_t capacity;
  unsigned bits;
  unsigned bucket_size;
  std::uint64_t seed;
};

cuckoo::CuckooFilter filter_of(const Shape& shape) {
  cuckoo::Options o;
  o.capacity = shape.capacity;
  o.fingerprint_bits = shape.bits;
  o.bucket_size = shape.bucket_size;
  o.seed = shape.seed;
  return cuckoo::CuckooFilter(o);
}

}  // namespace

int main() {
  const std::vector<std::string> keys = {"",
                                         "a",
                                         "user-123456",
                                         "https://example.com/some/path?q=1",
                                         "gr\xC3\xBC\xC3\x9F"
                                         "e",
                                         std::string("\x00\xff\x10", 3),
                                         std::string(200, 'z'),
                                         "order-0000001"};
  const std::vector<Shape> shapes = {
      {1000, 12, 4, cuckoo::kDefaultSeed}, {1000000, 13, 4, 42}, {37, 4, 2, 0}, {5000, 32, 8, 0xFFFFFFFFFFFFFFFFull}};
  std::printf("{\n");
  std::printf(
      "  \"about\": \"Pinned outputs of the key hashing (bucket, fingerprint, alternate bucket) and of the "
      "export format. Filters exported by one build must load in every other (native, wasm, any "
      "version reading this format), so these bytes may only change on purpose: regenerate with "
      "cuckoo_golden_gen, bump the format version if exports change, and say why in the commit. Both the "
      "Catch2 and the Jest suites check this file.\",\n");
  std::printf("  \"locations\": [\n");
  bool first = true;
  for (const auto& shape : shapes) {
    cuckoo::CuckooFilter f = filter_of(shape);
    for (const auto& key : keys) {
      const auto at = f.locate(std::string_view(key));
      std::printf(
          "%s    {\"key_hex\": \"%s\", \"capacity\": %llu, \"fingerprint_bits\": %u, \"bucket_size\": %u, "
          "\"seed\": \"%s\", \"num_buckets\": %llu, \"hash\": \"%s\", \"index\": %u, "
          "\"fingerprint\": %u, \"alternate_index\": %u}",
          first ? "" : ",\n", hex(reinterpret_cast<const std::uint8_t*>(key.data()), key.size()).c_str(),
          static_cast<unsigned long long>(shape.capacity), shape.bits, shape.bucket_size, hex64(shape.seed).c_str(),
          static_cast<unsigned long long>(f.num_buckets()), hex64(at.hash).c_str(), at.index, at.fingerprint,
          at.alternate_index);
      first = false;
    }
  }
  // Integer keys: the same keys as their 8 little-endian bytes (key_hex), given as decimal text (signed
  // values as two's complement).
  std::printf("\n  ],\n  \"integer_locations\": [\n");
  const std::vector<std::int64_t> signed_keys = {-1, -42, std::numeric_limits<std::int64_t>::min()};
  std::vector<std::pair<std::string, std::uint64_t>> integers;
  for (const std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{42}, std::uint64_t{1} << 32,
                                (std::uint64_t{1} << 53) - 1, std::uint64_t{1} << 63, ~std::uint64_t{0}})
    integers.emplace_back(std::to_string(k), k);
  for (const std::int64_t k : signed_keys) integers.emplace_back(std::to_string(k), static_cast<std::uint64_t>(k));
  first = true;
  for (const auto& shape : shapes) {
    cuckoo::CuckooFilter f = filter_of(shape);
    for (const auto& [text, k] : integers) {
      const auto at = f.locate(k);
      std::uint8_t le[8];
      for (int i = 0; i < 8; ++i) le[i] = static_cast<std::uint8_t>(k >> (8 * i));
      std::printf(
          "%s    {\"key\": \"%s\", \"key_hex\": \"%s\", \"capacity\": %llu, \"fingerprint_bits\": %u, "
          "\"bucket_size\": %u, \"seed\": \"%s\", \"hash\": \"%s\", \"index\": %u, \"fingerprint\": %u, "
          "\"alternate_index\": %u}",
          first ? "" : ",\n", text.c_str(), hex(le, 8).c_str(), static_cast<unsigned long long>(shape.capacity),
          shape.bits, shape.bucket_size, hex64(shape.seed).c_str(), hex64(at.hash).c_str(), at.index, at.fingerprint,
          at.alternate_index);
      first = false;
    }
  }
  std::printf("\n  ],\n  \"filters\": [\n");
  const std::vector<FilterCase> filters = {{20, 12, 4, 500, cuckoo::kDefaultSeed, 20},
                                           {10, 8, 2, 50, 7, 14},
                                           {30, 13, 8, 500, 123456789, 40},
                                           {6, 8, 2, 100, 99, 60, 2},
                                           // Semi-sorted buckets: lookups through the plain word (13 bits),
                                           // run past full with kicks and undone walks (9 bits), and a
                                           // chain whose buckets are decoded (24 bits and wider).
                                           {30, 13, 4, 500, 2024, 40, 0, true},
                                           {12, 9, 4, 100, 5, 60, 0, true},
                                           {8, 24, 4, 500, 77, 50, 2, true}};
  first = true;
  for (const auto& c : filters) {
    cuckoo::Options o;
    o.capacity = c.capacity;
    o.fingerprint_bits = c.bits;
    o.bucket_size = c.bucket_size;
    o.max_kicks = c.max_kicks;
    o.seed = c.seed;
    if (c.growth != 0) o.growth = c.growth;
    o.semi_sorted = c.semi_sorted;
    cuckoo::CuckooFilter f(o);
    std::string results;
    for (int i = 0; i < c.key_count; ++i) {
      const bool added = f.add("golden-" + std::to_string(i));
      results += std::string(i ? ", " : "") + (added ? "true" : "false");
    }
    const auto bytes = f.serialize();
    std::printf(
        "%s    {\"capacity\": %llu, \"fingerprint_bits\": %u, \"bucket_size\": %u, \"max_kicks\": %u, "
        "\"seed\": \"%s\", \"keys\": \"golden-0 .. golden-%d, added in order\", \"key_count\": %d, "
        "\"growth\": %u, \"semi_sorted\": %s, \"sub_filters\": %zu, \"add_results\": [%s], \"size\": %zu, "
        "\"export_hex\": \"%s\"}",
        first ? "" : ",\n", static_cast<unsigned long long>(c.capacity), c.bits, c.bucket_size, c.max_kicks,
        hex64(c.seed).c_str(), c.key_count - 1, c.key_count, c.growth, c.semi_sorted ? "true" : "false",
        f.sub_filter_count(), results.c_str(), f.size(), hex(bytes.data(), bytes.size()).c_str());
    first = false;
  }
  // Filters that double in place (growth 2, format version 7, and 8 where the slots widen; golden_v5.json,
  // golden_v6.json and golden_v7.json keep the earlier versions', frozen), with the slot widths their rate
  // gives: 16-bit slots doubled twice, 32-bit slots once, with deletes of every third key after the doubling,
  // 40-bit slots twice, with deletes, slots of 16 bits (0.001) and of 20 (1e-4) that widen later, doubled
  // twice, 16-bit slots doubled 8 times from the smallest table, so that the first entries ran out of ext
  // bits and were copied into both halves (then every third key removed: copies of removed keys stay), and
  // slots that widened from 16 to 20 bits and from 20 to 24 at the first doubling.
  struct InPlaceCase {
    std::uint64_t capacity;
    const char* fp_rate;
    unsigned max_kicks;
    std::uint64_t seed;
    int key_count;
    bool deletes;
  };
  const std::vector<InPlaceCase> in_place = {{100, "0.01", 500, cuckoo::kDefaultSeed, 2000, false},
                                             {300, "0.00001", 100, 31337, 1500, true},
                                             {250, "1e-09", 500, 4242, 3000, true},
                                             {150, "0.001", 500, 5150, 2000, false},
                                             {200, "0.0001", 300, 2024, 3000, true},
                                             {1, "0.01", 500, 77, 200000, true},
                                             // Slots that widen (version 8): 16 to 20 bits after the first
                                             // doubling, and 20 to 24 after it, with deletes.
                                             {150, "0.0004", 500, 808, 2000, false},
                                             {150, "0.00003", 500, 909, 3000, true}};
  std::printf("\n  ],\n  \"in_place\": [\n");
  first = true;
  for (const auto& c : in_place) {
    cuckoo::Options o;
    o.capacity = c.capacity;
    o.fp_rate = std::stod(c.fp_rate);
    o.max_kicks = c.max_kicks;
    o.seed = c.seed;
    o.growth = 2;
    cuckoo::CuckooFilter f(o);
    for (int i = 0; i < c.key_count; ++i) (void)f.add("golden-" + std::to_string(i));
    if (c.deletes)
      for (int i = 0; i < c.key_count; i += 3) (void)f.remove("golden-" + std::to_string(i));
    const auto bytes = f.serialize();
    std::printf(
        "%s    {\"capacity\": %llu, \"fp_rate\": \"%s\", \"max_kicks\": %u, \"seed\": \"%s\", "
        "\"keys\": \"golden-0 .. golden-%d added in order%s\", \"key_count\": %d, \"deletes\": %s, "
        "\"slot_bits\": %u, \"doublings\": %u, \"size\": %llu, \"export_hex\": \"%s\"}",
        first ? "" : ",\n", static_cast<unsigned long long>(c.capacity), c.fp_rate, c.max_kicks, hex64(c.seed).c_str(),
        c.key_count - 1, c.deletes ? ", then every third one removed" : "", c.key_count, c.deletes ? "true" : "false",
        f.fingerprint_bits(), f.doublings(), static_cast<unsigned long long>(f.size()),
        hex(bytes.data(), bytes.size()).c_str());
    first = false;
  }
  std::printf("\n  ]\n}\n");
  return 0;
}
