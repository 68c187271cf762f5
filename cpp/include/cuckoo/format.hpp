// The export format, versions 3 and 4 (docs/FORMAT.md is the specification; keep the two in step).
// All integers are little-endian. The header is fixed-size, then the packed table, then a checksum.
//
//   offset size field
//        0    4 magic "CKOO"
//        4    2 format version (3)
//        6    1 bucket size (2, 4, 8)
//        7    1 fingerprint bits (4..32)
//        8    4 max kicks (<= 100000)
//       12    4 flags (must be 0 in version 3)
//       16    8 seed
//       24    8 capacity (items the filter was sized for, >= 1)
//       32    8 number of buckets (even, 2..2^32-2)
//       40    8 number of stored fingerprints
//       48    8 table length in bytes = ceil(buckets * bucket size * bits / 8)
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
//       12    4 flags (0)
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
// Versions 1 and 2 had the same layouts but linked a fingerprint's two buckets through another offset
// function (hashing.hpp); they were only written by builds before the first release and are refused.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashing.hpp"
#include "options.hpp"

namespace cuckoo {
inline namespace v1 {

// Thrown by CuckooFilter::deserialize; what() names the field or check that failed.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace format {

inline constexpr std::uint8_t kMagic[4] = {'C', 'K', 'O', 'O'};
inline constexpr std::uint16_t kVersion = 3;         // one table
inline constexpr std::uint16_t kVersionChained = 4;  // a chain of sub-filters (growth)
// Pre-release versions: the same layouts, other alternate buckets. Reading them would lose keys.
inline constexpr std::uint16_t kRetiredVersion = 1;
inline constexpr std::uint16_t kRetiredVersionChained = 2;
inline constexpr std::size_t kHeaderSize = 56;
inline constexpr std::size_t kChainHeaderSize = 32;
inline constexpr std::size_t kSegmentHeaderSize = 40;
inline constexpr std::size_t kChecksumSize = 8;

namespace chain_offset {
inline constexpr std::size_t growth = 24, max_sub_filters = 25, sub_filters = 26, reserved = 28;
}  // namespace chain_offset
// Within a version 4 sub-filter's header.
namespace segment_offset {
inline constexpr std::size_t capacity = 0, num_buckets = 8, item_count = 16, table_length = 24, fingerprint_bits = 32,
                             reserved = 33;
}  // namespace segment_offset

// What a header says about one sub-filter: its shape, its fingerprint count and its table's length.
struct SegmentInfo {
  std::uint64_t capacity;
  std::uint64_t num_buckets;
  unsigned fingerprint_bits;
  std::uint64_t item_count;
  std::uint64_t table_length;
};

namespace offset {
inline constexpr std::size_t magic = 0, version = 4, bucket_size = 6, fingerprint_bits = 7, max_kicks = 8,
                             flags = 12, seed = 16, capacity = 24, num_buckets = 32, item_count = 40,
                             table_length = 48;
}  // namespace offset

inline void put_le(std::uint8_t* out, std::uint64_t value, unsigned bytes) noexcept {
  for (unsigned i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

[[nodiscard]] inline std::uint64_t get_le(const std::uint8_t* in, unsigned bytes) noexcept {
  std::uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return value;
}

[[nodiscard]] constexpr std::uint64_t table_bytes(std::uint64_t num_buckets, unsigned bucket_size,
                                                  unsigned fingerprint_bits) noexcept {
  return (num_buckets * bucket_size * fingerprint_bits + 7) / 8;
}

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
  put_le(out + offset::flags, 0, 4);
  put_le(out + offset::seed, layout.seed, 8);
}

// The version 3 header (bytes 24-55 follow the common part).
inline void write_header(std::uint8_t* out, const Layout& layout, std::uint64_t item_count) noexcept {
  write_common_header(out, kVersion, layout);
  put_le(out + offset::capacity, layout.capacity, 8);
  put_le(out + offset::num_buckets, layout.num_buckets, 8);
  put_le(out + offset::item_count, item_count, 8);
  put_le(out + offset::table_length,
         table_bytes(layout.num_buckets, layout.bucket_size, layout.fingerprint_bits), 8);
}

CUCKOO_COLD inline Status bad_format(std::string message) { return Status::error(ErrorCode::bad_format, std::move(message)); }

struct CommonFields {
  unsigned bucket_size;
  unsigned fingerprint_bits;
  unsigned max_kicks;
  std::uint64_t seed;
};

// Checks bytes 12-23 (the same in both versions; the caller has checked the length).
[[nodiscard]] CUCKOO_COLD inline Status read_common_header(const std::uint8_t* p, std::uint64_t version, CommonFields& out) {
  const auto flags = get_le(p + offset::flags, 4);
  if (flags != 0)
    return bad_format("unknown flags " + std::to_string(flags) + " (version " + std::to_string(version) + " has none)");
  const auto bucket_size = get_le(p + offset::bucket_size, 1);
  if (!detail::valid_bucket_size(bucket_size))
    return bad_format("bucket size " + std::to_string(bucket_size) + " is not 2, 4 or 8");
  const auto bits = get_le(p + offset::fingerprint_bits, 1);
  if (bits < kMinFingerprintBits || bits > kMaxFingerprintBits)
    return bad_format("fingerprint bits " + std::to_string(bits) + " is not from 4 to 32");
  const auto max_kicks = get_le(p + offset::max_kicks, 4);
  if (max_kicks > kMaxKicksLimit)
    return bad_format("max kicks " + std::to_string(max_kicks) + " is above " + std::to_string(kMaxKicksLimit));
  out = CommonFields{static_cast<unsigned>(bucket_size), static_cast<unsigned>(bits), static_cast<unsigned>(max_kicks),
                     get_le(p + offset::seed, 8)};
  return {};
}

// Checks the magic and the version (bytes 0-5) and says which version it is: kVersion or kVersionChained.
[[nodiscard]] CUCKOO_COLD inline Status read_version(const std::uint8_t* p, std::uint16_t& version) {
  for (unsigned i = 0; i < 4; ++i)
    if (p[offset::magic + i] != kMagic[i]) return bad_format("bad magic: this is not a cuckoo filter export");
  version = static_cast<std::uint16_t>(get_le(p + offset::version, 2));
  if (version == kVersion || version == kVersionChained) return {};
  if (version == kRetiredVersion || version == kRetiredVersionChained)
    return bad_format("format version " + std::to_string(version) +
                      " was written by a pre-release build that placed fingerprints differently; it cannot be "
                      "read (this library reads versions 3 and 4: rebuild the filter from its keys)");
  return bad_format("unsupported format version " + std::to_string(version) +
                    " (this library reads versions 3 and 4)");
}

// How long the export that begins with p[0, n) says it is, from its headers alone: a reader of a stream
// (a pipe, a device) learns where the export ends without reading on, and can refuse what follows it.
// Returns that length once these bytes tell it. Otherwise returns 0 and sets `need`: the length to read
// before asking again, or 0 when these bytes are not an export (wrong magic, an unknown version, a table
// length no filter can have): the caller then hands them to the reader (CuckooFilter::Importer), which names the problem.
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
  if (version != kVersionChained) return not_an_export();
  if (n < kChainHeaderSize) return wait_for(kChainHeaderSize);
  const auto count = get_le(p + chain_offset::sub_filters, 2);
  std::uint64_t at = kChainHeaderSize;
  for (std::uint64_t k = 0; k < count; ++k) {
    if (n < at + kSegmentHeaderSize) return wait_for(at + kSegmentHeaderSize);
    const std::uint64_t table = get_le(p + at + segment_offset::table_length, 8);
    if (table > kNoFilterHasMore) return not_an_export();
    at += kSegmentHeaderSize + table;
  }
  return at + kChecksumSize;
}

// Checks every field of a version 3 header (kHeaderSize bytes) and that its lengths agree with each other.
[[nodiscard]] CUCKOO_COLD inline Status read_single_header(const std::uint8_t* p, Layout& layout, SegmentInfo& info) {
  const auto bad = bad_format;
  CommonFields common;
  if (Status s = read_common_header(p, kVersion, common); !s.ok()) return s;
  const auto bucket_size = common.bucket_size;
  const auto bits = common.fingerprint_bits;
  const auto capacity = get_le(p + offset::capacity, 8);
  if (capacity == 0 || capacity > detail::kMaxCapacity)
    return bad("capacity " + std::to_string(capacity) + " is out of range");
  const auto buckets = get_le(p + offset::num_buckets, 8);
  if (buckets < 2 || buckets > kMaxBuckets || buckets % 2 != 0)
    return bad("number of buckets " + std::to_string(buckets) + " is not an even number from 2 to " +
               std::to_string(kMaxBuckets));
  if (capacity > buckets * bucket_size)
    return bad("capacity " + std::to_string(capacity) + " exceeds the " + std::to_string(buckets * bucket_size) +
               " slots");
  const auto expected_table = table_bytes(buckets, bucket_size, bits);
  const auto table_length = get_le(p + offset::table_length, 8);
  if (table_length != expected_table)
    return bad("table length " + std::to_string(table_length) + " does not match " + std::to_string(buckets) +
               " buckets x " + std::to_string(bucket_size) + " slots x " + std::to_string(bits) + " bits (" +
               std::to_string(expected_table) + " bytes)");
  const auto items = get_le(p + offset::item_count, 8);
  if (items > buckets * bucket_size)
    return bad("item count " + std::to_string(items) + " exceeds the " + std::to_string(buckets * bucket_size) +
               " slots");
  layout = Layout{capacity, buckets, bucket_size, bits, common.max_kicks, common.seed, 0, 1};
  info = SegmentInfo{capacity, buckets, bits, items, expected_table};
  return {};
}

// Checks every field of a version 4 chain header (kChainHeaderSize bytes). Sets the layout's common fields
// and growth settings (the first sub-filter's shape comes with its own header) and the sub-filter count.
[[nodiscard]] CUCKOO_COLD inline Status read_chain_header(const std::uint8_t* p, Layout& layout,
                                                          std::uint64_t& count) {
  const auto bad = bad_format;
  CommonFields common;
  if (Status s = read_common_header(p, kVersionChained, common); !s.ok()) return s;
  if (get_le(p + chain_offset::reserved, 4) != 0) return bad("reserved bytes 28-31 are not zero");
  const auto growth = get_le(p + chain_offset::growth, 1);
  if (growth < 2 || growth > kMaxGrowth) return bad("growth " + std::to_string(growth) + " is not from 2 to 16");
  const auto max_sub = get_le(p + chain_offset::max_sub_filters, 1);
  if (max_sub < 1 || max_sub > kMaxSubFiltersLimit)
    return bad("maximum sub-filters " + std::to_string(max_sub) + " is not from 1 to " +
               std::to_string(kMaxSubFiltersLimit));
  count = get_le(p + chain_offset::sub_filters, 2);
  if (count < 1 || count > max_sub)
    return bad("sub-filter count " + std::to_string(count) + " is not from 1 to " + std::to_string(max_sub));
  layout = Layout{0, 0, common.bucket_size, common.fingerprint_bits, common.max_kicks, common.seed,
                  static_cast<unsigned>(growth), static_cast<unsigned>(max_sub)};
  return {};
}

// Checks the header of sub-filter k (kSegmentHeaderSize bytes) of a chain whose header gave `layout`.
[[nodiscard]] CUCKOO_COLD inline Status read_segment_header(const std::uint8_t* p, std::uint64_t k,
                                                            const Layout& layout, SegmentInfo& info) {
  const auto bad = bad_format;
  const std::string which = "sub-filter " + std::to_string(k) + ": ";
  const unsigned bucket_size = layout.bucket_size;
  const auto capacity = get_le(p + segment_offset::capacity, 8);
  const auto buckets = get_le(p + segment_offset::num_buckets, 8);
  const auto items = get_le(p + segment_offset::item_count, 8);
  const auto table_length = get_le(p + segment_offset::table_length, 8);
  const auto bits = static_cast<unsigned>(get_le(p + segment_offset::fingerprint_bits, 1));
  if (get_le(p + segment_offset::reserved, 7) != 0) return bad(which + "reserved bytes are not zero");
  if (capacity == 0 || capacity > detail::kMaxCapacity)
    return bad(which + "capacity " + std::to_string(capacity) + " is out of range");
  if (buckets < 2 || buckets > kMaxBuckets || buckets % 2 != 0)
    return bad(which + "number of buckets " + std::to_string(buckets) + " is not an even number from 2 to " +
               std::to_string(kMaxBuckets));
  // Every filter this library writes is sized below its slot count. A larger capacity would only matter
  // when the chain grows: the next sub-filter is sized from it (a fuzzed 349-byte export asked for 7.6 GB).
  if (capacity > buckets * bucket_size)
    return bad(which + "capacity " + std::to_string(capacity) + " exceeds the " +
               std::to_string(buckets * bucket_size) + " slots");
  if (bits < kMinFingerprintBits || bits > kMaxFingerprintBits || (k == 0 && bits != layout.fingerprint_bits))
    return bad(which + "fingerprint bits " + std::to_string(bits) + " is not from 4 to 32" +
               (k == 0 ? std::string(" or differs from the header's ") + std::to_string(layout.fingerprint_bits)
                       : std::string()));
  const auto expected = table_bytes(buckets, bucket_size, bits);
  if (table_length != expected)
    return bad(which + "table length " + std::to_string(table_length) + " does not match " +
               std::to_string(buckets) + " buckets x " + std::to_string(bucket_size) + " slots x " +
               std::to_string(bits) + " bits (" + std::to_string(expected) + " bytes)");
  if (items > buckets * bucket_size)
    return bad(which + "item count " + std::to_string(items) + " exceeds the " +
               std::to_string(buckets * bucket_size) + " slots");
  info = SegmentInfo{capacity, buckets, bits, items, table_length};
  return {};
}

}  // namespace format
}  // namespace v1
}  // namespace cuckoo
