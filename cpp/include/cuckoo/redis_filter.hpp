// A cuckoo filter that gives RedisBloom's answers, replies and CF.SCANDUMP bytes for the same commands:
// MurmurHash64A (seed 0), 8-bit fingerprints, sub-filters of power-of-two bucket counts, RedisBloom's
// insert, round-robin kick walk with rollback, growth, delete with compaction, and its dump format.
// Written from RedisBloom's behaviour as observed on a server (the vectors in tests/vectors/redisbloom.json),
// never from its source. CuckooFilter and its format are unrelated to this type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "detail/bits.hpp"
#include "detail/compiler.hpp"
#include "status.hpp"
#include "sub_filter.hpp"

namespace cuckoo {
inline namespace v1 {
namespace redis {

// MurmurHash64A (Austin Appleby, public domain) with seed 0: RedisBloom's item hash.
[[nodiscard]] inline std::uint64_t murmur64a(const std::uint8_t* data, std::size_t length) noexcept {
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  std::uint64_t h = length * m;
  const std::size_t blocks = length / 8;
  for (std::size_t i = 0; i < blocks; ++i) {
    std::uint64_t k = detail::get_le(data + 8 * i, 8);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (const unsigned tail = length % 8; tail != 0) {
    h ^= detail::get_le(data + 8 * blocks, tail);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

inline constexpr std::uint64_t kAlternateMultiplier = 0x5bd1e995;
inline constexpr std::size_t kHeaderSize = 38;
inline constexpr std::uint64_t kMaxChunk = 16u << 20;    // SCANDUMP's piece size for large sub-filters
inline constexpr std::size_t kMaxSubFiltersForAdd = 32;  // adds are refused from this many sub-filters on
inline constexpr std::uint64_t kMaxBuckets = (std::uint64_t{1} << 56) - 1;
inline constexpr unsigned kMaxBucketSize = 255;
inline constexpr unsigned kMaxIterations = 65535;
inline constexpr unsigned kMaxExpansion = 32768;

// CF.RESERVE's arguments.
struct Params {
  std::uint64_t capacity = 0;    // at least 2 * bucket_size
  unsigned bucket_size = 2;      // 1..255
  unsigned max_iterations = 20;  // 1..65535
  unsigned expansion = 1;        // 0..32768, rounded up to a power of two; 0: the filter never grows
};

// Where an item lives, in every sub-filter: fp, and the two hashes whose remainders are its buckets.
struct Item {
  std::uint8_t fp;
  std::uint64_t h1;
  std::uint64_t h2;
};

[[nodiscard]] inline Item item_of(const std::uint8_t* data, std::size_t length) noexcept {
  const std::uint64_t h = murmur64a(data, length);
  const auto fp = static_cast<std::uint8_t>(h % 255 + 1);
  return {fp, h, h ^ (fp * kAlternateMultiplier)};
}

// The smallest power of two >= n (n >= 1), or 0 when it does not fit in 64 bits.
[[nodiscard]] constexpr std::uint64_t next_power_of_two(std::uint64_t n) noexcept {
  std::uint64_t p = 1;
  while (p < n && p != 0) p <<= 1;
  return p;
}

// What CF.RESERVE fixes for the life of a filter.
struct Shape {
  std::uint64_t num_buckets = 0;  // sub-filter 0's; sub-filter k has num_buckets * expansion^k
  unsigned bucket_size = 0;
  unsigned max_iterations = 0;
  unsigned expansion = 0;  // 0: the filter never grows
};

// The fields of a dump's 38-byte header (little-endian, at header_offset; the counts 8 bytes, the rest 2).
struct Header {
  std::uint64_t num_items = 0;
  std::uint64_t num_deletes = 0;
  std::uint64_t num_filters = 0;
  Shape shape;
};

namespace header_offset {
inline constexpr std::size_t num_items = 0, num_buckets = 8, num_deletes = 16, num_filters = 24, bucket_size = 32,
                             max_iterations = 34, expansion = 36;
}  // namespace header_offset

[[nodiscard]] inline Header read_header(const std::uint8_t p[kHeaderSize]) noexcept {
  using namespace header_offset;
  const auto u16 = [&](std::size_t at) { return static_cast<unsigned>(detail::get_le(p + at, 2)); };
  return {detail::get_le(p + num_items, 8),
          detail::get_le(p + num_deletes, 8),
          detail::get_le(p + num_filters, 8),
          {detail::get_le(p + num_buckets, 8), u16(bucket_size), u16(max_iterations), u16(expansion)}};
}

enum class AddResult : std::uint8_t {
  added = 0,
  present = 1,        // add_if_absent: the fingerprint is in one of the item's buckets (nothing added)
  full = 2,           // no room, and the filter does not grow (nothing changed)
  out_of_memory = 3,  // the next sub-filter could not be allocated (nothing changed)
};

class ChunkLoader;

class RedisCuckooFilter {
 public:
  // CF.RESERVE: invalid_argument with RedisBloom's error text for arguments it refuses.
  [[nodiscard]] CUCKOO_COLD static Status make(const Params& p, std::optional<RedisCuckooFilter>& out) {
    const auto invalid = [](const char* text) { return Status::error(ErrorCode::invalid_argument, text); };
    if (p.max_iterations < 1 || p.max_iterations > kMaxIterations)
      return invalid("MAXITERATIONS: value must be an integer between 1 and 65535, inclusive.");
    if (p.bucket_size < 1 || p.bucket_size > kMaxBucketSize)
      return invalid("BUCKETSIZE: value must be an integer between 1 and 255, inclusive.");
    if (p.expansion > kMaxExpansion)
      return invalid("EXPANSION: value must be an integer between 0 and 32768, inclusive.");
    if (p.capacity < 2 * std::uint64_t{p.bucket_size}) return invalid("Capacity must be at least (BucketSize * 2)");
    std::uint64_t buckets = next_power_of_two(p.capacity / p.bucket_size);
    if (buckets == 0 || buckets > kMaxBuckets) return invalid("ERR Insufficient memory to create filter");
    const unsigned expansion = p.expansion == 0 ? 0 : static_cast<unsigned>(next_power_of_two(p.expansion));
    return from_header({0, 0, 1, {buckets, p.bucket_size, p.max_iterations, expansion}}, out);
  }

  // A filter with a header's fields and zeroed tables (what CF.LOADCHUNK makes of a header): bad_format
  // for what RedisBloom refuses ("Couldn't create filter!"), and for sub-filter sizes that overflow;
  // out_of_memory when the tables cannot be allocated. num_filters is taken modulo 65536, as the server
  // keeps it in 16 bits.
  [[nodiscard]] CUCKOO_COLD static Status from_header(const Header& h, std::optional<RedisCuckooFilter>& out) {
    const std::uint64_t filters = h.num_filters & 0xFFFF;
    const Shape& s = h.shape;
    if (s.bucket_size == 0 || s.bucket_size > kMaxBucketSize || s.num_buckets == 0 || s.num_buckets > kMaxBuckets ||
        (s.num_buckets & (s.num_buckets - 1)) != 0 || filters == 0 || s.max_iterations == 0 ||
        s.max_iterations > kMaxIterations || s.expansion > 0xFFFF || (s.expansion == 0 && filters > 1))
      return Status::error(ErrorCode::bad_format, "Couldn't create filter!");
    RedisCuckooFilter f;
    f.num_items_ = h.num_items;
    f.num_deletes_ = h.num_deletes;
    f.shape_ = s;
    // Room for the sub-filters adds can make (they stop at kMaxSubFiltersForAdd), so that an add that grows
    // allocates nothing but the new table.
    if (!detail::reserve_nothrow(f.tables_, filters > kMaxSubFiltersForAdd ? filters : kMaxSubFiltersForAdd + 1))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate the filter's bookkeeping");
    for (std::uint64_t k = 0; k < filters; ++k) {
      const std::uint64_t buckets = f.buckets_of(k);
      if (buckets == 0 || buckets > kMaxBuckets)
        return Status::error(ErrorCode::bad_format,
                             "sub-filter " + std::to_string(k) + " would have more than 2^56 buckets");
      if (!f.append_table(buckets)) return out_of_memory_for(buckets);
    }
    out.emplace(std::move(f));
    return {};
  }

  RedisCuckooFilter(RedisCuckooFilter&&) noexcept = default;
  RedisCuckooFilter& operator=(RedisCuckooFilter&&) noexcept = default;

  // --- items (CF.ADD, CF.ADDNX, CF.EXISTS, CF.COUNT, CF.DEL) -------------------------------------------
  // The caller refuses adds once sub_filter_count() >= kMaxSubFiltersForAdd (RedisBloom checks that once
  // per command, so one CF.INSERT may grow past it).
  AddResult add(std::span<const std::uint8_t> bytes) { return insert(item_of(bytes.data(), bytes.size())); }
  AddResult add_if_absent(std::span<const std::uint8_t> bytes) {
    const Item it = item_of(bytes.data(), bytes.size());
    return contains_item(it) ? AddResult::present : insert(it);
  }
  [[nodiscard]] bool contains(std::span<const std::uint8_t> bytes) const noexcept {
    return contains_item(item_of(bytes.data(), bytes.size()));
  }
  // Copies of the fingerprint in the item's buckets of every sub-filter; a bucket that is both of them is
  // counted twice, as RedisBloom does.
  [[nodiscard]] std::uint64_t count(std::span<const std::uint8_t> bytes) const noexcept {
    const Item it = item_of(bytes.data(), bytes.size());
    std::uint64_t n = 0;
    for (const Table& t : tables_) n += t.count(t.bucket(it.h1), it.fp) + t.count(t.bucket(it.h2), it.fp);
    return n;
  }
  // Removes one copy, newest sub-filter first; compacts when deletes pass a tenth of the items.
  bool remove(std::span<const std::uint8_t> bytes) noexcept {
    const Item it = item_of(bytes.data(), bytes.size());
    for (std::size_t k = tables_.size(); k-- > 0;) {
      Table& t = tables_[k];
      for (const std::uint64_t bucket : {t.bucket(it.h1), t.bucket(it.h2)}) {
        const int slot = t.find(bucket, it.fp);
        if (slot < 0) continue;
        t.at(bucket, static_cast<unsigned>(slot)) = 0;
        --num_items_;
        ++num_deletes_;
        if (tables_.size() > 1 && static_cast<double>(num_deletes_) > static_cast<double>(num_items_) * 0.10)
          compact(false);
        return true;
      }
    }
    return false;
  }

  // Moves fingerprints of later sub-filters into free slots of earlier ones (never kicking), removing the
  // last sub-filter while it ends up empty. Without `continue_after_failure` (the automatic compaction of
  // deletes) it stops at the first sub-filter that cannot be emptied; CF.COMPACT goes on. Resets the
  // delete count.
  void compact(bool continue_after_failure) noexcept {
    for (std::size_t k = tables_.size(); k-- > 1;) {
      Table& from = tables_[k];
      bool all_moved = true;
      for (std::uint64_t j = 0; j < from.buckets; ++j) {
        for (unsigned s = 0; s < shape_.bucket_size; ++s) {
          std::uint8_t& fp = from.at(j, s);
          if (fp == 0) continue;
          // j stands in for the item's hash: every older sub-filter's bucket count divides this one's.
          const std::uint64_t other = j ^ (fp * kAlternateMultiplier);
          bool moved = false;
          for (std::size_t t = 0; t < k && !moved; ++t) {
            Table& to = tables_[t];
            for (const std::uint64_t bucket : {to.bucket(j), to.bucket(other)}) {
              const int free_slot = to.find(bucket, 0);
              if (free_slot < 0) continue;
              to.at(bucket, static_cast<unsigned>(free_slot)) = fp;
              fp = 0;
              moved = true;
              break;
            }
          }
          all_moved = all_moved && moved;
        }
      }
      if (all_moved && k + 1 == tables_.size()) tables_.pop_back();
      if (!all_moved && !continue_after_failure) break;
    }
    num_deletes_ = 0;
  }

  // --- the whole filter -------------------------------------------------------------------------------
  [[nodiscard]] std::uint64_t num_items() const noexcept { return num_items_; }
  [[nodiscard]] std::uint64_t num_deletes() const noexcept { return num_deletes_; }
  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return shape_.num_buckets; }  // sub-filter 0's
  [[nodiscard]] unsigned bucket_size() const noexcept { return shape_.bucket_size; }
  [[nodiscard]] unsigned max_iterations() const noexcept { return shape_.max_iterations; }
  [[nodiscard]] unsigned expansion() const noexcept { return shape_.expansion; }
  [[nodiscard]] std::size_t sub_filter_count() const noexcept { return tables_.size(); }
  // Whether the next growth would allocate the list of tables too (one CF.INSERT can pass the limit).
  [[nodiscard]] bool growth_allocates() const noexcept { return tables_.size() == tables_.capacity(); }
  [[nodiscard]] std::uint64_t table_bytes() const noexcept {
    std::uint64_t n = 0;
    for (const Table& t : tables_) n += t.size();
    return n;
  }
  // CF.INFO's "Size": the server's own structures on a 64-bit build plus the tables.
  [[nodiscard]] std::uint64_t info_size() const noexcept { return 40 + 16 * tables_.size() + table_bytes(); }
  [[nodiscard]] std::span<const std::uint8_t> sub_filter(std::size_t k) const noexcept {
    return {tables_[k].data.get(), static_cast<std::size_t>(tables_[k].size())};
  }
  // For a loader: the bytes of sub-filter k, to be filled from a dump.
  [[nodiscard]] std::span<std::uint8_t> mutable_sub_filter(std::size_t k) noexcept {
    return {tables_[k].data.get(), static_cast<std::size_t>(tables_[k].size())};
  }
  [[nodiscard]] std::uint64_t occupied_slots() const noexcept {
    std::uint64_t n = 0;
    for (const Table& t : tables_)
      for (std::uint64_t i = 0; i < t.size(); ++i) n += t.data.get()[i] != 0;
    return n;
  }

  // --- CF.SCANDUMP ------------------------------------------------------------------------------------
  void write_header(std::uint8_t out[kHeaderSize]) const noexcept {
    namespace at = header_offset;
    detail::put_le(out + at::num_items, num_items_, 8);
    detail::put_le(out + at::num_buckets, shape_.num_buckets, 8);
    detail::put_le(out + at::num_deletes, num_deletes_, 8);
    detail::put_le(out + at::num_filters, tables_.size(), 8);
    detail::put_le(out + at::bucket_size, shape_.bucket_size, 2);
    detail::put_le(out + at::max_iterations, shape_.max_iterations, 2);
    detail::put_le(out + at::expansion, shape_.expansion, 2);
  }
  // The reply to CF.SCANDUMP with `iterator` >= 1 (iterator 0 is the header, write_header): the next
  // iterator and the data, or {0, empty} at the end. A sub-filter of at most 16 MiB comes whole, wherever
  // the iterator points inside it; a larger one in 16 MiB pieces from the iterator's byte. A filter with
  // no items dumps nothing at all (the caller checks num_items() first, as the server does).
  struct Chunk {
    std::uint64_t next;
    std::span<const std::uint8_t> data;
  };
  [[nodiscard]] Chunk chunk_at(std::uint64_t iterator) const noexcept {
    if (num_items_ == 0 || iterator == 0) return {0, {}};
    std::uint64_t offset = iterator - 1;
    for (const Table& t : tables_) {
      const std::uint64_t size = t.size();
      if (offset < size) {
        if (size <= kMaxChunk) return {iterator + size, {t.data.get(), static_cast<std::size_t>(size)}};
        const std::uint64_t n = size - offset < kMaxChunk ? size - offset : kMaxChunk;
        return {iterator + n, {t.data.get() + offset, static_cast<std::size_t>(n)}};
      }
      offset -= size;
    }
    return {0, {}};
  }

 private:
  friend class ChunkLoader;

  struct Table {
    std::uint64_t buckets = 0;
    unsigned bucket_size = 0;
    std::unique_ptr<std::uint8_t, decltype(&std::free)> data{nullptr, &std::free};

    [[nodiscard]] std::uint64_t size() const noexcept { return buckets * bucket_size; }
    // h mod buckets: the low bits, as every table the server makes has a power-of-two bucket count (a
    // loaded header may give others, which the server then addresses with the remainder too).
    [[nodiscard]] std::uint64_t bucket(std::uint64_t h) const noexcept {
      return (buckets & (buckets - 1)) == 0 ? h & (buckets - 1) : h % buckets;
    }
    [[nodiscard]] std::uint8_t& at(std::uint64_t bucket, unsigned slot) noexcept {
      return data.get()[bucket * bucket_size + slot];
    }
    // The first slot of the bucket holding `fp` (0: an empty slot), or -1.
    [[nodiscard]] int find(std::uint64_t bucket, std::uint8_t fp) const noexcept {
      const std::uint8_t* b = data.get() + bucket * bucket_size;
      for (unsigned s = 0; s < bucket_size; ++s)
        if (b[s] == fp) return static_cast<int>(s);
      return -1;
    }
    [[nodiscard]] std::uint64_t count(std::uint64_t bucket, std::uint8_t fp) const noexcept {
      const std::uint8_t* b = data.get() + bucket * bucket_size;
      std::uint64_t n = 0;
      for (unsigned s = 0; s < bucket_size; ++s) n += b[s] == fp;
      return n;
    }
    // Stores fp in the first free slot of bucket i1, else of i2.
    [[nodiscard]] bool place(const Item& it) noexcept {
      for (const std::uint64_t bucket : {this->bucket(it.h1), this->bucket(it.h2)}) {
        const int slot = find(bucket, 0);
        if (slot < 0) continue;
        at(bucket, static_cast<unsigned>(slot)) = it.fp;
        return true;
      }
      return false;
    }
  };

  RedisCuckooFilter() = default;

  // Sub-filter k's bucket count: num_buckets * expansion^k, or 0 when that passes 64 bits. (With expansion
  // 2 or more that happens within 64 steps, so this is constant time for any k: a dump may have 65,535.)
  [[nodiscard]] std::uint64_t buckets_of(std::uint64_t k) const noexcept {
    std::uint64_t n = shape_.num_buckets;
    if (shape_.expansion <= 1) return k == 0 || shape_.expansion == 1 ? n : 0;
    for (std::uint64_t i = 0; i < k; ++i) {
      if (n > ~std::uint64_t{0} / shape_.expansion) return 0;
      n *= shape_.expansion;
    }
    return n;
  }

  // Appends a zeroed sub-filter of `buckets` buckets; false when it cannot be allocated. Allocates nothing
  // else (an add that grows must not need memory for a message). A loader asks for `room` bytes of it
  // only, and fills them before it asks for more (ChunkLoader::take_data).
  [[nodiscard]] bool append_table(std::uint64_t buckets, std::uint64_t room = ~std::uint64_t{0}) noexcept {
    // The list grows by half at a time: a dump of 65,535 sub-filters loads in linear time.
    if (buckets > SIZE_MAX / shape_.bucket_size ||
        (tables_.size() == tables_.capacity() &&
         !detail::reserve_nothrow(tables_, tables_.size() + 1 + tables_.size() / 2)))
      return false;
    Table t;
    t.buckets = buckets;
    t.bucket_size = shape_.bucket_size;
    const std::uint64_t bytes = buckets * shape_.bucket_size < room ? buckets * shape_.bucket_size : room;
    t.data.reset(static_cast<std::uint8_t*>(std::calloc(static_cast<std::size_t>(bytes), 1)));
    if (t.data == nullptr) return false;
    tables_.push_back(std::move(t));
    return true;
  }
  [[nodiscard]] static Status out_of_memory_for(std::uint64_t buckets) {
    return Status::error(ErrorCode::out_of_memory,
                         "cannot allocate a sub-filter of " + std::to_string(buckets) + " buckets");
  }

  [[nodiscard]] bool contains_item(const Item& it) const noexcept {
    for (const Table& t : tables_)
      if (t.find(t.bucket(it.h1), it.fp) >= 0 || t.find(t.bucket(it.h2), it.fp) >= 0) return true;
    return false;
  }

  // Newest sub-filter first: a free slot in either bucket; then the kick walk in the newest; then growth.
  AddResult insert(const Item& it) {
    for (std::size_t k = tables_.size(); k-- > 0;) {
      if (tables_[k].place(it)) {
        ++num_items_;
        return AddResult::added;
      }
    }
    if (kick_walk(tables_.back(), it)) {
      ++num_items_;
      return AddResult::added;
    }
    if (shape_.expansion == 0) return AddResult::full;
    const std::uint64_t buckets = buckets_of(tables_.size());
    if (buckets == 0 || buckets > kMaxBuckets || !append_table(buckets)) return AddResult::out_of_memory;
    (void)tables_.back().place(it);  // an empty table always has room
    ++num_items_;
    return AddResult::added;
  }

  // Swaps the fingerprint in hand with slot 0, 1, ... (round robin) of the buckets the walk visits,
  // starting at bucket i1; on failure every swap is undone, newest first.
  bool kick_walk(Table& t, const Item& it) const noexcept {
    std::uint8_t carry = it.fp;
    unsigned slot = 0;
    std::uint64_t j = t.bucket(it.h1);
    for (unsigned i = 0; i < shape_.max_iterations; ++i) {
      std::swap(carry, t.at(j, slot));
      j = t.bucket(j ^ (carry * kAlternateMultiplier));
      const int free_slot = t.find(j, 0);
      if (free_slot >= 0) {
        t.at(j, static_cast<unsigned>(free_slot)) = carry;
        return true;
      }
      slot = (slot + 1) % shape_.bucket_size;
    }
    for (unsigned i = 0; i < shape_.max_iterations; ++i) {
      slot = (slot + shape_.bucket_size - 1) % shape_.bucket_size;
      j = t.bucket(j ^ (carry * kAlternateMultiplier));
      std::swap(carry, t.at(j, slot));
    }
    return false;
  }

  std::uint64_t num_items_ = 0;
  std::uint64_t num_deletes_ = 0;
  Shape shape_;
  std::vector<Table> tables_;  // oldest first
};

// Reads a dump as (iterator, chunk) pairs, the header first, in the order CF.SCANDUMP returns them (the
// pairs CF.LOADCHUNK takes), writing each chunk straight into the new filter's tables. Stricter than
// CF.LOADCHUNK: besides what the server refuses, it refuses RedisBloom's legacy headers by name, a
// header outside the ranges a server can write (num_filters 1..65535, expansion 0 or a power of two up to
// 32768), sizes that overflow, iterators or chunk lengths other than SCANDUMP's, missing or extra data,
// and an item count that differs from the occupied slots. Every error is bad_format (or out_of_memory
// for tables that cannot be allocated), and every call after the first error returns it.
class ChunkLoader {
 public:
  CUCKOO_COLD Status push(std::uint64_t iterator, const std::uint8_t* data, std::size_t length) {
    if (error_.ok()) error_ = header_ ? take_data(iterator, data, length) : take_header(iterator, data, length);
    return error_;
  }

  // The filter, once every chunk the header describes has arrived and checked out.
  CUCKOO_COLD Status finish(std::optional<RedisCuckooFilter>& out) {
    if (!error_.ok()) return error_;
    if (!header_) return error_ = bad("no header: a dump starts with the 38-byte header at iterator 1");
    if (filter_.tables_.size() < header_->num_filters || offset_ != 0)
      return error_ = bad("truncated: " + std::to_string(received_) + " data bytes, but the header describes " +
                          std::to_string(total_));
    const std::uint64_t occupied = filter_.occupied_slots();
    if (occupied != filter_.num_items_)
      return error_ = bad("item count " + std::to_string(filter_.num_items_) + " does not match the " +
                          std::to_string(occupied) + " occupied slots");
    out.emplace(std::move(filter_));
    header_.reset();
    return {};
  }

 private:
  static Status bad(std::string message) { return Status::error(ErrorCode::bad_format, std::move(message)); }

  CUCKOO_COLD Status take_header(std::uint64_t iterator, const std::uint8_t* data, std::size_t length) {
    if (iterator != 1)
      return bad("the first chunk must be the header, at iterator 1 (got " + std::to_string(iterator) + ")");
    if (length == 32)
      return bad(
          "a 32-byte header is RedisBloom 1.0-2.0's (before December 2019), whose filters hashed items "
          "differently: it cannot be read; dump the filter from RedisBloom 2.2.11 or later");
    if (length == 46)
      return bad(
          "a 46-byte header is RedisBloom 2.2.0-2.2.10's (its last 8 bytes were a memory address): it cannot "
          "be read; dump the filter from RedisBloom 2.2.11 or later");
    if (length != kHeaderSize) return bad("the header is " + std::to_string(length) + " bytes, not 38");
    const Header h = read_header(data);
    const Shape& s = h.shape;
    if (s.bucket_size < 1 || s.bucket_size > kMaxBucketSize)
      return bad("bucket size " + std::to_string(s.bucket_size) + " is not from 1 to 255");
    if (s.num_buckets == 0 || s.num_buckets > kMaxBuckets || (s.num_buckets & (s.num_buckets - 1)) != 0)
      return bad("number of buckets " + std::to_string(s.num_buckets) + " is not a power of two below 2^56");
    if (s.max_iterations < 1) return bad("max iterations is 0");
    if (h.num_filters < 1 || h.num_filters > 65535)
      return bad("number of sub-filters " + std::to_string(h.num_filters) + " is not from 1 to 65535");
    if (s.expansion > kMaxExpansion || (s.expansion & (s.expansion - 1)) != 0)
      return bad("expansion " + std::to_string(s.expansion) + " is not 0 or a power of two up to 32768");
    if (s.expansion == 0 && h.num_filters > 1)
      return bad("expansion 0 (a filter that never grows) with " + std::to_string(h.num_filters) + " sub-filters");
    // Any delete count is possible: deletes made while the filter had one sub-filter stay counted after it
    // grows, until the next delete compacts it (a server dumps and reloads such a filter).
    filter_.shape_ = s;
    filter_.num_items_ = h.num_items;
    filter_.num_deletes_ = h.num_deletes;
    // The sizes must add up in 64 bits. The tables are allocated as their data arrives (take_data), so a
    // header that describes more than the stream holds costs about what the stream held.
    for (std::uint64_t k = 0; k < h.num_filters; ++k) {
      const std::uint64_t buckets = filter_.buckets_of(k);
      if (buckets == 0 || buckets > kMaxBuckets)
        return bad("sub-filter " + std::to_string(k) + " would have more than 2^56 buckets");
      if (total_ > ~std::uint64_t{0} - buckets * s.bucket_size) return bad("the sub-filters' sizes overflow 64 bits");
      total_ += buckets * s.bucket_size;
    }
    header_ = h;
    return {};
  }

  CUCKOO_COLD Status take_data(std::uint64_t iterator, const std::uint8_t* data, std::size_t length) {
    const std::size_t k = filter_.tables_.size() - (offset_ != 0 ? 1 : 0);  // the sub-filter this chunk fills
    if (k >= header_->num_filters)
      return bad("trailing data: a chunk at iterator " + std::to_string(iterator) + " after the " +
                 std::to_string(received_) + " bytes the header describes");
    const std::uint64_t size = filter_.buckets_of(k) * filter_.shape_.bucket_size;
    const std::uint64_t left = size - offset_;
    const std::uint64_t want = size <= kMaxChunk ? size : (left < kMaxChunk ? left : kMaxChunk);
    if (length != want || iterator != 1 + received_ + length)
      return bad("chunk at iterator " + std::to_string(iterator) + " of " + std::to_string(length) +
                 " bytes: CF.SCANDUMP gives " + std::to_string(want) + " bytes at iterator " +
                 std::to_string(1 + received_ + want) + " here (sub-filter " + std::to_string(k) + ")");
    // A sub-filter's table starts with room for its first chunk and doubles as later ones arrive (up to
    // its size; dlmalloc mostly extends the newest block in place): memory follows the data received.
    if (offset_ == 0) {
      if (!filter_.append_table(filter_.buckets_of(k), length))
        return RedisCuckooFilter::out_of_memory_for(filter_.buckets_of(k));
      room_ = length;
    } else if (offset_ + length > room_) {
      const std::uint64_t doubled = 2 * room_ > offset_ + length ? 2 * room_ : offset_ + length;
      const std::uint64_t next = doubled < size ? doubled : size;
      auto& data = filter_.tables_.back().data;
      void* grown = std::realloc(data.get(), static_cast<std::size_t>(next));
      if (grown == nullptr) return RedisCuckooFilter::out_of_memory_for(filter_.buckets_of(k));
      (void)data.release();
      data.reset(static_cast<std::uint8_t*>(grown));
      room_ = next;
    }
    std::memcpy(filter_.mutable_sub_filter(k).data() + offset_, data, length);
    received_ += length;
    offset_ = offset_ + length == size ? 0 : offset_ + length;
    return {};
  }

  std::optional<Header> header_;
  RedisCuckooFilter filter_;    // its tables so far; the last one may be partly filled
  std::uint64_t offset_ = 0;    // how much of the last table is filled, when it is not all
  std::uint64_t room_ = 0;      // bytes allocated for the last table (its size once it is filled)
  std::uint64_t received_ = 0;  // data bytes so far
  std::uint64_t total_ = 0;     // data bytes the header describes
  Status error_;
};

}  // namespace redis
}  // namespace v1
}  // namespace cuckoo
