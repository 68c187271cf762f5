// Line deduplication over a stream of byte blocks: the engine behind the `cuckoo dedup` command, the
// package's LineDeduper and the dedup page. The lines of each block are split, hashed, added if absent
// and the new ones gathered into one output buffer, all here, so a caller crosses into wasm once a block.
//
// The line rules (docs/DEDUP.md is their one description for users):
// - A line is the bytes up to and including a "\n". Its key is those bytes without the "\n", and without a
//   "\r" just before it: "a\r\n" and "a\n" are the same line. A lone "\r" elsewhere is an ordinary byte.
// - The input's last piece without a "\n" is a line too (its key also drops one trailing "\r").
// - A new line is written with its own ending; the last piece, when new, gets "\n" (as awk writes it).
// - Nothing is decoded: lines are bytes, whatever their encoding.
// With LineRules::zero_terminated the records end at a NUL byte instead, and every other byte, "\r" and
// "\n" included, is data (as `sort -z`). With LineRules::duplicates the output is the records dropped as
// seen before instead of the new ones (`awk 'seen[$0]++'`); the counters are the same.
// With select_fields(), a record's key is some of its fields instead of the whole record (cut's rules,
// `cut -d C -f LIST`): the fields are the pieces between delimiter bytes, numbered from 1; the key is the
// selected ones in increasing order, each once, joined by the delimiter, a field a record lacks being
// empty (so `-f 2,4` of "a,b" is "b,", as awk's $2 FS $4). A range open at its end ("3-") covers the
// fields the record has from there, none when it has fewer. The record is written whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <utility>

#include "cuckoo_filter.hpp"
#include "detail/bits.hpp"

namespace cuckoo {
inline namespace v1 {

namespace detail {

// A growable array of trivially copyable T that reports a failed allocation instead of throwing or
// aborting (the wasm module is built without exceptions, where std::vector would abort the instance).
template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(Buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  Buffer& operator=(Buffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { std::free(data_); }

  [[nodiscard]] bool reserve(std::size_t n) noexcept {
    if (n <= capacity_) return true;
    void* grown = std::realloc(data_, n * sizeof(T));
    if (grown == nullptr) return false;
    data_ = static_cast<T*>(grown);
    capacity_ = n;
    return true;
  }
  // Amortized doubling: appending n items in pieces costs O(n) in all.
  [[nodiscard]] bool append(const T* items, std::size_t n) noexcept {
    if (n == 0) return true;
    if (size_ + n > capacity_ && !reserve(std::max(capacity_ * 2, size_ + n))) return false;
    std::memcpy(data_ + size_, items, n * sizeof(T));
    size_ += n;
    return true;
  }
  // Only within the reserved capacity.
  void append_unchecked(const T* items, std::size_t n) noexcept {
    std::memcpy(data_ + size_, items, n * sizeof(T));
    size_ += n;
  }
  void clear() noexcept { size_ = 0; }
  void release() noexcept {
    std::free(std::exchange(data_, nullptr));
    size_ = capacity_ = 0;
  }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};


// The offset of the first `end` byte in data[from, n), or n. Eight bytes a step (the classic zero-byte test
// on the word XOR `end`s: its lowest flagged byte is always a real match): wasm's memchr goes by 32-bit words.
[[nodiscard]] inline std::uint32_t find_byte(const std::uint8_t* data, std::uint32_t from, std::uint32_t n,
                                             std::uint8_t end) noexcept {
  std::uint32_t i = from;
  for (; n - i >= 8; i += 8) {
    const std::uint64_t found = bytes_equal_to(load64(data + i), end);
    if (found != 0) return i + static_cast<std::uint32_t>(std::countr_zero(found) >> 3);
  }
  for (; i < n; ++i)
    if (data[i] == end) return i;
  return n;
}

}  // namespace detail

// What a record is and which ones are written (the file's comment). The numbers cross the wasm boundary.
enum LineRules : unsigned { newline_lines = 0, zero_terminated = 1, duplicates = 2 };

class LineDeduper {
 public:
  // The filter must outlive the deduper; it may already hold keys (lines seen before count as seen).
  // Give it growth so that no input makes it stop early (only the chain's limit does). `rules`: LineRules.
  explicit LineDeduper(CuckooFilter& filter, unsigned rules = newline_lines) noexcept
      : filter_(filter),
        end_((rules & zero_terminated) != 0 ? '\0' : '\n'),
        writes_duplicates_((rules & duplicates) != 0) {}

  // Deduplicates the complete lines of data[0, length) (with a line carried over from earlier blocks in
  // front); a last line without "\n" is kept until the next block or finish(). The new lines are in
  // output() afterwards, replacing the previous block's. On an error (the filter's chain cannot grow, or
  // memory runs out) the lines before the one that failed are in output(), and every later call returns
  // the same error: a stream that lost a line must not go on as if it had not. Blocks are shorter than
  // 4 GiB (line offsets within a block are 32-bit).
  [[nodiscard]] CUCKOO_COLD Status push(const std::uint8_t* data, std::size_t length) {
    output_.clear();
    if (!failed_.ok()) return failed_;
    std::size_t at = 0;
    if (!carry_.empty()) {
      const auto* newline = static_cast<const std::uint8_t*>(std::memchr(data, end_, length));
      const std::size_t take = newline == nullptr ? length : static_cast<std::size_t>(newline - data) + 1;
      if (!carry_.append(data, take)) return fail_out_of_memory();
      if (newline == nullptr) return {};
      // The carried line is complete. Its bytes were copied once and are hashed once, here: a line longer
      // than a block costs time in proportion to its length, not to its length squared.
      if (!dedup_one(carry_.data(), carry_.size(), false)) return failed_;
      carry_.clear();
      at = take;
    }
    const std::size_t end = last_end(data + at, length - at);
    if (end > 0 && !dedup_block(data + at, end)) return failed_;
    if (at + end < length && !carry_.append(data + at + end, length - at - end)) return fail_out_of_memory();
    return {};
  }

  // The end of the input: the carried piece without "\n", if any, is the last line.
  [[nodiscard]] CUCKOO_COLD Status finish() {
    output_.clear();
    if (!failed_.ok()) return failed_;
    if (!carry_.empty()) {
      if (!dedup_one(carry_.data(), carry_.size(), true)) return failed_;
      carry_.release();
    }
    return {};
  }

  // Keys from fields (the file's comment): `ranges` holds `count` pairs [first, last] of 1-based field
  // numbers, sorted and not overlapping; last 0 means "to the record's end". False when out of memory.
  [[nodiscard]] CUCKOO_COLD bool select_fields(std::uint8_t delimiter, const std::uint32_t* ranges, std::size_t count) noexcept {
    delimiter_ = delimiter;
    fields_.clear();
    return count > 0 && fields_.append(ranges, 2 * count);
  }

  [[nodiscard]] const std::uint8_t* output() const noexcept { return output_.data(); }
  [[nodiscard]] std::size_t output_size() const noexcept { return output_.size(); }
  [[nodiscard]] std::uint64_t lines() const noexcept { return lines_; }
  [[nodiscard]] std::uint64_t unique() const noexcept { return unique_; }
  [[nodiscard]] const CuckooFilter& filter() const noexcept { return filter_; }
  // Why the engine stopped (ok while it has not): capacity_exceeded at the chain's limit, out_of_memory.
  [[nodiscard]] const Status& failure() const noexcept { return failed_; }

 private:
  // The end of the last record in data[0, length), plus one; 0 when there is none.
  std::size_t last_end(const std::uint8_t* data, std::size_t length) const noexcept {
    for (std::size_t i = length; i > 0; --i)
      if (data[i - 1] == end_) return i;
    return 0;
  }

  // The length of a record's key: without its end byte and, for lines, a "\r" before it.
  std::size_t key_length(const std::uint8_t* record, std::size_t length) const noexcept {
    std::size_t stop = length > 0 && record[length - 1] == end_ ? length - 1 : length;
    if (end_ == '\n' && stop > 0 && record[stop - 1] == '\r') --stop;
    return stop;
  }

  // Returns the failure (whose ok() is false, for `return fail_out_of_memory().ok();`).
  CUCKOO_COLD Status fail_out_of_memory() {
    failed_ = Status::error(ErrorCode::out_of_memory, "a line or the output does not fit in memory");
    return failed_;
  }

  // Records why an add failed: the chain is at its limit, or its next sub-filter could not be allocated
  // (or, for a filter made without growth, it is full).
  CUCKOO_COLD bool fail_add() {
    failed_ = filter_.last_add_failure() == AddFailure::out_of_memory
                  ? Status::error(ErrorCode::out_of_memory, "the next sub-filter does not fit in memory")
                  : Status::error(ErrorCode::capacity_exceeded, "the filter is full and cannot grow further");
    return false;
  }

  // Appends to keys_ the key of the record data[0, length) (its end byte and "\r" already dropped) made
  // of its selected fields; false when out of memory. Compiled for size: the package's budget (the memchr
  // calls are most of its time anyway).
  [[gnu::noinline]] CUCKOO_COLD bool append_field_key(const std::uint8_t* data, std::size_t length) noexcept {
    const std::uint32_t* ranges = fields_.data();
    const std::size_t range_count = fields_.size() / 2;
    std::size_t at = 0;        // where the current field starts
    std::uint32_t field = 1;   // its number
    bool first = true;
    for (std::size_t r = 0; r < range_count; ++r) {
      const std::uint32_t from = ranges[2 * r];
      const std::uint32_t to = ranges[2 * r + 1];
      for (std::uint32_t want = from; to == 0 || want <= to; ++want) {
        // Skip to field `want`.
        while (field < want && at <= length) {
          const auto* next = static_cast<const std::uint8_t*>(std::memchr(data + at, delimiter_, length - at));
          at = next == nullptr ? length + 1 : static_cast<std::size_t>(next - data) + 1;
          ++field;
        }
        const bool present = at <= length;
        if (to == 0 && !present && !first) break;  // an open range ends with the record
        if (!first && !keys_.append(&delimiter_, 1)) return false;
        first = false;
        if (present) {
          const auto* next = static_cast<const std::uint8_t*>(std::memchr(data + at, delimiter_, length - at));
          const std::size_t stop = next == nullptr ? length : static_cast<std::size_t>(next - data);
          if (!keys_.append(data + at, stop - at)) return false;
        }
        if (to == 0 && !present) break;
      }
    }
    return keys_.size() < UINT32_MAX;  // key offsets are 32-bit
  }

  // The bounds of data[0, length)'s key in `base` (the record itself, or keys_ when fields are selected);
  // false when out of memory.
  [[nodiscard]] bool key_range(const std::uint8_t* record, std::uint32_t start, std::uint32_t stop, std::uint32_t range[2]) noexcept {
    if (fields_.empty()) {
      range[0] = start;
      range[1] = stop;
      return true;
    }
    range[0] = static_cast<std::uint32_t>(keys_.size());
    if (!append_field_key(record + start, stop - start)) return false;
    range[1] = static_cast<std::uint32_t>(keys_.size());
    return true;
  }

  // The keys of a block's `count` records from their fields: into keys_, their ranges replacing the
  // records' in ranges_, which move to records_.
  [[gnu::noinline]] CUCKOO_COLD bool field_keys(const std::uint8_t* data, std::size_t length, std::size_t count) noexcept {
    keys_.clear();
    if (!keys_.reserve(length) || !records_.reserve(2 * count)) return false;
    records_.clear();
    records_.append_unchecked(ranges_.data(), 2 * count);
    std::uint32_t* key = ranges_.data();
    for (std::size_t i = 0; i < count; ++i)
      if (!key_range(data, records_.data()[2 * i], records_.data()[2 * i + 1], key + 2 * i)) return false;
    return true;
  }

  // One record (with its end byte, if it has one), on its own.
  CUCKOO_COLD bool dedup_one(const std::uint8_t* line, std::size_t length, bool last) {
    const std::size_t key_end = key_length(line, length);
    keys_.clear();
    std::uint32_t key[2];
    if (!key_range(line, 0, static_cast<std::uint32_t>(key_end), key)) return fail_out_of_memory().ok();
    const std::uint64_t hash = filter_.hash_of((fields_.empty() ? line : keys_.data()) + key[0], key[1] - key[0]);
    const bool seen = filter_.contains_hash(hash);
    if (!seen && !filter_.add_hash(hash)) return fail_add();
    ++lines_;
    unique_ += !seen;
    if (seen != writes_duplicates_) return true;
    const bool needs_end = last && (length == 0 || line[length - 1] != end_);
    if (!output_.append(line, length) || (needs_end && !output_.append(&end_, 1))) return fail_out_of_memory().ok();
    return true;
  }

  // Whole records: data[0, length) ends with the end byte. The keys go through the filter's batch path
  // (the hashes and bucket loads of a group of keys overlap), and runs of written records are copied at once.
  [[gnu::noinline]] bool dedup_block(const std::uint8_t* data, std::size_t length) {
    ranges_.clear();
    const auto n = static_cast<std::uint32_t>(length);
    const bool lines = end_ == '\n';
    for (std::uint32_t start = 0; start < n;) {
      const std::uint32_t stop = detail::find_byte(data, start, n, end_);
      const std::uint32_t range[2] = {start, lines && stop > start && data[stop - 1] == '\r' ? stop - 1 : stop};
      if (!ranges_.append(range, 2)) return fail_out_of_memory().ok();
      start = stop + 1;
    }
    const std::size_t count = ranges_.size() / 2;
    // Keys from fields: assembled into keys_, and the ranges given to the filter point there; the record
    // ranges are kept in records_ for the output.
    const std::uint8_t* keys = data;
    const std::uint32_t* records = ranges_.data();
    if (!fields_.empty()) {
      if (!field_keys(data, length, count)) return fail_out_of_memory().ok();
      keys = keys_.data();
      records = records_.data();
    }
    // The output gains at most the block: with that room reserved, the copies below cannot fail.
    if (!results_.reserve(count) || !output_.reserve(output_.size() + length)) return fail_out_of_memory().ok();
    const std::uint32_t* ranges = records;
    std::uint8_t* results = results_.data();
    (void)filter_.add_if_absent_ranges(keys, ranges_.data(), count, results);
    // Where the current run of written records starts: new ones, or with writes_duplicates_ seen ones.
    std::size_t run = SIZE_MAX;
    const KeyResult written = writes_duplicates_ ? KeyResult::no : KeyResult::yes;
    for (std::size_t i = 0; i < count; ++i) {
      const auto r = static_cast<KeyResult>(results[i]);
      unique_ += r == KeyResult::yes;
      if (r == written) {
        if (run == SIZE_MAX) run = ranges[2 * i];
        continue;
      }
      if (run != SIZE_MAX) output_.append_unchecked(data + run, ranges[2 * i] - run);
      run = SIZE_MAX;
      if (r != KeyResult::no && r != KeyResult::yes) {  // no room could be made: this record and the ones after it are not done
        lines_ += i;
        return fail_add();
      }
    }
    if (run != SIZE_MAX) output_.append_unchecked(data + run, length - run);
    lines_ += count;
    return true;
  }

  CuckooFilter& filter_;
  std::uint8_t end_;               // the byte that ends a record
  bool writes_duplicates_ = false;  // the output is the records seen before, not the new ones
  std::uint8_t delimiter_ = '\t';  // between fields, when keys are fields
  detail::Buffer<std::uint32_t> fields_;   // the selected field ranges, pairs [first, last]; empty: whole records
  detail::Buffer<std::uint8_t> keys_;      // a block's keys made of fields
  detail::Buffer<std::uint32_t> records_;  // a block's record ranges, while ranges_ holds its keys'
  detail::Buffer<std::uint8_t> carry_;
  detail::Buffer<std::uint8_t> output_;
  detail::Buffer<std::uint32_t> ranges_;
  detail::Buffer<std::uint8_t> results_;
  std::uint64_t lines_ = 0;
  std::uint64_t unique_ = 0;
  Status failed_;
};

}  // namespace v1
}  // namespace cuckoo
