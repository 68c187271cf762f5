// Native benchmark of the core. One JSON line per case on stdout:
//   {"bench":"native","case":...,"items":...,"bucket_size":...,"fingerprint_bits":...,
//    "semi_sorted":...,"insert_mops":...,"lookup_positive_mops":...,"lookup_negative_mops":...,
//    "lookup_mixed_mops":...,"delete_mops":...,
//    "bits_per_item":...,"fpr":...}
// Keys are 8-byte random integers passed as bytes (the reference implementation's benchmark uses 64-bit
// integer keys), so the numbers compare with it.
//
// Usage: cuckoo_bench [--quick | --growth | --pause]   (--quick: 1/10 of the sizes, for a smoke run;
// --growth: growth in place against a chain and a filter sized right, alone; --pause: the longest add
// of a filter doubling in place from 1 million to 100 million keys)
// BENCH_REPEATS=N: runs per case (default 3); each rate is the best of the N runs (the growth cases, at
// the end, run once).
// The last cases measure growth: 10x and 100x an initial capacity, against a filter sized right.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>
#include <memory>

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::uint64_t> random_keys(std::size_t n, std::uint64_t seed) {
  cuckoo::SplitMix64 rng{seed};
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) k = rng.next();
  return keys;
}

// Key i of `present` or of `absent`, each with probability 1/2.
std::vector<std::uint64_t> half_present(const std::vector<std::uint64_t>& present,
                                        const std::vector<std::uint64_t>& absent) {
  cuckoo::SplitMix64 coin{4};
  std::vector<std::uint64_t> mixed(present.size());
  for (std::size_t i = 0; i < mixed.size(); ++i) mixed[i] = (coin.next() & 1) != 0 ? present[i] : absent[i];
  return mixed;
}

std::span<const std::uint8_t> bytes(const std::uint64_t& k) {
  return {reinterpret_cast<const std::uint8_t*>(&k), sizeof k};
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

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

// Inserts `keys`, looks them up, then looks up `absent`, then `mixed` (each key from one of the two at
// random: what a real stream of lookups looks like, where no branch on the answer can be predicted), one
// call per key.
struct SingleCalls {
  std::size_t added = 0, found = 0, false_positives = 0;
  double insert_s = 0, positive_s = 0, negative_s = 0, mixed_s = 0;
};

SingleCalls time_single_calls(cuckoo::CuckooFilter& filter, const std::vector<std::uint64_t>& keys,
                              const std::vector<std::uint64_t>& absent, const std::vector<std::uint64_t>& mixed) {
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
  std::size_t mixed_found = 0;
  start = Clock::now();
  for (const auto& k : mixed) mixed_found += filter.contains(bytes(k));
  r.mixed_s = seconds_since(start);
  g_sink = mixed_found;
  return r;
}

cuckoo::CuckooFilter make(std::uint64_t capacity, unsigned bits, unsigned bucket_size, bool semi_sorted = false) {
  cuckoo::Options o;
  o.capacity = capacity;
  o.fingerprint_bits = bits;
  o.bucket_size = bucket_size;
  o.semi_sorted = semi_sorted;
  return cuckoo::CuckooFilter(o);
}

// Each case runs g_repeats times (BENCH_REPEATS, default 3) on new filters and reports the best rate of
// each operation: on a shared machine other work only ever slows a run down, so the best of a few runs is
// the closest to what the code costs. Counts (added, found, false positives) are the same in every run.
int g_repeats = 3;

struct Rates {
  double insert = 0, positive = 0, negative = 0, mixed = 0, remove = 0;
  double batch_insert = 0, batch_positive = 0, batch_negative = 0, batch_remove = 0;
  void keep_best(const Rates& r) {
    insert = std::max(insert, r.insert);
    positive = std::max(positive, r.positive);
    negative = std::max(negative, r.negative);
    mixed = std::max(mixed, r.mixed);
    remove = std::max(remove, r.remove);
    batch_insert = std::max(batch_insert, r.batch_insert);
    batch_positive = std::max(batch_positive, r.batch_positive);
    batch_negative = std::max(batch_negative, r.batch_negative);
    batch_remove = std::max(batch_remove, r.batch_remove);
  }
};

void throughput_case(const char* name, std::uint64_t capacity, std::size_t items, unsigned bits, unsigned bucket_size,
                     bool semi_sorted = false) {
  const auto keys = random_keys(items, 1);
  const auto absent = random_keys(items, 2);
  const auto mixed = half_present(keys, absent);
  std::vector<std::uint32_t> offsets(items + 1);
  for (std::size_t i = 0; i <= items; ++i) offsets[i] = static_cast<std::uint32_t>(i * 8);
  std::vector<std::uint8_t> results(items);
  const auto* key_bytes = reinterpret_cast<const std::uint8_t*>(keys.data());
  const auto* absent_bytes = reinterpret_cast<const std::uint8_t*>(absent.data());

  Rates best;
  std::size_t added = 0, found = 0, false_positives = 0;
  double bits_per_item = 0, load = 0;
  for (int run = 0; run < g_repeats; ++run) {
    Rates r;
    auto filter = make(capacity, bits, bucket_size, semi_sorted);
    const SingleCalls single = time_single_calls(filter, keys, absent, mixed);
    added = single.added, found = single.found, false_positives = single.false_positives;
    r.insert = mops(items, single.insert_s);
    r.positive = mops(items, single.positive_s);
    r.negative = mops(items, single.negative_s);
    r.mixed = mops(items, single.mixed_s);
    bits_per_item = static_cast<double>(filter.byte_size()) * 8 / static_cast<double>(capacity);
    load = filter.load_factor();

    auto start = Clock::now();
    std::size_t removed = 0;
    for (const auto& k : keys) removed += filter.remove(bytes(k));
    r.remove = mops(items, seconds_since(start));
    g_sink = found + removed;

    // The same work through the batch calls, in batches of 4096 keys (what the wasm batches pass). Each
    // batch gets offsets relative to its own first key, as the JS wrapper builds them.
    auto batched = make(capacity, bits, bucket_size, semi_sorted);
    const auto run_batches = [&](auto&& call) { return mops(items, time_in_batches(items, call)); };
    r.batch_insert = run_batches([&](std::size_t i, std::size_t n) {
      batched.add_many(key_bytes + i * 8, offsets.data(), n, results.data() + i);
    });
    r.batch_positive = run_batches([&](std::size_t i, std::size_t n) {
      batched.contains_many(key_bytes + i * 8, offsets.data(), n, results.data() + i);
    });
    r.batch_negative = run_batches([&](std::size_t i, std::size_t n) {
      batched.contains_many(absent_bytes + i * 8, offsets.data(), n, results.data() + i);
    });
    r.batch_remove = run_batches([&](std::size_t i, std::size_t n) {
      batched.remove_many(key_bytes + i * 8, offsets.data(), n, results.data() + i);
    });
    best.keep_best(r);
  }

  std::printf(
      "{\"bench\":\"native\",\"case\":\"%s\",\"capacity\":%llu,\"items\":%zu,\"added\":%zu,\"found\":%zu,"
      "\"load_factor\":%.4f,\"bucket_size\":%u,\"fingerprint_bits\":%u,\"semi_sorted\":%s,\"insert_mops\":%.2f,"
      "\"lookup_positive_mops\":%.2f,\"lookup_negative_mops\":%.2f,\"lookup_mixed_mops\":%.2f,\"delete_mops\":%.2f,"
      "\"batch_insert_mops\":%.2f,\"batch_lookup_positive_mops\":%.2f,\"batch_lookup_negative_mops\":%.2f,"
      "\"batch_delete_mops\":%.2f,\"bits_per_item\":%.3f,\"fpr\":%.6f,\"repeats\":%d}\n",
      name, static_cast<unsigned long long>(capacity), items, added, found, load, bucket_size, bits,
      semi_sorted ? "true" : "false", best.insert, best.positive, best.negative, best.mixed, best.remove,
      best.batch_insert, best.batch_positive, best.batch_negative, best.batch_remove, bits_per_item,
      static_cast<double>(false_positives) / static_cast<double>(items), g_repeats);
  std::fflush(stdout);
}

// Fills a filter to its capacity (timed), then on until the first failed add; and the same fill through
// add_many. Best rates of g_repeats runs (the counts are the same in every run).
void fill_case(std::uint64_t capacity, unsigned bits, unsigned bucket_size) {
  const auto keys = random_keys(static_cast<std::size_t>(capacity), 3);
  std::vector<std::uint32_t> offsets(kBatch + 1);
  for (std::size_t i = 0; i < offsets.size(); ++i) offsets[i] = static_cast<std::uint32_t>(i * 8);
  std::vector<std::uint8_t> results(kBatch);
  double fill_mops = 0, batch_fill_mops = 0, load_at_failure = 0, bits_per_item = 0;
  std::size_t at_capacity = 0, added = 0, batch_added = 0;
  for (int run = 0; run < g_repeats; ++run) {
    auto filter = make(capacity, bits, bucket_size);
    cuckoo::SplitMix64 rng{3};
    auto start = Clock::now();
    added = 0;
    for (; added < capacity; ++added) {
      const std::uint64_t k = rng.next();
      if (!filter.add(bytes(k))) break;
    }
    fill_mops = std::max(fill_mops, mops(added, seconds_since(start)));
    at_capacity = added;
    while (true) {
      const std::uint64_t k = rng.next();
      if (!filter.add(bytes(k))) break;
      ++added;
    }
    load_at_failure = filter.load_factor();
    bits_per_item = static_cast<double>(filter.byte_size()) * 8 / static_cast<double>(capacity);

    auto batched = make(capacity, bits, bucket_size);
    batch_added = 0;
    const double batch_s = time_in_batches(keys.size(), [&](std::size_t i, std::size_t n) {
      batch_added +=
          batched.add_many(reinterpret_cast<const std::uint8_t*>(keys.data() + i), offsets.data(), n, results.data());
    });
    batch_fill_mops = std::max(batch_fill_mops, mops(keys.size(), batch_s));
  }
  std::printf(
      "{\"bench\":\"native\",\"case\":\"fill_to_capacity_batch\",\"capacity\":%llu,\"added\":%zu,"
      "\"insert_mops\":%.2f,\"repeats\":%d}\n",
      static_cast<unsigned long long>(capacity), batch_added, batch_fill_mops, g_repeats);
  std::printf(
      "{\"bench\":\"native\",\"case\":\"fill_to_capacity_then_first_failure\",\"capacity\":%llu,"
      "\"bucket_size\":%u,\"fingerprint_bits\":%u,\"added_before_capacity\":%zu,\"insert_mops\":%.2f,"
      "\"items_at_first_failure\":%zu,\"load_at_first_failure\":%.4f,\"bits_per_item\":%.3f,\"repeats\":%d}\n",
      static_cast<unsigned long long>(capacity), bucket_size, bits, at_capacity, fill_mops, added, load_at_failure,
      bits_per_item, g_repeats);
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
    const SingleCalls r = time_single_calls(filter, keys, absent, half_present(keys, absent));
    g_sink = r.found;
    std::printf(
        "{\"bench\":\"native\",\"case\":\"%s\",\"initial_capacity\":%llu,\"items\":%zu,\"added\":%zu,"
        "\"sub_filters\":%zu,\"insert_mops\":%.2f,\"lookup_positive_mops\":%.2f,\"lookup_negative_mops\":%.2f,"
        "\"lookup_mixed_mops\":%.2f,\"bits_per_item\":%.3f,\"fpr\":%.6f,\"expected_fpr\":%.6f}\n",
        grows ? "growth_x2_from_initial" : "sized_right_from_the_start", static_cast<unsigned long long>(o.capacity),
        items, r.added, filter.sub_filter_count(), mops(items, r.insert_s), mops(items, r.positive_s),
        mops(items, r.negative_s), mops(items, r.mixed_s),
        static_cast<double>(filter.byte_size()) * 8 / static_cast<double>(items),
        static_cast<double>(r.false_positives) / static_cast<double>(items), filter.expected_fp_rate());
    std::fflush(stdout);
  }
}

// Growth in place (growth 2: a table that doubles, 16-bit slots at fp_rate 0.001) against a chain that
// grows (growth 2 with max_sub_filters) and a filter sized right, all three fed `items` integer keys one
// call at a time: lookups, the whole growth's adds against the sized filter's, memory, false positives;
// then half of the keys deleted from each growing filter, and how many of the other half went missing.
template <class Filter>
SingleCalls time_integer_calls(Filter& filter, const std::vector<std::uint64_t>& keys,
                               const std::vector<std::uint64_t>& absent, const std::vector<std::uint64_t>& mixed) {
  SingleCalls r;
  auto start = Clock::now();
  for (const auto k : keys) r.added += filter.add(k);
  r.insert_s = seconds_since(start);
  start = Clock::now();
  for (const auto k : keys) r.found += filter.contains(k);
  r.positive_s = seconds_since(start);
  start = Clock::now();
  for (const auto k : absent) r.false_positives += filter.contains(k);
  r.negative_s = seconds_since(start);
  std::size_t mixed_found = 0;
  start = Clock::now();
  for (const auto k : mixed) mixed_found += filter.contains(k);
  r.mixed_s = seconds_since(start);
  g_sink = mixed_found + r.found + r.false_positives;  // kept: an inline pure contains() would be dropped
  return r;
}

void in_place_case(std::uint64_t initial, std::size_t items) {
  const auto keys = random_keys(items, 21);
  const auto absent = random_keys(items, 22);
  const auto mixed = half_present(keys, absent);
  // Deletes keys 0, 2, 4, ... and counts the odd ones no longer found (-1: not measured).
  const auto lost_after_deleting_half = [&](cuckoo::CuckooFilter& f) {
    for (std::size_t i = 0; i < keys.size(); i += 2) f.remove(keys[i]);
    long long lost = 0;
    for (std::size_t i = 1; i < keys.size(); i += 2) lost += !f.contains(keys[i]);
    return lost;
  };
  const auto report = [&](const char* kind, const SingleCalls& r, std::uint64_t bytes, double expected, unsigned tables,
                          long long lost) {
    std::printf(
        "{\"bench\":\"native\",\"case\":\"growth_in_place\",\"kind\":\"%s\",\"initial_capacity\":%llu,\"items\":%zu,"
        "\"added\":%zu,\"tables_or_doublings\":%u,\"insert_mops\":%.2f,\"lookup_positive_mops\":%.2f,"
        "\"lookup_negative_mops\":%.2f,\"lookup_mixed_mops\":%.2f,\"bits_per_item\":%.3f,\"fpr\":%.6f,\"expected_fpr\":"
        "%.6f,"
        "\"lost_after_deleting_half\":%lld}\n",
        kind, static_cast<unsigned long long>(initial), items, r.added, tables, mops(items, r.insert_s),
        mops(items, r.positive_s), mops(items, r.negative_s), mops(items, r.mixed_s),
        static_cast<double>(bytes) * 8 / static_cast<double>(items),
        static_cast<double>(r.false_positives) / static_cast<double>(items), expected, lost);
    std::fflush(stdout);
  };
  {
    cuckoo::Options o;
    o.capacity = items;
    o.fp_rate = 0.001;
    cuckoo::CuckooFilter sized(o);
    const SingleCalls r = time_integer_calls(sized, keys, absent, mixed);
    report("sized_right", r, sized.byte_size(), sized.expected_fp_rate(), 1, -1);
  }
  {
    cuckoo::Options o;
    o.capacity = initial;
    o.fp_rate = 0.001;
    o.growth = 2;
    o.max_sub_filters = cuckoo::kDefaultMaxSubFilters;
    cuckoo::CuckooFilter chain(o);
    const SingleCalls r = time_integer_calls(chain, keys, absent, mixed);
    const auto tables = static_cast<unsigned>(chain.sub_filter_count());
    const double expected = chain.expected_fp_rate();  // before the deletes
    report("chain", r, chain.byte_size(), expected, tables, lost_after_deleting_half(chain));
  }
  {
    cuckoo::Options o;
    o.capacity = initial;
    o.fp_rate = 0.001;
    o.growth = 2;
    cuckoo::CuckooFilter doubling(o);
    const SingleCalls r = time_integer_calls(doubling, keys, absent, mixed);
    const double expected = doubling.expected_fp_rate();  // before the deletes
    report("in_place", r, doubling.byte_size(), expected, doubling.doublings(), lost_after_deleting_half(doubling));
  }
}

// The pause a doubling costs: a filter that doubles in place, from `initial` keys (fp_rate 0.001) to
// `items`, fed one key at a time; the slowest add is a doubling of the largest table.
void doubling_pause_case(std::uint64_t initial, std::size_t items) {
  cuckoo::Options o;
  o.capacity = initial;
  o.fp_rate = 0.001;
  o.growth = 2;
  cuckoo::CuckooFilter f(o);
  double slowest = 0, total = 0;
  std::uint64_t slowest_from_bytes = 0;
  cuckoo::SplitMix64 keys{31};
  for (std::size_t i = 0; i < items; ++i) {
    const std::uint64_t bytes = f.byte_size();
    const auto start = Clock::now();
    if (!f.add(keys.next())) std::abort();
    const double s = seconds_since(start);
    total += s;
    if (s > slowest) {
      slowest = s;
      slowest_from_bytes = bytes;
    }
  }
  std::printf(
      "{\"bench\":\"native\",\"case\":\"doubling_pause\",\"initial_capacity\":%llu,\"items\":%zu,\"doublings\":%u,"
      "\"bytes\":%llu,\"slowest_add_s\":%.4f,\"slowest_from_bytes\":%llu,\"all_adds_s\":%.3f}\n",
      static_cast<unsigned long long>(initial), items, f.doublings(), static_cast<unsigned long long>(f.byte_size()),
      slowest, static_cast<unsigned long long>(slowest_from_bytes), total);
  std::fflush(stdout);
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
  std::vector<std::uint8_t> results(items);
  const auto* data = reinterpret_cast<const std::uint8_t*>(packed.data());
  const auto* absent = reinterpret_cast<const std::uint8_t*>(absent_packed.data());
  const auto run = [&](auto&& call) { return mops(items, time_in_batches(items, call)); };
  double add_mops = 0, has_mops = 0, miss_mops = 0;
  std::size_t found = 0;
  unsigned fingerprint_bits = 0;
  for (int repeat = 0; repeat < g_repeats; ++repeat) {
    cuckoo::CuckooFilter filter(o);
    fingerprint_bits = filter.fingerprint_bits();
    // Offsets are absolute here; the core takes them relative to the bytes pointer it is given.
    add_mops = std::max(add_mops, run([&](std::size_t i, std::size_t n) {
                          filter.add_many(data, offsets.data() + i, n, results.data() + i);
                        }));
    has_mops = std::max(has_mops, run([&](std::size_t i, std::size_t n) {
                          filter.contains_many(data, offsets.data() + i, n, results.data() + i);
                        }));
    found = 0;
    for (std::size_t i = 0; i < items; ++i) found += results[i];
    miss_mops = std::max(miss_mops, run([&](std::size_t i, std::size_t n) {
                           filter.contains_many(absent, absent_offsets.data() + i, n, results.data() + i);
                         }));
  }
  std::printf(
      "{\"bench\":\"native\",\"case\":\"packed_string_keys_batch\",\"items\":%zu,\"found\":%zu,"
      "\"fingerprint_bits\":%u,\"add_mops\":%.2f,\"has_mops\":%.2f,\"miss_mops\":%.2f,\"repeats\":%d}\n",
      items, found, fingerprint_bits, add_mops, has_mops, miss_mops, g_repeats);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (const char* repeats = std::getenv("BENCH_REPEATS")) g_repeats = std::max(1, std::atoi(repeats));
  const std::uint64_t scale = quick ? 10 : 1;
  if (argc > 1 && std::strcmp(argv[1], "--growth") == 0) {
    // Growth alone: 10x, 30x and 100x of 100,000 keys, in place against a chain and a filter sized right.
    for (const std::size_t times : {10u, 30u, 100u}) in_place_case(100'000, 100'000 * times);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--pause") == 0) {
    doubling_pause_case(1'000'000, 100'000'000);
    return 0;
  }
  throughput_case("1M_items_95pct_load", 1'000'000 / scale, 1'000'000 / scale, 12, 4);
  throughput_case("10M_items_in_16M_capacity", 16'000'000 / scale, 10'000'000 / scale, 12, 4);
  // Semi-sorted buckets beside plain ones of the same width (13 bits: fp_rate 0.001), in cache and not.
  for (const bool semi_sorted : {false, true}) {
    throughput_case("1M_items_95pct_load_f13", 1'000'000 / scale, 1'000'000 / scale, 13, 4, semi_sorted);
    throughput_case("10M_items_in_16M_capacity_f13", 16'000'000 / scale, 10'000'000 / scale, 13, 4, semi_sorted);
  }
  fill_case(10'000'000 / scale, 12, 4);
  // Other shapes, for the record.
  throughput_case("1M_items_b2_f16", 1'000'000 / scale, 1'000'000 / scale, 16, 2);
  throughput_case("1M_items_b8_f16", 1'000'000 / scale, 1'000'000 / scale, 16, 8);
  packed_strings_case(1'000'000 / scale);
  growth_case(100'000 / scale, 1'000'000 / scale);   // 10x the initial capacity
  growth_case(100'000 / scale, 10'000'000 / scale);  // 100x
  return 0;
}
