// Native benchmark of the core. One JSON line per case on stdout:
//   {"bench":"native","case":...,"items":...,"bucket_size":...,"fingerprint_bits":...,
//    "insert_mops":...,"lookup_positive_mops":...,"lookup_negative_mops":...,"delete_mops":...,
//    "bits_per_item":...,"fpr":...}
// Keys are 8-byte random integers passed as bytes (the reference implementation's benchmark uses 64-bit
// integer keys), so the numbers compare with it.
//
// Usage: cuckoo_bench [--quick]   (--quick: 1/10 of the sizes, for a smoke run)
// The last cases measure growth: 10x and 100x an initial capacity, against a filter sized right.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::uint64_t> random_keys(std::size_t n, std::uint64_t seed) {
  cuckoo::SplitMix64 rng{seed};
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) k = rng.next();
  return keys;
}

std::span<const std::uint8_t> bytes(const std::uint64_t& k) {
  return {reinterpret_cast<const std::uint8_t*>(&k), sizeof k};
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds taken by call(first, count) over items [0, items) in batches of kBatch keys (what the wasm
// batches pass).
constexpr std::size_t kBatch = 4096;
template <class Call>
double time_in_batches(std::size_t items, Call&& call) {
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < items; i += kBatch) call(i, std::min(kBatch, items - i));
  return seconds_since(t0);
}

double mops(std::size_t n, double seconds) { return static_cast<double>(n) / seconds / 1e6; }

// A sink the optimizer cannot see through, so lookups are not removed.
volatile std::size_t g_sink;

// Inserts `keys`, looks them up, then looks up `absent`, one call per key.
struct SingleCalls {
  std::size_t added = 0, found = 0, false_positives = 0;
  double insert_s = 0, positive_s = 0, negative_s = 0;
};

SingleCalls time_single_calls(cuckoo::CuckooFilter& filter, const std::vector<std::uint64_t>& keys,
                              const std::vector<std::uint64_t>& absent) {
  SingleCalls r;
  auto start = Clock::now();
  for (const auto& k : keys) r.added += filter.add(bytes(k));
  r.insert_s = seconds_since(start);
  start = Clock::now();
  for (const auto& k : keys) r.found += filter.contains(bytes(k));
  r.positive_s = seconds_since(start);
  start = Clock::now();
  for (const auto& k : absent) r.false_positives += filter.contains(bytes(k));
  r.negative_s = seconds_since(start);
  return r;
}

cuckoo::CuckooFilter make(std::uint64_t capacity, unsigned bits, unsigned bucket_size) {
  cuckoo::Options o;
  o.capacity = capacity;
  o.fingerprint_bits = bits;
  o.bucket_size = bucket_size;
  return cuckoo::CuckooFilter(o);
}

void throughput_case(const char* name, std::uint64_t capacity, std::size_t items, unsigned bits,
                     unsigned bucket_size) {
  auto filter = make(capacity, bits, bucket_size);
  const auto keys = random_keys(items, 1);
  const auto absent = random_keys(items, 2);

  const SingleCalls single = time_single_calls(filter, keys, absent);
  const std::size_t added = single.added, found = single.found, false_positives = single.false_positives;
  const double insert_s = single.insert_s, positive_s = single.positive_s, negative_s = single.negative_s;

  const double bits_per_item = static_cast<double>(filter.byte_size()) * 8 / static_cast<double>(capacity);
  const double load = filter.load_factor();

  auto start = Clock::now();
  std::size_t removed = 0;
  for (const auto& k : keys) removed += filter.remove(bytes(k));
  const double delete_s = seconds_since(start);
  g_sink = found + removed;

  // The same work through the batch calls, in batches of 4096 keys (what the wasm batches pass).
  auto batched = make(capacity, bits, bucket_size);
  std::vector<std::uint32_t> offsets(items + 1);
  for (std::size_t i = 0; i <= items; ++i) offsets[i] = static_cast<std::uint32_t>(i * 8);
  std::vector<std::uint8_t> results(items);
  const auto* key_bytes = reinterpret_cast<const std::uint8_t*>(keys.data());
  const auto* absent_bytes = reinterpret_cast<const std::uint8_t*>(absent.data());
  const auto run_batches = [&](auto&& call) { return time_in_batches(items, call); };
  // Each batch gets offsets relative to its own first key, as the JS wrapper builds them.
  const double batch_insert_s = run_batches([&](std::size_t i, std::size_t n) {
    batched.add_many(key_bytes + i * 8, offsets.data(), n, results.data() + i);
  });
  const double batch_positive_s = run_batches([&](std::size_t i, std::size_t n) {
    batched.contains_many(key_bytes + i * 8, offsets.data(), n, results.data() + i);
  });
  const double batch_negative_s = run_batches([&](std::size_t i, std::size_t n) {
    batched.contains_many(absent_bytes + i * 8, offsets.data(), n, results.data() + i);
  });
  const double batch_delete_s = run_batches([&](std::size_t i, std::size_t n) {
    batched.remove_many(key_bytes + i * 8, offsets.data(), n, results.data() + i);
  });

  std::printf(
      "{\"bench\":\"native\",\"case\":\"%s\",\"capacity\":%llu,\"items\":%zu,\"added\":%zu,\"found\":%zu,"
      "\"load_factor\":%.4f,\"bucket_size\":%u,\"fingerprint_bits\":%u,\"insert_mops\":%.2f,"
      "\"lookup_positive_mops\":%.2f,\"lookup_negative_mops\":%.2f,\"delete_mops\":%.2f,"
      "\"batch_insert_mops\":%.2f,\"batch_lookup_positive_mops\":%.2f,\"batch_lookup_negative_mops\":%.2f,"
      "\"batch_delete_mops\":%.2f,\"bits_per_item\":%.3f,\"fpr\":%.6f}\n",
      name, static_cast<unsigned long long>(capacity), items, added, found, load, bucket_size, bits,
      mops(items, insert_s), mops(items, positive_s), mops(items, negative_s), mops(items, delete_s),
      mops(items, batch_insert_s), mops(items, batch_positive_s), mops(items, batch_negative_s),
      mops(items, batch_delete_s), bits_per_item, static_cast<double>(false_positives) / static_cast<double>(items));
  std::fflush(stdout);
}

// Fills a filter to its capacity (timed), then on until the first failed add.
void fill_case(std::uint64_t capacity, unsigned bits, unsigned bucket_size) {
  auto filter = make(capacity, bits, bucket_size);
  cuckoo::SplitMix64 rng{3};
  auto start = Clock::now();
  std::size_t added = 0;
  for (; added < capacity; ++added) {
    const std::uint64_t k = rng.next();
    if (!filter.add(bytes(k))) break;
  }
  const double fill_s = seconds_since(start);
  const std::size_t at_capacity = added;
  while (true) {
    const std::uint64_t k = rng.next();
    if (!filter.add(bytes(k))) break;
    ++added;
  }
  // The same fill through add_many, in batches of 4096 keys.
  auto batched = make(capacity, bits, bucket_size);
  const auto keys = random_keys(static_cast<std::size_t>(capacity), 3);
  std::vector<std::uint32_t> offsets(4097);
  for (std::size_t i = 0; i < offsets.size(); ++i) offsets[i] = static_cast<std::uint32_t>(i * 8);
  std::vector<std::uint8_t> results(4096);
  start = Clock::now();
  std::size_t batch_added = 0;
  for (std::size_t i = 0; i < keys.size(); i += 4096) {
    const std::size_t n = std::min<std::size_t>(4096, keys.size() - i);
    batch_added += batched.add_many(reinterpret_cast<const std::uint8_t*>(keys.data() + i), offsets.data(), n, results.data());
  }
  const double batch_fill_s = seconds_since(start);
  std::printf(
      "{\"bench\":\"native\",\"case\":\"fill_to_capacity_batch\",\"capacity\":%llu,\"added\":%zu,"
      "\"insert_mops\":%.2f}\n",
      static_cast<unsigned long long>(capacity), batch_added, mops(keys.size(), batch_fill_s));
  std::printf(
      "{\"bench\":\"native\",\"case\":\"fill_to_capacity_then_first_failure\",\"capacity\":%llu,"
      "\"bucket_size\":%u,\"fingerprint_bits\":%u,\"added_before_capacity\":%zu,\"insert_mops\":%.2f,"
      "\"items_at_first_failure\":%zu,\"load_at_first_failure\":%.4f,\"bits_per_item\":%.3f}\n",
      static_cast<unsigned long long>(capacity), bucket_size, bits, at_capacity, mops(at_capacity, fill_s), added,
      filter.load_factor(), static_cast<double>(filter.byte_size()) * 8 / static_cast<double>(capacity));
  std::fflush(stdout);
}

// The cost of not knowing the capacity: a filter that starts at `initial` and grows (factor 2) to hold
// `items`, against one sized for `items` from the start; both at fp_rate 0.001.
void growth_case(std::uint64_t initial, std::size_t items) {
  const auto keys = random_keys(items, 11);
  const auto absent = random_keys(items, 12);
  for (const bool grows : {true, false}) {
    cuckoo::Options o;
    o.capacity = grows ? initial : items;
    o.fp_rate = 0.001;
    if (grows) o.growth = 2;
    cuckoo::CuckooFilter filter(o);
    const SingleCalls r = time_single_calls(filter, keys, absent);
    g_sink = r.found;
    std::printf(
        "{\"bench\":\"native\",\"case\":\"%s\",\"initial_capacity\":%llu,\"items\":%zu,\"added\":%zu,"
        "\"sub_filters\":%zu,\"insert_mops\":%.2f,\"lookup_positive_mops\":%.2f,\"lookup_negative_mops\":%.2f,"
        "\"bits_per_item\":%.3f,\"fpr\":%.6f,\"expected_fpr\":%.6f}\n",
        grows ? "growth_x2_from_initial" : "sized_right_from_the_start", static_cast<unsigned long long>(o.capacity),
        items, r.added, filter.sub_filter_count(), mops(items, r.insert_s), mops(items, r.positive_s),
        mops(items, r.negative_s), static_cast<double>(filter.byte_size()) * 8 / static_cast<double>(items),
        static_cast<double>(r.false_positives) / static_cast<double>(items), filter.expected_fp_rate());
    std::fflush(stdout);
  }
}

// The work the Node benchmark's "wasm core" case does, natively, for the 2x comparison: keys "user-<i>"
// already in memory as bytes (packed back to back, with offsets), fpRate 0.001, batch calls of 4096.
void packed_strings_case(std::size_t items) {
  std::string packed;
  std::vector<std::uint32_t> offsets{0};
  std::string absent_packed;
  std::vector<std::uint32_t> absent_offsets{0};
  for (std::size_t i = 0; i < items; ++i) {
    packed += "user-" + std::to_string(i);
    offsets.push_back(static_cast<std::uint32_t>(packed.size()));
    absent_packed += "absent-" + std::to_string(i);
    absent_offsets.push_back(static_cast<std::uint32_t>(absent_packed.size()));
  }
  cuckoo::Options o;
  o.capacity = items;
  o.fp_rate = 0.001;
  cuckoo::CuckooFilter filter(o);
  std::vector<std::uint8_t> results(items);
  const auto* data = reinterpret_cast<const std::uint8_t*>(packed.data());
  const auto* absent = reinterpret_cast<const std::uint8_t*>(absent_packed.data());
  const auto run = [&](auto&& call) { return time_in_batches(items, call); };
  // Offsets are absolute here; the core takes them relative to the bytes pointer it is given.
  const double add_s = run([&](std::size_t i, std::size_t n) { filter.add_many(data, offsets.data() + i, n, results.data() + i); });
  const double has_s = run([&](std::size_t i, std::size_t n) { filter.contains_many(data, offsets.data() + i, n, results.data() + i); });
  std::size_t found = 0;
  for (std::size_t i = 0; i < items; ++i) found += results[i];
  const double miss_s = run([&](std::size_t i, std::size_t n) { filter.contains_many(absent, absent_offsets.data() + i, n, results.data() + i); });
  std::printf(
      "{\"bench\":\"native\",\"case\":\"packed_string_keys_batch\",\"items\":%zu,\"found\":%zu,"
      "\"fingerprint_bits\":%u,\"add_mops\":%.2f,\"has_mops\":%.2f,\"miss_mops\":%.2f}\n",
      items, found, filter.fingerprint_bits(), mops(items, add_s), mops(items, has_s), mops(items, miss_s));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const std::uint64_t scale = quick ? 10 : 1;
  throughput_case("1M_items_95pct_load", 1'000'000 / scale, 1'000'000 / scale, 12, 4);
  throughput_case("10M_items_in_16M_capacity", 16'000'000 / scale, 10'000'000 / scale, 12, 4);
  fill_case(10'000'000 / scale, 12, 4);
  // Other shapes, for the record.
  throughput_case("1M_items_b2_f16", 1'000'000 / scale, 1'000'000 / scale, 16, 2);
  throughput_case("1M_items_b8_f16", 1'000'000 / scale, 1'000'000 / scale, 16, 8);
  packed_strings_case(1'000'000 / scale);
  growth_case(100'000 / scale, 1'000'000 / scale);   // 10x the initial capacity
  growth_case(100'000 / scale, 10'000'000 / scale);  // 100x
  return 0;
}
