// The export format, versions 3 to 8 (docs/FORMAT.md is the specification; keep the two in step).
// All integers are little-endian. The header is fixed-size, then the packed table, then a checksum.
//
//   offset size field
//        0    4 magic "CKOO"
//        4    2 format version (3)
//        6    1 bucket size (2, 4, 8)
//        7    1 fingerprint bits (4..32)
//        8    4 max kicks (<= 100000)
//       12    4 flags: bit 0 = semi-sorted buckets (bucket size 4, fingerprints of 5..32 bits); the other
//               bits are 0
//       16    8 seed
//       24    8 capacity (items the filter was sized for, >= 1)
//       32    8 number of buckets (even, 2..2^32-2)
//       40    8 number of stored fingerprints
//       48    8 table length in bytes = ceil(buckets * bucket bits / 8), where a bucket takes
//               bucket size * bits, or 4 * bits - 4 when semi-sorted
//       56    T table (see bucket_table.hpp for the bit layout); unused bits of the last byte are 0
//   56 + T    8 XXH3-64 (seed 0) of every byte before it
//
// Version 4, written for filters that grow (a chain of sub-filters; filters without growth write version 3):
//
//   offset size field
//        0    4 magic "CKOO"
//        4    2 format version (4)
//        6    1 bucket size
//        7    1 fingerprint bits of the first sub-filter
//        8    4 max kicks
//       12    4 flags (as in version 3; they apply to every sub-filter)
//       16    8 seed
//       24    1 growth factor (2..16)
//       25    1 maximum number of sub-filters
//       26    2 number of sub-filters n (1..maximum)
//       28    4 reserved (0)
//       32      n times: capacity (8), buckets (8), stored fingerprints (8), table length T_k (8),
//               fingerprint bits (1), reserved (7, zero), table (T_k)
//      end    8 XXH3-64 (seed 0) of every byte before it
// Growth appends sub-filters of growth x the last one's capacity with one more fingerprint bit; a merge
// may append copies of the other filter's sub-filters, so the reader checks each sub-filter on its own.
//
// Versions 5, 6 and 7, written for filters that grow in place (doubling_filter.hpp); the same layout, but
// version 6 places keys from a position of 64 - F hash bits where version 5 took the top 32 alone (its
// entries' last index bits repeated the index: doubling_filter.hpp), and version 7 goes on doubling when
// an entry has no ext bit left, copying it into both halves (so its item count may be below the occupied
// slots). Version 8 is version 7 whose slots widen as the table doubles (WidthPlan): bytes 58 and 59 say
// after how many doublings, and the width field is the width now. Versions 7 and 8 are written; 5 and 6
// are read, and a filter read from one goes on placing and doubling its way (and exports as that version).
//
//   offset size field
//        0   24 as in version 3, with version 5 to 8, bucket size 4, "fingerprint bits" the slot width
//               (16 or 32; in version 6 also 40; in version 7 also 20, 24 and 40; in version 8 16, 20 or 24,
//               the width after g doublings) and flags 0
//       24    8 capacity (items the first table was sized for, >= 1)
//       32    8 buckets of the first table N0 (what the capacity gives: DoublingFilter::base_buckets_for)
//       40    8 number of items (versions 5 and 6: the occupied slots; 7: at most those)
//       48    8 table length in bytes = N0 * 2^g * 4 * slot width / 8
//       56    1 doublings so far g (<= the maximum)
//       57    1 the most doublings (<= DoublingFilter::most_doublings(N0, version): in version 5 E, the slot's
//               ext bits, 7, 15 or 23)
//       58    6 reserved (0) in versions 5 to 7; in version 8:
//       58    1   the doublings after which the slots are 4 bits wider (>= 1)
//       59    1   the doublings after which they are 4 bits wider again (0: never)
//       60    4   reserved (0)
//       64    T the slots, each a little-endian integer of the slot width (40 bits: 5 bytes)
//   64 + T    8 XXH3-64 (seed 0) of every byte before it
//
// Versions 1 and 2 had the same layouts but linked a fingerprint's two buckets through another offset
// function (hashing.hpp); they were only written by builds before the first release and are refused.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "detail/bits.hpp"
#include "detail/compiler.hpp"
#include "detail/edition.hpp"
#include "detail/table_memory.hpp"
#include "doubling_filter.hpp"
#include "hashing.hpp"
#include "options.hpp"
#include "status.hpp"
#include "sub_filter.hpp"

namespace cuckoo {
inline namespace v1 {

// Thrown by CuckooFilter::deserialize; what() names the field or check that failed.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace format {

inline constexpr std::uint8_t kMagic[4] = {'C', 'K', 'O', 'O'};
inline constexpr std::uint16_t kVersion = 3;                 // one table
inline constexpr std::uint16_t kVersionChained = 4;          // a chain of sub-filters (growth)
inline constexpr std::uint16_t kVersionInPlaceWidening = 8;  // version 7 whose slots widen as it doubles
inline constexpr std::uint16_t kVersionInPlace = 7;          // a table that doubles in place (growth 2)
inline constexpr std::uint16_t kVersionInPlaceStopping = 6;  // the same, doubling only while entries have ext bits
inline constexpr std::uint16_t kVersionInPlaceLegacy = 5;    // the same, keys placed from 32 hash bits too
// Whether `version` is one of a table that doubles in place.
[[nodiscard]] constexpr bool in_place_version(std::uint64_t version) noexcept {
  return version == kVersionInPlaceWidening || version == kVersionInPlace || version == kVersionInPlaceStopping ||
         version == kVersionInPlaceLegacy;
}
// Pre-release versions: the same layouts, other alternate buckets. Reading them would lose keys.
inline constexpr std::uint16_t kRetiredVersion = 1;
inline constexpr std::uint16_t kRetiredVersionChained = 2;
inline constexpr std::size_t kHeaderSize = 56;
inline constexpr std::size_t kChainHeaderSize = 32;
inline constexpr std::size_t kSubFilterHeaderSize = 40;
inline constexpr std::size_t kChecksumSize = 8;
inline constexpr std::size_t kInPlaceHeaderSize = 64;

namespace chain_offset {
inline constexpr std::size_t growth = 24, max_sub_filters = 25, sub_filters = 26, reserved = 28;
}  // namespace chain_offset
// Within a version 4 sub-filter's header.
namespace sub_filter_offset {
inline constexpr std::size_t capacity = 0, num_buckets = 8, item_count = 16, table_length = 24, fingerprint_bits = 32,
                             reserved = 33;
}  // namespace sub_filter_offset

// What a header says about one sub-filter: its shape, its fingerprint count and its table's length.
struct SubFilterInfo {
  std::uint64_t capacity;
  std::uint64_t num_buckets;
  unsigned fingerprint_bits;
  std::uint64_t item_count;
  std::uint64_t table_length;
};

// Within a version 5 header, after its first 24 bytes.
namespace in_place_offset {
inline constexpr std::size_t capacity = 24, base_buckets = 32, item_count = 40, table_length = 48, generation = 56,
                             max_doublings = 57, reserved = 58, widen_at = 58, widening_reserved = 60;
}  // namespace in_place_offset

namespace offset {
inline constexpr std::size_t magic = 0, version = 4, bucket_size = 6, fingerprint_bits = 7, max_kicks = 8, flags = 12,
                             seed = 16, capacity = 24, num_buckets = 32, item_count = 40, table_length = 48;
}  // namespace offset

using detail::get_le;
using detail::put_le;

// Header flags.
inline constexpr std::uint32_t kFlagSemiSorted = 1;

// The checksum, XXH3-64 with seed 0, of bytes that arrive in pieces (an export is written and read in
// chunks, so a filter larger than half the wasm heap never needs a second copy of itself there). The
// streaming XXH3 gives the same value as the one-shot function over the concatenation.
class Checksum {
 public:
  // Compiled for size, like the rest of export and import (run once per filter, not per key).
  CUCKOO_COLD Checksum() noexcept { XXH3_64bits_reset(&state_); }
  CUCKOO_COLD void update(const std::uint8_t* data, std::size_t length) noexcept {
    XXH3_64bits_update(&state_, data, length);
  }
  [[nodiscard]] CUCKOO_COLD std::uint64_t digest() const noexcept { return XXH3_64bits_digest(&state_); }

 private:
  XXH3_state_t state_;
};

// The checksum of bytes that are all in memory.
[[nodiscard]] inline std::uint64_t checksum(const std::uint8_t* data, std::size_t length) noexcept {
  Checksum sum;
  sum.update(data, length);
  return sum.digest();
}

// Bytes 0-23, the same in both versions.
inline void write_common_header(std::uint8_t* out, std::uint16_t version, const Layout& layout) noexcept {
  for (unsigned i = 0; i < 4; ++i) out[offset::magic + i] = kMagic[i];
  put_le(out + offset::version, version, 2);
  put_le(out + offset::bucket_size, layout.bucket_size, 1);
  put_le(out + offset::fingerprint_bits, layout.fingerprint_bits, 1);
  put_le(out + offset::max_kicks, layout.max_kicks, 4);
  put_le(out + offset::flags, layout.semi_sorted ? kFlagSemiSorted : 0, 4);
  put_le(out + offset::seed, layout.seed, 8);
}

// The version 3 header (bytes 24-55 follow the common part).
inline void write_header(std::uint8_t* out, const Layout& layout, std::uint64_t item_count) noexcept {
  write_common_header(out, kVersion, layout);
  put_le(out + offset::capacity, layout.capacity, 8);
  put_le(out + offset::num_buckets, layout.num_buckets, 8);
  put_le(out + offset::item_count, item_count, 8);
  put_le(out + offset::table_length,
         detail::table_bytes(layout.num_buckets, layout.bucket_size, layout.fingerprint_bits, layout.semi_sorted), 8);
}

CUCKOO_COLD inline Status bad_format(std::string message) {
  return Status::error(ErrorCode::bad_format, std::move(message));
}

struct CommonFields {
  unsigned bucket_size;
  unsigned fingerprint_bits;
  unsigned max_kicks;
  std::uint64_t seed;
  bool semi_sorted;
};

// Checks bytes 12-23 (the same in both versions; the caller has checked the length).
[[nodiscard]] CUCKOO_COLD inline Status read_common_header(const std::uint8_t* p, std::uint64_t version,
                                                           CommonFields& out) {
  const auto flags = get_le(p + offset::flags, 4);
  if ((flags & ~std::uint64_t{kFlagSemiSorted}) != 0)
    return bad_format("unknown flags " + std::to_string(flags) + " (version " + std::to_string(version) +
                      " has only bit 0, semi-sorted buckets)");
  const bool semi_sorted = (flags & kFlagSemiSorted) != 0;
  if (detail::kSizedOnly && semi_sorted)
    return Status::error(ErrorCode::unsupported, "a filter with semi-sorted buckets (this export's header says so)");
  const auto bucket_size = get_le(p + offset::bucket_size, 1);
  if (!detail::valid_bucket_size(bucket_size))
    return bad_format("bucket size " + std::to_string(bucket_size) + " is not 2, 4 or 8");
  if (semi_sorted && bucket_size != 4)
    return bad_format("semi-sorted buckets with bucket size " + std::to_string(bucket_size) + " (they have 4 slots)");
  const auto bits = get_le(p + offset::fingerprint_bits, 1);
  if (bits < kMinFingerprintBits || bits > kMaxFingerprintBits)
    return bad_format("fingerprint bits " + std::to_string(bits) + " is not from 4 to 32");
  const auto max_kicks = get_le(p + offset::max_kicks, 4);
  if (max_kicks > kMaxKicksLimit)
    return bad_format("max kicks " + std::to_string(max_kicks) + " is above " + std::to_string(kMaxKicksLimit));
  out = CommonFields{static_cast<unsigned>(bucket_size), static_cast<unsigned>(bits), static_cast<unsigned>(max_kicks),
                     get_le(p + offset::seed, 8), semi_sorted};
  return {};
}

// Checks the magic and the version (bytes 0-5) and says which version it is: kVersion or kVersionChained.
[[nodiscard]] CUCKOO_COLD inline Status read_version(const std::uint8_t* p, std::uint16_t& version) {
  for (unsigned i = 0; i < 4; ++i)
    if (p[offset::magic + i] != kMagic[i]) return bad_format("bad magic: this is not a cuckoo filter export");
  version = static_cast<std::uint16_t>(get_le(p + offset::version, 2));
  if (detail::kSizedOnly && (version == kVersionChained || in_place_version(version)))
    return Status::error(ErrorCode::unsupported,
                         "format version " + std::to_string(version) + ": a filter that grows (" +
                             (version == kVersionChained ? "a chain of sub-filters" : "a table that doubles in place") +
                             ")");
  if (version == kVersion || version == kVersionChained || in_place_version(version)) return {};
  if (version == kRetiredVersion || version == kRetiredVersionChained)
    return bad_format("format version " + std::to_string(version) +
                      " was written by a pre-release build that placed fingerprints differently; it cannot be "
                      "read (this library reads versions 3 to 8: rebuild the filter from its keys)");
  return bad_format("unsupported format version " + std::to_string(version) + " (this library reads versions 3 to 8)");
}

// How long the export that begins with p[0, n) says it is, from its headers alone: a reader of a stream
// (a pipe, a device) learns where the export ends without reading on, and can refuse what follows it.
// Returns that length once these bytes tell it. Otherwise returns 0 and sets `need`: the length to read
// before asking again, or 0 when these bytes are not an export (wrong magic, an unknown version, a table
// length no filter can have): the caller then hands them to the reader (CuckooFilter::Importer), which names the
// problem.
[[nodiscard]] CUCKOO_COLD inline std::uint64_t declared_length(const std::uint8_t* p, std::size_t n,
                                                               std::uint64_t& need) noexcept {
  // More than any table: 2^32 buckets x 8 slots x 4 bytes is 2^37.
  constexpr std::uint64_t kNoFilterHasMore = std::uint64_t{1} << 40;
  const auto wait_for = [&](std::uint64_t length) {
    need = length;
    return std::uint64_t{0};
  };
  const auto not_an_export = [&] { return wait_for(0); };
  if (n < offset::version + 2) return wait_for(offset::version + 2);
  for (unsigned i = 0; i < 4; ++i)
    if (p[offset::magic + i] != kMagic[i]) return not_an_export();
  const auto version = get_le(p + offset::version, 2);
  if (version == kVersion) {
    if (n < kHeaderSize) return wait_for(kHeaderSize);
    const std::uint64_t table = get_le(p + offset::table_length, 8);
    return table > kNoFilterHasMore ? not_an_export() : kHeaderSize + table + kChecksumSize;
  }
  if (in_place_version(version)) {
    if (n < kInPlaceHeaderSize) return wait_for(kInPlaceHeaderSize);
    const std::uint64_t table = get_le(p + in_place_offset::table_length, 8);
    return table > kNoFilterHasMore ? not_an_export() : kInPlaceHeaderSize + table + kChecksumSize;
  }
  if (version != kVersionChained) return not_an_export();
  if (n < kChainHeaderSize) return wait_for(kChainHeaderSize);
  const auto count = get_le(p + chain_offset::sub_filters, 2);
  std::uint64_t at = kChainHeaderSize;
  for (std::uint64_t k = 0; k < count; ++k) {
    if (n < at + kSubFilterHeaderSize) return wait_for(at + kSubFilterHeaderSize);
    const std::uint64_t table = get_le(p + at + sub_filter_offset::table_length, 8);
    if (table > kNoFilterHasMore) return not_an_export();
    at += kSubFilterHeaderSize + table;
  }
  return at + kChecksumSize;
}

// The checks every table's description passes, in either version: `which` names the sub-filter in
// messages ("" for version 3). The fingerprint bits were checked by the caller to be from 4 to 32.
[[nodiscard]] CUCKOO_COLD inline Status check_table_fields(const std::string& which, unsigned bucket_size,
                                                           bool semi_sorted_buckets, const SubFilterInfo& info) {
  const bool semi_sorted = !detail::kSizedOnly && semi_sorted_buckets;
  const auto bad = [&](const std::string& what) { return bad_format(which + what); };
  if (semi_sorted && !detail::semi_sortable(bucket_size, info.fingerprint_bits))
    return bad("fingerprint bits " + std::to_string(info.fingerprint_bits) + " in semi-sorted buckets (5 to 32)");
  const std::uint64_t slots = info.num_buckets * bucket_size;
  if (info.capacity == 0 || info.capacity > detail::kMaxCapacity)
    return bad("capacity " + std::to_string(info.capacity) + " is out of range");
  if (info.num_buckets < 2 || info.num_buckets > kMaxBuckets || info.num_buckets % 2 != 0)
    return bad("number of buckets " + std::to_string(info.num_buckets) + " is not an even number from 2 to " +
               std::to_string(kMaxBuckets));
  // Every filter this library writes is sized below its slot count. A larger capacity would only matter
  // when the chain grows: the next sub-filter is sized from it (a fuzzed 349-byte export asked for 7.6 GB).
  if (info.capacity > slots)
    return bad("capacity " + std::to_string(info.capacity) + " exceeds the " + std::to_string(slots) + " slots");
  const auto expected = detail::table_bytes(info.num_buckets, bucket_size, info.fingerprint_bits, semi_sorted);
  if (info.table_length != expected)
    return bad("table length " + std::to_string(info.table_length) + " does not match " +
               std::to_string(info.num_buckets) + " buckets x " +
               (semi_sorted
                    ? std::to_string(detail::bucket_bits(bucket_size, info.fingerprint_bits, true)) +
                          " bits (semi-sorted, " + std::to_string(info.fingerprint_bits) + "-bit fingerprints)"
                    : std::to_string(bucket_size) + " slots x " + std::to_string(info.fingerprint_bits) + " bits") +
               " (" + std::to_string(expected) + " bytes)");
  if (info.item_count > slots)
    return bad("item count " + std::to_string(info.item_count) + " exceeds the " + std::to_string(slots) + " slots");
  return {};
}

// Checks every field of a version 3 header (kHeaderSize bytes) and that its lengths agree with each other.
[[nodiscard]] CUCKOO_COLD inline Status read_single_header(const std::uint8_t* p, Layout& layout, SubFilterInfo& info) {
  CommonFields common;
  if (Status s = read_common_header(p, kVersion, common); !s.ok()) return s;
  const SubFilterInfo read{get_le(p + offset::capacity, 8), get_le(p + offset::num_buckets, 8), common.fingerprint_bits,
                           get_le(p + offset::item_count, 8), get_le(p + offset::table_length, 8)};
  if (Status s = check_table_fields("", common.bucket_size, common.semi_sorted, read); !s.ok()) return s;
  layout = Layout{read.capacity,
                  read.num_buckets,
                  common.bucket_size,
                  common.fingerprint_bits,
                  common.max_kicks,
                  common.seed,
                  0,
                  1,
                  common.semi_sorted};
  info = read;
  return {};
}

// Checks every field of a version 4 chain header (kChainHeaderSize bytes). Sets the layout's common fields
// and growth settings (the first sub-filter's shape comes with its own header) and the sub-filter count.
[[nodiscard]] CUCKOO_COLD inline Status read_chain_header(const std::uint8_t* p, Layout& layout, std::uint64_t& count) {
  const auto bad = bad_format;
  CommonFields common;
  if (Status s = read_common_header(p, kVersionChained, common); !s.ok()) return s;
  if (get_le(p + chain_offset::reserved, 4) != 0) return bad("reserved bytes 28-31 are not zero");
  const auto growth = get_le(p + chain_offset::growth, 1);
  if (growth < kMinGrowth || growth > kMaxGrowth)
    return bad("growth " + std::to_string(growth) + " is not from 2 to 16");
  const auto max_sub = get_le(p + chain_offset::max_sub_filters, 1);
  if (max_sub < 1 || max_sub > kMaxSubFiltersLimit)
    return bad("maximum sub-filters " + std::to_string(max_sub) + " is not from 1 to " +
               std::to_string(kMaxSubFiltersLimit));
  count = get_le(p + chain_offset::sub_filters, 2);
  if (count < 1 || count > max_sub)
    return bad("sub-filter count " + std::to_string(count) + " is not from 1 to " + std::to_string(max_sub));
  layout = Layout{0,
                  0,
                  common.bucket_size,
                  common.fingerprint_bits,
                  common.max_kicks,
                  common.seed,
                  static_cast<unsigned>(growth),
                  static_cast<unsigned>(max_sub),
                  common.semi_sorted};
  return {};
}

// Checks the header of sub-filter k (kSubFilterHeaderSize bytes) of a chain whose header gave `layout`.
[[nodiscard]] CUCKOO_COLD inline Status read_sub_filter_header(const std::uint8_t* p, std::uint64_t k,
                                                               const Layout& layout, SubFilterInfo& info) {
  const std::string which = "sub-filter " + std::to_string(k) + ": ";
  const SubFilterInfo read{get_le(p + sub_filter_offset::capacity, 8), get_le(p + sub_filter_offset::num_buckets, 8),
                           static_cast<unsigned>(get_le(p + sub_filter_offset::fingerprint_bits, 1)),
                           get_le(p + sub_filter_offset::item_count, 8),
                           get_le(p + sub_filter_offset::table_length, 8)};
  if (get_le(p + sub_filter_offset::reserved, 7) != 0) return bad_format(which + "reserved bytes are not zero");
  const unsigned bits = read.fingerprint_bits;
  if (bits < kMinFingerprintBits || bits > kMaxFingerprintBits || (k == 0 && bits != layout.fingerprint_bits))
    return bad_format(which + "fingerprint bits " + std::to_string(bits) + " is not from 4 to 32" +
                      (k == 0 ? std::string(" or differs from the header's ") + std::to_string(layout.fingerprint_bits)
                              : std::string()));
  if (Status s = check_table_fields(which, layout.bucket_size, layout.semi_sorted, read); !s.ok()) return s;
  info = read;
  return {};
}

// What a version 5 to 8 header says beyond the layout.
struct InPlaceInfo {
  unsigned slot_bits;  // the table's now (the layout has its first table's)
  unsigned generation;
  std::uint64_t item_count;
  std::uint64_t table_length;
};

// Checks every field of a version 5 to 8 header (kInPlaceHeaderSize bytes) and that its lengths agree; the
// slots themselves are checked by DoublingFilter::adopt.
[[nodiscard]] CUCKOO_COLD inline Status read_in_place_header(const std::uint8_t* p, Layout& layout, InPlaceInfo& info) {
  const auto bad = bad_format;
  if (const auto flags = get_le(p + offset::flags, 4); flags != 0)
    return bad("unknown flags " + std::to_string(flags) + " (versions 5 to 8 have none)");
  const auto bucket_size = get_le(p + offset::bucket_size, 1);
  if (bucket_size != 4) return bad("bucket size " + std::to_string(bucket_size) + " is not 4");
  const auto slot_bits = get_le(p + offset::fingerprint_bits, 1);
  const auto version = static_cast<unsigned>(get_le(p + offset::version, 2));
  const bool legacy = version == kVersionInPlaceLegacy;
  if (slot_bits != 16 && slot_bits != 32 && (slot_bits != 40 || legacy) &&
      (version < kVersionInPlace || !in_place_slot_width(slot_bits)))
    return bad("slot width " + std::to_string(slot_bits) +
               (legacy                      ? " is not 16 or 32"
                : version < kVersionInPlace ? " is not 16, 32 or 40"
                                            : " is not 16, 20, 24, 32 or 40"));
  const auto max_kicks = get_le(p + offset::max_kicks, 4);
  if (max_kicks > kMaxKicksLimit)
    return bad("max kicks " + std::to_string(max_kicks) + " is above " + std::to_string(kMaxKicksLimit));
  unsigned widen_at[2] = {0, 0};
  if (version == kVersionInPlaceWidening) {
    if (get_le(p + in_place_offset::widening_reserved, 4) != 0) return bad("reserved bytes 60-63 are not zero");
    widen_at[0] = static_cast<unsigned>(p[in_place_offset::widen_at]);
    widen_at[1] = static_cast<unsigned>(p[in_place_offset::widen_at + 1]);
  } else if (get_le(p + in_place_offset::reserved, 6) != 0) {
    return bad("reserved bytes 58-63 are not zero");
  }
  const std::uint64_t capacity = get_le(p + in_place_offset::capacity, 8);
  const std::uint64_t base = get_le(p + in_place_offset::base_buckets, 8);
  const auto max_doublings = static_cast<unsigned>(get_le(p + in_place_offset::max_doublings, 1));
  const auto generation = static_cast<unsigned>(get_le(p + in_place_offset::generation, 1));
  if (capacity == 0 || capacity > DoublingFilter<std::uint16_t>::kMaxCapacity)
    return bad("capacity " + std::to_string(capacity) + " is out of range");
  if (base != DoublingFilter<std::uint16_t>::base_buckets_for(capacity))
    return bad("first table of " + std::to_string(base) + " buckets, but capacity " + std::to_string(capacity) +
               " gives " + std::to_string(DoublingFilter<std::uint16_t>::base_buckets_for(capacity)));
  // No more doublings than the position has bits for (version 5 filters were written without).
  const unsigned most = slot_bits == 40   ? DoublingFilter<Slot40>::most_doublings(base, version)
                        : slot_bits == 32 ? DoublingFilter<std::uint32_t>::most_doublings(base, version)
                        : slot_bits == 24 ? DoublingFilter<Slot24>::most_doublings(base, version)
                        : slot_bits == 20 ? DoublingFilter<Slot20>::most_doublings(base, version)
                                          : DoublingFilter<std::uint16_t>::most_doublings(base, version);
  if (max_doublings > most)
    return bad("most doublings " + std::to_string(max_doublings) + " is above " + std::to_string(most) + " for " +
               std::to_string(slot_bits) + "-bit slots");
  if (generation > max_doublings || (base << generation) > kMaxBuckets)
    return bad("doublings " + std::to_string(generation) + " is above the most, " + std::to_string(max_doublings) +
               ", or past " + std::to_string(kMaxBuckets) + " buckets");
  // Version 8: the slots widen by 4 bits after widen_at[0] doublings and again after widen_at[1] (if not 0),
  // from 16 or 20 bits to at most 24, within the most doublings; the width is the one for `generation`.
  unsigned first_bits = static_cast<unsigned>(slot_bits);
  if (version == kVersionInPlaceWidening) {
    const unsigned steps = widen_at[1] != 0 ? 2 : 1;
    const unsigned passed = (generation >= widen_at[0]) + (widen_at[1] != 0 && generation >= widen_at[1]);
    first_bits = static_cast<unsigned>(slot_bits) - 4 * passed;
    if (widen_at[0] == 0 || (widen_at[1] != 0 && widen_at[1] <= widen_at[0]) ||
        (steps == 2 ? widen_at[1] : widen_at[0]) > max_doublings)
      return bad("slots that widen after " + std::to_string(widen_at[0]) + " and " + std::to_string(widen_at[1]) +
                 " doublings: not a step, then none or a later one, within the most doublings (" +
                 std::to_string(max_doublings) + ")");
    if (slot_bits > 24 || (first_bits != 16 && first_bits != 20) || first_bits + 4 * steps > 24)
      return bad("slot width " + std::to_string(slot_bits) + " after " + std::to_string(generation) +
                 " doublings of slots that widen " + std::to_string(steps) +
                 " time(s): they start at 16 or 20 bits and end at 24 at most");
  }
  const std::uint64_t slots = (base << generation) * 4;
  const std::uint64_t table = get_le(p + in_place_offset::table_length, 8);
  if (table != slots * slot_bits / 8)
    return bad("table length " + std::to_string(table) + " does not match " + std::to_string(base << generation) +
               " buckets x 4 slots x " + std::to_string(slot_bits) + " bits (" + std::to_string(slots * slot_bits / 8) +
               " bytes)");
  const std::uint64_t items = get_le(p + in_place_offset::item_count, 8);
  if (items > slots)
    return bad("item count " + std::to_string(items) + " exceeds the " + std::to_string(slots) + " slots");
  layout = Layout{capacity,
                  base,
                  4,
                  first_bits,
                  static_cast<unsigned>(max_kicks),
                  get_le(p + offset::seed, 8),
                  2,
                  1,
                  false,
                  true,
                  max_doublings,
                  version == kVersionInPlaceWidening ? kVersionInPlace : version,
                  {widen_at[0], widen_at[1]}};
  info = InPlaceInfo{static_cast<unsigned>(slot_bits), generation, items, table};
  return {};
}

// The slots of a version 5 export, as read: malloc'd, for DoublingFilter::adopt.
struct FreeBytes {
  void operator()(std::uint8_t* p) const noexcept { std::free(p); }
};

// A filter's parts as an export describes them; CuckooFilter::from_import assembles the filter.
struct Chain {
  Layout layout;  // capacity, num_buckets and fingerprint_bits are the first sub-filter's
  std::vector<detail::SubFilter> sub_filters;
  // Version 5 (layout.in_place): the slots and what the header says of them, instead of sub-filters.
  std::unique_ptr<std::uint8_t, FreeBytes> slots;
  InPlaceInfo in_place{};
};

// A table that doubles in place, as the Exporter reads it.
struct InPlaceTable {
  unsigned slot_bits;  // the table's now
  const std::uint8_t* data;
  std::uint64_t length;
  std::uint64_t item_count;
  unsigned generation;
};

// Reads a filter's export out in pieces of any size, in order: the headers, each table straight from the
// filter's memory, then the checksum of everything before it. Filters without growth are written as
// version 3, growing ones as version 4. The filter must not change while this reads. Not copyable: it
// points into itself.
class Exporter {
 public:
  CUCKOO_COLD Exporter(const Layout& layout, const detail::SubFilter& head,
                       std::span<const detail::SubFilter> tail) noexcept {
    std::uint8_t* h = headers_;
    if (detail::kSizedOnly || layout.growth == 0) {
      write_header(h, layout, head.size);
      add(h, kHeaderSize);
      add(head.table.data(), head.table.byte_length());
    } else {
      write_common_header(h, kVersionChained, layout);
      put_le(h + chain_offset::growth, layout.growth, 1);
      put_le(h + chain_offset::max_sub_filters, layout.max_sub_filters, 1);
      put_le(h + chain_offset::sub_filters, 1 + tail.size(), 2);
      put_le(h + chain_offset::reserved, 0, 4);
      add(h, kChainHeaderSize);
      h += kChainHeaderSize;
      const auto add_sub_filter = [&](const detail::SubFilter& s) {
        put_le(h + sub_filter_offset::capacity, s.capacity, 8);
        put_le(h + sub_filter_offset::num_buckets, s.num_buckets, 8);
        put_le(h + sub_filter_offset::item_count, s.size, 8);
        put_le(h + sub_filter_offset::table_length, s.table.byte_length(), 8);
        put_le(h + sub_filter_offset::fingerprint_bits, s.fingerprint_bits, 1);
        put_le(h + sub_filter_offset::reserved, 0, 7);
        add(h, kSubFilterHeaderSize);
        add(s.table.data(), s.table.byte_length());
        h += kSubFilterHeaderSize;
      };
      add_sub_filter(head);
      for (const detail::SubFilter& s : tail) add_sub_filter(s);
    }
    add(sum_, kChecksumSize);
    for (std::size_t i = 0; i < pieces_count_; ++i) size_ += pieces_[i].length;
  }
  CUCKOO_COLD Exporter(const Layout& layout, const InPlaceTable& table) noexcept {
    std::uint8_t* h = headers_;
    write_common_header(
        h, layout.widen_at[0] != 0 ? kVersionInPlaceWidening : static_cast<std::uint16_t>(layout.in_place_version),
        layout);
    put_le(h + offset::fingerprint_bits, table.slot_bits, 1);
    put_le(h + in_place_offset::capacity, layout.capacity, 8);
    put_le(h + in_place_offset::base_buckets, layout.num_buckets, 8);
    put_le(h + in_place_offset::item_count, table.item_count, 8);
    put_le(h + in_place_offset::table_length, table.length, 8);
    put_le(h + in_place_offset::generation, table.generation, 1);
    put_le(h + in_place_offset::max_doublings, layout.max_doublings, 1);
    put_le(h + in_place_offset::reserved, 0, 6);
    if (layout.widen_at[0] != 0) {
      h[in_place_offset::widen_at] = static_cast<std::uint8_t>(layout.widen_at[0]);
      h[in_place_offset::widen_at + 1] = static_cast<std::uint8_t>(layout.widen_at[1]);
    }
    add(h, kInPlaceHeaderSize);
    add(table.data, table.length);
    add(sum_, kChecksumSize);
    for (std::size_t i = 0; i < pieces_count_; ++i) size_ += pieces_[i].length;
  }
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;

  // The export's length: CuckooFilter::serialized_size().
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

  // Copies the next min(capacity, what is left) bytes to `out` and returns how many (0 at the end).
  CUCKOO_COLD std::size_t read(std::uint8_t* out, std::size_t capacity) noexcept {
    std::size_t written = 0;
    while (written < capacity && piece_ < pieces_count_) {
      const Piece& p = pieces_[piece_];
      if (p.data == sum_ && offset_ == 0) put_le(sum_, sum_state_.digest(), kChecksumSize);
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(capacity - written, p.length - offset_));
      std::memcpy(out + written, p.data + offset_, n);
      if (p.data != sum_) sum_state_.update(p.data + offset_, n);
      written += n;
      offset_ += n;
      if (offset_ == p.length) {
        ++piece_;
        offset_ = 0;
      }
    }
    return written;
  }

 private:
  struct Piece {
    const std::uint8_t* data;
    std::uint64_t length;
  };
  void add(const std::uint8_t* data, std::uint64_t length) noexcept { pieces_[pieces_count_++] = {data, length}; }

  static constexpr std::size_t kMaxHeaderBytes =
      kHeaderSize + kChainHeaderSize + kMaxSubFiltersLimit * kSubFilterHeaderSize;
  std::uint8_t headers_[kMaxHeaderBytes] = {};
  std::uint8_t sum_[kChecksumSize] = {};
  Piece pieces_[2 + 2 * kMaxSubFiltersLimit] = {};
  std::size_t pieces_count_ = 0;
  std::size_t piece_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t size_ = 0;
  Checksum sum_state_;
};

// Reads an export that arrives in pieces of any size, writing each table straight into the new
// sub-filter's memory, and checks it as a whole: every header field, every length, the checksum, then
// each table's unused bits and fingerprint count. After the first error every call returns it.
//
// Given the total length in advance (a whole export in memory), it refuses a header that does not
// describe exactly that many bytes before allocating anything; without it (a stream), the tables a header
// describes are allocated when the header arrives.
class Importer {
 public:
  static constexpr std::uint64_t kUnknownLength = ~std::uint64_t{0};
  explicit Importer(std::uint64_t total = kUnknownLength) noexcept : total_(total) {}

  // Takes the next `length` bytes of the export.
  CUCKOO_COLD Status push(const std::uint8_t* data, std::size_t length) {
    if (detail::kSizedOnly && phase_ == Phase::unsupported) return hold_back(data, length);
    while (length > 0 && error_.ok()) {
      if (phase_ == Phase::done) {
        error_ =
            bad_format("trailing data: more than the " + std::to_string(received_) + " bytes the header describes");
        break;
      }
      std::size_t n;
      if (phase_ == Phase::table) {
        n = static_cast<std::size_t>(std::min<std::uint64_t>(length, table_left_));
        std::memcpy(table_at_, data, n);
        table_at_ += n;
        table_left_ -= n;
        sum_.update(data, n);
        received_ += n;
        if (table_left_ == 0) error_ = next_after_table();
      } else {
        n = std::min(length, want_ - have_);
        std::memcpy(pending_ + have_, data, n);
        have_ += n;
        if (phase_ != Phase::checksum) sum_.update(data, n);
        received_ += n;
        if (have_ == want_) error_ = take_pending();
      }
      data += n;
      length -= n;
    }
    if (detail::kSizedOnly && phase_ == Phase::unsupported) return hold_back(data, length);
    return error_;
  }

  // The filter's parts, once the whole export has arrived and checked out.
  CUCKOO_COLD Status finish(Chain& out) {
    if (detail::kSizedOnly && phase_ == Phase::unsupported)
      if (Status damage = damage_to_unsupported(); !damage.ok()) error_ = std::move(damage);
    if (error_.ok() && phase_ != Phase::done) error_ = truncated();
    if (!error_.ok()) return error_;
    out = std::move(chain_);
    chain_ = Chain{};
    return {};
  }

 private:
  enum class Phase {
    version,
    single_header,
    chain_header,
    sub_filter_header,
    in_place_header,
    table,
    checksum,
    done,
    unsupported
  };

  // A build of sized filters (the lite entry) cannot read an export of a filter that grows or has
  // semi-sorted buckets, but it must not call damaged bytes that: a flipped bit can turn a version 3
  // export into one of those. So on such a header it keeps the reason in error_ (Phase::unsupported) and
  // reads on, hashing every byte but the last 8 (held back: they may be the checksum); finish() says the
  // reason only for an export whose checksum holds, BAD_FORMAT otherwise, as the full reader would for
  // the damage. push() says nothing until then. A full build never reads on.
  CUCKOO_COLD void read_on_if_unsupported(const Status& s, std::uint64_t least_length) noexcept {
    if (!detail::kSizedOnly || s.code != ErrorCode::unsupported) return;
    least_length_ = least_length;
    phase_ = Phase::unsupported;
  }

  CUCKOO_COLD Status hold_back(const std::uint8_t* data, std::size_t length) noexcept {
    if (length == 0) return {};  // (data may be null)
    received_ += length;
    if (length >= kChecksumSize) {
      sum_.update(held_, held_count_);
      sum_.update(data, length - kChecksumSize);
      std::memcpy(held_, data + length - kChecksumSize, kChecksumSize);
      held_count_ = kChecksumSize;
      return {};
    }
    if (const std::size_t out = held_count_ + length > kChecksumSize ? held_count_ + length - kChecksumSize : 0;
        out > 0) {
      sum_.update(held_, out);
      std::memmove(held_, held_ + out, held_count_ - out);
      held_count_ -= out;
    }
    std::memcpy(held_ + held_count_, data, length);
    held_count_ += length;
    return {};
  }

  // The damage, if any, that an export of what this build leaves out shows once all of it has come.
  CUCKOO_COLD Status damage_to_unsupported() const {
    if (received_ < least_length_) return bad_format("truncated: it ends before its headers do");
    if (sum_.digest() != get_le(held_, kChecksumSize)) return bad_format("checksum mismatch: the data is corrupted");
    return {};
  }

  CUCKOO_COLD Status take_pending() {
    have_ = 0;
    switch (phase_) {
      case Phase::version: {
        std::uint16_t version = 0;
        if (Status s = read_version(pending_, version); !s.ok()) {
          read_on_if_unsupported(s, version == kVersionChained ? kChainHeaderSize + kSubFilterHeaderSize + kChecksumSize
                                                               : kInPlaceHeaderSize + kChecksumSize);
          return s;
        }
        phase_ = version == kVersion          ? Phase::single_header
                 : version == kVersionChained ? Phase::chain_header
                                              : Phase::in_place_header;
        want_ = version == kVersion ? kHeaderSize : version == kVersionChained ? kChainHeaderSize : kInPlaceHeaderSize;
        have_ = offset::version + 2;  // the header is checked whole: keep its first bytes
        return {};
      }
      case Phase::single_header: {
        SubFilterInfo info;
        if (Status s = read_single_header(pending_, chain_.layout, info); !s.ok()) {
          read_on_if_unsupported(s, kHeaderSize + kChecksumSize);
          return s;
        }
        const std::uint64_t total = kHeaderSize + info.table_length + kChecksumSize;
        if (total_ != kUnknownLength && total_ != total)
          return bad_format(std::string(total_ < total ? "truncated: " : "trailing data: ") + std::to_string(total_) +
                            " bytes, but the header describes " + std::to_string(total));
        return begin_sub_filter(info);
      }
      case Phase::in_place_header: {
        if constexpr (detail::kSizedOnly) return {};  // read_version refused it
        InPlaceInfo& info = chain_.in_place;
        if (Status s = read_in_place_header(pending_, chain_.layout, info); !s.ok()) return s;
        const std::uint64_t total = kInPlaceHeaderSize + info.table_length + kChecksumSize;
        if (total_ != kUnknownLength && total_ != total)
          return bad_format(std::string(total_ < total ? "truncated: " : "trailing data: ") + std::to_string(total_) +
                            " bytes, but the header describes " + std::to_string(total));
        if (detail::addressable(info.table_length))
          chain_.slots.reset(
              static_cast<std::uint8_t*>(detail::allocate_block(static_cast<std::size_t>(info.table_length), false)));
        if (!chain_.slots)
          return Status::error(ErrorCode::out_of_memory,
                               "cannot allocate " + std::to_string(info.table_length) + " bytes for the table");
        phase_ = Phase::table;
        table_at_ = chain_.slots.get();
        table_left_ = info.table_length;
        return {};
      }
      case Phase::chain_header:
        if constexpr (detail::kSizedOnly) return {};  // read_version refused it
        if (Status s = read_chain_header(pending_, chain_.layout, sub_filters_left_); !s.ok()) return s;
        phase_ = Phase::sub_filter_header;
        want_ = kSubFilterHeaderSize;
        return {};
      case Phase::sub_filter_header: {
        if constexpr (detail::kSizedOnly) return {};  // read_version refused the chain
        SubFilterInfo info;
        const std::uint64_t k = infos_.size();
        if (Status s = read_sub_filter_header(pending_, k, chain_.layout, info); !s.ok()) return s;
        if (total_ != kUnknownLength && (total_ < received_ || total_ - received_ < info.table_length + kChecksumSize))
          return bad_format("truncated: " + std::to_string(total_) + " bytes end inside sub-filter " +
                            std::to_string(k) + ": table");
        if (k == 0) {
          chain_.layout.capacity = info.capacity;
          chain_.layout.num_buckets = info.num_buckets;
        }
        --sub_filters_left_;
        return begin_sub_filter(info);
      }
      case Phase::checksum:
        phase_ = Phase::done;
        if (sum_.digest() != get_le(pending_, kChecksumSize))
          return bad_format("checksum mismatch: the data is corrupted");
        return check_tables();
      default:
        return {};
    }
  }

  // Allocates the sub-filter a header described and reads its table next.
  CUCKOO_COLD Status begin_sub_filter(const SubFilterInfo& info) {
    const std::size_t k = infos_.size();
    auto& sub_filters = chain_.sub_filters;
    if (!detail::reserve_nothrow(infos_, k + 1) || !detail::reserve_nothrow(sub_filters, k + 1))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate the reader's bookkeeping");
    sub_filters.emplace_back();
    detail::SubFilter& s = sub_filters.back();
    // Not cleared first: every byte of the table comes from the export (and a table that does not arrive
    // whole is never used), so a header alone takes no memory but the heap's room (allocate_table_memory).
    if (!s.allocate(info.capacity, info.num_buckets, info.fingerprint_bits, chain_.layout.bucket_size,
                    chain_.layout.semi_sorted, /*zeroed=*/false))
      return Status::error(ErrorCode::out_of_memory,
                           k == 0 ? "cannot allocate " + std::to_string(info.table_length) + " bytes for the table"
                                  : "cannot allocate sub-filter " + std::to_string(k));
    s.size = info.item_count;
    infos_.push_back(info);
    phase_ = Phase::table;
    table_at_ = s.table.mutable_data();
    table_left_ = info.table_length;
    return {};
  }

  CUCKOO_COLD Status next_after_table() {
    if (!detail::kSizedOnly && chain_.layout.growth != 0 && sub_filters_left_ > 0) {
      phase_ = Phase::sub_filter_header;
      want_ = kSubFilterHeaderSize;
      return {};
    }
    phase_ = Phase::checksum;
    want_ = kChecksumSize;
    if (total_ != kUnknownLength && total_ > received_ + kChecksumSize)
      return bad_format("trailing data: " + std::to_string(total_ - received_ - kChecksumSize) +
                        " bytes after the last sub-filter");
    return {};
  }

  // What the checksum cannot vouch for: the writer's own invariants on each table (for version 5,
  // DoublingFilter::adopt checks them).
  CUCKOO_COLD Status check_tables() const {
    for (std::size_t k = 0; k < infos_.size(); ++k) {
      const SubFilterInfo& info = infos_[k];
      const detail::SubFilter& s = chain_.sub_filters[k];
      const std::string which = infos_.size() > 1 ? "sub-filter " + std::to_string(k) + ": " : "";
      const std::uint64_t used_bits =
          info.num_buckets *
          detail::bucket_bits(chain_.layout.bucket_size, info.fingerprint_bits, chain_.layout.semi_sorted);
      const std::uint8_t last = s.table.data()[info.table_length - 1];
      if (used_bits % 8 != 0 && (last >> (used_bits % 8)) != 0)
        return bad_format(which + "the unused bits after the last slot are not zero");
      // Before anything decodes a semi-sorted bucket.
      if (const std::uint64_t b = s.table.first_noncanonical_bucket(); !detail::kSizedOnly && b != info.num_buckets)
        return bad_format(
            which + "bucket " + std::to_string(b) +
            " is not a semi-sorted bucket this library writes (an unknown code, or fingerprints out of order)");
      const std::uint64_t occupied = s.table.count_occupied();
      if (occupied != info.item_count)
        return bad_format(which + "item count " + std::to_string(info.item_count) + " does not match the " +
                          std::to_string(occupied) + " occupied slots");
    }
    return {};
  }

  CUCKOO_COLD Status truncated() const {
    const std::string n = "truncated: " + std::to_string(received_) + " bytes";
    if (phase_ == Phase::version || phase_ == Phase::single_header)
      return bad_format(n + ", but a filter export is at least " + std::to_string(kHeaderSize + kChecksumSize));
    // A build of sized filters reads version 3 alone: past its header, only its table or checksum is cut.
    if (!detail::kSizedOnly) {
      if (phase_ == Phase::chain_header)
        return bad_format(n + ", but a version 4 export is at least " +
                          std::to_string(kChainHeaderSize + kSubFilterHeaderSize + kChecksumSize));
      if (phase_ == Phase::in_place_header)
        return bad_format(n + ", but a version 5 to 8 export is at least " +
                          std::to_string(kInPlaceHeaderSize + kChecksumSize));
      if (chain_.layout.in_place)
        return bad_format(n + ", but the header describes " +
                          std::to_string(kInPlaceHeaderSize + chain_.in_place.table_length + kChecksumSize));
    }
    if (detail::kSizedOnly || chain_.layout.growth == 0)
      return bad_format(n + ", but the header describes " +
                        std::to_string(kHeaderSize + infos_[0].table_length + kChecksumSize));
    const std::string where = phase_ == Phase::checksum ? "the checksum"
                              : phase_ == Phase::table  ? "sub-filter " + std::to_string(infos_.size() - 1) + ": table"
                                                        : "sub-filter " + std::to_string(infos_.size()) + ": header";
    return bad_format(n + " end inside " + where);
  }

  const std::uint64_t total_;
  Phase phase_ = Phase::version;
  std::uint8_t pending_[kInPlaceHeaderSize] = {};  // the header being gathered (the largest is version 5's)
  std::size_t have_ = 0;
  std::size_t want_ = offset::version + 2;
  std::uint64_t received_ = 0;
  Checksum sum_;
  Chain chain_;
  std::uint64_t sub_filters_left_ = 0;
  std::vector<SubFilterInfo> infos_;
  std::uint8_t* table_at_ = nullptr;
  std::uint64_t table_left_ = 0;
  Status error_;
  std::uint64_t least_length_ = 0;         // the shortest export of that kind
  std::uint8_t held_[kChecksumSize] = {};  // the last bytes read in Phase::unsupported
  std::size_t held_count_ = 0;
};

}  // namespace format
}  // namespace v1
}  // namespace cuckoo
