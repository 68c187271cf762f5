// libFuzzer target: the input is decoded as filter options and a sequence of operations, run against an
// exact multiset. Checked after every operation: no false negative for a key the model holds, count at
// least the model's copies, size equal to the model's, and a failed add changes nothing.
//
// Input: byte 0 bucket size (b = 2, 4, 8; bit 7 set: growth on; bit 6 set: semi-sorted buckets, b = 4 and
// byte 1 gives 5..32 bits), byte 1 fingerprint bits (4..32),
// byte 2 capacity (1..256), byte 3 max kicks (0..255); then pairs (op, key): op % 4 = add, remove (of a
// key the model holds: removing a never-added key is documented as unsafe), contains, count; the key is
// one of 64 short strings. With growth, removes are skipped: in a chain even removing an added key may,
// rarely, remove another key's fingerprint (documented), and add must never fail below the chain limit.
// An op byte with bit 7 set makes an add or a contains a batch of 1-8 consecutive keys (bits 2-4): the
// filter takes it in one add_many / contains_many call, a shadow filter as single calls, and the two must
// give the same results and stay byte for byte the same (the batch paths are separate code). Keys 48-63
// are integer keys: `filter` takes them through the integer API (single calls, and whole batches of them
// when bit 6 of the op byte is set), `shadow` as their 8 little-endian bytes, which is the same key.
// Byte 0 with bits 7 and 5 set and bit 6 clear: growth in place (growth 2 alone; byte 1 mod 7: 0, 40-bit
// slots at fp_rate 0.001; 1, 32-bit slots at 1e-6; 2, 3 and 4, 16-, 20- and 24-bit slots; 5 and 6, slots that
// widen, 16 to 20 bits and 20 to 24, what a filter gets at 0.0004 and 3e-5). Removes are checked
// there too (removing an added key never loses another: doubling_filter.hpp), and an add op with bit 5 set adds 64 +
// key byte fresh keys "bulk-<n>" in one add_many (singly to `shadow`), so that a short input doubles the table often.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>

namespace {
// Aborts naming the line of the check that failed.
void check(bool condition, int line = __builtin_LINE()) {
  if (condition) return;
  std::fprintf(stderr, "fuzz_operations.cpp:%d: check failed\n", line);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  cuckoo::Options options;
  const bool growth = (data[0] & 0x80) != 0;
  const bool semi_sorted = (data[0] & 0x40) != 0;
  const bool in_place = growth && !semi_sorted && (data[0] & 0x20) != 0;
  if (in_place) {
    options.growth = 2;
    // Each slot width, at a rate it doubles at; and (0) slots that widen at the first doubling: from 16 to 20
    // bits at 0.0004, from 20 to 24 at 3e-5.
    const unsigned width = data[1] % 7;
    constexpr unsigned kWidths[] = {40, 32, 16, 20, 24, 0, 0};
    constexpr double kRates[] = {0.001, 1e-6, 0.001, 0.001, 1e-4, 0.0004, 3e-5};
    if (kWidths[width] != 0) options.slot_bits = kWidths[width];
    options.fp_rate = kRates[width];
  } else {
    options.semi_sorted = semi_sorted;
    options.bucket_size = semi_sorted ? 4u : 2u << ((data[0] & 0x3F) % 3);
    options.fingerprint_bits = semi_sorted ? 5 + data[1] % 28 : 4 + data[1] % 29;
    if (growth) {
      options.growth = 2 + data[1] % 3;
      options.max_sub_filters = 32;
    }
  }
  options.capacity = 1 + data[2];
  options.max_kicks = data[3];
  options.seed = data[0] * 131u + data[1];
  cuckoo::CuckooFilter filter(options);
  cuckoo::CuckooFilter shadow(options);  // receives every operation as single calls
  check(filter.grows_in_place() == in_place);
  unsigned next_bulk = 0;
  constexpr unsigned kFirstBulk = 1000;
  std::map<unsigned, unsigned> model;
  std::size_t model_size = 0;
  constexpr unsigned kFirstInteger = 48;
  const auto integer_key = [](unsigned k) { return (std::uint64_t{k} + 1) * 0x9E3779B97F4A7C15ull; };
  // Every key as bytes: an integer key is its 8 little-endian bytes.
  const auto key = [&](unsigned k) {
    if (k >= kFirstBulk) return "bulk-" + std::to_string(k);
    if (k < kFirstInteger) return "key-" + std::to_string(k);
    std::string bytes(8, '\0');
    for (int b = 0; b < 8; ++b) bytes[b] = static_cast<char>(integer_key(k) >> (8 * b));
    return bytes;
  };

  for (std::size_t i = 4; i + 1 < size; i += 2) {
    const unsigned op = data[i] % 4;
    const unsigned k = data[i + 1] % 64;
    const bool batch = (data[i] & 0x80) != 0 && (op == 0 || op == 2);
    if (in_place && op == 0 && (data[i] & 0x20) != 0) {
      const unsigned n = 64 + data[i + 1];
      std::string bytes;
      std::vector<std::uint32_t> offsets{0};
      for (unsigned j = 0; j < n; ++j) {
        bytes += key(kFirstBulk + next_bulk + j);
        offsets.push_back(static_cast<std::uint32_t>(bytes.size()));
      }
      std::vector<std::uint8_t> results(n, 9);
      filter.add_many(reinterpret_cast<const std::uint8_t*>(bytes.data()), offsets.data(), n, results.data());
      for (unsigned j = 0; j < n; ++j) {
        const bool ok = shadow.add(key(kFirstBulk + next_bulk + j));
        if (results[j] == static_cast<std::uint8_t>(cuckoo::KeyResult::stopped_here)) {
          check(!ok && filter.last_add_failure() == cuckoo::AddFailure::growth_limit);
          break;
        }
        check(results[j] == static_cast<std::uint8_t>(ok ? cuckoo::KeyResult::yes : cuckoo::KeyResult::no_room));
        if (!ok) {
          // A fresh key is refused below the limit only where a walk (of max_kicks steps, byte 3) failed in a
          // table under half full, taken as copies crowding its buckets (DoublingFilter::crowded).
          check(shadow.last_add_failure() == cuckoo::AddFailure::crowded);
          continue;
        }
        ++model[kFirstBulk + next_bulk + j];
        ++model_size;
      }
      next_bulk += n;
      check(filter.serialize() == shadow.serialize());
    } else if (batch) {
      const unsigned n = 1 + ((data[i] >> 2) & 7);
      const bool integers = (data[i] & 0x40) != 0;
      const auto key_at = [&](unsigned j) { return integers ? kFirstInteger + (k + j) % 16 : (k + j) % 64; };
      std::string bytes;
      std::vector<std::uint32_t> offsets{0};
      std::vector<std::uint64_t> integer_keys;
      for (unsigned j = 0; j < n; ++j) {
        bytes += key(key_at(j));
        offsets.push_back(static_cast<std::uint32_t>(bytes.size()));
        integer_keys.push_back(integer_key(key_at(j)));
      }
      std::vector<std::uint8_t> results(n, 9);
      const auto* packed = reinterpret_cast<const std::uint8_t*>(bytes.data());
      const std::span<const std::uint64_t> integer_span(integer_keys);
      if (op == 0) {
        if (integers)
          filter.add_many(integer_span, results.data());
        else
          filter.add_many(packed, offsets.data(), n, results.data());
        for (unsigned j = 0; j < n; ++j) {
          const unsigned kj = key_at(j);
          const bool ok = shadow.add(key(kj));
          // A growing chain that cannot grow stops the batch there (stopped_here, then not_tried).
          if (results[j] == static_cast<std::uint8_t>(cuckoo::KeyResult::stopped_here)) {
            check(!ok);
            break;
          }
          check(results[j] == static_cast<std::uint8_t>(ok ? cuckoo::KeyResult::yes : cuckoo::KeyResult::no_room));
          if (ok) {
            ++model[kj];
            ++model_size;
          }
        }
      } else {
        if (integers)
          filter.contains_many(integer_span, results.data());
        else
          filter.contains_many(packed, offsets.data(), n, results.data());
        for (unsigned j = 0; j < n; ++j) {
          const unsigned kj = key_at(j);
          check(results[j] == (shadow.contains(key(kj)) ? 1 : 0));
          if (model.count(kj) != 0) check(results[j] == 1);
        }
      }
      check(filter.serialize() == shadow.serialize());
    } else if (op == 0) {
      const auto before = filter.serialize();
      const bool added = k >= kFirstInteger ? filter.add(integer_key(k)) : filter.add(key(k));
      check(shadow.add(key(k)) == added);
      if (added) {
        ++model[k];
        ++model_size;
      } else {
        check(filter.serialize() == before);
        // A growing chain refuses only at its limit (or a key's 2b copies per sub-filter).
        if (growth) check(filter.last_add_failure() != cuckoo::AddFailure::table_full);
      }
    } else if (op == 1) {
      if (model.empty() || (growth && !in_place)) continue;
      auto it = model.lower_bound(k);
      if (it == model.end()) it = model.begin();
      const bool integer = it->first >= kFirstInteger && it->first < kFirstBulk;
      check(integer ? filter.remove(integer_key(it->first)) : filter.remove(key(it->first)));
      check(shadow.remove(key(it->first)));
      if (--it->second == 0) model.erase(it);
      --model_size;
    } else if (op == 2) {
      if (model.count(k) != 0) check(k >= kFirstInteger ? filter.contains(integer_key(k)) : filter.contains(key(k)));
    } else {
      const std::size_t copies = k >= kFirstInteger ? filter.count(integer_key(k)) : filter.count(key(k));
      check(copies >= (model.count(k) != 0 ? model[k] : 0));
    }
    check(filter.size() == model_size);
  }
  for (const auto& [k, copies] : model) check(filter.contains(key(k)) && filter.count(key(k)) >= copies);
  if (in_place) check(filter.serialize() == shadow.serialize());
  // Whatever state the operations left, the export round-trips.
  check(cuckoo::CuckooFilter::deserialize(filter.serialize()).serialize() == filter.serialize());
  return 0;
}
