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
// With LineRules::csv the records are CSV (RFC 4180, read as Python's csv module reads it by default):
// a field that starts with '"' is quoted, and inside it "" is one '"' and the delimiter and "\n" are data;
// bytes after its closing quote up to the delimiter belong to the field; in an unquoted field '"' is an
// ordinary byte. A record ends at a "\n" outside quotes (a "\r" before it is dropped; a lone "\r" is
// data), an empty record has no fields. The first record, the header, is written and never deduplicated
// (nor counted); select_fields() may name its columns. A record's key is its selected fields (all of
// them without a selection), decoded, in the form a CSV writer gives them: joined by the delimiter, a
// field quoted when it holds the delimiter, '"' or "\n" (one empty value alone is ""), so two
// records have one key exactly when their selected values are equal, and a record without quotes is
// its own key (the same as without csv).
//
// Partitioned runs (share()): the keys are shared between several filters, each on a thread of its own.
// The main engine reads every record and hashes its key; partition_of(hash) says which thread's filter
// decides it (the same key always goes to the same thread, so each filter sees its keys in input order,
// and a record is new exactly when its thread's filter had not seen its key). The main engine decides its
// own share at once and hands each helper the hashes of its share (outgoing()); a helper's engine decides
// them (decide_hashes(): a verdict byte each, 1 new, 0 seen) with its filter. A call of the main engine
// (push, next_input, finish) leaves its records pending, and resolve() writes the oldest call's records
// once supply() has given the helpers' verdicts for its hashes; up to kPendingCalls calls may wait, so
// the main thread can read and hash the next block while the helpers decide the last one's keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "cuckoo_filter.hpp"
#include "detail/bits.hpp"
#include "detail/table_memory.hpp"
#include "distinct_count.hpp"

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

  [[nodiscard]] bool reserve(std::size_t n) noexcept { return n <= capacity_ || grow(n); }
  [[nodiscard]] [[gnu::noinline]] bool grow(std::size_t n) noexcept {
    if (!detail::addressable(n, sizeof(T))) return false;
    // grow_block: in wasm, room at the heap's top first, so that the buffer grows where it is and a block
    // past 2 GiB can be had (detail::allocate_block says why it could not).
    void* grown = detail::grow_block(data_, capacity_ * sizeof(T), n * sizeof(T));
    if (grown == nullptr) return false;
    data_ = static_cast<T*>(grown);
    capacity_ = n;
    return true;
  }
  // Amortized growth: appending n items in pieces costs O(n) in all. Doubling, and by a quarter past
  // kLargeBytes: a line of 1 GiB and a byte in a buffer doubled to 2 GiB beside its copy in the output
  // left too little of the 4 GiB heap.
  [[nodiscard]] std::size_t grown_capacity(std::size_t need) const noexcept {
    constexpr std::size_t kLargeBytes = std::size_t{256} << 20;
    const std::size_t grown = capacity_ * sizeof(T) < kLargeBytes ? capacity_ * 2 : capacity_ + capacity_ / 4;
    return std::max(grown, need);
  }
  [[nodiscard]] bool append(const T* items, std::size_t n) noexcept {
    if (n == 0) return true;
    if (n > SIZE_MAX - size_) return false;
    if (size_ + n > capacity_ && !reserve(grown_capacity(size_ + n))) return false;
    std::memcpy(data_ + size_, items, n * sizeof(T));
    size_ += n;
    return true;
  }
  // n copies of one item.
  [[nodiscard]] bool append_copies(T item, std::size_t n) noexcept {
    if (n > SIZE_MAX - size_) return false;
    if (size_ + n > capacity_ && !reserve(grown_capacity(size_ + n))) return false;
    std::fill(data_ + size_, data_ + size_ + n, item);
    size_ += n;
    return true;
  }
  // Only within the reserved capacity.
  void append_unchecked(const T* items, std::size_t n) noexcept {
    std::memcpy(data_ + size_, items, n * sizeof(T));
    size_ += n;
  }
  // The n items after the end, written in place within the reserved capacity, become part of it.
  void extend_within(std::size_t n) noexcept { size_ += n; }
  void clear() noexcept { size_ = 0; }
  void truncate(std::size_t n) noexcept { size_ = n < size_ ? n : size_; }
  void release() noexcept {
    std::free(std::exchange(data_, nullptr));
    size_ = capacity_ = 0;
  }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

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

// A loop compiled as written: not unrolled or vectorized (the package's size; these loops are not the time).
#if defined(__clang__)
#define CUCKOO_NO_UNROLL _Pragma("clang loop unroll(disable) vectorize(disable)")
#else
#define CUCKOO_NO_UNROLL
#endif

// Whether a[0, n) and b[0, n) hold the same bytes. Keys of 4 to 16 bytes take two overlapping loads a side
// and no call (wasm's memcmp is a call and a byte loop); most keys that differ differ in those words.
[[nodiscard]] [[gnu::always_inline]] inline bool same_bytes(const std::uint8_t* a, const std::uint8_t* b,
                                                            std::size_t n) noexcept {
  if (n >= 8) {
    if (((load64(a) ^ load64(b)) | (load64(a + n - 8) ^ load64(b + n - 8))) != 0) return false;
    return n <= 16 || std::memcmp(a + 8, b + 8, n - 16) == 0;
  }
  if (n >= 4) return ((load32(a) ^ load32(b)) | (load32(a + n - 4) ^ load32(b + n - 4))) == 0;
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Where a scan of a CSV record stands (line_dedup.hpp's comment on csv).
enum class CsvState : std::uint8_t { field_start, unquoted, quoted, quote_in_quoted };

}  // namespace detail

using detail::CsvState;

// What a record is and which ones are written (the file's comment). The numbers cross the wasm boundary.
enum LineRules : unsigned { newline_lines = 0, zero_terminated = 1, duplicates = 2, csv = 4 };

class LineDeduper {
 public:
  // New records counted at one rate in expected_wrong_drops(): few enough that the rate barely moves
  // within a piece, many enough that the filter's batch path keeps its pace.
  static constexpr std::size_t kRatePiece = 4096;

  // The filter must outlive the deduper; it may already hold keys (lines seen before count as seen).
  // Give it growth so that no input makes it stop early (only the chain's limit does). `rules`: LineRules.
  explicit LineDeduper(CuckooFilter& filter, unsigned rules = newline_lines) noexcept
      : filter_(filter),
        end_((rules & zero_terminated) != 0 && (rules & csv) == 0 ? '\0' : '\n'),
        writes_duplicates_((rules & duplicates) != 0),
        csv_((rules & csv) != 0),
        header_pending_(csv_),
        delimiter_(csv_ ? ',' : '\t') {}

  // Deduplicates the complete lines of data[0, length) (with a line carried over from earlier blocks in
  // front); a last line without "\n" is kept until the next block or finish(). The new lines are in
  // output() afterwards, replacing the previous block's. On an error (the filter's chain cannot grow, or
  // memory runs out) the lines before the one that failed are in output(), and every later call returns
  // the same error: a stream that lost a line must not go on as if it had not. Blocks are shorter than
  // 4 GiB (line offsets within a block are 32-bit).
  [[nodiscard]] CUCKOO_COLD Status push(const std::uint8_t* data, std::size_t length) {
    output_.clear();
    if (!failed_.ok()) return failed_;
    if (!begin_call()) return failed_;
    if (csv_) return push_csv(data, length);
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
    if (!begin_call()) return failed_;
    if (csv_ && !carry_.empty() && carry_state_ == CsvState::quoted) return fail_open_quote();
    if (!carry_.empty()) {
      if (!dedup_one(carry_.data(), carry_.size(), true)) return failed_;
      carry_.release();
    }
    return {};
  }

  // The input goes on with another one (the next file): a last record without its end byte ends here (is
  // deduplicated, and written with the end byte added), and with csv the next record is that input's
  // header, which must have the first header's fields and is not written. An input that ends inside a
  // quoted field stops the engine with invalid_argument (its record would run into the next input).
  [[nodiscard]] CUCKOO_COLD Status next_input() {
    output_.clear();
    if (!failed_.ok()) return failed_;
    if (!begin_call()) return failed_;
    if (!carry_.empty()) {
      if (csv_ && carry_state_ == CsvState::quoted) return fail_open_quote();
      if (!dedup_one(carry_.data(), carry_.size(), true)) return failed_;
      carry_.clear();
    }
    if (csv_ && !header_pending_) header_pending_ = repeat_header_ = true;
    return {};
  }

  // Keys from fields (the file's comment): `ranges` holds `count` pairs [first, last] of 1-based field
  // numbers, sorted and not overlapping; last 0 means "to the record's end". With csv, `names` holds
  // `names_length` bytes of header names, each ended by a NUL byte, whose columns join the selection when
  // the header arrives (a name the header lacks stops the engine with invalid_argument). False when out of
  // memory.
  [[nodiscard]] CUCKOO_COLD bool select_fields(std::uint8_t delimiter, const std::uint32_t* ranges, std::size_t count,
                                               const std::uint8_t* names = nullptr,
                                               std::size_t names_length = 0) noexcept {
    delimiter_ = delimiter;
    fields_.clear();
    names_.clear();
    return fields_.append(ranges, 2 * count) && names_.append(names, names_length);
  }

  // From now on the engine only counts: each record's key (by the same rules: fields, CSV, the header read
  // but not counted) goes to `count` as its hash, and the filter is not touched; output() stays empty (the
  // header too) and unique() 0. The `cuckoo` command reads a file this way first, to start its filter at
  // the size the file's distinct keys need.
  void count_distinct(DistinctCount& count) noexcept { counting_ = &count; }

  // --- A window (remember_last()) ---
  // Makes the engine remember only the last `n` keys it added, before its first record and on one
  // thread: a record is new when its key is not among them. When a new key comes and n are remembered,
  // the one added longest ago is deleted from the filter first (a ring of their hashes, 8 bytes a key).
  // Every key deleted was added and not deleted since, so the delete takes its entry or an identical one,
  // never the last of another key's (no false negative inside the window); a new key may be taken for
  // one of the window's at the filter's rate with n keys, which a filter made for n keys keeps. In
  // window runs each record is decided in turn (the next one's lookup must see the delete).
  // invalid_argument: n is 0, or the engine has begun or is shared; out_of_memory: no room for the ring.
  [[nodiscard]] CUCKOO_COLD Status remember_last(std::uint64_t n) noexcept {
    if (n == 0 || threads_ > 1 || counting_ != nullptr || lines_ != 0 || window_size_ != 0)
      return Status::error(ErrorCode::invalid_argument, "a window is set once, before the first record");
    if (!detail::addressable(n, sizeof(std::uint64_t)) || !window_.reserve(static_cast<std::size_t>(n)))
      return Status::error(ErrorCode::out_of_memory, "cannot allocate the window's keys");
    window_size_ = static_cast<std::size_t>(n);
    return {};
  }
  [[nodiscard]] std::uint64_t window() const noexcept { return window_size_; }

  // --- Partitioned runs (the file's comment) ---
  static constexpr unsigned kMaxThreads = 64;
  static constexpr unsigned kPendingCalls = 2;  // calls of the main engine that may await resolve()
  static constexpr std::size_t kLongRecord = std::size_t{16} << 20;  // a pending record's buffer kept up to this

  // Which share of the keys a hash's key is in: the top 32 bits of the hash mixed again (murmur3's
  // finalizer). The filter takes its buckets and fingerprints from the hash's own bits: a share cut from
  // those would give each thread's filter keys for part of its buckets only.
  [[nodiscard]] static std::uint32_t partition_of(std::uint64_t hash) noexcept {
    hash ^= hash >> 33;
    hash *= 0xff51afd7ed558ccdULL;
    hash ^= hash >> 33;
    hash *= 0xc4ceb9fe1a85ec53ULL;
    hash ^= hash >> 33;
    return static_cast<std::uint32_t>(hash >> 32);
  }

  // Makes this engine the main one of a partitioned run of `threads` threads (at most kMaxThreads),
  // before its first record: thread t decides the keys whose partition_of() is in [cuts[t - 1], cuts[t])
  // (cuts: threads - 1 values, not decreasing; thread 0, this one, from 0, the last up to 2^32). Not with
  // count_distinct(). False when the arguments are not that.
  [[nodiscard]] CUCKOO_COLD bool share(const std::uint32_t* cuts, unsigned threads) noexcept {
    if (threads < 2 || threads > kMaxThreads || counting_ != nullptr || lines_ != 0 || pending_calls_ != 0 ||
        window_size_ != 0)
      return false;
    cuts_[0] = 0;
    for (unsigned t = 1; t < threads; ++t) {
      cuts_[t] = cuts[t - 1];
      if (cuts_[t] < cuts_[t - 1]) return false;
    }
    cuts_[threads] = std::uint64_t{1} << 32;
    threads_ = threads;
    return true;
  }

  // The main engine: the hashes its last call gave helper `thread` (1 to threads - 1) to decide, in order.
  [[nodiscard]] const std::uint64_t* outgoing(unsigned thread) const noexcept { return outgoing_[thread].data(); }
  [[nodiscard]] std::size_t outgoing_size(unsigned thread) const noexcept { return outgoing_[thread].size(); }

  // The main engine: helper `thread`'s verdicts for hashes it was given, in their order. False when out of
  // memory or `thread` is not a helper.
  [[nodiscard]] CUCKOO_COLD bool supply(unsigned thread, const std::uint8_t* verdicts, std::size_t n) noexcept {
    if (thread == 0 || thread >= threads_) return false;
    Verdicts& v = verdicts_[thread];
    if (v.read == v.bytes.size()) {
      v.bytes.clear();
      v.read = 0;
    }
    return v.bytes.append(verdicts, n);
  }

  // The main engine: writes the records of its oldest pending call (output() then holds them, and only
  // them), with the helpers' verdicts for that call's hashes supplied.
  [[nodiscard]] CUCKOO_COLD Status resolve() {
    output_.clear();
    if (!failed_.ok()) return failed_;
    if (pending_calls_ == 0) return fail_out_of_step();
    Pending& p = pending_[pending_first_];
    pending_first_ = (pending_first_ + 1) % kPendingCalls;
    --pending_calls_;
    if (!output_.append(p.head.data(), p.head.size())) return fail_out_of_memory();
    if (p.has_one) {
      std::uint8_t r = p.one_result;
      if (r == kForeign && !take_verdict(p.one_owner, r)) return fail_out_of_step();
      const bool seen = r == static_cast<std::uint8_t>(KeyResult::no);
      ++lines_;
      unique_ += !seen;
      if (seen == writes_duplicates_ && !write_record(output_, p.one.data(), p.one.size(), p.one_last))
        return fail_out_of_memory();
      // A long line's buffer (taken over from the carry) goes back to the carry, with what the carry holds
      // now, as one thread's carry keeps its room: freed, the carry grew anew for the next long line, and
      // three lines of 1.7 GB in a row ran out of the heap between the two (2 of 3 tries).
      if (p.one.size() > kLongRecord) {
        if (p.one.capacity() > carry_.capacity()) {
          p.one.clear();
          if (!carry_.empty()) p.one.append_unchecked(carry_.data(), carry_.size());  // within p.one's room
          std::swap(p.one, carry_);
        }
        p.one.release();
      }
    }
    if (p.count == 0) return {};
    std::uint8_t* results = p.results.data();
    if (threads_ == 2) {
      // One helper: its verdicts in order, read in one pass.
      Verdicts& v = verdicts_[1];
      const std::uint8_t* next = v.bytes.data() + v.read;
      const std::uint8_t* const end = v.bytes.data() + v.bytes.size();
      for (std::size_t i = 0; i < p.count; ++i) {
        if (results[i] != kForeign) continue;
        if (next == end) return fail_out_of_step();
        results[i] =
            *next++ != 0 ? static_cast<std::uint8_t>(KeyResult::yes) : static_cast<std::uint8_t>(KeyResult::no);
      }
      v.read = static_cast<std::size_t>(next - v.bytes.data());
    } else {
      for (std::size_t i = 0; i < p.count; ++i)
        if (results[i] == kForeign && !take_verdict(p.owners.data()[i], results[i])) return fail_out_of_step();
    }
    if (!output_.reserve(output_.size() + p.length)) return fail_out_of_memory();
    if (!write_results(p.data, p.length, p.count, p.records.data(), results)) return failed_;
    return {};
  }

  // A helper's engine: decides `n` hashes a main engine gave it (outgoing()) with its filter, in pieces
  // counted as dedup_ranges counts them; output() then holds a verdict byte each (1 new, 0 seen). The
  // counters count them as records.
  [[nodiscard]] CUCKOO_COLD Status decide_hashes(const std::uint64_t* hashes, std::size_t n) {
    output_.clear();
    if (!failed_.ok()) return failed_;
    if (!output_.reserve(n)) return fail_out_of_memory();
    for (std::size_t at = 0; at < n; at += kRatePiece) {
      const std::size_t m = std::min(kRatePiece, n - at);
      // Within the room reserved: the verdicts are written where they go, then counted in.
      std::uint8_t* verdicts = output_.data() + at;
      const std::size_t added = filter_.add_if_absent_hashes(hashes + at, m, verdicts);
      count_kept(added);
      unique_ += added;
      for (std::size_t i = 0; i < m; ++i) {
        if (verdicts[i] != static_cast<std::uint8_t>(KeyResult::yes) &&
            verdicts[i] != static_cast<std::uint8_t>(KeyResult::no)) {
          lines_ += at + i;
          fail_add(verdicts[i] == static_cast<std::uint8_t>(KeyResult::no_room));
          return failed_;
        }
      }
      output_.extend_within(m);
    }
    lines_ += n;
    return {};
  }

  [[nodiscard]] const std::uint8_t* output() const noexcept { return output_.data(); }
  [[nodiscard]] std::size_t output_size() const noexcept { return output_.size(); }
  [[nodiscard]] std::uint64_t lines() const noexcept { return lines_; }
  [[nodiscard]] std::uint64_t unique() const noexcept { return unique_; }
  // The expected number of new records wrongly dropped as false positives so far, at most: each piece of
  // at most kRatePiece new records kept, counted at kept_record_drops() after it. Where that is infinite
  // (a filter whose match_bound() reached 1), the records dropped, of which the wrongly dropped are some.
  [[nodiscard]] double expected_wrong_drops() const noexcept {
    if (wrong_drops_ < std::numeric_limits<double>::infinity()) return wrong_drops_;
    return static_cast<double>(lines_ > unique_ ? lines_ - unique_ : 0);
  }
  [[nodiscard]] const CuckooFilter& filter() const noexcept { return filter_; }
  // Why the engine stopped (ok while it has not): capacity_exceeded at the chain's limit, out_of_memory.
  [[nodiscard]] const Status& failure() const noexcept { return failed_; }

 private:
  // What each new record kept now adds to expected_wrong_drops: p / (1 - p), p = the filter's
  // match_bound() after its piece (the bound only grows with adds; a record that a window's delete may
  // follow, at the p it meets). A new record is dropped with probability at most p, and only the kept ones
  // are counted, each standing for 1 / (1 - p) new ones: the expectation of kept x p / (1 - p) is
  // new x p, at least the expected drops (a window's keys that come back are not: docs/DEDUP.md). Summing kept x p
  // instead fell short by that factor where p is large, and expected_fp_rate() in place of match_bound() ran under what
  // a deduplicator's lookups meet with narrow fingerprints (an outside review: a --seen filter of 4-bit fingerprints
  // dropped 13,260 of 20,000 new lines where --stats said at most 3,730).
  [[nodiscard]] [[gnu::noinline]] double kept_record_drops() const noexcept {
    const double p = filter_.match_bound();
    return p >= 1 ? std::numeric_limits<double>::infinity() : p / (1 - p);
  }
  // `kept` new records counted at kept_record_drops() now (none: nothing, not 0 x infinity).
  [[gnu::noinline]] void count_kept(std::size_t kept) noexcept {
    if (kept != 0) wrong_drops_ += static_cast<double>(kept) * kept_record_drops();
  }

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

  // An input ends inside a quoted field: its last record has no end, and would run into what follows.
  CUCKOO_COLD Status fail_open_quote() {
    failed_ = Status::error(ErrorCode::invalid_argument, "an input ends inside a quoted field");
    return failed_;
  }

  // A partitioned run whose calls are out of step: a call before the last one was resolved, or fewer
  // verdicts than its records need.
  CUCKOO_COLD Status fail_out_of_step() {
    failed_ = Status::error(ErrorCode::invalid_argument,
                            "a partitioned run's calls are out of step (resolve() each call, with its verdicts)");
    return failed_;
  }

  // A call of the main engine of a partitioned run takes the next pending slot (false: none is free, the
  // engine then stopped) and starts its helpers' hashes afresh.
  [[nodiscard]] CUCKOO_COLD bool begin_call() {
    if (threads_ < 2) return true;
    if (pending_calls_ == kPendingCalls) return fail_out_of_step().ok();
    Pending& p = pending_[(pending_first_ + pending_calls_) % kPendingCalls];
    ++pending_calls_;
    p.head.clear();
    p.has_one = false;
    p.count = 0;
    current_ = &p;
    for (unsigned t = 1; t < threads_; ++t) outgoing_[t].clear();
    return true;
  }

  // Where a written header goes: the output, or in a partitioned run the call's pending slot (resolve()
  // writes it before the call's records).
  [[nodiscard]] detail::Buffer<std::uint8_t>& header_output() noexcept {
    return threads_ > 1 ? current_->head : output_;
  }

  // The thread whose share holds the key of `hash`.
  [[nodiscard]] unsigned owner_of(std::uint64_t hash) const noexcept {
    const std::uint32_t p = partition_of(hash);
    unsigned t = 0;
    while (p >= cuts_[t + 1]) ++t;
    return t;
  }

  // The next verdict of helper `thread`, as a KeyResult; false when it has none left.
  [[nodiscard]] bool take_verdict(unsigned thread, std::uint8_t& result) noexcept {
    Verdicts& v = verdicts_[thread];
    if (v.read >= v.bytes.size()) return false;
    result = static_cast<std::uint8_t>(yes_or_no(v.bytes.data()[v.read++] != 0));
    return true;
  }

  // Adds a key found absent; in a window run, the key added longest ago leaves first when the window is
  // full (remember_last()). False when the filter has no room (fail_add() says why).
  bool add_new(std::uint64_t hash) noexcept { return window_size_ == 0 ? filter_.add_hash(hash) : add_to_window(hash); }
  [[gnu::noinline]] CUCKOO_COLD bool add_to_window(std::uint64_t hash) noexcept {
    std::uint64_t* ring = window_.data();
    if (window_.size() == window_size_) {
      (void)filter_.remove_hash(ring[window_next_]);
      if (!filter_.add_hash(hash)) return false;
      ring[window_next_] = hash;
      if (++window_next_ == window_size_) window_next_ = 0;
      return true;
    }
    if (!filter_.add_hash(hash)) return false;
    window_.append_unchecked(&hash, 1);  // within the ring's room (remember_last)
    return true;
  }

  // dedup_ranges() in a window run: each record decided in turn (add_new), in pieces counted at the rate
  // after them as there; a record whose key finds no room stops the block there, as a batch does. A filter
  // with growth may lower its rate within a piece (a window's delete takes an old entry, which in a table
  // that doubles weighs more than a new one), so its records are counted each at the rate it meets; one
  // without growth has one table, whose rate follows its size, which a delete and an add keep (per record
  // there, the window runs took 6-7% longer).
  [[gnu::noinline]] CUCKOO_COLD bool window_ranges(const std::uint8_t* data, std::size_t length, std::size_t count,
                                                   bool selected, const std::uint32_t* records, std::uint8_t* results) {
    const bool each = filter_.growth() != 0;
    for (std::size_t at = 0; at < count; at += kRatePiece) {
      const std::size_t n = std::min(kRatePiece, count - at);
      if (selected && !piece_keys(data, at, n)) return fail_out_of_memory().ok();
      const std::uint8_t* base = selected ? keys_.data() : data;
      const std::uint32_t* ranges = ranges_.data() + 2 * at;
      std::size_t added = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t hash = filter_.hash_of(base + ranges[2 * i], ranges[2 * i + 1] - ranges[2 * i]);
        const double odds = each ? kept_record_drops() : 0;
        const bool seen = filter_.contains_hash(hash);
        if (!seen && !add_new(hash)) {
          results[at + i] = static_cast<std::uint8_t>(KeyResult::no_room);
          std::memset(results + at + i + 1, static_cast<int>(KeyResult::not_tried), count - at - i - 1);
          if (!each) count_kept(added);
          return write_results(data, length, count, records, results);
        }
        results[at + i] = static_cast<std::uint8_t>(yes_or_no(!seen));
        added += !seen;
        if (!seen) wrong_drops_ += odds;
      }
      if (!each) count_kept(added);
    }
    return write_results(data, length, count, records, results);
  }

  // Returns the failure (whose ok() is false, for `return fail_out_of_memory().ok();`).
  CUCKOO_COLD Status fail_out_of_memory() {
    failed_ = Status::error(ErrorCode::out_of_memory, "a line or the output does not fit in memory");
    return failed_;
  }

  // Records why an add failed: the chain is at its limit, or its next sub-filter could not be allocated
  // (or, for a filter made without growth, it is full), or copies of keys added many times to a `seen`
  // filter crowd a new key's buckets. `batch`: a batch's result said no room; the adds after that key may
  // have reset the filter's last failure, and a growing filter that took no key there found it crowded
  // (an absent key is no ninth copy; at its limit the batch stops instead).
  CUCKOO_COLD bool fail_add(bool batch = false) {
    const AddFailure why = batch && filter_.growth() != 0 ? AddFailure::crowded : filter_.last_add_failure();
    failed_ = why == AddFailure::out_of_memory
                  ? Status::error(ErrorCode::out_of_memory, "the next sub-filter does not fit in memory")
              : why == AddFailure::crowded
                  ? Status::error(ErrorCode::capacity_exceeded,
                                  "a new key's buckets are full of copies of keys added many times (add() stores a "
                                  "copy each time)")
                  : Status::error(ErrorCode::capacity_exceeded, "the filter is full and cannot grow further");
    return false;
  }

  // Appends to keys_ the key of the record data[0, length) (its end byte and "\r" already dropped) made
  // of its selected fields; false when out of memory. Compiled for size: the package's budget (the memchr
  // calls are most of its time anyway).
  [[gnu::noinline]] CUCKOO_COLD bool append_field_key(const std::uint8_t* data, std::size_t length) noexcept {
    const std::uint32_t* ranges = fields_.data();
    const std::size_t range_count = fields_.size() / 2;
    std::size_t at = 0;       // where the current field starts
    std::uint32_t field = 1;  // its number
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
        if (!present && to != 0) {
          // The rest of a closed range is missing: its empty values' delimiters at once (-f 1-10000 on
          // short lines took 10,000 steps a line).
          if (!append_missing(to - want + 1, first)) return false;
          first = false;
          break;
        }
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

  // `count` missing (empty) values of a closed range: a delimiter before each, but the key's first.
  [[nodiscard]] bool append_missing(std::uint32_t count, bool first) noexcept {
    return keys_.append_copies(delimiter_, count - (first ? 1 : 0));
  }

  // The bounds of data[0, length)'s key in `base` (the record itself, or keys_ when fields are selected);
  // false when out of memory.
  [[nodiscard]] bool key_range(const std::uint8_t* record, std::uint32_t start, std::uint32_t stop,
                               std::uint32_t range[2]) noexcept {
    if (csv_) {
      range[0] = static_cast<std::uint32_t>(keys_.size());
      if (!append_csv_key(record + start, stop - start)) return false;
      range[1] = static_cast<std::uint32_t>(keys_.size());
      return true;
    }
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

  // The keys of records [at, at + n) (their ranges in records_) from their fields: into keys_, cleared
  // first, their ranges replacing the records' in ranges_. A piece at a time, because keys can be far
  // longer than their records (-f 1-10000 on short lines: a block's keys took 10,000 times its size).
  [[gnu::noinline]] CUCKOO_COLD bool piece_keys(const std::uint8_t* data, std::size_t at, std::size_t n) noexcept {
    keys_.clear();
    std::uint32_t* key = ranges_.data();
    for (std::size_t i = at; i < at + n; ++i)
      if (!key_range(data, records_.data()[2 * i], records_.data()[2 * i + 1], key + 2 * i)) return false;
    return true;
  }

  // One record (with its end byte, if it has one), on its own.
  CUCKOO_COLD bool dedup_one(const std::uint8_t* line, std::size_t length, bool last) {
    const std::size_t key_end = key_length(line, length);
    if (header_pending_) {
      const bool repeated = repeat_header_;
      if (!take_header(line, key_end)) return false;
      // (A helper of a partitioned run writes verdicts only.)
      if (repeated || counting_ != nullptr) return true;
      if (!write_record(header_output(), line, length, last)) return fail_out_of_memory().ok();
      return true;
    }
    keys_.clear();
    std::uint32_t key[2];
    if (!key_range(line, 0, static_cast<std::uint32_t>(key_end), key)) return fail_out_of_memory().ok();
    const std::uint64_t hash =
        filter_.hash_of((fields_.empty() && !csv_ ? line : keys_.data()) + key[0], key[1] - key[0]);
    if (counting_ != nullptr) {
      counting_->add(hash);
      ++lines_;
      return true;
    }
    if (threads_ > 1) return decide_one(line, length, last, hash);
    // At the rate the record meets (in a window add_new's delete may lower it: window_ranges says why).
    const double odds = kept_record_drops();
    const bool seen = filter_.contains_hash(hash);
    if (!seen && !add_new(hash)) return fail_add();
    ++lines_;
    unique_ += !seen;
    if (!seen) wrong_drops_ += odds;
    if (seen != writes_duplicates_) return true;
    if (!write_record(output_, line, length, last)) return fail_out_of_memory().ok();
    return true;
  }

  // dedup_one() in a partitioned run (the main engine): its own key decided here, another thread's hash
  // given to it; the record kept in the call's slot for resolve().
  CUCKOO_COLD bool decide_one(const std::uint8_t* line, std::size_t length, bool last, std::uint64_t hash) {
    const unsigned owner = owner_of(hash);
    std::uint8_t result = kForeign;
    if (owner == 0) {
      const bool seen = filter_.contains_hash(hash);
      if (!seen && !filter_.add_hash(hash)) return fail_add();
      if (!seen) count_kept(1);
      result = static_cast<std::uint8_t>(yes_or_no(!seen));
    } else if (!outgoing_[owner].append(&hash, 1)) {
      return fail_out_of_memory().ok();
    }
    Pending& p = *current_;
    p.one.clear();
    if (line == carry_.data() && length <= carry_.size()) {
      // The carried line (one longer than a block), taken over rather than copied: a copy beside the
      // carry and its place in the output took a line of 1,073,000,000 bytes past the 4 GiB heap, where one
      // thread holds it twice. The caller clears carry_, now p.one's old buffer.
      std::swap(p.one, carry_);
      p.one.truncate(length);
    } else if (!p.one.append(line, length)) {
      return fail_out_of_memory().ok();
    }
    p.has_one = true;
    p.one_last = last;
    p.one_result = result;
    p.one_owner = static_cast<std::uint8_t>(owner);
    return true;
  }

  // Appends a record to the output, with an end byte when it is the input's last and has none. Room for
  // both is had at once: the end byte alone must not double the output (a 1 GiB last line without a
  // newline then needed 2 GiB more, where one with a newline needed 1).
  [[nodiscard]] bool write_record(detail::Buffer<std::uint8_t>& out, const std::uint8_t* line, std::size_t length,
                                  bool last) noexcept {
    const bool needs_end = last && (length == 0 || line[length - 1] != end_);
    if (length + needs_end > SIZE_MAX - out.size() || !out.reserve(out.size() + length + needs_end)) return false;
    out.append_unchecked(line, length);
    if (needs_end) out.append_unchecked(&end_, 1);
    return true;
  }

  // Whole records: data[0, length) ends with the end byte. The keys go through the filter's batch path
  // (the hashes and bucket loads of a group of keys overlap), and runs of written records are copied at once.
  [[gnu::noinline]] bool dedup_block(const std::uint8_t* data, std::size_t length) {
    ranges_.clear();
    repeats_.clear();  // written only up to a block's last run (and then filled to its records' count)
    // Runs are looked for in the first block and in a block after one whose keys mostly repeated the one
    // before them (long_runs_), so that an input without runs pays no compare a record for them, and
    // one of short runs no call a run: pairs of a line (a\na\nb\nb\n...) looked for in every block took
    // 1.3 to 1.7 times as long as before runs were taken at once (an outside pass).
    const bool look = long_runs_;
    long_runs_ = false;
    const auto n = static_cast<std::uint32_t>(length);
    const bool lines = end_ == '\n';
    std::uint32_t start = 0;
    // 64 bytes a step, their end bytes found as one mask (detail::byte_mask64): a record's end does not
    // wait for the one before it, as a scan from each record's start would (a load, a test and a count
    // of zeros in a row for every 8 bytes: half of this function's time on short lines). Bits below
    // `start` are ends already taken (a run, below, may end inside a step).
    for (std::uint32_t chunk = 0; n - chunk >= 64; chunk += 64) {
      std::uint64_t ends =
          detail::byte_mask64(data + chunk, end_) & (~std::uint64_t{0} << (start - std::min(start, chunk)));
      if (ends == 0) continue;
      if (!room_for_ranges(64)) return fail_out_of_memory().ok();
      do {
        const std::uint32_t stop = chunk + static_cast<std::uint32_t>(std::countr_zero(ends));
        const std::uint32_t key_end = lines && stop > start && data[stop - 1] == '\r' ? stop - 1 : stop;
        const std::uint32_t range[2] = {start, key_end};
        ranges_.append_unchecked(range, 2);  // at most 64 records: room reserved above
        // A record whose bytes, end byte included, come again right after it: a run of one record
        // (run_after(): its copies' ends are known without a scan).
        const std::uint32_t whole = stop + 1 - start;
        if (look && n - (stop + 1) >= whole && data[stop + whole] == end_ &&
            detail::same_bytes(data + stop + 1, data + start, whole)) {
          start = run_after(data, n, start, stop, key_end);
          if (start == 0) return fail_out_of_memory().ok();
          // The next step is the one that holds the run's end (its ends before `start` masked); the
          // subtraction may wrap, and the loop's step wraps it back.
          chunk = (start & ~std::uint32_t{63}) - 64;
          break;
        }
        start = stop + 1;
        ends &= ends - 1;
      } while (ends != 0);
    }
    while (start < n) {
      const std::uint32_t stop = detail::find_byte(data, start, n, end_);
      const std::uint32_t range[2] = {start, lines && stop > start && data[stop - 1] == '\r' ? stop - 1 : stop};
      if (!ranges_.append(range, 2)) return fail_out_of_memory().ok();
      start = stop + 1;
    }
    if (repeats_.size() == 0) return dedup_ranges(data, length);
    const std::size_t after = ranges_.size() / 2 - repeats_.size();  // the records after the last run, flags 0
    if (!repeats_.reserve(ranges_.size() / 2)) return fail_out_of_memory().ok();
    std::memset(repeats_.data() + repeats_.size(), 0, after);
    repeats_.extend_within(after);
    return dedup_ranges(data, length, repeats_.data());
  }

  // The copies of the record data[start, stop] (its end byte at stop; its key up to key_end) that follow
  // it, at least one: each copy has the record's end byte last and none before (the record has none), so
  // its end is known without a scan, and its key is the record's, flagged in repeats_ (keys_kept() takes
  // it as a repeat unread). Their ranges appended; returns the offset after the last copy, 0 when out of
  // memory. A function of its own: inside dedup_block's loop it made the engine in wasm 4% slower on 10M
  // log lines, which have no runs (1,123-1,199 ms against 1,076-1,121; now 1,061-1,122). repeats_ is
  // written here only: the records before a run get their 0 flags here, and the ones after the block's
  // last run in dedup_block.
  [[gnu::noinline]] std::uint32_t run_after(const std::uint8_t* data, std::uint32_t n, std::uint32_t start,
                                            std::uint32_t stop, std::uint32_t key_end) noexcept {
    const std::uint32_t whole = stop + 1 - start;
    std::uint32_t at = stop + 1 + whole;
    while (n - at >= whole && detail::same_bytes(data + at, data + start, whole)) at += whole;
    const std::size_t copies = (at - (stop + 1)) / whole;
    const std::size_t before = ranges_.size() / 2;
    if (!room_for_ranges(copies) || !repeats_.reserve(before + copies)) return 0;
    const std::size_t unflagged = before - repeats_.size();
    std::memset(repeats_.data() + repeats_.size(), 0, unflagged);
    repeats_.extend_within(unflagged);
    std::uint32_t* copy = ranges_.data() + ranges_.size();
    CUCKOO_NO_UNROLL
    for (std::uint32_t c = stop + 1; c < at; c += whole, copy += 2) {
      copy[0] = c;
      copy[1] = c + (key_end - start);
    }
    ranges_.extend_within(2 * copies);
    std::memset(repeats_.data() + repeats_.size(), 1, copies);
    repeats_.extend_within(copies);
    return at;
  }

  // Whether a piece of n keys, m of them kept by keys_kept(), is mostly repeats of the key before: 7 in 8
  // or more, runs of 8 keys and longer on average.
  static bool mostly_repeats(std::size_t m, std::size_t n) noexcept { return m * 8 <= n; }

  // Room in ranges_ for `records` more.
  [[nodiscard]] bool room_for_ranges(std::size_t records) noexcept {
    return ranges_.size() + 2 * records <= ranges_.capacity() ||
           ranges_.reserve(ranges_.grown_capacity(ranges_.size() + 2 * records));
  }

  // The records of ranges_ (pairs [start, key end)), which tile data[0, length) but for their end bytes
  // (and a header before them, already written). `repeats`: null, or a byte a record, 1 where the record's
  // bytes are the record's before it (dedup_block's runs).
  [[gnu::noinline]] bool dedup_ranges(const std::uint8_t* data, std::size_t length,
                                      const std::uint8_t* repeats = nullptr) {
    const std::size_t count = ranges_.size() / 2;
    if (count == 0) return true;
    // Keys from fields: assembled into keys_ a piece at a time (piece_keys), and the ranges given to the
    // filter point there; the record ranges are kept in records_ for the output.
    const bool selected = !fields_.empty() || csv_;
    if (selected) {
      if (!records_.reserve(2 * count)) return fail_out_of_memory().ok();
      records_.clear();
      records_.append_unchecked(ranges_.data(), 2 * count);
    }
    const std::uint32_t* records = selected ? records_.data() : ranges_.data();
    if (counting_ != nullptr) return count_ranges(data, count, selected, repeats);
    if (threads_ > 1) return decide_ranges(data, length, count, selected, selected ? records_ : ranges_, repeats);
    // The output gains at most the block: with that room reserved, the copies below cannot fail.
    if (!results_.reserve(count) || !output_.reserve(output_.size() + length)) return fail_out_of_memory().ok();
    std::uint8_t* results = results_.data();
    if (window_size_ != 0) return window_ranges(data, length, count, selected, records, results);
    if (!kept_.reserve(kRatePiece) || !packed_.reserve(2 * kRatePiece) || !own_results_.reserve(kRatePiece))
      return fail_out_of_memory().ok();
    // In pieces, each counted at the rate after it (stats' wrong drops); a piece that stops at a key with
    // no room leaves the rest not tried, as one call would.
    for (std::size_t at = 0; at < count; at += kRatePiece) {
      const std::size_t n = std::min(kRatePiece, count - at);
      if (selected && !piece_keys(data, at, n)) return fail_out_of_memory().ok();
      const std::size_t added = add_piece(selected ? keys_.data() : data, ranges_.data() + 2 * at, n, results + at,
                                          repeats == nullptr ? nullptr : repeats + at);
      count_kept(added);
      if (any_failed(results + at, n)) {
        std::memset(results + at + n, static_cast<int>(KeyResult::not_tried), count - at - n);
        break;
      }
    }
    return write_results(data, length, count, records, results);
  }

  // Whether key i of a piece (i > 0) has the bytes of key i - 1. Such a key is `no` (seen), unhashed: the
  // filter has just found or added the key before it, and would find it again; and if that key failed
  // (no room), write_results stops there, before the repeat's result is read.
  [[nodiscard]] [[gnu::always_inline]] static bool repeats_before(const std::uint8_t* base, const std::uint32_t* ranges,
                                                                  std::size_t i) noexcept {
    const std::uint32_t length = ranges[2 * i + 1] - ranges[2 * i];
    return length == ranges[2 * i - 1] - ranges[2 * i - 2] &&
           detail::same_bytes(base + ranges[2 * i], base + ranges[2 * i - 2], length);
  }

  // A piece's keys (ranges into base) added if absent, a KeyResult each in results, as one batch of them
  // would be. A key that repeats the one before it is `no` (repeats_before), and the others go to the
  // filter as one batch, packed into packed_ when some were left out: a run of one line repeated
  // costs no hash and no bucket. kept_, packed_ and own_results_ have room for a piece.
  // Returns how many keys were added.
  std::size_t add_piece(const std::uint8_t* base, const std::uint32_t* ranges, std::size_t n, std::uint8_t* results,
                        const std::uint8_t* repeats) {
    const std::uint32_t* kept = kept_.data();
    const std::size_t m = keys_kept(base, ranges, n, kept_.data(), repeats);
    long_runs_ = long_runs_ || mostly_repeats(m, n);
    const std::uint32_t* keys = ranges;
    std::uint8_t* decided = results;
    if (m < n) {
      std::uint32_t* packed = packed_.data();
      CUCKOO_NO_UNROLL
      for (std::size_t j = 0; j < m; ++j) {
        packed[2 * j] = ranges[2 * kept[j]];
        packed[2 * j + 1] = ranges[2 * kept[j] + 1];
      }
      keys = packed;
      decided = own_results_.data();
    }
    // One call site (each would inline the filter's batch: the package's size).
    const std::size_t added = filter_.add_if_absent_ranges(base, keys, m, decided);
    if (m < n) {
      std::memset(results, static_cast<int>(KeyResult::no), n);
      CUCKOO_NO_UNROLL
      for (std::size_t j = 0; j < m; ++j) results[kept[j]] = decided[j];
    }
    return added;
  }

  // The keys of a piece that are not repeats of the key before them (repeats_before): their indexes, in
  // order, into kept (room for n); returns how many. `repeats` (or null): the piece's records already known
  // to repeat the one before them, taken unread. One function for the three loops that skip repeats
  // (the package's size).
  [[gnu::noinline]] static std::size_t keys_kept(const std::uint8_t* base, const std::uint32_t* ranges, std::size_t n,
                                                 std::uint32_t* kept, const std::uint8_t* repeats) noexcept {
    if (n == 0) return 0;
    kept[0] = 0;
    std::size_t m = 1;
    if (repeats != nullptr) {
      CUCKOO_NO_UNROLL
      for (std::size_t i = 1; i < n; ++i) {  // a repeat's index is written over
        // Eight flagged repeats in a row (within a run) are passed over at once.
        if (n - i >= 8 && detail::load64(repeats + i) == detail::kByteLows) {
          i += 7;
          continue;
        }
        kept[m] = static_cast<std::uint32_t>(i);
        m += repeats[i] == 0 && !repeats_before(base, ranges, i);
      }
      return m;
    }
    // Without flags, the loop as it was before them: one loop for both, reading 8 zero bytes in place of
    // the flags, made pairs of a line (a\na\nb\nb\n...) 5-13% slower in wasm, for 0.2 KB less.
    CUCKOO_NO_UNROLL
    for (std::size_t i = 1; i < n; ++i) {  // without a branch: a repeat's index is written over
      kept[m] = static_cast<std::uint32_t>(i);
      m += !repeats_before(base, ranges, i);
    }
    return m;
  }

  // Whether a result of results[0, n) is neither yes nor no (0 and 1: any other has a bit above the
  // lowest), 8 at a time.
  [[nodiscard]] static bool any_failed(const std::uint8_t* results, std::size_t n) noexcept {
    constexpr std::uint64_t kHigherBits = ~std::uint64_t{0} / 0xFF * 0xFE;
    std::uint64_t bits = 0;
    std::size_t i = 0;
    for (; n - i >= 8; i += 8) bits |= detail::load64(results + i) & kHigherBits;
    for (; i < n; ++i) bits |= results[i] & 0xFEu;
    return bits != 0;
  }

  // The records of a block with their results_ decided: the ones written (new ones, or with
  // writes_duplicates_ seen ones) appended to the output, which has room for the whole block, in runs.
  // `records`: the records' ranges (their starts are what counts here). Stops at a record that could not
  // be decided (no room could be made), which fails the engine.
  bool write_results(const std::uint8_t* data, std::size_t length, std::size_t count, const std::uint32_t* records,
                     const std::uint8_t* results) {
    // Where the current run of written records starts.
    std::size_t run = SIZE_MAX;
    const KeyResult written = writes_duplicates_ ? KeyResult::no : KeyResult::yes;
    const KeyResult dropped = writes_duplicates_ ? KeyResult::yes : KeyResult::no;
    std::uint64_t unique = 0;
    for (std::size_t i = 0; i < count; ++i) {
      // Eight results alike that neither start nor end a run change nothing but the count: taken at once.
      if (count - i >= 8) {
        const std::uint64_t eight = detail::load64(results + i);
        if (eight == detail::kByteLows * static_cast<std::uint8_t>(run == SIZE_MAX ? dropped : written)) {
          unique += (run == SIZE_MAX ? dropped : written) == KeyResult::yes ? 8 : 0;
          i += 7;
          continue;
        }
      }
      const auto r = static_cast<KeyResult>(results[i]);
      unique += r == KeyResult::yes;
      if (r == written) {
        if (run == SIZE_MAX) run = records[2 * i];
        continue;
      }
      if (run != SIZE_MAX) output_.append_unchecked(data + run, records[2 * i] - run);
      run = SIZE_MAX;
      if (r != KeyResult::no &&
          r != KeyResult::yes) {  // no room could be made: this record and the ones after it are not done
        lines_ += i;
        unique_ += unique;
        return fail_add(r == KeyResult::no_room);
      }
    }
    if (run != SIZE_MAX) output_.append_unchecked(data + run, length - run);
    lines_ += count;
    unique_ += unique;
    return true;
  }

  // dedup_ranges() in a partitioned run (the main engine): every key hashed, its own share decided with
  // its filter (a piece at a time, as there), the others' hashes given to their threads (outgoing_), and
  // the block left in the call's slot for resolve() (`data` stays the caller's until then).
  [[gnu::noinline]] CUCKOO_COLD bool decide_ranges(const std::uint8_t* data, std::size_t length, std::size_t count,
                                                   bool selected, detail::Buffer<std::uint32_t>& records,
                                                   const std::uint8_t* repeats) {
    Pending& p = *current_;
    const std::size_t piece = std::min(kRatePiece, count);
    if (!p.results.reserve(count) || !p.owners.reserve(count) || !hashes_.reserve(piece) ||
        !own_index_.reserve(piece) || !own_results_.reserve(piece) || !kept_.reserve(piece))
      return fail_out_of_memory().ok();
    std::uint8_t* results = p.results.data();
    std::uint8_t* owners = p.owners.data();
    std::uint64_t* hashes = hashes_.data();
    for (unsigned t = 1; t < threads_; ++t)
      if (!outgoing_[t].reserve(outgoing_[t].size() + count)) return fail_out_of_memory().ok();
    for (std::size_t at = 0; at < count; at += kRatePiece) {
      const std::size_t n = std::min(kRatePiece, count - at);
      if (selected && !piece_keys(data, at, n)) return fail_out_of_memory().ok();
      const std::uint8_t* base = selected ? keys_.data() : data;
      const std::uint32_t* ranges = ranges_.data() + 2 * at;
      std::size_t own = 0;  // this thread's keys of the piece: their hashes packed at the front of hashes_
      // A repeat of the key before it is `no` (keys_kept), on this thread.
      std::memset(results + at, static_cast<int>(KeyResult::no), n);
      std::memset(owners + at, 0, n);
      const std::uint32_t* kept = kept_.data();
      const std::size_t m = keys_kept(base, ranges, n, kept_.data(), repeats == nullptr ? nullptr : repeats + at);
      long_runs_ = long_runs_ || mostly_repeats(m, n);
      for (std::size_t j = 0; j < m; ++j) {
        const std::size_t i = kept[j];
        const std::uint64_t hash = filter_.hash_of(base + ranges[2 * i], ranges[2 * i + 1] - ranges[2 * i]);
        const unsigned owner = owner_of(hash);
        owners[at + i] = static_cast<std::uint8_t>(owner);
        results[at + i] = kForeign;
        if (owner != 0) {
          outgoing_[owner].append_unchecked(&hash, 1);  // room for the block's keys reserved above
          continue;
        }
        hashes[own] = hash;
        own_index_.data()[own++] = static_cast<std::uint32_t>(at + i);
      }
      std::uint8_t* decided = own_results_.data();
      const std::size_t added = filter_.add_if_absent_hashes(hashes, own, decided);
      count_kept(added);
      bool stopped = false;
      for (std::size_t j = 0; j < own; ++j) {
        results[own_index_.data()[j]] = decided[j];
        stopped = stopped || (decided[j] != static_cast<std::uint8_t>(KeyResult::yes) &&
                              decided[j] != static_cast<std::uint8_t>(KeyResult::no));
      }
      if (stopped) {  // resolve() writes up to the record that stopped, and fails there
        std::memset(results + at + n, static_cast<int>(KeyResult::not_tried), count - at - n);
        break;
      }
    }
    p.data = data;
    p.length = length;
    p.count = count;
    std::swap(p.records, records);  // the slot keeps the records' ranges; the next block fills the other buffer
    return true;
  }

  // count_distinct()'s dedup_ranges: the keys' hashes into the count, a piece at a time as there.
  // Compiled for size (the package's budget): the count runs once per file, before the run.
  [[gnu::noinline]] CUCKOO_COLD bool count_ranges(const std::uint8_t* data, std::size_t count, bool selected,
                                                  const std::uint8_t* repeats) {
    if (!kept_.reserve(kRatePiece)) return fail_out_of_memory().ok();
    for (std::size_t at = 0; at < count; at += kRatePiece) {
      const std::size_t n = std::min(kRatePiece, count - at);
      if (selected && !piece_keys(data, at, n)) return fail_out_of_memory().ok();
      const std::uint8_t* base = selected ? keys_.data() : data;
      const std::uint32_t* ranges = ranges_.data() + 2 * at;
      // A repeat of the key before it adds nothing to the count (keys_kept).
      const std::uint32_t* kept = kept_.data();
      const std::size_t m = keys_kept(base, ranges, n, kept_.data(), repeats == nullptr ? nullptr : repeats + at);
      long_runs_ = long_runs_ || mostly_repeats(m, n);
      for (std::size_t j = 0; j < m; ++j) {
        const std::size_t i = kept[j];
        counting_->add(filter_.hash_of(base + ranges[2 * i], ranges[2 * i + 1] - ranges[2 * i]));
      }
    }
    lines_ += count;
    return true;
  }

  // --- CSV (the file's comment) ---

  // push() with csv: the carried record's scan goes on where it stopped, and a block is split by a scan
  // that knows quotes.
  CUCKOO_COLD Status push_csv(const std::uint8_t* data, std::size_t length) {
    std::size_t at = 0;
    if (!carry_.empty()) {
      const std::size_t stop = csv_scan(data, 0, length, carry_state_);
      const std::size_t take = stop == length ? length : stop + 1;
      if (!carry_.append(data, take)) return fail_out_of_memory();
      if (stop == length) return {};
      if (!dedup_one(carry_.data(), carry_.size(), false)) return failed_;
      carry_.clear();
      at = take;
    }
    const std::size_t end = csv_split(data + at, length - at);
    if (!failed_.ok()) return failed_;
    if (!dedup_ranges(data + at, end)) return failed_;
    if (at + end < length && !carry_.append(data + at + end, length - at - end)) return fail_out_of_memory();
    return {};
  }

  // The offset of the "\n" that ends the record being scanned from data[i] in `state`, or n (then `state`
  // is where the scan stands at n). One byte a step: for records with quotes and for carried ones.
  CUCKOO_COLD std::size_t csv_scan(const std::uint8_t* data, std::size_t i, std::size_t n,
                                   CsvState& state) const noexcept {
    while (i < n) {
      if (state == CsvState::quoted) {
        const auto found = static_cast<std::size_t>(
            detail::find_byte(data, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(n), '"'));
        if (found == n) return n;
        i = found + 1;
        state = CsvState::quote_in_quoted;
        continue;
      }
      const std::uint8_t c = data[i++];
      if (c == '"' && state != CsvState::unquoted) {
        state = CsvState::quoted;  // opens a quoted field, or is the second of "" inside one
      } else if (c == '\n') {
        return i - 1;
      } else if (c == delimiter_) {
        state = CsvState::field_start;
      } else {
        state = CsvState::unquoted;
      }
    }
    return n;
  }

  // Splits data[0, n) into its complete records (into ranges_, the header written and left out) and
  // returns where they end; the scan state of the rest is kept for the next block. A record without '"'
  // before its first "\n" ends there (found eight bytes a step); one with quotes is scanned byte by byte.
  [[gnu::noinline]] CUCKOO_COLD std::size_t csv_split(const std::uint8_t* data, std::size_t length) {
    ranges_.clear();
    const auto n = static_cast<std::uint32_t>(length);
    std::uint32_t start = 0;
    while (start < n) {
      std::uint32_t stop = detail::find_byte(data, start, n, '\n');
      if (stop == n || detail::find_byte(data, start, stop, '"') != stop) {
        CsvState state = CsvState::field_start;
        stop = static_cast<std::uint32_t>(csv_scan(data, start, n, state));
        if (stop == n) {
          carry_state_ = state;
          break;
        }
      }
      const std::uint32_t key_end = stop > start && data[stop - 1] == '\r' ? stop - 1 : stop;
      if (header_pending_) {
        const bool repeated = repeat_header_;
        if (!take_header(data + start, key_end - start)) return 0;
        // (Counting writes nothing, the header neither.)
        if (!repeated && counting_ == nullptr && !header_output().append(data + start, stop + 1 - start))
          return fail_out_of_memory().ok();
      } else {
        const std::uint32_t range[2] = {start, key_end};
        if (!ranges_.append(range, 2)) return fail_out_of_memory().ok();
      }
      start = stop + 1;
    }
    return start;
  }

  // Decodes the fields of a record (without its end) into cells_ and cell_bytes_. False when out of memory.
  CUCKOO_COLD bool decode_csv(const std::uint8_t* record, std::size_t length) {
    cells_.clear();
    cell_bytes_.clear();
    if (length == 0) return true;  // an empty record has no fields
    std::size_t i = 0;
    for (;;) {
      const auto begin = static_cast<std::uint32_t>(cell_bytes_.size());
      if (i < length && record[i] == '"') {
        ++i;
        for (;;) {  // quoted: up to a '"' that is not doubled
          const auto* quote = static_cast<const std::uint8_t*>(std::memchr(record + i, '"', length - i));
          const std::size_t stop = quote == nullptr ? length : static_cast<std::size_t>(quote - record);
          if (!cell_bytes_.append(record + i, stop - i)) return false;
          i = stop + 1;
          if (quote == nullptr || i >= length || record[i] != '"') break;
          if (!cell_bytes_.append(record + i, 1)) return false;
          ++i;
        }
        if (i > length) i = length;
      }
      // Unquoted bytes (after a closing quote too) up to the delimiter.
      const auto* next = static_cast<const std::uint8_t*>(std::memchr(record + i, delimiter_, length - i));
      const std::size_t stop = next == nullptr ? length : static_cast<std::size_t>(next - record);
      if (!cell_bytes_.append(record + i, stop - i)) return false;
      const std::uint32_t cell[2] = {begin, static_cast<std::uint32_t>(cell_bytes_.size())};
      if (!cells_.append(cell, 2)) return false;
      if (next == nullptr) return true;
      i = stop + 1;
    }
  }

  // Appends one decoded field to keys_ in its written form (the file's comment).
  CUCKOO_COLD bool append_cell(std::size_t cell, bool alone) {
    const std::uint8_t* value = cell_bytes_.data() + cells_.data()[2 * cell];
    const std::size_t length = cells_.data()[2 * cell + 1] - cells_.data()[2 * cell];
    bool quote = alone && length == 0;
    for (std::size_t i = 0; i < length && !quote; ++i)
      quote = value[i] == delimiter_ || value[i] == '"' || value[i] == '\n';
    if (!quote) return keys_.append(value, length);
    static constexpr std::uint8_t kQuote = '"';
    if (!keys_.append(&kQuote, 1)) return false;
    for (std::size_t i = 0; i < length; ++i)
      if (!keys_.append(value + i, 1) || (value[i] == '"' && !keys_.append(&kQuote, 1))) return false;
    return keys_.append(&kQuote, 1);
  }

  // How many values a selection takes from a record of `fields` fields: a closed range all it names (the
  // missing ones empty), an open one those the record has.
  [[nodiscard]] CUCKOO_COLD std::size_t selected_values(std::size_t fields) const noexcept {
    std::size_t n = 0;
    for (std::size_t r = 0; r < fields_.size() / 2; ++r) {
      const std::uint32_t from = fields_.data()[2 * r];
      const std::uint32_t to = fields_.data()[2 * r + 1];
      n += to != 0 ? to - from + 1 : (fields >= from ? fields - from + 1 : 0);
    }
    return n;
  }

  // Appends the key of a CSV record (without its end) to keys_. False when out of memory. A selection of
  // one empty value is written "" (as a record of one empty field), so that it differs from none.
  [[gnu::noinline]] CUCKOO_COLD bool append_csv_key(const std::uint8_t* record, std::size_t length) {
    const std::size_t start = keys_.size();
    if (!append_csv_key_of(record, length)) return false;
    if (fields_.empty() || keys_.size() != start) return true;
    std::size_t fields = 0;
    if (std::memchr(record, '"', length) != nullptr) {
      fields = cells_.size() / 2;  // decoded by append_csv_key_of
    } else if (length > 0) {
      fields = 1 + static_cast<std::size_t>(std::count(record, record + length, delimiter_));
    }
    static constexpr std::uint8_t kEmpty[2] = {'"', '"'};
    return selected_values(fields) != 1 || keys_.append(kEmpty, 2);
  }

  CUCKOO_COLD bool append_csv_key_of(const std::uint8_t* record, std::size_t length) {
    if (std::memchr(record, '"', length) == nullptr) {
      return fields_.empty() ? keys_.append(record, length) && keys_.size() < UINT32_MAX
                             : append_field_key(record, length);
    }
    if (!decode_csv(record, length)) return false;
    const std::size_t cell_count = cells_.size() / 2;
    if (fields_.empty()) {
      for (std::size_t c = 0; c < cell_count; ++c)
        if ((c > 0 && !keys_.append(&delimiter_, 1)) || !append_cell(c, cell_count == 1)) return false;
      return keys_.size() < UINT32_MAX;
    }
    // The selection as append_field_key() makes it: missing fields empty, an open range ending with the record.
    const std::uint32_t* ranges = fields_.data();
    bool first = true;
    for (std::size_t r = 0; r < fields_.size() / 2; ++r) {
      const std::uint32_t to = ranges[2 * r + 1];
      for (std::uint32_t want = ranges[2 * r]; to == 0 || want <= to; ++want) {
        const bool present = want <= cell_count;
        if (to == 0 && !present && !first) break;
        if (!present && to != 0) {
          if (!append_missing(to - want + 1, first)) return false;
          first = false;
          break;
        }
        if (!first && !keys_.append(&delimiter_, 1)) return false;
        first = false;
        if (present && !append_cell(want - 1, false)) return false;
        if (to == 0 && !present) break;
      }
    }
    return keys_.size() < UINT32_MAX;
  }

  // The header (without its end): its names become field numbers. False when one is missing (the engine
  // then stops with invalid_argument) or out of memory.
  CUCKOO_COLD bool take_header(const std::uint8_t* record, std::size_t length) {
    header_pending_ = false;
    // A UTF-8 byte-order mark (spreadsheets write one) is not part of the first name: `-f id` finds "id",
    // and a file with the mark has the header of one without it. The header is written as it came.
    if (length >= 3 && record[0] == 0xEF && record[1] == 0xBB && record[2] == 0xBF) {
      record += 3;
      length -= 3;
    }
    // Its fields in the form of a whole-record key, to hold later inputs' headers against.
    keys_.clear();
    if (!decode_csv(record, length)) return fail_out_of_memory().ok();
    for (std::size_t c = 0; c < cells_.size() / 2; ++c)
      if ((c > 0 && !keys_.append(&delimiter_, 1)) || !append_cell(c, cells_.size() == 2))
        return fail_out_of_memory().ok();
    if (repeat_header_) {
      repeat_header_ = false;
      if (keys_.size() == header_.size() && std::memcmp(keys_.data(), header_.data(), keys_.size()) == 0) return true;
      failed_ =
          Status::error(ErrorCode::invalid_argument,
                        "an input's header differs from the first input's: \"" +
                            std::string(reinterpret_cast<const char*>(keys_.data()), keys_.size()) + "\", not \"" +
                            std::string(reinterpret_cast<const char*>(header_.data()), header_.size()) + "\"");
      return false;
    }
    if (!header_.append(keys_.data(), keys_.size())) return fail_out_of_memory().ok();
    if (names_.empty()) return true;
    const std::size_t cell_count = cells_.size() / 2;
    for (std::size_t at = 0; at < names_.size();) {
      const std::uint8_t* name = names_.data() + at;
      const std::size_t name_length = std::strlen(reinterpret_cast<const char*>(name));
      std::uint32_t column = 0;
      for (std::size_t c = 0; c < cell_count && column == 0; ++c) {
        const std::size_t length_c = cells_.data()[2 * c + 1] - cells_.data()[2 * c];
        if (length_c == name_length && std::memcmp(cell_bytes_.data() + cells_.data()[2 * c], name, name_length) == 0)
          column = static_cast<std::uint32_t>(c + 1);
      }
      if (column == 0) {
        std::string columns;
        for (std::size_t c = 0; c < cell_count && c < 20; ++c) {
          if (c > 0) columns += ", ";
          columns += '"';
          columns.append(reinterpret_cast<const char*>(cell_bytes_.data() + cells_.data()[2 * c]),
                         cells_.data()[2 * c + 1] - cells_.data()[2 * c]);
          columns += '"';
        }
        if (cell_count > 20) columns += ", ...";
        failed_ = Status::error(ErrorCode::invalid_argument,
                                "no column named \"" + std::string(reinterpret_cast<const char*>(name), name_length) +
                                    "\" in the header (its columns: " + columns + ")");
        return false;
      }
      const std::uint32_t range[2] = {column, column};
      if (!fields_.append(range, 2)) return fail_out_of_memory().ok();
      at += name_length + 1;
    }
    merge_fields();
    return true;
  }

  // Sorts fields_ and merges overlapping or adjacent ranges (the order append_field_key() needs).
  CUCKOO_COLD void merge_fields() noexcept {
    auto* r = fields_.data();
    const std::size_t count = fields_.size() / 2;
    for (std::size_t i = 1; i < count; ++i)  // insertion sort by first field: a handful of ranges
      for (std::size_t j = i; j > 0 && r[2 * j] < r[2 * (j - 1)]; --j) {
        std::swap(r[2 * j], r[2 * (j - 1)]);
        std::swap(r[2 * j + 1], r[2 * (j - 1) + 1]);
      }
    std::size_t out = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (out > 0 && (r[2 * out - 1] == 0 || r[2 * i] <= r[2 * out - 1] + 1)) {
        if (r[2 * out - 1] != 0 && (r[2 * i + 1] == 0 || r[2 * i + 1] > r[2 * out - 1])) r[2 * out - 1] = r[2 * i + 1];
        continue;
      }
      r[2 * out] = r[2 * i];
      r[2 * out + 1] = r[2 * i + 1];
      ++out;
    }
    fields_.truncate(2 * out);
  }

  CuckooFilter& filter_;
  std::uint8_t end_;                              // the byte that ends a record
  bool writes_duplicates_ = false;                // the output is the records seen before, not the new ones
  bool csv_ = false;                              // records are CSV
  bool header_pending_ = false;                   // csv: the header has not arrived yet
  bool repeat_header_ = false;                    // csv: the pending header is a later input's (checked, not written)
  CsvState carry_state_ = CsvState::field_start;  // csv: where the carried record's scan stopped
  std::uint8_t delimiter_ = '\t';                 // between fields, when keys are fields
  detail::Buffer<std::uint8_t> names_;            // csv: header names to select, each ended by NUL
  detail::Buffer<std::uint8_t> header_;           // csv: the first header's fields, as a whole-record key
  detail::Buffer<std::uint32_t> cells_;           // csv: a record's decoded fields, pairs [start, end) in cell_bytes_
  detail::Buffer<std::uint8_t> cell_bytes_;
  detail::Buffer<std::uint32_t> fields_;   // the selected field ranges, pairs [first, last]; empty: whole records
  detail::Buffer<std::uint8_t> keys_;      // a block's keys made of fields
  detail::Buffer<std::uint32_t> records_;  // a block's record ranges, while ranges_ holds its keys'
  detail::Buffer<std::uint8_t> carry_;
  // A window run's ring (remember_last): the hashes of the last window_size_ keys added, the next to go
  // at window_next_ once it is full.
  detail::Buffer<std::uint64_t> window_;
  std::size_t window_size_ = 0;
  std::size_t window_next_ = 0;
  detail::Buffer<std::uint8_t> output_;
  detail::Buffer<std::uint32_t> ranges_;
  detail::Buffer<std::uint8_t> repeats_;  // a byte a record of ranges_ (dedup_block): 1 where it repeats the one before
  bool long_runs_ = true;                 // whether the last block had a piece of mostly_repeats()
  detail::Buffer<std::uint8_t> results_;
  detail::Buffer<std::uint32_t> kept_;    // a piece's keys that are not repeats (keys_kept)
  detail::Buffer<std::uint32_t> packed_;  // and their ranges, for add_piece
  std::uint64_t lines_ = 0;
  std::uint64_t unique_ = 0;
  double wrong_drops_ = 0;
  DistinctCount* counting_ = nullptr;  // count_distinct(): keys go here, not to the filter
  Status failed_;

  // Partitioned runs (share()).
  static constexpr std::uint8_t kForeign = 0xFF;  // a result of another thread's share, not yet supplied
  struct Verdicts {
    detail::Buffer<std::uint8_t> bytes;
    std::size_t read = 0;  // the next one resolve() takes
  };
  unsigned threads_ = 1;
  std::uint64_t cuts_[kMaxThreads + 1] = {};             // thread t decides the partitions [cuts_[t], cuts_[t + 1])
  Verdicts verdicts_[kMaxThreads];                       // each helper's, supplied and not yet taken
  detail::Buffer<std::uint64_t> outgoing_[kMaxThreads];  // each helper's hashes of the last call
  detail::Buffer<std::uint64_t> hashes_;                 // a piece's own keys' hashes
  detail::Buffer<std::uint32_t> own_index_;              // and where each is in the block
  detail::Buffer<std::uint8_t> own_results_;             // their results (and add_piece's packed keys')
  // A call left for resolve(): its header (a CSV input's, written before its records), a record decided
  // on its own (a carried or last one), and a block's records.
  struct Pending {
    detail::Buffer<std::uint8_t> head;
    bool has_one = false;
    bool one_last = false;
    std::uint8_t one_result = 0;
    std::uint8_t one_owner = 0;
    detail::Buffer<std::uint8_t> one;
    const std::uint8_t* data = nullptr;  // the block, the caller's until resolve()
    std::size_t length = 0;
    std::size_t count = 0;
    detail::Buffer<std::uint8_t> results;   // each record's KeyResult, kForeign for another thread's
    detail::Buffer<std::uint8_t> owners;    // each record's thread
    detail::Buffer<std::uint32_t> records;  // the records' ranges
  };
  Pending pending_[kPendingCalls];
  unsigned pending_first_ = 0;  // the oldest pending call's slot
  unsigned pending_calls_ = 0;
  Pending* current_ = nullptr;  // the slot of the call being made
};

}  // namespace v1
}  // namespace cuckoo

#undef CUCKOO_NO_UNROLL
