// Merge and union of two filters' fingerprints (CuckooFilter::merge, CuckooFilter::union_with): the
// compatibility check, the merge of one sub-filter into another, and the order of the merged chain.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "detail/compiler.hpp"
#include "hashing.hpp"
#include "options.hpp"
#include "status.hpp"
#include "sub_filter.hpp"

namespace cuckoo {
inline namespace v1 {
namespace detail {

enum class Combine {
  multiset_sum,  // merge: every fingerprint of the other is added
  set_union,     // union: only the copies a bucket pair lacks
};

// ok when filters of these layouts can be combined (merge, union): same options and seed. Otherwise
// invalid_argument naming the operation and the first difference.
[[nodiscard]] CUCKOO_COLD inline Status check_mergeable(const Layout& a, const Layout& b, Combine mode) {
  const std::string cannot = mode == Combine::set_union ? "cannot take the union of " : "cannot merge ";
  // "different <what> (<prefix>x and y)"
  const auto differ = [&](const std::string& what, std::uint64_t x, std::uint64_t y, const char* prefix = "") {
    return Status::error(ErrorCode::invalid_argument, cannot + "filters with different " + what + " (" + prefix +
                                                          std::to_string(x) + " and " + std::to_string(y) + ")");
  };
  if (a.growth != b.growth) return differ("growth settings", a.growth, b.growth, "growth ");
  if (a.in_place != b.in_place)
    return Status::error(ErrorCode::invalid_argument,
                         cannot + "a filter that doubles in place and a chain of sub-filters");
  if (a.max_sub_filters != b.max_sub_filters)
    return differ("growth settings", a.max_sub_filters, b.max_sub_filters, "at most sub-filters ");
  if (a.bucket_size != b.bucket_size) return differ("bucket sizes", a.bucket_size, b.bucket_size);
  if (a.semi_sorted != b.semi_sorted)
    return Status::error(ErrorCode::invalid_argument, cannot + "a filter with semi-sorted buckets and one without");
  if (a.in_place_version != b.in_place_version)
    return Status::error(ErrorCode::invalid_argument,
                         cannot + "a filter of format version " +
                             std::to_string(std::min(a.in_place_version, b.in_place_version)) + " and one of version " +
                             std::to_string(std::max(a.in_place_version, b.in_place_version)) +
                             ": they place or grow keys differently (rebuild the older one from its keys, or join "
                             "filters of one version)");
  if ((a.widen_at[0] == 0) != (b.widen_at[0] == 0))
    return Status::error(ErrorCode::invalid_argument,
                         cannot +
                             "a filter whose slots have one width (format version 7, or a width asked for) and "
                             "one whose slots widen as it doubles (version 8): rebuild the one from its keys");
  if (a.fingerprint_bits != b.fingerprint_bits)
    return differ("fingerprint bits", a.fingerprint_bits, b.fingerprint_bits);
  if (a.max_doublings != b.max_doublings) return differ("most doublings", a.max_doublings, b.max_doublings);
  if (a.widen_at[0] != b.widen_at[0] || a.widen_at[1] != b.widen_at[1])
    return Status::error(ErrorCode::invalid_argument, cannot + "filters whose slots widen at different doublings");
  if (a.capacity != b.capacity) return differ("capacities", a.capacity, b.capacity);
  // The same capacity with other bucket counts: only an export can say so (a header may give any even
  // count that holds its capacity).
  if (a.num_buckets != b.num_buckets) return differ("bucket counts", a.num_buckets, b.num_buckets);
  if (a.seed != b.seed) return Status::error(ErrorCode::invalid_argument, cannot + "filters with different seeds");
  return {};
}

[[nodiscard]] CUCKOO_COLD inline Status merge_copy_out_of_memory() {
  return Status::error(ErrorCode::out_of_memory, "cannot allocate a copy of the table for the merge");
}

// A rate as "2.71e-2": three digits, enough to tell a refused join's rate from the limit it passed (with
// two, "1.6e-4, above the 1.6e-4"), written with integers (printf's floating-point formatting is a large
// part of a wasm module).
[[nodiscard]] CUCKOO_COLD inline std::string rate_text(double r) {
  if (!(r > 0)) return "0";
  int exponent = 0;
  for (; r < 1; --exponent) r *= 10;
  for (; r >= 10; ++exponent) r /= 10;
  auto hundredths = static_cast<unsigned>(r * 100 + 0.5);
  if (hundredths == 1000) {
    hundredths = 100;
    ++exponent;
  }
  return std::to_string(hundredths / 100) + "." + std::to_string(hundredths / 10 % 10) +
         std::to_string(hundredths % 10) + "e" + std::to_string(exponent);
}

// A join's entries keep the fingerprint bits they had in their own filter: joined into a table that has
// doubled further, they can match absent keys more often than the joined filter's options allow. Such a
// join is refused rather than made. (A chain takes sub-filters over as copies instead, and their rates
// add up: docs/GROWTH.md.)
[[nodiscard]] CUCKOO_COLD inline Status check_joined_rate(double rate, double limit) {
  if (rate <= limit * (1 + 1e-9)) return {};
  return Status::error(ErrorCode::capacity_exceeded,
                       "the joined filter would have a false-positive rate of " + rate_text(rate) + ", above the " +
                           rate_text(limit) +
                           " its options allow: each joined fingerprint keeps the bits it had in its own, smaller "
                           "filter. Make every part with the capacity of the whole (this filter was left unchanged)");
}

[[nodiscard]] inline bool same_shape(const SubFilter& a, const SubFilter& b) noexcept {
  return a.num_buckets == b.num_buckets && a.fingerprint_bits == b.fingerprint_bits;
}

// Union: how many copies of fingerprint fp (at `slot` of bucket i, other bucket j) the chain `work` lacks
// of those `from` holds in the pair, counting the copies in every sub-filter of from's shape (a chain can
// hold several: earlier unions append them). Each (pair, fingerprint) is counted once, at its first slot
// in bucket order: elsewhere the answer is 0. Kicks move fingerprints only within their own pair, so the
// counts of a pair handled earlier stay right.
[[nodiscard]] CUCKOO_COLD inline std::size_t copies_lacking(const std::vector<SubFilter>& work, const SubFilter& from,
                                                            std::uint32_t i, std::uint32_t j, std::uint32_t fp,
                                                            unsigned slot) noexcept {
  if (from.table.find(i, fp) != static_cast<int>(slot) || (j < i && from.table.count(j, fp) != 0)) return 0;
  const auto copies_in = [&](const SubFilter& s) { return s.table.count(i, fp) + (j != i ? s.table.count(j, fp) : 0); };
  const std::size_t want = copies_in(from);
  std::size_t have = 0;
  for (const SubFilter& s : work)
    if (same_shape(s, from)) have += copies_in(s);
  return want > have ? want - have : 0;
}

// Adds the fingerprints of `from` to `into` (work[target]), a sub-filter of the same shape: all of them,
// or for a union those the chain lacks. Returns false when they do not fit; `into` is then partly changed
// (the caller restores it).
[[nodiscard]] CUCKOO_COLD inline bool combine_into(std::vector<SubFilter>& work, std::size_t target,
                                                   const SubFilter& from, Combine mode, const Layout& layout,
                                                   PathStep* path) {
  SubFilter& into = work[target];
  for (std::uint64_t bucket = 0; bucket < from.num_buckets; ++bucket) {
    const auto i = static_cast<std::uint32_t>(bucket);
    for (unsigned slot = 0; slot < layout.bucket_size; ++slot) {
      const std::uint32_t fp = from.table.get(i, slot);
      if (fp == 0) continue;
      // The fingerprint's bucket pair is known from where it sits.
      const std::uint32_t j = alternate_index(i, fp, from.num_buckets);
      const std::size_t copies = mode == Combine::multiset_sum ? 1 : copies_lacking(work, from, i, j, fp, slot);
      // The walk's generator is seeded from the place (there is no key hash), so merges are reproducible.
      const Location at{(std::uint64_t{i} << 32 | fp) ^ layout.seed, i, j, fp};
      for (std::size_t c = 0; c < copies; ++c)
        if (into.insert<false>(at, layout.max_kicks, path, nullptr) != InsertOutcome::placed) return false;
    }
  }
  return true;
}

// A fingerprint cannot move to a table of another shape (its buckets and width come from hash bits that
// are gone). A merge adds sub-filter k of the other filter (`from`) to sub-filter k of the working chain
// when it has the same shape (both chains grew by the same rule) and room; `own` is how many sub-filters
// the chain had before the merge. A union adds what the chain lacks to its first sub-filter of from's
// shape, wherever it is, so that a union repeated changes nothing. Otherwise, when growth is on, the
// chain takes a sub-filter of its own for `from` (for a union, holding only what the chain lacks): every
// key is kept, and the false-positive rates add up.
[[nodiscard]] CUCKOO_COLD inline Status merge_sub_filter(std::vector<SubFilter>& work, std::size_t own, std::size_t k,
                                                         const SubFilter& from, Combine mode, const Layout& layout,
                                                         PathStep* path) {
  std::size_t target = work.size();
  if (mode == Combine::multiset_sum) {
    if (k < own && same_shape(work[k], from)) target = k;
  } else {
    for (std::size_t t = 0; t < work.size() && target == work.size(); ++t)
      if (same_shape(work[t], from)) target = t;
  }
  if (target < work.size()) {
    SubFilter saved;
    if (!saved.copy_of(work[target])) return merge_copy_out_of_memory();
    if (combine_into(work, target, from, mode, layout, path)) return {};
    work[target] = std::move(saved);
  }
  if (layout.growth == 0 || work.size() >= layout.max_sub_filters)
    return Status::error(ErrorCode::capacity_exceeded,
                         layout.growth == 0
                             ? "the merged fingerprints do not fit (this filter was left unchanged)"
                             : "the merged fingerprints do not fit in " + std::to_string(layout.max_sub_filters) +
                                   " sub-filters (this filter was left unchanged)");
  work.emplace_back();  // reserved for max_sub_filters by the caller
  if (mode == Combine::set_union && target < work.size() - 1) {
    // An empty table of from's shape, given what the rest of the chain lacks: no more than `from` holds.
    SubFilter& fresh = work.back();
    if (!fresh.allocate(from.capacity, from.num_buckets, from.fingerprint_bits, layout.bucket_size, layout.semi_sorted))
      return merge_copy_out_of_memory();
    if (combine_into(work, work.size() - 1, from, mode, layout, path)) return {};
  }
  return work.back().copy_of(from) ? Status{} : merge_copy_out_of_memory();
}

// Smallest first, so that new keys and growth continue from the largest sub-filter. The first keeps its
// place: it is the filter's shape. A stable insertion sort: at most 32 entries, and std::stable_sort would
// add kilobytes to the wasm module.
CUCKOO_COLD inline void order_chain(std::vector<SubFilter>& chain) noexcept {
  const auto before = [](const SubFilter& x, const SubFilter& y) {
    return x.capacity < y.capacity || (x.capacity == y.capacity && x.fingerprint_bits < y.fingerprint_bits);
  };
  for (std::size_t i = 2; i < chain.size(); ++i)
    for (std::size_t j = i; j > 1 && before(chain[j], chain[j - 1]); --j) std::swap(chain[j], chain[j - 1]);
}

}  // namespace detail
}  // namespace v1
}  // namespace cuckoo
