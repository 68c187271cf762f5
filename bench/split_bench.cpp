// Growing a bucket at a time (split_filter.hpp) against a filter sized for the keys and the table that
// doubles (growth 2), natively, in one run: issue 57's targets, before the split table is wired in.
// For each fpRate r (slot width from it: 16 bits at 0.01, 20 at 0.001, 24 at 1e-4) and growth t:
// { capacity 1000 } given 1000 t distinct 8-byte keys one add at a time; bits per item (the table's bytes,
// and what its allocation takes), the false-positive rate on 1M absent keys and the rate expected, keys
// missing, single lookups of present and absent keys as the sized filter's time over the grown one's
// (above 1: the grown one is faster), and the whole growth's adds the same way. Then adds at a grown
// table's load: from a capacity of 100,000 grown 16 times (the doubling table's 4 doublings), 10% of its
// slots of new keys, against a sized filter of the same slots filled to the same load.
// Then where a level's adds go (split_bucket_loads: the load of buckets split and not yet split).
//   ./build/native/cuckoo_split_bench [--rates 0.01,0.001,0.0001] [--times 10,100,1000,10000] [--fill 0.8]
//                                     [--loads 1]
// BENCH_REPEATS=N: timed passes per case (default 3), the best kept. One JSON line per case.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>
#include <cuckoo/split_filter.hpp>

namespace {

using Clock = std::chrono::steady_clock;
int g_repeats = 3;
volatile std::uint64_t g_sink = 0;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
std::vector<std::uint64_t> keys(std::uint64_t stream, std::size_t n) {
  std::vector<std::uint64_t> k(n);
  for (std::size_t i = 0; i < n; ++i) k[i] = mix(stream * 0x100000000ull + i);
  return k;
}
template <class F>
double best_seconds(F&& f) {
  double best = 1e30;
  for (int r = 0; r < g_repeats; ++r) {
    const auto start = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}
std::vector<double> list(const char* text) {
  std::vector<double> out;
  for (const char* p = text; *p != 0;) {
    out.push_back(std::strtod(p, const_cast<char**>(&p)));
    if (*p == ',') ++p;
  }
  return out;
}
// A probe order that is not the insertion order (a stride through the keys).
std::vector<std::uint64_t> scattered(const std::vector<std::uint64_t>& k, std::size_t n) {
  std::vector<std::uint64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = k[(i * 7919) % k.size()];
  return out;
}

cuckoo::SplitOptions split_options(std::uint64_t capacity, double rate, double fill) {
  cuckoo::SplitOptions o;
  o.capacity = capacity;
  o.fp_rate = rate;
  o.fill = fill;
  return o;
}

cuckoo::CuckooFilter sized_filter(std::uint64_t capacity, double rate) {
  cuckoo::Options o;
  o.capacity = capacity;
  o.fp_rate = rate;
  return cuckoo::CuckooFilter(o);
}

template <unsigned W>
void growth_case(double rate, double times, double fill) {
  const auto n = static_cast<std::size_t>(1000 * times);
  const auto present = keys(1, n);
  const auto absent = keys(2, 1000000);
  const auto probes = scattered(present, std::min<std::size_t>(n, 1000000));
  const std::vector<std::uint64_t> absent_probes(absent.begin(), absent.begin() + static_cast<long>(probes.size()));
  const cuckoo::SplitOptions so = split_options(1000, rate, fill);
  std::size_t refused = 0;
  const double split_adds = best_seconds([&] {
    cuckoo::SplitFilter<W> f(so);
    refused = 0;
    for (const auto k : present) refused += !f.add(k);
  });
  const double sized_adds = best_seconds([&] {
    auto f = sized_filter(n, rate);
    for (const auto k : present) g_sink = g_sink + f.add(k);
  });
  cuckoo::Options go;
  go.capacity = 1000;
  go.fp_rate = rate;
  go.growth = 2;
  const double doubling_adds = best_seconds([&] {
    cuckoo::CuckooFilter f(go);
    for (const auto k : present) g_sink = g_sink + f.add(k);
  });
  cuckoo::SplitFilter<W> split(so);
  for (const auto k : present) split.add(k);
  auto sized = sized_filter(n, rate);
  for (const auto k : present) sized.add(k);
  cuckoo::CuckooFilter doubling(go);
  for (const auto k : present) doubling.add(k);
  std::size_t missing = 0, false_positives = 0;
  for (const auto k : present) missing += !split.contains(k);
  for (const auto k : absent) false_positives += split.contains(k);
  const auto lookups = [&](const auto& f, const std::vector<std::uint64_t>& ks) {
    return best_seconds([&] {
      std::uint64_t found = 0;
      for (const auto k : ks) found += f.contains(k);
      g_sink = g_sink + found;
    });
  };
  const double sp = lookups(split, probes), sa = lookups(split, absent_probes);
  const double zp = lookups(sized, probes), za = lookups(sized, absent_probes);
  const double dp = lookups(doubling, probes), da = lookups(doubling, absent_probes);
  const double bits = static_cast<double>(split.byte_size()) * 8 / static_cast<double>(n);
  const double sized_bits = static_cast<double>(sized.byte_size()) * 8 / static_cast<double>(n);
  const double doubling_bits = static_cast<double>(doubling.byte_size()) * 8 / static_cast<double>(n);
  std::printf(
      "{\"bench\":\"split_growth\",\"fp_rate\":%g,\"grown_times\":%g,\"items\":%zu,\"fill\":%.2f,\"slot_bits\":%u,"
      "\"refused\":%zu,\"buckets\":%llu,\"bits_per_item\":%.2f,\"allocated_bits_per_item\":%.2f,"
      "\"sized_bits_per_item\":%.2f,\"bits_ratio\":%.3f,\"doubling_bits_ratio\":%.3f,\"measured_fpr\":%.3g,"
      "\"expected_fpr\":%.3g,\"missing\":%zu,\"copies\":%llu,\"kicks_per_add\":%.3f,"
      "\"present_single\":%.3f,\"absent_single\":%.3f,\"doubling_present_single\":%.3f,"
      "\"doubling_absent_single\":%.3f,\"adds_ratio\":%.3f,\"doubling_adds_ratio\":%.3f,"
      "\"ns_per_add\":%.1f,\"sized_ns_per_add\":%.1f}\n",
      rate, times, n, fill, W, refused, static_cast<unsigned long long>(split.num_buckets()), bits,
      static_cast<double>(split.allocated_bytes()) * 8 / static_cast<double>(n), sized_bits, bits / sized_bits,
      doubling_bits / sized_bits, static_cast<double>(false_positives) / static_cast<double>(absent.size()),
      split.expected_fp_rate(), missing, static_cast<unsigned long long>(split.occupied() - split.size()),
      static_cast<double>(split.kicks()) / static_cast<double>(n), zp / sp, za / sa, zp / dp, za / da,
      sized_adds / split_adds, sized_adds / doubling_adds, split_adds * 1e9 / static_cast<double>(n),
      sized_adds * 1e9 / static_cast<double>(n));
  std::fflush(stdout);
}

// Adds at a grown table's load: from 100,000, grown 16 times, then 10% of its slots of new keys, against a
// sized filter of the same slots filled to the same load (the doubling table's case in
// bench/growth_rates_bench.mjs --adds-only).
template <unsigned W>
void adds_case(double rate, double fill) {
  const cuckoo::SplitOptions so = split_options(100000, rate, fill);
  const auto first = keys(3, 1600000);
  double split_best = 1e30, sized_best = 1e30;
  double load = 0;
  std::size_t more = 0;
  for (int r = 0; r < g_repeats; ++r) {
    cuckoo::SplitFilter<W> split(so);
    for (const auto k : first) split.add(k);
    const std::uint64_t slots = split.slots();
    load = static_cast<double>(split.occupied()) / static_cast<double>(slots);
    auto sized = sized_filter(static_cast<std::uint64_t>(static_cast<double>(slots) * 0.95), rate);
    for (std::uint64_t i = 0; i < split.size(); ++i) sized.add(first[i]);
    more = static_cast<std::size_t>(slots / 10);
    const auto next = keys(4, more);
    auto start = Clock::now();
    for (const auto k : next) g_sink = g_sink + split.add(k);
    split_best = std::min(split_best, std::chrono::duration<double>(Clock::now() - start).count());
    start = Clock::now();
    for (const auto k : next) g_sink = g_sink + sized.add(k);
    sized_best = std::min(sized_best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::printf(
      "{\"bench\":\"split_growth_adds_at_load\",\"fp_rate\":%g,\"fill\":%.2f,\"slot_bits\":%u,\"load\":%.3f,"
      "\"new_keys\":%zu,\"adds_ratio\":%.3f,\"ns_per_add\":%.1f,\"sized_ns_per_add\":%.1f}\n",
      rate, fill, W, load, more, sized_best / split_best, split_best * 1e9 / static_cast<double>(more),
      sized_best * 1e9 / static_cast<double>(more));
  std::fflush(stdout);
}

// Where a level's adds go: the mean occupied slots of the buckets split in the level and of those not
// yet split, at eighths of a level (from 1,000 grown past 2^18 buckets), and the kicks an add took over
// the eighth before.
// A bucket not yet split holds the positions of two split ones.
template <unsigned W>
void loads_case(double rate, double fill) {
  const cuckoo::SplitOptions so = split_options(1000, rate, fill);
  cuckoo::SplitFilter<W> f(so);
  std::uint64_t last = ~std::uint64_t{0}, adds_then = 0, kicks_then = 0;
  for (std::uint64_t i = 1; f.level() < 19; ++i) {
    // At rates that stop the growth before this level (below about 1e-5), nothing to report.
    if (!f.add(mix(i)) && f.last_add_failure() == cuckoo::AddFailure::growth_limit) break;
    const std::uint64_t p = f.num_buckets() - (std::uint64_t{1} << f.level());
    const std::uint64_t eighth = (p * 8) >> f.level();
    if (f.level() != 18 || eighth == last) continue;
    if (last != ~std::uint64_t{0}) {
      // Kicks an add took since the last eighth, and the loads now.
      const auto loads = f.bucket_loads();
      std::printf(
          "{\"bench\":\"split_bucket_loads\",\"fp_rate\":%g,\"fill\":%.2f,\"slot_bits\":%u,\"level\":%u,"
          "\"split_share\":%.3f,\"split_bucket_load\":%.2f,\"unsplit_bucket_load\":%.2f,\"kicks_per_add\":%.3f}\n",
          rate, fill, W, f.level(), static_cast<double>(p) / static_cast<double>(std::uint64_t{1} << f.level()),
          loads.split, loads.unsplit, static_cast<double>(f.kicks() - kicks_then) / static_cast<double>(i - adds_then));
    }
    last = eighth;
    adds_then = i;
    kicks_then = f.kicks();
  }
  std::fflush(stdout);
}

template <class F>
void by_width(double rate, F&& f) {
  if (rate >= 2.8e-3)
    f(std::integral_constant<unsigned, 16>{});
  else if (rate >= 1.9e-4)
    f(std::integral_constant<unsigned, 20>{});
  else
    f(std::integral_constant<unsigned, 24>{});
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* r = std::getenv("BENCH_REPEATS")) g_repeats = std::max(1, std::atoi(r));
  std::string rates = "0.01,0.001,0.0001", times = "10,100,1000,10000";
  double fill = 0.8;
  bool loads = true;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--rates") == 0) rates = argv[i + 1];
    if (std::strcmp(argv[i], "--times") == 0) times = argv[i + 1];
    if (std::strcmp(argv[i], "--fill") == 0) fill = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--loads") == 0) loads = std::strcmp(argv[i + 1], "0") != 0;
  }
  for (const double rate : list(rates.c_str())) {
    for (const double t : list(times.c_str()))
      by_width(rate, [&](auto w) { growth_case<decltype(w)::value>(rate, t, fill); });
    by_width(rate, [&](auto w) { adds_case<decltype(w)::value>(rate, fill); });
    if (loads) by_width(rate, [&](auto w) { loads_case<decltype(w)::value>(rate, fill); });
  }
}
