// libFuzzer target: the input is decoded as filter options and a sequence of operations, run against an
// exact multiset. Checked after every operation: no false negative for a key the model holds, count at
// least the model's copies, size equal to the model's, and a failed add changes nothing.
//
// Input: byte 0 bucket size (b = 2, 4, 8; bit 7 set: growth on), byte 1 fingerprint bits (4..32),
// byte 2 capacity (1..256), byte 3 max kicks (0..255); then pairs (op, key): op % 4 = add, remove (of a
// key the model holds: removing a never-added key is documented as unsafe), contains, count; the key is
// one of 64 short strings. With growth, removes are skipped: in a chain even removing an added key may,
// rarely, remove another key's fingerprint (documented), and add must never fail below the chain limit.
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>

namespace {
void check(bool condition) {
  if (!condition) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  cuckoo::Options options;
  const bool growth = (data[0] & 0x80) != 0;
  options.bucket_size = 2u << ((data[0] & 0x7F) % 3);
  options.fingerprint_bits = 4 + data[1] % 29;
  if (growth) {
    options.growth = 2 + data[1] % 3;
    options.max_sub_filters = 32;
  }
  options.capacity = 1 + data[2];
  options.max_kicks = data[3];
  options.seed = data[0] * 131u + data[1];
  cuckoo::CuckooFilter filter(options);
  std::map<unsigned, unsigned> model;
  std::size_t model_size = 0;
  const auto key = [](unsigned k) { return "key-" + std::to_string(k); };

  for (std::size_t i = 4; i + 1 < size; i += 2) {
    const unsigned op = data[i] % 4;
    const unsigned k = data[i + 1] % 64;
    if (op == 0) {
      const auto before = filter.serialize();
      if (filter.add(key(k))) {
        ++model[k];
        ++model_size;
      } else {
        check(filter.serialize() == before);
        // A growing chain refuses only at its limit (or a key's 2b copies per sub-filter).
        if (growth) check(filter.last_add_failure() != cuckoo::AddFailure::table_full);
      }
    } else if (op == 1) {
      if (model.empty() || growth) continue;
      auto it = model.lower_bound(k);
      if (it == model.end()) it = model.begin();
      check(filter.remove(key(it->first)));
      if (--it->second == 0) model.erase(it);
      --model_size;
    } else if (op == 2) {
      if (model.count(k) != 0) check(filter.contains(key(k)));
    } else {
      check(filter.count(key(k)) >= (model.count(k) != 0 ? model[k] : 0));
    }
    check(filter.size() == model_size);
  }
  for (const auto& [k, copies] : model) check(filter.contains(key(k)) && filter.count(key(k)) >= copies);
  // Whatever state the operations left, the export round-trips.
  check(cuckoo::CuckooFilter::deserialize(filter.serialize()).serialize() == filter.serialize());
  return 0;
}
