// Options, their validation, and sizing: from what the user asks for to the exact table shape.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "detail/compiler.hpp"
#include "detail/edition.hpp"
#include "detail/semi_sort.hpp"
#include "doubling_filter.hpp"
#include "hashing.hpp"
#include "status.hpp"

namespace cuckoo {
inline namespace v1 {

struct Options {
  // How many items the filter must hold. Required (at least 1).
  std::uint64_t capacity = 0;
  // Target false-positive rate at `capacity` items, in (0, 1). The library picks the fingerprint size.
  // When neither fp_rate nor fingerprint_bits is given, 0.001 is used.
  std::optional<double> fp_rate;
  // Explicit fingerprint size in bits, 4..32. Exclusive with fp_rate.
  std::optional<unsigned> fingerprint_bits;
  // Slots per bucket: 2, 4 or 8 (default 4: the paper's choice, 95% load with short fingerprints).
  std::optional<unsigned> bucket_size;
  // Evictions tried before an add gives up (and is undone). 0 means "only direct placements".
  unsigned max_kicks = 500;
  std::uint64_t seed = kDefaultSeed;
  // Growth factor, 2..16; not set: the filter never grows. Growth 2 doubles the table in place when it is
  // full (doubling_filter.hpp): lookups read two buckets at any size. With another factor, or with
  // max_sub_filters, semi_sorted, fingerprint_bits or a bucket_size other than 4 (which the table that
  // doubles does not have), a full filter chains a sub-filter of `growth` times the last one's capacity
  // with one more fingerprint bit. Either way the false-positive rate stays below fp_rate (docs/GROWTH.md).
  std::optional<unsigned> growth;
  // The most sub-filters a growing chain may have, 1..32 (default 16); fewer when the fingerprints would
  // pass 32 bits first.
  std::optional<unsigned> max_sub_filters;
  // Semi-sorted buckets (bucket_table.hpp): one bit less per fingerprint for the same false-positive
  // rate, for bucket_size 4 and fingerprints of 5..32 bits. Not set: kSemiSortedDefault when the width
  // comes from fp_rate with bucket_size 4, else off. A width from fp_rate below 5 bits is raised to 5.
  std::optional<bool> semi_sorted;
  // Growth 2: the slot width of the table that doubles, 16, 20, 24, 32 or 40, for every size. Default: the
  // narrowest that doubles as often as 40-bit slots would at fp_rate (in_place_slot_bits: 16 bits from about
  // 0.0028 up, 20 from about 1.9e-4, 24 from about 1.2e-5, 32 from about 4.5e-8), and where the first
  // doublings leave rate to spare, slots 4 bits narrower in the first tables that widen to it as the table
  // doubles (in_place_plan, format version 8: 16 bits then 20 at 0.001, 20 then 24 at 1e-4).
  std::optional<unsigned> slot_bits;
};

inline constexpr unsigned kMinFingerprintBits = 4;
inline constexpr unsigned kMaxFingerprintBits = 32;
inline constexpr unsigned kDefaultBucketSize = 4;
inline constexpr unsigned kMaxKicksLimit = 100000;
inline constexpr double kDefaultFpRate = 0.001;
inline constexpr unsigned kMinGrowth = 2;
inline constexpr unsigned kMaxGrowth = 16;
inline constexpr unsigned kDefaultMaxSubFilters = 16;
inline constexpr unsigned kMaxSubFiltersLimit = 32;
// Whether a filter sized from fp_rate with bucket_size 4 has semi-sorted buckets unless told otherwise.
inline constexpr bool kSemiSortedDefault = false;
// What semi-sorted buckets need (detail/semi_sort.hpp).
inline constexpr unsigned kSemiSortedBucketSize = detail::semi_sort::kSlots;
inline constexpr unsigned kMinSemiSortedFingerprintBits = detail::semi_sort::kMinFingerprintBits;

// The exact shape of a filter, fully resolved; what the export format stores.
struct Layout {
  std::uint64_t capacity = 0;
  std::uint64_t num_buckets = 0;
  unsigned bucket_size = 0;
  unsigned fingerprint_bits = 0;
  unsigned max_kicks = 0;
  std::uint64_t seed = 0;
  unsigned growth = 0;           // 0: no growth
  unsigned max_sub_filters = 1;  // 1 without growth
  bool semi_sorted = false;      // every sub-filter's buckets are semi-sorted
  // Growth in place (doubling_filter.hpp): then capacity and num_buckets are the first table's,
  // fingerprint_bits is the first table's slot width (16, 20, 24, 32 or 40), growth is 2 and max_sub_filters 1.
  bool in_place = false;
  unsigned max_doublings = 0;  // in place: how often the table may double
  // In place: the export format whose rules the table keeps (DoublingOptions::version): 7 for a filter
  // made now; 6 or 5 for one read from such an export (5 places keys from the hash's top 32 bits alone;
  // 6 stops doubling before an entry runs out of ext bits, where 7 copies it).
  unsigned in_place_version = 7;
  // In place: the doublings after which the slots are 4 and 8 bits wider than fingerprint_bits (0: never;
  // WidthPlan, in_place_plan). Exported as format version 8, with the rules of 7.
  unsigned widen_at[2] = {0, 0};
};

// Growth in place: the most doublings that keep the rate at most `rate` for a first table of `base_buckets`
// buckets with slots of `slot_bits` (16, 20, 24, 32 or 40), or false when the table may not double even once.
// Each doubling's adds raise the rate by about 8 x 0.475 / 2^(F + E) (doubling_filter.hpp's rate_bound),
// so a width doubles as long as its sum stays under the rate, and at most until kMaxBuckets. 40-bit
// slots: an entry gets 39 bits up to 2^25 buckets (127 million items), so from about 2e-9 up a table
// doubles 23 times or to kMaxBuckets; below 2.1e-11 it cannot double (a first table past 2^24 buckets
// needs more: 2.8e-11 there, 1.8e-9 at 2^31). 32-bit slots (31 bits): from about 4.5e-8 up, as far as
// 40-bit ones; 16-bit (15 bits): from about 0.0028 up; 20-bit (19) from 1.9e-4, 24-bit (23) from 1.2e-5. A first table
// past half of kMaxBuckets may not double at all (max_doublings 0).
[[nodiscard]] [[gnu::noinline]] CUCKOO_COLD inline bool in_place_shape(double rate, std::uint64_t base_buckets,
                                                                       unsigned slot_bits,
                                                                       unsigned& max_doublings) noexcept {
  const auto shape = [&](auto table) {
    using Table = typename decltype(table)::type;
    if (Table::rate_bound(1, base_buckets) > rate) return false;
    if ((base_buckets << 1) > kMaxBuckets) {
      max_doublings = 0;
      return true;
    }
    const unsigned most = Table::most_doublings(base_buckets);
    unsigned g = 1;
    while (g < most && (base_buckets << (g + 1)) <= kMaxBuckets && Table::rate_bound(g + 1, base_buckets) <= rate) ++g;
    max_doublings = g;
    return true;
  };
  if (slot_bits == 16) return shape(std::type_identity<DoublingFilter<std::uint16_t>>{});
  if (slot_bits == 20) return shape(std::type_identity<DoublingFilter<Slot20>>{});
  if (slot_bits == 24) return shape(std::type_identity<DoublingFilter<Slot24>>{});
  if (slot_bits == 32) return shape(std::type_identity<DoublingFilter<std::uint32_t>>{});
  return shape(std::type_identity<DoublingFilter<Slot40>>{});
}

// Whether a table that doubles in place has slots of this width.
[[nodiscard]] constexpr bool in_place_slot_width(std::uint64_t slot_bits) noexcept {
  return slot_bits == 16 || slot_bits == 20 || slot_bits == 24 || slot_bits == 32 || slot_bits == 40;
}

// The slot width a filter that doubles in place gets at `rate` (when none is asked for): the narrowest of
// 16, 20, 24, 32 and 40 bits that doubles as often as 40-bit slots would at that rate and first size, so
// that the width costs no reach: 16 bits from about 0.0028 up, 20 from about 1.9e-4, 24 from about 1.2e-5,
// 32 from about 4.5e-8, else 40. (Slots of 40 bits for any rate took 45 to 87 bits per item.) 0 when not
// even 40-bit slots can double once.
[[nodiscard]] CUCKOO_COLD inline unsigned in_place_slot_bits(double rate, std::uint64_t base_buckets) noexcept {
  unsigned widest = 0;
  if (!in_place_shape(rate, base_buckets, 40, widest)) return 0;
  for (const unsigned bits : {16u, 20u, 24u, 32u}) {
    unsigned doublings = 0;
    if (in_place_shape(rate, base_buckets, bits, doublings) && doublings >= widest) return bits;
  }
  return 40;
}

// The slots of a filter that doubles in place at `rate` when no width is asked for, if they should widen
// as it doubles (format version 8). One width for every size (in_place_slot_bits's: the narrowest that
// doubles as often as 40-bit slots would) leaves part of the rate unspent while the table is small; so for
// each doubling in turn the slots are the narrowest of 16, 20 and 24 bits (never narrower than the last,
// never wider than that one width) with which the rate bound holds through all those doublings, every later
// one taken at that width, so that a step never comes too late and no size takes more memory than before.
// At 0.001 (from 256 first buckets): 16 bits up to 5 doublings, then 20; at 1e-4, 20 bits up to 11, then
// 24. false when one width does for all (16 bits from about 0.0028 up, 20 from 1.9e-4 to 3e-4), or that
// width is 32 or 40 bits (another fixed fingerprint), or the widths would step by more than 4 bits at once.
[[nodiscard]] [[gnu::noinline]] CUCKOO_COLD inline bool in_place_plan(double rate, std::uint64_t base_buckets,
                                                                      unsigned& first_bits, unsigned (&widen_at)[2],
                                                                      unsigned& max_doublings) noexcept {
  const unsigned top = in_place_slot_bits(rate, base_buckets);
  unsigned reach = 0;
  if (top == 0 || top > 24 || !in_place_shape(rate, base_buckets, top, reach)) return false;
  unsigned widths[64] = {};  // reach < 56 (the position's bits)
  for (unsigned k = 0; k <= reach; ++k) {
    unsigned w = k == 0 ? 16 : widths[k - 1];
    // `top` needs no test: the last width's test took every later doubling at `top`.
    for (; w < top; w += 4) {
      // widths[0 .. k - 1], then w, then top: at most two steps of 4 bits (16 to 24).
      const auto candidate = [&](unsigned j) { return j < k ? widths[j] : j == k ? w : top; };
      WidthPlan plan{candidate(0), {0, 0}};
      unsigned steps = 0;
      for (unsigned j = 1; j <= reach; ++j)
        for (unsigned up = candidate(j - 1); up < candidate(j) && steps < 2; up += 4) plan.widen_at[steps++] = j;
      if (detail::in_place_rate_bound(reach, base_buckets, plan, top) <= rate) break;
    }
    widths[k] = w;
  }
  unsigned steps = 0;
  unsigned at[2] = {0, 0};
  for (unsigned k = 1; k <= reach; ++k) {
    if (widths[k] == widths[k - 1]) continue;
    if (widths[k] != widths[k - 1] + 4 || steps == 2) return false;
    at[steps++] = k;
  }
  if (steps == 0) return false;
  first_bits = widths[0];
  widen_at[0] = at[0];
  widen_at[1] = at[1];
  max_doublings = reach;
  return true;
}

namespace detail {

// The share of slots that `capacity` items may fill, as a fraction percent / 100. Integers, so that
// sizing is identical in every build. Two-slot buckets cannot get much past 84% with random walks
// (Fan et al., CoNEXT 2014, Table 2); 4 and 8 slots reach 95% and more.
[[nodiscard]] constexpr std::uint64_t target_load_percent(unsigned bucket_size) noexcept {
  return bucket_size == 2 ? 84 : 95;
}

[[nodiscard]] inline bool valid_bucket_size(std::uint64_t b) noexcept { return b == 2 || b == 4 || b == 8; }

// The false-positive bound of a full filter: a lookup compares against 2b slots, each matching an
// absent key with probability 1 / (2^f - 1) (fingerprints are uniform over the non-zero values).
[[nodiscard]] inline double full_load_fp_bound(unsigned bucket_size, unsigned fingerprint_bits) noexcept {
  return 2.0 * bucket_size / (std::ldexp(1.0, static_cast<int>(fingerprint_bits)) - 1.0);
}

[[nodiscard]] inline std::uint64_t buckets_for(std::uint64_t capacity, unsigned bucket_size) noexcept {
  const std::uint64_t percent = target_load_percent(bucket_size);
  // ceil(capacity / (b * percent / 100)); capacity is bounded below, so this cannot overflow.
  std::uint64_t n = (capacity * 100 + bucket_size * percent - 1) / (bucket_size * percent);
  if (n < 2) n = 2;
  return n + (n & 1);  // even: required by alternate_index
}

// Above this, capacity * 100 could overflow; the bucket limit is far lower anyway.
inline constexpr std::uint64_t kMaxCapacity = (kMaxBuckets / 100) * 8 * 95;

}  // namespace detail

// Validates `options` and computes the table shape. On error, `layout` is untouched.
[[nodiscard]] CUCKOO_COLD inline Status resolve_layout(const Options& options, Layout& layout) {
  const auto invalid = [](std::string message) {
    return Status::error(ErrorCode::invalid_argument, std::move(message));
  };
  if (options.capacity == 0) return invalid("capacity must be at least 1");
  const unsigned bucket_size = options.bucket_size.value_or(kDefaultBucketSize);
  if (!detail::valid_bucket_size(bucket_size))
    return invalid("bucket_size must be 2, 4 or 8 (got " + std::to_string(bucket_size) + ")");
  if (options.max_kicks > kMaxKicksLimit)
    return invalid("max_kicks must be at most " + std::to_string(kMaxKicksLimit) + " (got " +
                   std::to_string(options.max_kicks) + ")");

  if (detail::kSizedOnly && (options.growth || options.max_sub_filters || options.semi_sorted.value_or(false)))
    return Status::error(ErrorCode::unsupported,
                         options.semi_sorted.value_or(false) ? "semi-sorted buckets" : "growth");
  const unsigned growth = options.growth.value_or(0);
  if (options.growth && (growth < kMinGrowth || growth > kMaxGrowth))
    return invalid("growth must be from 2 to " + std::to_string(kMaxGrowth) + " (got " + std::to_string(growth) + ")");
  if (options.max_sub_filters && !options.growth) return invalid("max_sub_filters needs growth");
  const unsigned max_sub_filters = options.max_sub_filters.value_or(kDefaultMaxSubFilters);
  if (max_sub_filters < 1 || max_sub_filters > kMaxSubFiltersLimit)
    return invalid("max_sub_filters must be from 1 to " + std::to_string(kMaxSubFiltersLimit) + " (got " +
                   std::to_string(max_sub_filters) + ")");

  const bool semi_sorted = options.semi_sorted.value_or(kSemiSortedDefault && !options.fingerprint_bits &&
                                                        bucket_size == kSemiSortedBucketSize);
  if (semi_sorted && bucket_size != kSemiSortedBucketSize)
    return invalid("semi_sorted needs bucket_size " + std::to_string(kSemiSortedBucketSize) + " (got " +
                   std::to_string(bucket_size) + ")");
  unsigned bits = 0;
  // (Not in a build of sized filters, which refused growth above: none of this is in its module.)
  if (!detail::kSizedOnly && growth == 2 && !options.max_sub_filters && !options.fingerprint_bits && !semi_sorted &&
      bucket_size == 4) {
    // Buckets of 4: half what a chain or a sized filter of buckets of 8 may take (it said "capacity is too
    // large", and past that the other maximum).
    if (options.capacity > DoublingFilter<Slot40>::kMaxCapacity)
      return invalid("capacity " + std::to_string(options.capacity) + " is larger than the maximum " +
                     std::to_string(DoublingFilter<Slot40>::kMaxCapacity) + " of a filter that doubles in place");
    const double rate = options.fp_rate.value_or(kDefaultFpRate);
    if (!(rate > 0.0 && rate < 1.0)) return invalid("fp_rate must be greater than 0 and less than 1");
    const std::uint64_t buckets = DoublingFilter<Slot40>::base_buckets_for(options.capacity);
    if (buckets > kMaxBuckets)
      return invalid("capacity " + std::to_string(options.capacity) + " needs " + std::to_string(buckets) +
                     " buckets of 4; at most " + std::to_string(kMaxBuckets) + " are supported");
    unsigned plan_bits = 0;
    unsigned widen_at[2] = {0, 0};
    unsigned plan_doublings = 0;
    const bool planned = !options.slot_bits && in_place_plan(rate, buckets, plan_bits, widen_at, plan_doublings);
    const unsigned narrowest = in_place_slot_bits(rate, buckets);  // 0: none doubles (refused below, as 40)
    const unsigned slot_bits = planned ? plan_bits : options.slot_bits.value_or(narrowest == 0 ? 40 : narrowest);
    if (!in_place_slot_width(slot_bits))
      return invalid("slot_bits must be 16, 20, 24, 32 or 40 (got " + std::to_string(slot_bits) + ")");
    unsigned max_doublings = plan_doublings;
    if (!planned && !in_place_shape(rate, buckets, slot_bits, max_doublings))
      return invalid(std::string("fp_rate is below what a filter that grows in place gives (about ") +
                     (slot_bits == 40   ? "2.1e-11, more for a first table past 2^24 buckets: even its 40-bit"
                      : slot_bits == 32 ? "5.3e-9: even its 32-bit"
                      : slot_bits == 24 ? "1.4e-6: its 24-bit"
                      : slot_bits == 20 ? "2.2e-5: its 20-bit"
                                        : "3.4e-4: its 16-bit") +
                     " slots could not double once)");
    layout = Layout{options.capacity, buckets, bucket_size, slot_bits, options.max_kicks, options.seed,
                    growth,           1,       false,       true,      max_doublings};
    layout.widen_at[0] = widen_at[0];
    layout.widen_at[1] = widen_at[1];
    return {};
  }
  // The most that kMaxBuckets buckets hold at the target load, and that an import takes (kMaxCapacity, a
  // little less with buckets of 8). An outside pass: this said 32641750720, the maximum with buckets of 8,
  // whatever bucket_size was, and a capacity below it was then refused for want of buckets.
  if (const std::uint64_t most =
          std::min(kMaxBuckets * bucket_size * detail::target_load_percent(bucket_size) / 100, detail::kMaxCapacity);
      options.capacity > most)
    return invalid("capacity " + std::to_string(options.capacity) + " is larger than the maximum " +
                   std::to_string(most) + " with bucket_size " + std::to_string(bucket_size));
  if (options.fp_rate && options.fingerprint_bits) {
    return invalid("give either fp_rate or fingerprint_bits, not both");
  } else if (options.fingerprint_bits) {
    bits = *options.fingerprint_bits;
    if (bits < kMinFingerprintBits || bits > kMaxFingerprintBits)
      return invalid("fingerprint_bits must be from 4 to 32 (got " + std::to_string(bits) + ")");
    if (semi_sorted && bits < kMinSemiSortedFingerprintBits)
      return invalid("semi_sorted needs fingerprint_bits from " + std::to_string(kMinSemiSortedFingerprintBits) +
                     " to " + std::to_string(kMaxFingerprintBits) + " (got " + std::to_string(bits) + ")");
  } else {
    const double rate = options.fp_rate.value_or(kDefaultFpRate);
    if (!(rate > 0.0 && rate < 1.0)) return invalid("fp_rate must be greater than 0 and less than 1");
    // A growing chain spends half of the rate on its first sub-filter: sub-filter k has one bit more than
    // sub-filter k-1, so its bound is at most half as large, and the bounds sum to at most the rate.
    const double first_rate = growth != 0 ? rate / 2 : rate;
    for (unsigned f = kMinFingerprintBits; f <= kMaxFingerprintBits && bits == 0; ++f)
      if (detail::full_load_fp_bound(bucket_size, f) <= first_rate) bits = f;
    // The bound for 32-bit fingerprints is 2b / (2^32 - 1); written out, so that no floating-point
    // formatting (printf, a large part of the wasm module) is linked in for one message.
    if (bits == 0 && growth != 0)
      return invalid(std::string("fp_rate is too small for a filter that grows by sub-filters: its first sub-filter "
                                 "gets half of it, and 32-bit fingerprints with bucket_size ") +
                     (bucket_size == 2   ? "2 give about 9.4e-10 (fp_rate at least about 1.9e-9)"
                      : bucket_size == 4 ? "4 give about 1.9e-9 (fp_rate at least about 3.8e-9)"
                                         : "8 give about 3.8e-9 (fp_rate at least about 7.6e-9)"));
    if (bits == 0)
      return invalid(std::string("fp_rate is below what 32-bit fingerprints give with bucket_size ") +
                     (bucket_size == 2   ? "2 (about 9.4e-10)"
                      : bucket_size == 4 ? "4 (about 1.9e-9)"
                                         : "8 (about 3.8e-9)"));
    if (semi_sorted) bits = std::max(bits, kMinSemiSortedFingerprintBits);
  }

  // At most kMaxBuckets: the capacity is at most what they hold (checked above; test_options.cpp takes each
  // bucket size's maximum).
  const std::uint64_t buckets = detail::buckets_for(options.capacity, bucket_size);

  // Each sub-filter has one more fingerprint bit than the one before, up to 32.
  const unsigned chain_limit = growth != 0 ? std::min(max_sub_filters, kMaxFingerprintBits - bits + 1) : 1;
  layout = Layout{options.capacity, buckets,     bucket_size, bits, options.max_kicks, options.seed, growth,
                  chain_limit,      semi_sorted, false,       0};
  return {};
}

}  // namespace v1
}  // namespace cuckoo
