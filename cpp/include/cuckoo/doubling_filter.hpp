// A cuckoo filter that grows in place: when an add finds no room, its table doubles, and every entry moves
// to one of its bucket's two successors. Lookups read two buckets at any size, where a chain of
// sub-filters (cuckoo_filter.hpp's growth) reads two per sub-filter. CuckooFilter holds one of these when
// made with growth 2 (options.hpp says when), and dispatches every operation to it (docs/GROWTH.md).
//
// The index. With N = N0 * 2^g buckets (N0 even, any size: exact sizing; g the doublings so far), a key's
// first bucket is the multiply-shift index of its position h, the P = 64 - F bits of its hash that the
// fixed fingerprint (below) does not use: i1 = floor(h * N / 2^P). Write h * N0 = q * 2^P + frac: then
// i1 = q * 2^g + (the top g bits of frac), and doubling N appends the next bit of frac to the index
// (i1' = 2 * i1 + that bit). So an entry can carry "the bits after its index" and give one up at each
// doubling, which decides where it moves. Those bits tell keys apart only as far as the position has
// them: within a bucket, h takes 2^P / (N0 2^g) values, so an entry's ext bits count for at most
// P - log2(N0) - g bits (hash_doublings() keeps that at least E). Format version 5 took h from the top 32
// bits alone (P = 32, `legacy_position`): past about 32 - log2(N0) - g, its ext bits repeated the index,
// and after many doublings absent keys matched 7 to 10 times as often as its rate model said.
//
// The other bucket. The key's two buckets differ only in q, the part fixed at the start, and share the
// low g bits s: i2 = alt(q) * 2^g + s, with alt the involution of hashing.hpp on N0 buckets and the odd
// offset r taken from F fingerprint bits that an entry keeps for ever. So both buckets of a key extend by
// the same bit when the table doubles, and from (bucket, entry) the other bucket is known at every size:
// the table is 2^g classes of N0 buckets (by s), and a kick-out walk stays in its class.
//
// An entry (a slot of W bits, W = 40 for a new filter, 16 or 32 for one read from an earlier build's
// export) is [fp: F bits][ext: e bits][1][0 ... 0]: the fixed fingerprint, then the e index bits that come
// after the index at the current size (e = E = W - 1 - F for an entry added now, or in a 40-bit table past
// 2^25 buckets as many as the position has: fresh_ext_bits(); one fewer per doubling since), then a 1
// that marks where they end. The empty slot is
// 0. An absent key matches an entry with probability 2^-(F + e): newer entries keep longer fingerprints,
// and the rate a doubling raises is paid by the entries that were there before it (expected_fp_rate()
// sums it from the count of entries of each length). An entry whose ext bits are used up (e = 0) cannot
// move, so the table stops doubling before any would be: at most E doublings, fewer when the rate asked
// for needs it (rate_bound()).
//
// A key K matches an entry v when v's bits above its marker equal K's full value V's:
//   (v ^ V) & ~(v ^ (v - 1)) == 0, v != 0.
// Removing a key takes its longest matching entry. Every shorter entry that matches K also matches any
// key that the longest one matched (they agree with K on fewer bits), so a remove never takes the last
// match of another key that was added: deleting added keys never loses another (no "false deletion").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <bit>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "detail/compiler.hpp"
#include "detail/table_memory.hpp"
#include "hashing.hpp"
#include "status.hpp"
#include "sub_filter.hpp"

namespace cuckoo {
inline namespace v1 {

// Slots that widen as the table doubles (format version 8): a table made at a loose rate starts with slots
// as narrow as its first doublings need, and each step makes them 4 bits wider (16 to 20, 20 to 24; the
// fixed fingerprint stays 8 bits, so an entry keeps its bits and its meaning) where the rate of the
// doublings left would need it (in_place_plan). An entry added after a step gets the wider slot's ext bits.
struct WidthPlan {
  unsigned first_bits = 0;        // the first table's slot width; 0: no plan, the width never changes
  unsigned widen_at[2] = {0, 0};  // the doublings after which the slots are 4 (8) bits wider; 0: none

  [[nodiscard]] constexpr bool widens() const noexcept { return first_bits != 0; }
  // The slot width after g doublings (`fixed` without a plan).
  [[nodiscard]] constexpr unsigned bits_at(unsigned g, unsigned fixed) const noexcept {
    if (first_bits == 0) return fixed;
    return first_bits +
           4 * static_cast<unsigned>((widen_at[0] != 0 && g >= widen_at[0]) + (widen_at[1] != 0 && g >= widen_at[1]));
  }
  friend constexpr bool operator==(const WidthPlan&, const WidthPlan&) = default;
};

namespace detail {

// The rate arithmetic of a table that doubles, by slot width W (DoublingFilter's constants are these): F, its
// fixed fingerprint bits, 8 of 16-, 20- and 24-bit slots and 16 of 32- and 40-bit ones; the ext bits an entry
// added after g doublings of N0 first buckets gets, E = W - 1 - F while the P = 64 - F bits of the position
// have that many below the index (N0 * 2^(g + e) <= 2^P), fewer past it; and the fill, in percent of the
// slots, that rate bounds take for a doubled table (90 for 16-bit slots, 95 for wider ones).
[[nodiscard]] constexpr unsigned in_place_fixed_bits(unsigned slot_bits) noexcept { return slot_bits < 32 ? 8 : 16; }
[[nodiscard]] constexpr unsigned in_place_fresh_ext_bits(unsigned slot_bits, std::uint64_t base_buckets,
                                                         unsigned g) noexcept {
  const unsigned fixed = in_place_fixed_bits(slot_bits);
  const auto used = static_cast<unsigned>(std::bit_width(base_buckets - 1)) + g;
  return used >= 64 - fixed ? 0 : std::min(slot_bits - 1 - fixed, 64 - fixed - used);
}
[[nodiscard]] constexpr unsigned in_place_bound_fill_percent(unsigned slot_bits) noexcept {
  return slot_bits == 16 ? 90 : 95;
}

// An upper bound of expected_fp_rate() at the fill limit after g doublings of a table of N0 first buckets
// whose entries added after k doublings are width(k) bits wide (a width that never narrows), for keys added
// in any order (deletes only lower it). A lookup compares 2b slots; an entry added to a table of S slots with
// B(k) = F + e bits (e = in_place_fresh_ext_bits) adds 2b / S 2^-B(k) to the rate for good (a doubling halves
// its share of the slots and its odds of matching both). The first table takes at most 0.95 S0 entries, and
// the table after k doublings (S0 2^k slots) at most f(k) of its slots, where it held f(k - 1) / 2 after the
// doubling (f(k) = in_place_bound_fill_percent / 100, at least the fill of every doubled table, and f(0) =
// 0.95): rate <= 2b (0.95 2^-B(0) + sum over k = 1 .. g of (f(k) - f(k - 1) / 2) 2^-B(k)). Filling a table
// less only lowers it (each f(k)'s coefficient, 2^-B(k) - 2^-B(k+1) / 2, is not negative while B drops by at
// most one bit a doubling: widening only raises it). At one width: 0.95 2^-B(0) + (f - 0.475) 2^-B(1) + f / 2 (2^-B(2)
// + ... + 2^-B(g)).
// (`plan` gives width(k); without one, every doubling is `fixed` bits wide.)
[[nodiscard]] CUCKOO_COLD inline double in_place_rate_bound(unsigned g, std::uint64_t base_buckets,
                                                            const WidthPlan& plan, unsigned fixed) noexcept {
  constexpr unsigned kSlots = 4;
  const auto per_match = [&](unsigned k) {
    const unsigned w = plan.bits_at(k, fixed);
    return 2.0 * kSlots /
           static_cast<double>(std::uint64_t{1}
                               << (in_place_fixed_bits(w) + in_place_fresh_ext_bits(w, base_buckets, k)));
  };
  const auto fill = [&](unsigned k) {
    return k == 0 ? 0.95 : in_place_bound_fill_percent(plan.bits_at(k, fixed)) / 100.0;
  };
  double rate = 0.95 * per_match(0);
  for (unsigned k = 1; k <= g; ++k) rate += (fill(k) - fill(k - 1) / 2) * per_match(k);
  return rate;
}

// Whether a table of `slot_bits` after `generation` doublings (of at most `max_doublings`, format rules
// `version`) may have slots that widen by `plan`: version 7's rules, a first width of 16 or 20 bits, steps
// at 1 <= widen_at[0] < widen_at[1] (or none) within the doublings, at most 24 bits, and this width now.
[[nodiscard]] [[gnu::noinline]] CUCKOO_COLD inline bool plan_fits(const WidthPlan& plan, unsigned version,
                                                                  unsigned max_doublings, unsigned generation,
                                                                  unsigned slot_bits) noexcept {
  const unsigned last = plan.widen_at[1] != 0 ? plan.widen_at[1] : plan.widen_at[0];
  return version == 7 && (plan.first_bits == 16 || plan.first_bits == 20) && plan.widen_at[0] != 0 &&
         (plan.widen_at[1] == 0 || plan.widen_at[1] > plan.widen_at[0]) && last <= max_doublings &&
         plan.bits_at(last, 0) <= 24 && plan.bits_at(generation, 0) == slot_bits;
}

// Rewrites `slots` slots of `from` bits (16, 20 or 24: slot j at bits j * from of the table, little-endian)
// as slots of `to` bits in the same memory (at least slots * max(from, to) / 8 bytes), each value moved to
// the top of its new slot: shifted up by to - from (wider), or down by from - to (narrower: its low bits
// must be 0). Wider from the last slot down, narrower from the first up: a slot's new bits then cover only
// slots already read.
CUCKOO_COLD inline void resize_slots(std::uint8_t* table, std::uint64_t slots, unsigned from, unsigned to) noexcept {
  const auto read = [&](std::uint64_t bit, unsigned width) {
    std::uint32_t v = 0;
    for (unsigned b = 0; b * 8 < bit % 8 + width; ++b) v |= std::uint32_t{table[bit / 8 + b]} << (8 * b);
    return (v >> (bit % 8)) & ((std::uint32_t{1} << width) - 1);
  };
  const auto write = [&](std::uint64_t bit, unsigned width, std::uint32_t value) {
    const std::uint64_t mask = ((std::uint64_t{1} << width) - 1) << (bit % 8);
    const std::uint64_t bits = std::uint64_t{value} << (bit % 8);
    for (unsigned b = 0; b * 8 < bit % 8 + width; ++b) {
      std::uint8_t& byte = table[bit / 8 + b];
      byte = static_cast<std::uint8_t>((byte & ~(mask >> (8 * b))) | (bits >> (8 * b)));
    }
  };
  const auto move = [&](std::uint64_t j) {
    const std::uint32_t v = read(j * from, from);
    write(j * to, to, to > from ? v << (to - from) : v >> (from - to));
  };
  if (to > from) {
    for (std::uint64_t j = slots; j-- > 0;) move(j);
  } else {
    for (std::uint64_t j = 0; j < slots; ++j) move(j);
  }
}

}  // namespace detail

// The options of every slot width.
struct DoublingOptions {
  std::uint64_t capacity = 0;  // items the first table holds at 95% load
  unsigned max_kicks = 500;
  std::uint64_t seed = kDefaultSeed;
  unsigned max_doublings = 31;  // at most this often, and at most as often as the slot width allows (E)
  bool grows = true;
  // The export format whose rules the table keeps (format.hpp): 7, what a filter made now gets, copies an
  // entry whose ext bits ran out into both halves at a doubling, so that the table doubles for as long as
  // the position has bits and the rate allows; 6 stops doubling before an entry runs out; 5 also takes
  // the position from the hash's top 32 bits (P = 32). Versions 5 and 6 are what exports of them read as.
  unsigned version = 7;
  WidthPlan plan;  // version 7 only: the slots widen as the table doubles (not set: they never do)
};

// The 40-bit slot: five bytes, slot i at bytes 5i .. 5i + 4 of the table, little-endian (so the table is
// its export, as the other widths' are). What a new filter that grows in place gets: 16 fixed bits and
// 23 ext bits, enough for the position's bits at every size up to 2^25 buckets (127 million items), and
// past that as many as the position has (fresh_ext_bits).
struct Slot40 {};
// 20- and 24-bit slots (format version 7): 8 fixed bits and 11 or 15 ext bits, for the rates between what
// 16-bit slots keep (about 0.0028) and what 32-bit ones are needed for (in_place_slot_bits). Their bucket is
// 10 or 12 bytes, slot s at bits s W to s W + W - 1 of it, little-endian.
struct Slot20 {};
struct Slot24 {};

template <class S>
struct SlotTraits;
template <>
struct SlotTraits<std::uint16_t> {
  using Value = std::uint16_t;
  static constexpr unsigned kBits = 16;
};
template <>
struct SlotTraits<std::uint32_t> {
  using Value = std::uint32_t;
  static constexpr unsigned kBits = 32;
};
template <>
struct SlotTraits<Slot20> {
  using Value = std::uint32_t;
  static constexpr unsigned kBits = 20;
};
template <>
struct SlotTraits<Slot24> {
  using Value = std::uint32_t;
  static constexpr unsigned kBits = 24;
};
template <>
struct SlotTraits<Slot40> {
  using Value = std::uint64_t;
  static constexpr unsigned kBits = 40;
};

template <class SlotType>
class DoublingFilter {
  static_assert(std::is_same_v<SlotType, std::uint16_t> || std::is_same_v<SlotType, std::uint32_t> ||
                std::is_same_v<SlotType, Slot20> || std::is_same_v<SlotType, Slot24> ||
                std::is_same_v<SlotType, Slot40>);
  // The export writes the slots as they are in memory (format.hpp, versions 5 to 7): little-endian.
  static_assert(std::endian::native == std::endian::little);

 public:
  template <class>
  friend class DoublingFilter;  // take_slots() and absorb() read a table of another width

  using Slot = typename SlotTraits<SlotType>::Value;                  // an entry's value
  static constexpr unsigned kSlotBits = SlotTraits<SlotType>::kBits;  // W
  static constexpr unsigned kBucketSize = 4;                          // b
  static constexpr unsigned kBucketBytes = kBucketSize * kSlotBits / 8;
  // 20- and 24-bit slots share bytes: a slot is read and written through its bucket.
  static constexpr bool kPackedInBucket = kSlotBits % 8 != 0 || kSlotBits == 24;
  // F: 8 of 16, 20 and 24, 16 of 32 and of 40 (the alternate bucket needs a few; the rest are better spent on
  // ext bits, which the position has to give while the table is below 2^(P - E) buckets).
  static constexpr unsigned kFixedBits = detail::in_place_fixed_bits(kSlotBits);
  static constexpr unsigned kExtBits = kSlotBits - 1 - kFixedBits;  // E: the most doublings
  // The share of the slots, in percent, at which a doubled table doubles again: 90% at every width. From
  // 90% to 95% a kick-out walk grows long, and a table that doubles passes that band in every generation
  // (each fills from 45% to its limit), where a sized one passes it once: natively, 20 million distinct
  // keys from a first table of 65,536 took 3.7-3.9 s at 95% (8.7 million kicks) and 3.0 s at 90% (3.8
  // million kicks), as long as a table sized for them. Memory per item is then 1/0.9 to 2/0.9 of a
  // slot (5.6% more than at 95% averaged over sizes; twice as much for sizes in the band).
  static constexpr unsigned kFillPercent = 90;
  // The fill rate_bound() takes for every doubled table: 90% for 16-bit slots (it keeps their rate under
  // 0.001 through all 7 doublings of a version 6 table) and 95% for wider ones, which filled that far until
  // 2026-11-29. A table filled less adds less to the rate, so the bound holds; the widths, doublings and
  // join limits chosen from it are what they were.
  static constexpr unsigned kBoundFillPercent = detail::in_place_bound_fill_percent(kSlotBits);
  // The most items a first table may be sized for (its buckets stay within kMaxBuckets at 95% load).
  static constexpr std::uint64_t kMaxCapacity = (kMaxBuckets / 100) * kBucketSize * 95;
  // Buckets of a class at the least: a kick-out walk stays in its class, and classes of a few buckets
  // fill unevenly (the first full one doubles the whole table).
  static constexpr std::uint64_t kMinBaseBuckets = 256;

  using Options = DoublingOptions;
  // P: the bits of the hash a key's position takes (all but the fixed fingerprint's).
  static constexpr unsigned kPositionBits = 64 - kFixedBits;

  // The ext bits an entry added after g doublings gets: E while the position has that many bits below
  // the index, fewer past it (P - bit_width(N0 - 1) - g of them: N0 * 2^(g + e) <= 2^P, the file's
  // comment). Only 40-bit tables double that far: the others stop at hash_doublings().
  [[nodiscard]] static constexpr unsigned fresh_ext_bits(std::uint64_t base_buckets, unsigned g) noexcept {
    return detail::in_place_fresh_ext_bits(kSlotBits, base_buckets, g);
  }

  // The most doublings after which an entry added now still gets all E of its ext bits from the position.
  // 48-bit positions (32-bit slots) allow all 15 doublings from up to 2^18 first buckets (a first
  // capacity of about a million); larger ones double fewer times.
  [[nodiscard]] static constexpr unsigned hash_doublings(std::uint64_t base_buckets) noexcept {
    unsigned g = 0;
    while (g < kExtBits && fresh_ext_bits(base_buckets, g + 1) == kExtBits) ++g;
    return g;
  }

  // The most doublings a table of N0 first buckets may make. Version 7: as long as an entry added now gets
  // an ext bit, P - 1 - bit_width(N0 - 1) (entries whose bits ran out are copied, not refused; the rate
  // and kMaxBuckets stop it sooner). Version 6: 16- and 32-bit tables as long as new entries get all E ext
  // bits; 40-bit ones as long as their first entries have one to give, min(E, P - bit_width(N0 - 1)).
  // Version 5: E.
  [[nodiscard]] static constexpr unsigned most_doublings(std::uint64_t base_buckets, unsigned version = 7) noexcept {
    if (version == 5) return kExtBits;
    if (version >= 7) return kPositionBits - 1 - static_cast<unsigned>(std::bit_width(base_buckets - 1));
    if constexpr (kSlotBits == 40)
      return fresh_ext_bits(base_buckets, 0);
    else
      return hash_doublings(base_buckets);
  }

  // N0: the first table's buckets for `capacity` items (95% load, at least kMinBaseBuckets, even).
  [[nodiscard]] static constexpr std::uint64_t base_buckets_for(std::uint64_t capacity) noexcept {
    std::uint64_t buckets = (capacity * 100 + 95 * kBucketSize - 1) / (95 * kBucketSize);
    if (buckets < kMinBaseBuckets) buckets = kMinBaseBuckets;
    return buckets + (buckets & 1);  // even (hashing.hpp's alternate)
  }

  // rate_bound() of a table of these slots for g doublings (detail::in_place_rate_bound, at one width). For
  // 16-bit slots after 7 doublings: 9.95e-4; for 32-bit ones after 15: 3.01e-8; for 40-bit ones after 23: 1.9e-9
  // from 264 first buckets, capacity 1,000 (a 39-bit term for each doubling up to 2^25 buckets, then 38, 37 ...).
  [[nodiscard]] static double rate_bound(unsigned g, std::uint64_t base_buckets = 1) noexcept {
    return detail::in_place_rate_bound(g, base_buckets, WidthPlan{}, kSlotBits);
  }
  // The same for this table, whose slots may widen as it doubles (its plan).
  [[nodiscard]] double planned_rate_bound(unsigned g) const noexcept {
    return detail::in_place_rate_bound(g, base_buckets_, plan_, kSlotBits);
  }

  // The non-throwing constructor: invalid_argument or out_of_memory.
  [[nodiscard]] static Status make(const Options& o, std::unique_ptr<DoublingFilter>& out) {
    return make_with(o, 0, out);
  }

  // A filter of `generation` doublings whose slots are `table` (malloc'd, N0 * 2^generation buckets; the
  // filter takes them over whatever happens), as an export holds them (format.hpp, versions 5 to 7):
  // checks every slot and the item count. bad_format or out_of_memory.
  [[nodiscard]] CUCKOO_COLD static Status adopt(const Options& o, unsigned generation, std::uint64_t item_count,
                                                std::uint8_t* table, std::unique_ptr<DoublingFilter>& out) {
    std::unique_ptr<std::uint8_t, FreeDeleter> owned(table);
    std::unique_ptr<DoublingFilter> f;
    if (Status s = make_with(o, generation, f, owned.release()); !s.ok()) return s;
    const std::uint64_t n = f->num_buckets() * kBucketSize;
    // An entry added after k doublings had fresh_ext_bits(N0, k) ext bits then and k - g fewer now: at
    // least fresh_ext_bits(N0, 0) - g (E - g in a version 5 table).
    // (Version 7: an entry whose bits ran out has e = 0 and g >= fresh_ext_bits(N0, 0), copies of it too.)
    // (Slots that widen: an entry of the first table had that table's ext bits.)
    const unsigned first_ext =
        o.version == 5 ? kExtBits : detail::in_place_fresh_ext_bits(o.plan.bits_at(0, kSlotBits), f->base_buckets_, 0);
    for (std::uint64_t i = 0; i < n; ++i) {
      const Slot v = f->get(i);
      if (v == 0) continue;
      if ((v & kTailMask) == 0)
        return Status::error(ErrorCode::bad_format, "slot " + std::to_string(i) + " has no length mark");
      if (ext_bits(v) + generation < first_ext)
        return Status::error(ErrorCode::bad_format, "slot " + std::to_string(i) +
                                                        " has fewer index bits than any entry " + "has after " +
                                                        std::to_string(generation) + " doublings");
      f->counted_in(v);
    }
    // Version 7: copies of an entry take a slot each, and a delete takes one copy, so the items are at most
    // the occupied slots; before, exactly as many.
    if (o.version >= 7 ? item_count > f->occupied_ : item_count != f->occupied_)
      return Status::error(ErrorCode::bad_format, "item count " + std::to_string(item_count) +
                                                      (o.version >= 7 ? " exceeds the " : " does not match the ") +
                                                      std::to_string(f->occupied_) + " occupied slots");
    f->size_ = item_count;
    f->set_fill_limit();  // with the entries' share of the rate
    out = std::move(f);
    return {};
  }

  // An exact copy of `from`: out_of_memory when it cannot be had.
  [[nodiscard]] CUCKOO_COLD static Status copy_of(const DoublingFilter& from, std::unique_ptr<DoublingFilter>& out) {
    std::unique_ptr<DoublingFilter> f;
    if (Status s = make_with(from.options(), from.generation_, f); !s.ok()) return s;
    std::memcpy(f->table_, from.table_, from.byte_size());
    f->size_ = from.size_;
    f->occupied_ = from.occupied_;
    std::memcpy(f->length_counts_, from.length_counts_, sizeof f->length_counts_);
    f->failure_ = from.failure_;
    f->first_bucket_decides_ = from.first_bucket_decides_;
    // make_with set them for an empty table: a join of nothing keeps the copy, and adds to it would pass
    // the rate limit that its entries had reached.
    f->set_fill_limit();
    out = std::move(f);
    return {};
  }

  // An empty table for take_slots(), made first: once the slots are rewritten nothing may fail.
  [[nodiscard]] static std::unique_ptr<DoublingFilter> shell() noexcept {
    return std::unique_ptr<DoublingFilter>(new (std::nothrow) DoublingFilter());
  }

  // Takes over `from`'s table, a table of slots 4 bits narrower or wider with the same fixed fingerprint,
  // and rewrites every slot for this width in the same memory: an entry keeps its bits, from the top (wider:
  // zeros appended; narrower: zeros dropped, so every entry must have e <= E here, as in a table widened and
  // not changed since). Everything else is `from`'s, which is left without a table. false, and `from` as it
  // was: the wider table could not be allocated (or an entry would not fit).
  template <class FromSlot>
  [[nodiscard]] [[gnu::noinline]] CUCKOO_COLD bool take_slots(DoublingFilter<FromSlot>& from) noexcept {
    using From = DoublingFilter<FromSlot>;
    static_assert(From::kFixedBits == kFixedBits && From::kSlotBits != kSlotBits);
    static_assert(kSlotBits <= 24 && From::kSlotBits <= 24);  // slots that share bytes: one bit string
    const std::uint64_t buckets = from.num_buckets();
    if constexpr (kSlotBits > From::kSlotBits) {
      void* grown = detail::grow_block(from.table_, from.byte_size(), buckets * kBucketBytes);
      if (grown == nullptr) return false;
      from.table_ = static_cast<std::uint8_t*>(grown);
    } else {
      for (unsigned bits = kSlotBits; bits < From::kSlotBits; ++bits)
        if (from.length_counts_[bits] != 0) return false;
    }
    table_ = from.table_;
    detail::resize_slots(table_, buckets * kBucketSize, From::kSlotBits, kSlotBits);
    if constexpr (kSlotBits < From::kSlotBits) {
      // A smaller block: realloc may move it, or keep the larger one (then the rest stays unused).
      if (void* smaller = std::realloc(table_, buckets * kBucketBytes); smaller != nullptr)
        table_ = static_cast<std::uint8_t*>(smaller);
    }
    from.table_ = nullptr;
    hasher_ = from.hasher_;
    capacity_ = from.capacity_;
    base_buckets_ = from.base_buckets_;
    generation_ = from.generation_;
    max_doublings_ = from.max_doublings_;
    max_kicks_ = from.max_kicks_;
    grows_ = from.grows_;
    low_bits_ = from.low_bits_;
    version_ = from.version_;
    size_ = from.size_;
    occupied_ = from.occupied_;
    std::memset(length_counts_, 0, sizeof length_counts_);
    for (unsigned bits = 0; bits < kSlotBits && bits < From::kSlotBits; ++bits)
      length_counts_[bits] = from.length_counts_[bits];
    failure_ = from.failure_;
    first_bucket_decides_ = from.first_bucket_decides_;
    plan_ = from.plan_;
    resizes_ = from.resizes_;
    path_.swap(from.path_);
    set_fill_limit();
    return true;
  }

  DoublingFilter(const DoublingFilter&) = delete;
  DoublingFilter& operator=(const DoublingFilter&) = delete;
  ~DoublingFilter() { std::free(table_); }

  // --- keys -------------------------------------------------------------------------------------------
  // False only when there is no room and the table cannot double (or the key has 2b copies); the filter
  // then holds exactly the keys it held, and last_failure() says why.
  bool add(std::string_view key) { return add_hash(hasher_(key.data(), key.size())); }
  [[nodiscard]] bool contains(std::string_view key) const noexcept {
    return contains_hash(hasher_(key.data(), key.size()));
  }
  bool remove(std::string_view key) noexcept { return remove_hash(hasher_(key.data(), key.size())); }
  [[nodiscard]] std::size_t count(std::string_view key) const noexcept {
    return count_hash(hasher_(key.data(), key.size()));
  }

  bool add(std::uint64_t key) { return add_hash(hasher_(key)); }
  [[nodiscard]] bool contains(std::uint64_t key) const noexcept { return contains_hash(hasher_(key)); }
  bool remove(std::uint64_t key) noexcept { return remove_hash(hasher_(key)); }

  // A failed add changes nothing: the doublings it made are undone (halve_in_place), so the table is as
  // it was, slot for slot.
  bool add_hash(std::uint64_t hash) noexcept { return add_from(hash, false); }

  // add_hash(); `walked`: the caller found no free slot in the key's pair below the fill limit, and a walk
  // of this size failed (add_group: the same walk again, seeded alike, failed alike, and doubled the time
  // of every add a crowded table refused).
  bool add_from(std::uint64_t hash, bool walked) noexcept {
    const unsigned generation_before = generation_;
    const auto fail = [&](AddFailure why) {
      while (generation_ > generation_before) halve_in_place();
      failure_ = why;
      return false;
    };
    // At the fill limit the table doubles, or takes no more keys: rate_bound() holds only up to it.
    if (!walked && occupied_ >= fill_limit_ && grows_) {
      if (const AddFailure why = double_in_place(); why != AddFailure::none) return fail(why);
    }
    for (;;) {
      const Place at = locate(hash);
      // A free slot in the pair: 2b copies would fill both buckets, so there is no limit to check.
      if (!walked && store_if_room(at)) {
        failure_ = AddFailure::none;
        return true;
      }
      const std::size_t have = copies(at);
      if (have >= 2 * kBucketSize) return fail(AddFailure::duplicate_limit);
      if (!walked && insert(at)) {
        failure_ = AddFailure::none;
        return true;
      }
      walked = false;
      // A place no doubling can open, or a key's copies crowded, is refused (it used to double until
      // memory ran out: 2.2 GB for a 0.5 MB table). A key with copies in a table over half full doubles
      // it only where its pair then has a free slot: else the walk in the doubled table mostly failed as
      // crowded, and the doubling was undone, at every add of such a key (21 ms each in a 2.6 MB table;
      // a review found 1 or 2 such adds a run that a walk there would have placed).
      if ((version_ >= 7 && sealed(at)) || (can_double() && (crowded(have) || (have > 0 && !room_after_doubling(at)))))
        return fail(AddFailure::crowded);
      if (const AddFailure why = double_in_place(); why != AddFailure::none) return fail(why);
    }
  }
  [[nodiscard]] AddFailure last_failure() const noexcept { return failure_; }
  // What a batch says of a key refused for `why`: no room for it (the batch goes on), or the batch ends here.
  [[nodiscard]] static constexpr KeyResult refused_result(AddFailure why) noexcept {
    return why == AddFailure::duplicate_limit || why == AddFailure::crowded ? KeyResult::no_room
                                                                            : KeyResult::stopped_here;
  }
  // For CuckooFilter, whose widening of the slots (needs_wider) may refuse an add for its own reason.
  void note_failure(AddFailure why) noexcept { failure_ = why; }
  [[nodiscard]] const WidthPlan& plan() const noexcept { return plan_; }

  // Items the table takes before it doubles: `capacity` in the first (or kFillPercent of its slots, when
  // the smallest table is larger than asked for), then kFillPercent of the slots; after its last
  // doubling, the items it takes at all (a table made not to grow fills until a walk fails). The rate depends on
  // when entries were added: an entry added to a table of S slots adds about 2b / S / 2^(W-1) to it for
  // ever (it loses a bit per doubling, as the slots double). Filling each doubled 16-bit table to 90%
  // instead of the 96% a walk reaches keeps them under 0.001 through all 7 doublings (rate_bound), at the
  // same memory at 10, 30 and 100 times the first capacity.
  [[nodiscard]] std::uint64_t fill_limit() const noexcept { return fill_limit_; }

  // The most expected_fp_rate() may reach: rate_bound(max_doublings()). Adds alone never pass it (the
  // schedule of fill limits); entries joined from another filter (absorb) keep the bits they had there,
  // so a join can bring the rate near it, and the fill limit then stops adds before they pass it.
  [[nodiscard]] double rate_limit() const noexcept { return planned_rate_bound(max_doublings_); }

  [[nodiscard]] bool contains_hash(std::uint64_t hash) const noexcept { return contains_place(locate(hash)); }

  [[nodiscard]] std::size_t count_hash(std::uint64_t hash) const noexcept { return copies(locate(hash)); }

  // Removes the key's longest matching entry (see the file's comment).
  bool remove_hash(std::uint64_t hash) noexcept { return remove_place(locate(hash)); }

  // The key's two buckets and the entry it would get now: what the demo and CuckooFilter::locate show.
  struct Place {
    std::uint64_t hash;
    std::uint32_t i1;
    std::uint32_t i2;
    Slot value;  // the entry this key would get now: fresh_ext_bits() ext bits (all E but in a 40-bit table past 2^25
                 // buckets)
  };
  [[nodiscard]] Place locate(std::uint64_t hash) const noexcept {
    return place(hash, base_buckets_, generation_, low_bits_ == 0, fresh_ext_);
  }
  // locate() in a table of `base_buckets` first buckets after `generation` doublings (format version 5's
  // placement when `legacy`), without one, for an entry of `ext_bits` ext bits (at most what the position
  // has: generation + ext_bits <= P - bit_width(N0 - 1)).
  [[nodiscard]] static Place place(std::uint64_t hash, std::uint64_t base_buckets, unsigned generation, bool legacy,
                                   unsigned ext_bits = kExtBits) noexcept {
    // h * N0 for the position h = (hash's top 32 bits) * 2^k + (its low k bits), k = P - 32 (0 for format
    // version 5), in two 64-bit products: a = top * N0, b = low * N0 < 2^(k + 32). Then
    // q = floor((a 2^k + b) / 2^P) = floor((a + floor(b / 2^k)) / 2^32) (no carry is lost: a < 2^64 - 2^33),
    // and frac = (a 2^k + b) mod 2^P, fewer than 2^57.
    const unsigned k = legacy ? 0 : kPositionBits - 32;
    const std::uint64_t a = (hash >> 32) * base_buckets;
    const std::uint64_t b = (hash & ((std::uint64_t{1} << k) - 1)) * base_buckets;
    const auto q = static_cast<std::uint32_t>((a + (b >> k)) >> 32);
    const std::uint64_t frac = ((((a & 0xFFFFFFFFu) << k) + b) & ((std::uint64_t{1} << (32 + k)) - 1));
    const unsigned g = generation;
    const auto s = static_cast<std::uint32_t>(g == 0 ? 0 : frac >> (32 + k - g));
    // The e bits after the index (g + e <= 32 + k, so they are all bits of frac), then the marker.
    const unsigned e = ext_bits;
    const Word ext = static_cast<Word>(frac >> (32 + k - g - e)) & ((Word{1} << e) - 1);
    const std::uint32_t fixed = static_cast<std::uint32_t>(hash) >> (32 - kFixedBits);
    const auto value = static_cast<Slot>((Word{fixed} << (kSlotBits - kFixedBits)) | (ext << (kTopTailBit + 1 - e)) |
                                         (Word{1} << (kTopTailBit - e)));
    const std::uint32_t q2 = alternate_index(q, fixed, base_buckets);
    return {hash, (q << g) | s, (q2 << g) | s, value};
  }

  // --- batches ----------------------------------------------------------------------------------------
  // Groups of at most kGroup hashes (CuckooFilter hashes the keys, so that these are compiled once per
  // width, not once per kind of key): results[i] gets key i's KeyResult. A group is located and its
  // buckets touched before any key is used, so that their cache misses overlap.
  static constexpr std::size_t kGroup = 16;
  void contains_group(const std::uint64_t* hashes, std::size_t n, std::uint8_t* results) const noexcept {
    for_each_placed(hashes, n, results, [&](const Place& at) { return yes_or_no(contains_place(at)); });
  }
  // Returns how many were removed.
  std::size_t remove_group(const std::uint64_t* hashes, std::size_t n, std::uint8_t* results) noexcept {
    std::size_t removed = 0;
    for_each_placed(hashes, n, results, [&](const Place& at) {
      const bool ok = remove_place(at);
      removed += ok;
      return yes_or_no(ok);
    });
    return removed;
  }
  // The adds, or add-if-absent (`if_absent`: no for a key found). A key refused because the table cannot
  // double gets stopped_here and ends the batch (`stopped`; the results after it are left as they were);
  // one refused by the duplicate limit gets no_room. Returns how many were added.
  std::size_t add_group(const std::uint64_t* hashes, std::size_t n, std::uint8_t* results, bool if_absent,
                        bool& stopped) noexcept {
    std::size_t added = 0;
    const bool first_bucket = if_absent && first_bucket_decides_;
    stopped = !for_each_placed(hashes, n, results, first_bucket, [&](const Place& at) {
      // While first_bucket_decides_, a key whose first bucket has a free slot is there or absent: one
      // bucket read for the lookup and the store (as CuckooFilter::add_if_absent_ranges does for a plain
      // table). It ends at the first doubling, in the middle of a group too.
      if (first_bucket && first_bucket_decides_ && occupied_ < fill_limit_) {
        const BucketScan first = scan(at.i1, at.value);
        if (first.free >= 0) {
          if (first.match) return KeyResult::no;
          store(at.i1, static_cast<unsigned>(first.free), at.value);
          counted_in(at.value);
          failure_ = AddFailure::none;
          ++added;
          return KeyResult::yes;
        }
        if (first.match || matches_in(at.i2, at.value)) return KeyResult::no;
      } else if (if_absent && contains_place(at)) {
        return KeyResult::no;
      }
      // The common case first: below the fill limit, with a free slot (then no copies to count: 2b of
      // them would fill both buckets) or a short walk. Else add_from (which doubles and locates again;
      // told of a walk that failed here, so as not to walk it again). A key found absent has no copies
      // to count.
      bool walked = false;
      bool ok = false;
      if (occupied_ < fill_limit_) {
        ok = store_if_room(at);
        if (!ok && (if_absent || copies(at) < 2 * kBucketSize)) {
          walked = true;
          ok = insert(at);
        }
      }
      if (ok)
        failure_ = AddFailure::none;
      else
        ok = add_from(at.hash, walked);
      added += ok;
      if (ok) return KeyResult::yes;
      return refused_result(failure_);
    });
    return added;
  }

  // --- the whole filter -------------------------------------------------------------------------------
  // Items: adds less removes (and joined items). Version 7 tables may hold more entries than items: a
  // copy of an entry whose bits ran out takes a slot of its own (occupied()).
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  [[nodiscard]] std::uint64_t occupied() const noexcept { return occupied_; }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] std::uint64_t base_buckets() const noexcept { return base_buckets_; }
  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return base_buckets_ << generation_; }
  [[nodiscard]] unsigned generation() const noexcept { return generation_; }
  // Doublings and halvings done since the table was made: a refused add that doubled and halved back
  // leaves the table as it was, and only this tells (its cost is the table's size).
  [[nodiscard]] std::uint64_t resizes() const noexcept { return resizes_; }
  [[nodiscard]] unsigned max_doublings() const noexcept { return max_doublings_; }
  [[nodiscard]] std::uint64_t byte_size() const noexcept { return num_buckets() * kBucketBytes; }
  [[nodiscard]] const std::uint8_t* data() const noexcept { return table_; }
  [[nodiscard]] double load_factor() const noexcept {
    return static_cast<double>(occupied_) / static_cast<double>(num_buckets() * kBucketSize);
  }
  // The probability that a key never added matches: 2b slots compared, each entry of F + e bits
  // matching with 2^-(F + e).
  // An entry's ext bits count for at most what the position gives within a bucket (the file's comment):
  // never less than it has in a filter of format version 6 (hash_doublings), often less in version 5.
  [[nodiscard]] double expected_fp_rate() const noexcept {
    double matching = 0;
    // Position values per bucket now: 2^(P - g) / N0.
    // (32 + k - g <= 56: a whole power of two.)
    const double within =
        static_cast<double>(std::uint64_t{1} << (32 + low_bits_ - generation_)) / static_cast<double>(base_buckets_);
    for (unsigned bits = kFixedBits; bits < kSlotBits; ++bits) {
      const double ext_values = static_cast<double>(std::uint64_t{1} << (bits - kFixedBits));
      const double told = std::min(ext_values, std::max(1.0, within));
      matching +=
          static_cast<double>(length_counts_[bits]) / (static_cast<double>(std::uint64_t{1} << kFixedBits) * told);
    }
    return 2.0 * kBucketSize * matching / static_cast<double>(num_buckets() * kBucketSize);
  }
  // Entries of F + e bits, for e = 0 .. E.
  [[nodiscard]] std::uint64_t entries_of_bits(unsigned bits) const noexcept { return length_counts_[bits]; }
  [[nodiscard]] Slot slot(std::uint64_t bucket, unsigned s) const noexcept { return get(bucket * kBucketSize + s); }
  [[nodiscard]] Options options() const noexcept {
    return {capacity_, max_kicks_, hasher_.seed(), max_doublings_, grows_, version_, plan_};
  }

  // Back to the first table's size, empty. The first table's memory is kept (a smaller realloc may fail).
  CUCKOO_COLD void clear() noexcept {
    if (void* smaller = std::realloc(table_, base_buckets_ * kBucketBytes))
      table_ = static_cast<std::uint8_t*>(smaller);
    generation_ = 0;
    std::memset(table_, 0, byte_size());
    size_ = 0;
    occupied_ = 0;
    std::memset(length_counts_, 0, sizeof length_counts_);
    set_fill_limit();  // of the empty table: the old entries' share of the rate is gone
    failure_ = AddFailure::none;
    first_bucket_decides_ = true;
  }

  // Doubles the table now. When it cannot, the filter is unchanged and the answer says why: table_full
  // (made not to grow), growth_limit (max_doublings reached, in versions 5 and 6 an entry has no ext bit
  // left, or the bucket count would pass kMaxBuckets) or out_of_memory.
  //
  // Version 7: an entry with no ext bit left (e = 0) could be either half's, so it goes to both, the same
  // slot of buckets 2i and 2i + 1 (a copy for each class it may belong to). Each copy matches what the
  // entry matched in its half, so no key is lost, and the rate does not change: a lookup compares only
  // its own class's copy, of F bits, as often as it compared the entry. The copies cost slots: entries
  // added after k doublings are copied from doubling k + E on, one in 2^E of the slots per generation
  // past E (0.8% for 16-bit slots, 0.003% for 32-bit ones).
  AddFailure double_in_place() noexcept {
    if (!grows_) return AddFailure::table_full;
    if ((version_ < 7 && length_counts_[kFixedBits] != 0) || generation_ >= horizon_) return AddFailure::growth_limit;
    // The plan widens the slots at this doubling: CuckooFilter moves the entries to a wider table first.
    if (plan_.bits_at(generation_ + 1, kSlotBits) > kSlotBits) return AddFailure::needs_wider;
    const std::uint64_t old_buckets = num_buckets();
    if (2 * old_buckets > kMaxBuckets) return AddFailure::growth_limit;
    if (!detail::addressable(2 * old_buckets, kBucketBytes)) return AddFailure::out_of_memory;
    void* grown = detail::grow_block(table_, byte_size(), 2 * old_buckets * kBucketBytes);
    if (grown == nullptr) return AddFailure::out_of_memory;
    table_ = static_cast<std::uint8_t*>(grown);
    first_bucket_decides_ = false;
    detail::advise_huge_pages(table_, 2 * old_buckets * kBucketBytes);
    // From the top down: old bucket i's entries go to buckets 2i and 2i + 1, which lie above every old
    // bucket not yet moved (for i = 0, the old bucket is read before its place is written). Each keeps its
    // slot number, so that halve_in_place() can put every entry back where it was.
    for (std::uint64_t i = old_buckets; i-- > 0;) {
      Slot old[kBucketSize];
      for (unsigned s = 0; s < kBucketSize; ++s) old[s] = get(i * kBucketSize + s);
      std::memset(table_ + 2 * i * kBucketBytes, 0, 2 * kBucketBytes);
      for (unsigned s = 0; s < kBucketSize; ++s) {
        const Slot v = old[s];
        if (v == 0) continue;
        if (ext_bits(v) == 0) {  // version 7 (checked above)
          put(2 * i * kBucketSize + s, v);
          put((2 * i + 1) * kBucketSize + s, v);
          continue;
        }
        const auto half = static_cast<unsigned>((v & kTailMask) >> kTopTailBit);
        put((2 * i + half) * kBucketSize + s, shed(v, 1));
      }
    }
    // Every entry has a bit fewer; those that had none left are there twice.
    const std::uint64_t copied = length_counts_[kFixedBits];
    for (unsigned bits = kFixedBits; bits + 1 < kSlotBits; ++bits) length_counts_[bits] = length_counts_[bits + 1];
    length_counts_[kSlotBits - 1] = 0;
    length_counts_[kFixedBits] += 2 * copied;
    occupied_ += copied;
    ++generation_;
    ++resizes_;
    set_fill_limit();
    return AddFailure::none;
  }

  // Undoes the last doubling of a table that has not changed since (an add whose walks all failed and were
  // undone): buckets 2i and 2i + 1 hold old bucket i's entries, each in its old slot with its ext bit shed,
  // or in that slot of both (version 7: an entry that had no ext bit, copied).
  CUCKOO_COLD void halve_in_place() noexcept {
    const std::uint64_t buckets = num_buckets() / 2;
    std::uint64_t copied = 0;
    for (std::uint64_t i = 0; i < buckets; ++i) {
      Slot merged[kBucketSize] = {};
      for (unsigned s = 0; s < kBucketSize; ++s) {
        const Slot low = get(2 * i * kBucketSize + s);
        const Slot high = get((2 * i + 1) * kBucketSize + s);
        if (low != 0 && high != 0) {
          merged[s] = low;  // == high, with no ext bit
          ++copied;
        } else if (low != 0) {
          merged[s] = unshed(low, 0);
        } else if (high != 0) {
          merged[s] = unshed(high, 1);
        }
      }
      for (unsigned s = 0; s < kBucketSize; ++s) put(i * kBucketSize + s, merged[s]);  // i < 2i: not read again
    }
    // A smaller block: realloc may move it, or keep the larger one (then the rest stays unused).
    if (void* smaller = std::realloc(table_, buckets * kBucketBytes); smaller != nullptr)
      table_ = static_cast<std::uint8_t*>(smaller);
    length_counts_[kFixedBits] -= 2 * copied;
    for (unsigned bits = kSlotBits - 1; bits > kFixedBits; --bits) length_counts_[bits] = length_counts_[bits - 1];
    length_counts_[kFixedBits] = copied;
    occupied_ -= copied;
    --generation_;
    ++resizes_;
    set_fill_limit();
  }

  // Adds the entries of `other` (made with the same options) to this filter: every one (merge), or for a
  // union the copies of an entry that its bucket pair here lacks, counting only the same entry (the same
  // bits and length, moved to this size). A union with itself or repeated changes nothing, and so does
  // one with a filter of a subset of the keys added at the same sizes. An entry here that agrees with the
  // other's on fewer bits may be another key's: counting it would leave two keys one entry, and a delete
  // of one would lose the other; so a key the two filters added at different sizes is counted twice
  // (never a false negative). This filter doubles as needed. An entry with fewer ext bits left than the
  // doublings between the two sizes goes, in version 7, to every bucket it may belong to here (as the
  // doublings in between would have copied it). A merge adds the other's items to size(); a union, an item
  // for each entry it adds that has ext bits left, and for those without, the other's items per such entry
  // (the other's copies take slots of their own: counted as items, a union of a filter of 125,000 keys into
  // an empty one said 125,921). Exact but for entries whose bits ran out when only some of them are added.
  // Not all or nothing: on failure (growth_limit, out_of_memory) it is partly changed, so CuckooFilter
  // works on a copy.
  // `other` may have narrower slots (of the same fixed fingerprint: a table of the same plan that has
  // doubled less): its entries are moved with their bits, as take_slots() widens them.
  template <class OtherSlot>
  [[nodiscard]] CUCKOO_COLD AddFailure absorb(const DoublingFilter<OtherSlot>& other, bool set_union) noexcept {
    using Other = DoublingFilter<OtherSlot>;
    static_assert(Other::kFixedBits == kFixedBits && Other::kSlotBits <= kSlotBits);
    if (other.occupied_ == 0) return AddFailure::none;  // nothing to move here: no doubling to its size
    while (generation_ < other.generation_)
      if (const AddFailure why = double_in_place(); why != AddFailure::none) return why;
    const std::uint64_t items_before = size_;
    // The other's entries stored here (each once, however many buckets it went to): those with ext bits
    // left, each an item, and those without, which the other may hold copies of.
    std::uint64_t entries = 0;
    std::uint64_t spent_entries = 0;
    for (std::uint64_t bucket = 0; bucket < other.num_buckets(); ++bucket) {
      const auto b = static_cast<std::uint32_t>(bucket);
      for (unsigned s = 0; s < kBucketSize; ++s) {
        const auto theirs = other.slot(b, s);
        if (theirs == 0) continue;
        const auto v = static_cast<Slot>(Word{theirs} << (kSlotBits - Other::kSlotBits));
        std::size_t want = 1;
        if (set_union) {
          const std::uint32_t b2 = other.other_bucket(b, theirs);
          // Each (pair, entry) once, at its first slot in bucket order.
          if (other.find_exact(b, theirs) != static_cast<int>(s) || (b2 < b && other.find_exact(b2, theirs) >= 0))
            continue;
          want = other.exact_copies(b, theirs) + other.exact_copies(b2, theirs);
        }
        std::size_t added = 0;
        if (const AddFailure why = place_moved(b, v, other.generation_, want, set_union, added);
            why != AddFailure::none)
          return why;
        (ext_bits(v) == 0 ? spent_entries : entries) += added;
      }
    }
    // A union counts an entry with ext bits left as an item, and one without at the other's items per such
    // entry: the copies are among those (a delete takes one copy of an item: the items among them are the
    // other's items less its entries with bits left).
    const std::uint64_t spent_slots = other.length_counts_[kFixedBits];
    const std::uint64_t spent_items = other.size_ - std::min(other.size_, other.occupied_ - spent_slots);
    const auto joined =
        set_union ? entries + (spent_slots == 0 ? 0
                                                : static_cast<std::uint64_t>(static_cast<double>(spent_entries) *
                                                                                 static_cast<double>(spent_items) /
                                                                                 static_cast<double>(spent_slots) +
                                                                             0.5))
                  : other.size_;
    size_ = std::min(occupied_, items_before + joined);
    set_fill_limit();  // the joined entries' share of the rate
    return AddFailure::none;
  }

 private:
  struct FreeDeleter {
    void operator()(std::uint8_t* p) const noexcept { std::free(p); }
  };
  // The bits of a slot below its fixed fingerprint: the ext bits, the marker and the zeros after it.
  static constexpr Slot kTailMask = static_cast<Slot>((std::uint64_t{1} << (kSlotBits - kFixedBits)) - 1);
  static constexpr unsigned kTopTailBit = kSlotBits - kFixedBits - 1;
  // A slot's value in arithmetic: its own type, widened to at least 32 bits.
  using Word = std::conditional_t<(kSlotBits > 32), std::uint64_t, std::uint32_t>;

  // Slot i of the table (bucket i / b).
  [[nodiscard]] Slot get(std::uint64_t i) const noexcept {
    if constexpr (kPackedInBucket) {
      Slot v[kBucketSize];
      read_bucket(static_cast<std::uint32_t>(i / kBucketSize), v);
      return v[i % kBucketSize];
    }
    const std::uint8_t* p = table_ + i * (kSlotBits / 8);
    if constexpr (kSlotBits == 40) {
      std::uint32_t low;
      std::memcpy(&low, p, sizeof low);
      return low | (std::uint64_t{p[4]} << 32);
    } else {
      Slot v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
  }
  void put(std::uint64_t i, Slot v) noexcept {
    if constexpr (kPackedInBucket) {
      // The bucket's first 8 bytes and the rest (2 or 4), the slot's W bits changed in them.
      std::uint8_t* p = table_ + (i / kBucketSize) * kBucketBytes;
      const unsigned bit = static_cast<unsigned>(i % kBucketSize) * kSlotBits;
      constexpr std::uint64_t kMask = (std::uint64_t{1} << kSlotBits) - 1;
      std::uint64_t low;
      std::uint32_t high = 0;
      std::memcpy(&low, p, sizeof low);
      std::memcpy(&high, p + 8, kBucketBytes - 8);
      if (bit < 64) low = (low & ~(kMask << bit)) | (std::uint64_t{v} << bit);
      if (bit + kSlotBits > 64) {
        const unsigned into = bit >= 64 ? bit - 64 : 0;  // where its bits in `high` start
        const unsigned from = bit >= 64 ? 0 : 64 - bit;  // how many of its bits went to `low`
        high = static_cast<std::uint32_t>((high & ~((kMask >> from) << into)) | ((std::uint64_t{v} >> from) << into));
      }
      std::memcpy(p, &low, sizeof low);
      std::memcpy(p + 8, &high, kBucketBytes - 8);
      return;
    }
    std::uint8_t* p = table_ + i * (kSlotBits / 8);
    if constexpr (kSlotBits == 40) {
      const auto low = static_cast<std::uint32_t>(v);
      std::memcpy(p, &low, sizeof low);
      p[4] = static_cast<std::uint8_t>(v >> 32);
    } else {
      std::memcpy(p, &v, sizeof v);
    }
  }

  DoublingFilter() = default;

  // make() at `generation` doublings, on `slots` when given (taken over), else on a zeroed table.
  [[nodiscard]] CUCKOO_COLD static Status make_with(const Options& o, unsigned generation,
                                                    std::unique_ptr<DoublingFilter>& out,
                                                    std::uint8_t* table = nullptr) {
    std::unique_ptr<std::uint8_t, FreeDeleter> owned(table);
    if (o.capacity == 0) return Status::error(ErrorCode::invalid_argument, "capacity must be at least 1");
    if (o.capacity > kMaxCapacity) return Status::error(ErrorCode::invalid_argument, "capacity is too large");
    if (o.version < 5 || o.version > 7)
      return Status::error(ErrorCode::invalid_argument, "format version out of range");
    // Version 5's placement has 32 position bits: too few for 23 ext bits (format.hpp refuses such a header).
    if (o.version == 5 && kSlotBits == 40)
      return Status::error(ErrorCode::invalid_argument, "40-bit slots have no version 5 placement");
    if (o.version < 7 && kPackedInBucket)
      return Status::error(ErrorCode::invalid_argument, "20- and 24-bit slots are format version 7's");
    const std::uint64_t buckets = base_buckets_for(o.capacity);
    const unsigned max_doublings = std::min(o.max_doublings, most_doublings(buckets, o.version));
    if (generation > max_doublings) return Status::error(ErrorCode::invalid_argument, "doublings out of range");
    if ((buckets << generation) > kMaxBuckets)
      return Status::error(ErrorCode::invalid_argument, "capacity is too large");
    if (o.plan.widens() && !detail::plan_fits(o.plan, o.version, max_doublings, generation, kSlotBits))
      return Status::error(ErrorCode::invalid_argument, "the slots' widths do not fit the table");
    auto f = std::unique_ptr<DoublingFilter>(new (std::nothrow) DoublingFilter());
    if (!f) return Status::error(ErrorCode::out_of_memory, "cannot allocate the filter");
    f->hasher_ = KeyHasher(o.seed);
    f->capacity_ = o.capacity;
    f->base_buckets_ = buckets;
    f->generation_ = generation;
    f->max_doublings_ = max_doublings;
    f->max_kicks_ = o.max_kicks;
    f->grows_ = o.grows;
    f->low_bits_ = o.version == 5 ? 0 : kPositionBits - 32;
    f->version_ = o.version;
    f->plan_ = o.plan;
    const std::uint64_t slot_count = (buckets << generation) * kBucketSize;
    if (!detail::addressable(slot_count / kBucketSize, kBucketBytes))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate " +
                                                         std::to_string(slot_count / kBucketSize * kBucketBytes) +
                                                         " bytes for the table: more than this build can address");
    // The table last: on the heap's top, it can double where it is (detail::grow_block).
    if (!detail::reserve_nothrow(f->path_, o.max_kicks))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate the filter's kick path");
    // Whatever made adopted slots, it was not this table's adds.
    f->first_bucket_decides_ = !owned && generation == 0;
    f->table_ = owned ? owned.release()
                      : static_cast<std::uint8_t*>(detail::allocate_block(
                            static_cast<std::size_t>(slot_count / kBucketSize) * kBucketBytes, true));
    if (f->table_ == nullptr)
      return Status::error(ErrorCode::out_of_memory,
                           "cannot allocate " + std::to_string(f->byte_size()) + " bytes for the table");
    detail::advise_huge_pages(f->table_, f->byte_size());
    f->path_.resize(o.max_kicks);
    f->set_fill_limit();
    out = std::move(f);
    return {};
  }

  // The fill limit by load alone: `capacity` in the first table (or kFillPercent of its slots, when the
  // smallest table is larger than asked for), then kFillPercent of the slots; in a table that may double
  // no more (its horizon, set by set_fill_limit: the options' last doubling, or the last that the rate left
  // after a join allows), the kBoundFillPercent that rate_bound() counts with, so that a full filter holds
  // what it held when every doubled table filled that far.
  [[nodiscard]] std::uint64_t load_limit() const noexcept {
    return load_limit_at(generation_ >= horizon_ ? kBoundFillPercent : kFillPercent);
  }
  [[nodiscard]] std::uint64_t load_limit_at(unsigned percent) const noexcept {
    const std::uint64_t limit = num_buckets() * kBucketSize * percent / 100;
    return generation_ == 0 && capacity_ > limit ? capacity_ : limit;
  }

  // The fill limit and the horizon, from the rate left: rate_limit() less expected_fp_rate(). An entry added
  // now matches an absent key with 2b 2^-(F + fresh_ext_bits) / slots; the adds of each later doubling up
  // to its load limit need rate_bound(k) - rate_bound(k - 1) (rate_bound's terms). The table may double up
  // to the horizon: the last doubling whose adds, with those up to load_limit() here, fit in the rate
  // left; when even those here do not fit, the fill limit is lowered to what does, and the table doubles no
  // more. After adds alone the rate at the load limit is at most rate_bound(generation), so the horizon is
  // max_doublings and the limit load_limit(). Entries joined from smaller filters (absorb) keep the bits
  // they had there: their rate is that of adds at those sizes, and it is paid for with later doublings.
  // (Paying for it with memory instead, doubling until rate_bound(generation) covered it, made eleven
  // adds after ten joined parts double the table eleven times, to 1.6 GB.) So memory stays in proportion
  // to the keys, and a join that spent the rate of later doublings makes the filter full sooner
  // (growth_limit). Half an entry of slack keeps rounding from ever lowering either otherwise. It also
  // keeps fresh_ext_, for every change of size comes here.
  CUCKOO_COLD void set_fill_limit() noexcept {
    fresh_ext_ = low_bits_ == 0 ? kExtBits : fresh_ext_bits(base_buckets_, generation_);
    const double slots = static_cast<double>(num_buckets() * kBucketSize);
    const double per_entry =
        2.0 * kBucketSize / static_cast<double>(std::uint64_t{1} << (kFixedBits + fresh_ext_)) / slots;
    const double left = rate_limit() - expected_fp_rate() + 0.5 * per_entry;
    const auto rate_to = [&](std::uint64_t limit) {
      return limit > occupied_ ? static_cast<double>(limit - occupied_) * per_entry : 0.0;
    };
    // First as a table that doubles again (kFillPercent); a table that may not (the horizon is here) fills
    // to kBoundFillPercent, what rate_bound() counts for its generation.
    std::uint64_t limit = load_limit_at(kFillPercent);
    horizon_ = generation_;
    if (const double here = rate_to(limit); here <= left) {
      const double at_here = planned_rate_bound(generation_);
      while (horizon_ < max_doublings_ && here + planned_rate_bound(horizon_ + 1) - at_here <= left) ++horizon_;
    }
    if (horizon_ == generation_) {
      limit = load_limit_at(kBoundFillPercent);
      if (rate_to(limit) > left) {
        const double room = left / per_entry - 0.5;
        limit = occupied_ + (room > 0 ? static_cast<std::uint64_t>(room) : 0);
      }
    }
    fill_limit_ = limit;
    touch_last_ = byte_size() >= detail::BucketTable::kPrefetchBothEndsBytes ? kBucketBytes - 1 : 0;
  }

  [[nodiscard]] static std::uint32_t fixed_of(Slot v) noexcept {
    return static_cast<std::uint32_t>(v >> (kSlotBits - kFixedBits));
  }
  // The entry v after `d` doublings: d fewer ext bits (the caller checked it has them).
  [[nodiscard]] static Slot shed(Slot v, unsigned d) noexcept {
    return static_cast<Slot>((v & ~kTailMask) | ((static_cast<Word>(v & kTailMask) << d) & kTailMask));
  }
  // shed(v, 1) undone: the ext bit `half` put back in front of the ones v has.
  [[nodiscard]] static Slot unshed(Slot v, unsigned half) noexcept {
    const auto tail = static_cast<Word>(v & kTailMask);
    return static_cast<Slot>((v & ~kTailMask) | (tail >> 1) | (Word{half} << kTopTailBit));
  }
  // The ext bits an entry has left.
  [[nodiscard]] static unsigned ext_bits(Slot v) noexcept { return entry_bits(v) - kFixedBits; }

  // The other bucket of an entry in `bucket`.
  [[nodiscard]] std::uint32_t other_bucket(std::uint32_t bucket, Slot v) const noexcept {
    const unsigned g = generation_;
    const std::uint32_t s = bucket & ((std::uint32_t{1} << g) - 1);
    return (alternate_index(bucket >> g, fixed_of(v), base_buckets_) << g) | s;
  }

  [[nodiscard]] static bool matches(Slot v, Slot key) noexcept {
    const Word x = v;
    return x != 0 && ((x ^ key) & ~(x ^ (x - 1))) == 0;
  }
  // The position of the marker: lower means more ext bits.
  [[nodiscard]] static unsigned marker_bit(Slot v) noexcept {
    return static_cast<unsigned>(std::countr_zero(static_cast<Word>(v)));
  }
  // F + e for an entry.
  [[nodiscard]] static unsigned entry_bits(Slot v) noexcept { return kSlotBits - 1 - marker_bit(v); }

  [[nodiscard]] bool contains_place(const Place& at) const noexcept {
    // No branch on the first answer: on a stream of present and absent keys it would mispredict half
    // the time (as in CuckooFilter::contains_located).
    return (static_cast<int>(matches_in(at.i1, at.value)) | static_cast<int>(matches_in(at.i2, at.value))) != 0;
  }

  bool remove_place(const Place& at) noexcept {
    std::uint64_t best = 0;  // the slot's index + 1
    Slot best_value = 0;
    for (const std::uint32_t bucket : {at.i1, at.i2}) {
      for (unsigned s = 0; s < kBucketSize; ++s) {
        const std::uint64_t i = std::uint64_t{bucket} * kBucketSize + s;
        const Slot v = get(i);
        if (matches(v, at.value) && (best == 0 || marker_bit(v) < marker_bit(best_value))) {
          best = i + 1;
          best_value = v;
        }
      }
    }
    if (best == 0) return false;
    --length_counts_[entry_bits(best_value)];
    put(best - 1, 0);
    --occupied_;
    if (size_ > 0) --size_;  // 0 only when a key never added matched copies left by removed items
    first_bucket_decides_ = false;
    return true;
  }

  [[nodiscard]] bool matches_in(std::uint32_t bucket, Slot key) const noexcept {
    if constexpr (kSlotBits == 16) {
      std::uint64_t word;
      std::memcpy(&word, table_ + std::uint64_t{bucket} * kBucketBytes, sizeof word);
      return any_lane_matches(word, key);
    } else if constexpr (kPackedInBucket) {
      const SlotPairs w = slot_pairs(bucket);
      // No branch on the first answer (as in contains_place).
      return (static_cast<int>(pair_matches(w.first, key)) | static_cast<int>(pair_matches(w.second, key))) != 0;
    } else if constexpr (kSlotBits == 32) {
      std::uint64_t words[2];
      std::memcpy(words, table_ + std::uint64_t{bucket} * kBucketBytes, sizeof words);
      return (static_cast<int>(pair_matches(words[0], key)) | static_cast<int>(pair_matches(words[1], key))) != 0;
    } else {
      Slot v[kBucketSize];
      read_bucket(bucket, v);
      bool any = false;
      for (unsigned s = 0; s < kBucketSize; ++s) any |= matches(v[s], key);
      return any;
    }
  }

  // A packed bucket (20- and 24-bit slots) as two words of two slots each: slots 0 and 1 are the bucket's
  // bits 0 to 2W - 1, slots 2 and 3 the next 2W (2W <= 48: each word has room for the lanes' carries).
  struct SlotPairs {
    std::uint64_t first;
    std::uint64_t second;
  };
  [[nodiscard]] SlotPairs slot_pairs(std::uint32_t bucket) const noexcept {
    const std::uint8_t* p = table_ + std::uint64_t{bucket} * kBucketBytes;
    std::uint64_t low;
    std::uint32_t high = 0;
    std::memcpy(&low, p, sizeof low);
    std::memcpy(&high, p + 8, kBucketBytes - 8);
    constexpr std::uint64_t kTwoSlots = (std::uint64_t{1} << (2 * kSlotBits)) - 1;
    return {low & kTwoSlots, ((low >> (2 * kSlotBits)) | (std::uint64_t{high} << (64 - 2 * kSlotBits))) & kTwoSlots};
  }

  // The four slots of a bucket. A 40-bit bucket is 20 bytes: three loads (8, 8 and 4 bytes), not eight.
  void read_bucket(std::uint32_t bucket, Slot (&v)[kBucketSize]) const noexcept {
    const std::uint8_t* p = table_ + std::uint64_t{bucket} * kBucketBytes;
    if constexpr (kSlotBits == 40) {
      constexpr std::uint64_t kMask = (std::uint64_t{1} << 40) - 1;
      std::uint64_t w0;
      std::uint64_t w1;
      std::uint32_t w2;
      std::memcpy(&w0, p, sizeof w0);
      std::memcpy(&w1, p + 8, sizeof w1);
      std::memcpy(&w2, p + 16, sizeof w2);
      v[0] = w0 & kMask;
      v[1] = ((w0 >> 40) | (w1 << 24)) & kMask;
      v[2] = (w1 >> 16) & kMask;
      v[3] = (w1 >> 56) | (std::uint64_t{w2} << 8);
    } else if constexpr (kPackedInBucket) {
      // 10 or 12 bytes: 8, then 2 or 4.
      constexpr std::uint64_t kMask = (std::uint64_t{1} << kSlotBits) - 1;
      std::uint64_t low;
      std::uint32_t high = 0;
      std::memcpy(&low, p, sizeof low);
      std::memcpy(&high, p + 8, kBucketBytes - 8);
      for (unsigned s = 0; s < kBucketSize; ++s) {
        const unsigned bit = s * kSlotBits;
        const std::uint64_t bits = bit >= 64              ? std::uint64_t{high} >> (bit - 64)
                                   : bit + kSlotBits > 64 ? (low >> bit) | (std::uint64_t{high} << (64 - bit))
                                                          : low >> bit;
        v[s] = static_cast<Slot>(bits & kMask);
      }
    } else {
      std::memcpy(v, p, sizeof v);
    }
  }

  // matches() on the four 16-bit slots of a bucket at once (SWAR). An entry's marker lies in its low
  // 16 - F = 8 bits (the tail), which are 0 only in an empty slot, so the bits at and below the marker,
  // v ^ (v - 1), are the tail's: lane-wise tail - 1 is (tail | 0x100) - 1, which never borrows from the
  // next lane. A lane is nonzero when (its low 15 bits + 0x7FFF) or itself has bit 15 set (no carry out).
  [[nodiscard]] static bool any_lane_matches(std::uint64_t word, Slot key) noexcept {
    constexpr std::uint64_t kLanes = 0x0001000100010001ull;
    constexpr std::uint64_t kTail = 0x00FF00FF00FF00FFull;
    constexpr std::uint64_t kHigh = 0x8000800080008000ull;
    constexpr std::uint64_t kLow15 = 0x7FFF7FFF7FFF7FFFull;
    static_assert(kSlotBits - kFixedBits == 8);
    const std::uint64_t tail = word & kTail;
    const std::uint64_t below_marker = (tail ^ ((tail | (kLanes << 8)) - kLanes)) & kTail;
    const std::uint64_t mismatch = (word ^ (kLanes * key)) & ~below_marker;
    const std::uint64_t occupied = (tail + kLow15) & kHigh;
    const std::uint64_t differs = (((mismatch & kLow15) + kLow15) | mismatch) & kHigh;
    return (occupied & ~differs) != 0;
  }

  // matches() on two W-bit slots side by side in the low 2W bits of `word` (20-, 24- and 32-bit slots), as
  // any_lane_matches does for four 16-bit ones: the bits at and below each lane's marker lie in its tail
  // (its low W - F bits, 0 only in an empty slot), found by lane-wise tail - 1 with a bit set above the
  // tail so that no borrow crosses lanes; a lane is nonzero when (its low W - 1 bits + 2^(W-1) - 1) or
  // itself has bit W - 1 set (no carry leaves the lane).
  [[nodiscard]] static bool pair_matches(std::uint64_t word, Slot key) noexcept {
    constexpr unsigned kTail = kSlotBits - kFixedBits;
    constexpr std::uint64_t kLanes = 1 | (std::uint64_t{1} << kSlotBits);
    constexpr std::uint64_t kTails = ((std::uint64_t{1} << kTail) - 1) * kLanes;
    constexpr std::uint64_t kHigh = (std::uint64_t{1} << (kSlotBits - 1)) * kLanes;
    constexpr std::uint64_t kLow = ((std::uint64_t{1} << (kSlotBits - 1)) - 1) * kLanes;
    const std::uint64_t tail = word & kTails;
    const std::uint64_t below_marker = (tail ^ ((tail | (kLanes << kTail)) - kLanes)) & kTails;
    const std::uint64_t mismatch = (word ^ (kLanes * key)) & ~below_marker & (kLow | kHigh);
    const std::uint64_t occupied = (tail + kLow) & kHigh;
    const std::uint64_t differs = (((mismatch & kLow) + kLow) | mismatch) & kHigh;
    return (occupied & ~differs) != 0;
  }

  // Which of the two W-bit slots in the low 2W bits of `word` hold an entry: bit 0 the first, bit 1 the
  // second (a lane's tail + 2^(W-1) - 1 reaches its top bit when the tail is not 0, and never carries out).
  [[nodiscard]] static unsigned occupied_lanes(std::uint64_t word) noexcept {
    constexpr unsigned kTail = kSlotBits - kFixedBits;
    constexpr std::uint64_t kLanes = 1 | (std::uint64_t{1} << kSlotBits);
    constexpr std::uint64_t kTails = ((std::uint64_t{1} << kTail) - 1) * kLanes;
    constexpr std::uint64_t kLow = ((std::uint64_t{1} << (kSlotBits - 1)) - 1) * kLanes;
    const std::uint64_t occupied = (word & kTails) + kLow;
    return static_cast<unsigned>(((occupied >> (kSlotBits - 1)) & 1) | ((occupied >> (2 * kSlotBits - 2)) & 2));
  }

  [[nodiscard]] std::size_t copies(const Place& at) const noexcept {
    std::size_t n = 0;
    for (const std::uint32_t bucket : {at.i1, at.i2}) {  // never the same bucket (hashing.hpp's alternate)
      Slot v[kBucketSize];
      read_bucket(bucket, v);
      for (unsigned s = 0; s < kBucketSize; ++s) n += matches(v[s], at.value);
    }
    return n;
  }

  // Entries of the place's pair that agree with its value on the bits both have. (An empty slot is none:
  // matches(value, 0) holds for a value whose bits above its marker are all 0, fixed fingerprint 0 and no
  // ext bit left, and counting empty slots refused such entries' joins as "more than 2b copies".)
  [[nodiscard]] CUCKOO_COLD std::size_t related_copies(const Place& at) const noexcept {
    std::size_t n = 0;
    for (const std::uint32_t bucket : {at.i1, at.i2}) {
      for (unsigned s = 0; s < kBucketSize; ++s) {
        const Slot v = slot(bucket, s);
        n += v != 0 && (matches(v, at.value) || matches(at.value, v));
      }
    }
    return n;
  }

  // Whether no doubling can make room for the place's entry: the buckets its kicks can reach (its pair,
  // the other buckets of their entries, and so on) are all full, and every entry in them has the place's
  // index bits as far as both have them. Each doubling then sends every one of them where the place goes
  // (the same next bit, or none left: copied into both halves), and the place's class has the same full
  // buckets again, at every size (an added key has the most ext bits: its position gives it new ones at
  // each doubling). (2b copies of a key whose bits ran out made each add of another key of
  // its pair double the table until memory ran out; so did two keys of the same index bits holding each
  // other's buckets.) A reach of more than kSealedReach buckets is taken as open.
  static constexpr std::size_t kSealedReach = 32;
  [[nodiscard]] CUCKOO_COLD bool sealed(const Place& at) const noexcept {
    const unsigned key_ext = ext_bits(at.value);
    // The first d ext bits of v.
    const auto ext_prefix = [](Slot v, unsigned d) {
      return d == 0 ? Word{0} : static_cast<Word>(v & kTailMask) >> (kTopTailBit + 1 - d);
    };
    std::uint32_t reach[kSealedReach] = {at.i1, at.i2};
    std::size_t count = 2;
    for (std::size_t k = 0; k < count; ++k) {
      Slot v[kBucketSize];
      read_bucket(reach[k], v);
      for (unsigned s = 0; s < kBucketSize; ++s) {
        if (v[s] == 0) return false;
        // An entry of more ext bits than the place's may go to another half than the place's copies (a
        // joined entry's bits run out too): taken as open.
        const unsigned e = ext_bits(v[s]);
        if (e > key_ext || ext_prefix(v[s], e) != ext_prefix(at.value, e)) return false;
        const std::uint32_t other = other_bucket(reach[k], v[s]);
        if (std::find(reach, reach + count, other) != reach + count) continue;
        if (count == kSealedReach) return false;
        reach[count++] = other;
      }
    }
    return true;
  }

  // Whether a failed walk is taken as copies crowding the key's buckets rather than a full table: for a
  // key with `have` copies in its pair, the table is under half full; for another, under an eighth.
  // Among distinct keys a walk of the default 500 steps does not fail until about 95% of the slots are
  // full; where one fails at half that for a key added before, copies of keys added many times fill the
  // buckets it can reach, and a doubling would not make room: it moves every copy of a key together and
  // separates two crowding keys with odds 1/2 only, so the whole table doubled at every such failure
  // (50,000 keys added 5 times each took 18 doublings, 69M buckets, where 250,000 distinct keys take 9).
  // A new key may double a table that copies crowd, as each doubling halves the share of buckets they
  // fill (a filter of copies given as `seen` to a deduplicator, or one of very short walks, keeps taking
  // new keys), but not past an eighth: with every key's copies added together and filling its pair, new
  // keys' failures doubled the table without end (200,000 keys 8 times each: 21 doublings, 5.4 GB, where
  // the same number of distinct keys take 11; now 14, 50 MB). So a table is at most about 16 times what
  // its entries need (a doubling just over an eighth full leaves it a sixteenth full; or
  // detail::kCrowdedFloorSlots), and a new key whose pair copies fill then is refused. sealed()
  // proves crowding of a small reach for any key. A table that may not double refuses as before
  // (table_full), and so does one at its last doubling over half full (growth_limit).
  // Whether double_in_place() would double (memory allowing): where it cannot, a failed walk is refused
  // for the limit it meets (growth_limit, or table_full without growth), as before the crowding rule.
  [[nodiscard]] bool can_double() const noexcept {
    return grows_ && !(version_ < 7 && length_counts_[kFixedBits] != 0) && generation_ < horizon_ &&
           2 * num_buckets() <= kMaxBuckets;
  }
  [[nodiscard]] [[gnu::noinline]] CUCKOO_COLD bool crowded(std::size_t have) const noexcept {
    const std::uint64_t slots = num_buckets() * kBucketSize;
    return grows_ && (have > 0 ? occupied_ * 2 < slots : occupied_ * 8 < slots && slots > detail::kCrowdedFloorSlots);
  }

  // Whether the key of `at` would find a free slot in its pair once the table doubled: old bucket i goes
  // to 2i and 2i + 1, each entry to the half its next index bit says (to both when it has none left, as
  // double_in_place() copies it), and the key's buckets to 2 i1 + c and 2 i2 + c, c its own next bit (its
  // entry's first ext bit: one without ext bits is taken to have room, and doubles as it did).
  [[nodiscard]] CUCKOO_COLD bool room_after_doubling(const Place& at) const noexcept {
    if (ext_bits(at.value) == 0) return true;
    constexpr Slot kNextBit = Slot{1} << kTopTailBit;
    for (const std::uint32_t bucket : {at.i1, at.i2}) {
      unsigned there = 0;
      for (unsigned s = 0; s < kBucketSize; ++s) {
        const Slot v = slot(bucket, s);
        there += v != 0 && (ext_bits(v) == 0 || (v & kNextBit) == (at.value & kNextBit));
      }
      if (there < kBucketSize) return true;
    }
    return false;
  }

  // For a union: the slot of `bucket` holding exactly v (-1: none), and how many hold it.
  [[nodiscard]] CUCKOO_COLD int find_exact(std::uint32_t bucket, Slot v) const noexcept {
    for (unsigned s = 0; s < kBucketSize; ++s)
      if (slot(bucket, s) == v) return static_cast<int>(s);
    return -1;
  }
  [[nodiscard]] CUCKOO_COLD std::size_t exact_copies(std::uint32_t bucket, Slot v) const noexcept {
    std::size_t n = 0;
    for (unsigned s = 0; s < kBucketSize; ++s) n += slot(bucket, s) == v;
    return n;
  }
  // Stores `count` copies of the entry `value` of bucket `at` of a table of `at_generation` doublings (this
  // one's or an earlier size of it) here, moved to this size: for a union (`have_to_count`), fewer by
  // the copies its pair here has already. An entry with too few ext bits left for the doublings between
  // goes to each bucket it may belong to (version 7; before, growth_limit). It doubles this table when it
  // finds no room; the copies stored before a doubling are moved by it, so each bucket it reaches then
  // needs what was left. `added`: the most copies stored in any one bucket it reached.
  // A join doubles by load alone (load_limit): a doubling does not change what the entries already here add
  // to the rate, and absorb's caller checks the rate once all are in.
  [[nodiscard]] CUCKOO_COLD AddFailure place_moved(std::uint32_t at, Slot value, unsigned at_generation,
                                                   std::size_t count, bool have_to_count, std::size_t& added) noexcept {
    first_bucket_decides_ = false;  // a joined entry may be in the second bucket of its keys, beside room
    std::size_t stored = 0;
    for (;;) {
      // To this size: the ext bits say the next index bits, as far as they go.
      const unsigned d = generation_ - at_generation;
      const unsigned e = std::min(ext_bits(value), d);
      if (e > 0) {
        at = (at << e) | static_cast<std::uint32_t>((value & kTailMask) >> (kSlotBits - kFixedBits - e));
        value = shed(value, e);
        at_generation += e;
      }
      if (at_generation < generation_) {
        if (version_ < 7) return AddFailure::growth_limit;
        for (std::uint32_t half = 0; half < 2; ++half) {
          std::size_t copies = 0;
          if (const AddFailure why = place_moved(2 * at + half, value, at_generation + 1, count, have_to_count, copies);
              why != AddFailure::none)
            return why;
          added = std::max(added, stored + copies);
        }
        return AddFailure::none;
      }
      if (have_to_count) {
        const std::size_t have = exact_copies(at, value) + exact_copies(other_bucket(at, value), value);
        count = count > have ? count - have : 0;
        have_to_count = false;
      }
      if (count == 0) {
        added = std::max(added, stored);
        return AddFailure::none;
      }
      if (occupied_ >= load_limit() && grows_) {
        if (const AddFailure why = double_in_place(); why != AddFailure::none) return why;
        continue;
      }
      // The walk's generator is seeded from the place (there is no key hash), so merges are reproducible.
      const Place place{(std::uint64_t{at} << 32 | value) ^ hasher_.seed(), at, other_bucket(at, value), value};
      // Entries that agree with this one on the bits both have (shorter or longer: a key's copies added at
      // other sizes) share its bucket pair at every size: past 2b of them no doubling can make room (as
      // for an add of a key with 2b copies).
      const std::size_t related = related_copies(place);
      if (related >= 2 * kBucketSize) return AddFailure::duplicate_limit;
      if (insert(place)) {
        --count;
        ++stored;
        continue;
      }
      if ((version_ >= 7 && sealed(place)) || (can_double() && crowded(related))) return AddFailure::crowded;
      if (const AddFailure why = double_in_place(); why != AddFailure::none) return why;
    }
  }

  // A bucket's first free slot (-1: none) and whether an entry matches `key`, from one read of it.
  struct BucketScan {
    int free;
    bool match;
  };
  [[nodiscard]] BucketScan scan(std::uint32_t bucket, Slot key) const noexcept {
    Slot v[kBucketSize];
    read_bucket(bucket, v);
    BucketScan out{-1, false};
    for (unsigned s = kBucketSize; s-- > 0;) {
      if (v[s] == 0) out.free = static_cast<int>(s);
      out.match |= matches(v[s], key);
    }
    return out;
  }

  [[nodiscard]] int free_slot(std::uint32_t bucket) const noexcept {
    const unsigned free = free_slots(bucket);
    return free == 0 ? -1 : std::countr_zero(free);
  }
  // The empty slots of a bucket, bit s for slot s.
  [[nodiscard]] unsigned free_slots(std::uint32_t bucket) const noexcept {
    if constexpr (kPackedInBucket) {
      // A slot is empty exactly when its tail (its low W - F bits, where every entry has its marker) is 0:
      // the bucket's two words of two slots, their lanes' tails tested at once as pair_matches does, not
      // four slots unpacked and compared one by one.
      const SlotPairs w = slot_pairs(bucket);
      return ~(occupied_lanes(w.first) | (occupied_lanes(w.second) << 2)) & 0xFu;
    }
    Slot v[kBucketSize];
    read_bucket(bucket, v);
    unsigned free = 0;
    for (unsigned s = 0; s < kBucketSize; ++s) free |= static_cast<unsigned>(v[s] == 0) << s;
    return free;
  }

  void store(std::uint32_t bucket, unsigned s, Slot v) noexcept { put(std::uint64_t{bucket} * kBucketSize + s, v); }
  // store() into a slot that is empty (all its bits 0): in a packed bucket, v ORed into the one or two words
  // that hold the slot, with nothing to clear.
  void store_empty(std::uint32_t bucket, unsigned s, Slot v) noexcept {
    if constexpr (kPackedInBucket) {
      std::uint8_t* p = table_ + std::uint64_t{bucket} * kBucketBytes;
      const unsigned bit = s * kSlotBits;
      if (bit < 64) {
        std::uint64_t low;
        std::memcpy(&low, p, sizeof low);
        low |= std::uint64_t{v} << bit;
        std::memcpy(p, &low, sizeof low);
      }
      if (bit + kSlotBits > 64) {
        std::uint32_t high = 0;
        std::memcpy(&high, p + 8, kBucketBytes - 8);
        high |= static_cast<std::uint32_t>(bit >= 64 ? std::uint64_t{v} << (bit - 64) : std::uint64_t{v} >> (64 - bit));
        std::memcpy(p + 8, &high, kBucketBytes - 8);
      }
    } else {
      store(bucket, s, v);
    }
  }

  // Stores the key's entry in a free slot of its pair; false when both are full. While
  // first_bucket_decides_, in the first bucket when it has room (the invariant). Else, when the first
  // would be left full (one free slot or none), in the emptier of the two: the buckets of a table that
  // has doubled stay evenly loaded, so that kick-out walks start later (such a table passes through the
  // loads where they are long in every generation).
  bool store_if_room(const Place& at) noexcept {
    std::uint32_t bucket = at.i1;
    unsigned free = free_slots(at.i1);
    if (free == 0 || (!first_bucket_decides_ && (free & (free - 1)) == 0)) {
      const unsigned free2 = free_slots(at.i2);
      if (std::popcount(free2) > std::popcount(free)) {
        bucket = at.i2;
        free = free2;
      }
    }
    if (free == 0) return false;
    store_empty(bucket, static_cast<unsigned>(std::countr_zero(free)), at.value);
    counted_in(at.value);
    return true;
  }

  // Stores the key's entry, kicking residents out along a walk of at most max_kicks steps when both
  // buckets are full; a walk that finds no room is undone.
  bool insert(const Place& at) noexcept {
    if (store_if_room(at)) return true;
    SplitMix64 rng{at.hash};
    std::uint32_t bucket = (rng.next() & 1) != 0 ? at.i2 : at.i1;
    Slot homeless = at.value;
    for (unsigned kick = 0; kick < max_kicks_; ++kick) {
      int s = resident_with_room(bucket);
      if (s < 0) s = static_cast<int>(rng.next() & (kBucketSize - 1));
      const std::uint64_t victim = std::uint64_t{bucket} * kBucketSize + static_cast<unsigned>(s);
      const Slot evicted = get(victim);
      put(victim, homeless);
      path_[kick] = {bucket, static_cast<std::uint32_t>(s)};
      homeless = evicted;
      bucket = other_bucket(bucket, homeless);
      if (const int room = free_slot(bucket); room >= 0) {
        store(bucket, static_cast<unsigned>(room), homeless);
        counted_in(at.value);
        return true;
      }
    }
    for (unsigned kick = max_kicks_; kick-- > 0;) {
      const std::uint64_t placed = std::uint64_t{path_[kick].bucket} * kBucketSize + path_[kick].slot;
      const Slot was = get(placed);
      put(placed, homeless);
      homeless = was;
    }
    return false;
  }

  // A slot of `bucket` whose entry has a free slot in its other bucket, or -1.
  [[nodiscard]] int resident_with_room(std::uint32_t bucket) const noexcept {
    // The bucket read once, and its entries' other buckets touched before any is looked at: their cache
    // misses overlap.
    Slot v[kBucketSize];
    read_bucket(bucket, v);
    std::uint32_t others[kBucketSize];
    std::uint8_t touched = 0;
    for (unsigned s = 0; s < kBucketSize; ++s) {
      others[s] = other_bucket(bucket, v[s]);
      touched = static_cast<std::uint8_t>(touched ^ touch(others[s]));
    }
    prefetch_sink_.keep(touched);
    for (unsigned s = 0; s < kBucketSize; ++s)
      if (free_slot(others[s]) >= 0) return static_cast<int>(s);
    return -1;
  }

  void counted_in(Slot v) noexcept {
    ++length_counts_[entry_bits(v)];
    ++size_;
    ++occupied_;
  }

  // In wasm a prefetch is a real load, kept alive through prefetch_sink_ (detail::PrefetchSink).
  // A bucket of 10, 12 or 20 bytes (20-, 24- and 40-bit slots) may end in the cache line after its first
  // byte's: a 20-byte one in four, a 10- or 12-byte one in eight. In a table of 4 MiB or more (twice a
  // second-level cache) touch() loads its last byte too, as detail::BucketTable::prefetch does
  // (touch_last_): touching the first byte alone left that second line to miss when the bucket was read,
  // after the group's overlapped misses. In a smaller table the second load is of the first byte again
  // (no branch, no second copy of each loop).
  static constexpr bool kBucketMayStraddle = 64 % kBucketBytes != 0;
  [[nodiscard]] std::uint8_t touch(std::uint32_t bucket) const noexcept {
    const std::uint8_t* p = table_ + std::uint64_t{bucket} * kBucketBytes;
#if defined(__wasm__)
    if constexpr (kBucketMayStraddle) return static_cast<std::uint8_t>(p[0] ^ p[touch_last_]);
    return *p;
#else
    __builtin_prefetch(p);
    if constexpr (kBucketMayStraddle) __builtin_prefetch(p + touch_last_);
    return 0;
#endif
  }

  // Locates and touches a group of keys, then stores op(place) for each. The results are gathered in a
  // local buffer and copied out once (CuckooFilter::for_each_located says why). False when a key got
  // stopped_here: the results up to it are stored, and no key after it is tried.
  template <class Op>
  bool for_each_placed(const std::uint64_t* hashes, std::size_t n, std::uint8_t* results, Op&& op) const {
    return for_each_placed(hashes, n, results, false, op);
  }
  // first_only: touches only each key's first bucket (the second is read only for the keys that need it).
  template <class Op>
  bool for_each_placed(const std::uint64_t* hashes, std::size_t n, std::uint8_t* results, bool first_only,
                       Op&& op) const {
    Place group[kGroup];
    std::uint8_t group_results[kGroup];
    std::uint8_t touched = 0;
    for (std::size_t j = 0; j < n; ++j) group[j] = locate(hashes[j]);
    if (first_only)
      for (std::size_t j = 0; j < n; ++j) touched = static_cast<std::uint8_t>(touched ^ touch(group[j].i1));
    else
      for (std::size_t j = 0; j < n; ++j)
        touched = static_cast<std::uint8_t>(touched ^ touch(group[j].i1) ^ touch(group[j].i2));
    prefetch_sink_.keep(touched);
    for (std::size_t j = 0; j < n; ++j) {
      const unsigned g = generation_;
      const KeyResult r = op(group[j]);
      group_results[j] = static_cast<std::uint8_t>(r);
      if (r == KeyResult::stopped_here) {
        std::memcpy(results, group_results, j + 1);
        return false;
      }
      // A doubling in op moved every entry: the places located before it are stale.
      if (g != generation_)
        for (std::size_t k = j + 1; k < n; ++k) group[k] = locate(group[k].hash);
    }
    std::memcpy(results, group_results, n);
    return true;
  }

  KeyHasher hasher_;
  std::uint64_t capacity_ = 0;      // the first table's items
  std::uint64_t base_buckets_ = 0;  // N0
  unsigned generation_ = 0;         // g: doublings so far
  unsigned max_doublings_ = kExtBits;
  unsigned max_kicks_ = 0;
  bool grows_ = true;
  unsigned low_bits_ = 0;          // k: the position's bits below the hash's top 32 (P - 32; 0 in format version 5)
  unsigned fresh_ext_ = kExtBits;  // the ext bits an entry added now gets (fresh_ext_bits; E in version 5)
  std::uint8_t* table_ = nullptr;  // N0 * 2^g buckets of kBucketBytes
  std::uint64_t size_ = 0;         // items (size())
  std::uint64_t occupied_ = 0;     // slots holding an entry: size_ and the copies of version 7
  unsigned version_ = 7;           // DoublingOptions::version
  std::uint64_t fill_limit_ = 0;   // fill_limit(), set whenever the table changes size
  unsigned touch_last_ = 0;        // the second byte of a bucket touch() loads (set with fill_limit_)
  unsigned horizon_ = 0;           // the most doublings adds may make now (set_fill_limit), at most max_doublings_
  std::uint64_t length_counts_[kSlotBits] = {};  // entries by F + e
  AddFailure failure_ = AddFailure::none;
  // True while every entry was put here by this table's adds since it was made empty, and it has not
  // doubled (no remove, join, import or doubling). Then a key whose first bucket has a free slot is in that
  // bucket or absent: an add stores into the first bucket when it has room, else the second, and a full
  // bucket stays full (a kick swaps one entry for another; an undone walk restores every bucket), so a key
  // stored in its second bucket has a full first one. A doubling splits each bucket's entries between two
  // buckets, so a full first bucket may have room after it while the key stays in its second.
  bool first_bucket_decides_ = true;
  WidthPlan plan_;             // DoublingOptions::plan: kSlotBits is plan_.bits_at(generation_) when it widens
  std::uint64_t resizes_ = 0;  // resizes(): doublings and halvings done, for tests
  std::vector<detail::PathStep> path_;
  detail::PrefetchSink prefetch_sink_;
};

}  // namespace v1
}  // namespace cuckoo
