// The lite module's malloc (cpp/wasm/lite_malloc.cpp): boundary tags and segregated free lists, a few
// hundred lines where dlmalloc has thousands; the weight saved against it (2.7 KB of the deflated module)
// is what the lite entry is for.
//
// Where a block goes (a "good fit", as TLSF does it): free blocks are kept in kClasses lists by size, four
// classes to each power of two, so the sizes within a class differ by less than a quarter. An allocation
// first looks through a few blocks of its own size's class (an exact fit, such as a filter's old place,
// is found there), then takes the first block of the smallest non-empty class whose every block is large
// enough, found with a bitmap, without walking. So a small block comes from a small hole while one is free,
// and never from the large hole a table left (one list searched first-fit, newest first, did: a page that
// rebuilt a larger filter each round beside one small one grew its heap to 3.9 GB for 5 MB of filters, and
// refused a table that fitted in its own old place; an adversarial pass found both).
//
// Why not Emscripten's emmalloc, which is as small: in 3.1.6 it tests whether a block fits with 32-bit
// pointer arithmetic, which wraps near 4 GiB, hands out a block smaller than asked for and lets a table
// overwrite another filter's (tests/js/memory/lite_no_room.cjs). Here every address sum is a 64-bit number,
// and a block ends below the memory's end or is not made.
//
// The heap is one run of blocks from base() to a sentinel, the break. A block is [head][payload]: the head
// is its size (a multiple of 8, the head included) and two flags, kUsed and kPrevUsed (the block before it
// is in use). A free block keeps the links of its class's list in its payload and its size again in its
// last word, so that a block freed after it can find its start. Invariants: no two free blocks are neighbours;
// a block's kPrevUsed is true exactly when the block before it is in use (the first block's is true); the
// sentinel is a used block of size 0 at the break.
//
// Memory (a policy, so that tests/cpp/test_small_heap.cpp runs this natively over an array):
//   base(): where the heap starts; reach(end): makes addresses below `end` usable, false when it cannot
//   (wasm: memory.grow, never shrinking; past 4 GiB it cannot).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cuckoo_wasm {

template <class Memory>
class SmallHeap {
 public:
  // A block of at most this many bytes: its size, a multiple of 8, fits a 32-bit head with room to spare.
  static constexpr std::uint64_t kMaxBlock = 0xFFFF0000u;

  constexpr explicit SmallHeap(Memory memory = Memory()) noexcept : memory_(memory) {}

  // Null when `bytes` cannot be had; the heap is then as it was (some memory it grew stays, free).
  [[nodiscard]] void* allocate(std::size_t bytes) noexcept {
    const std::uint64_t need = block_for(bytes);
    if (need == 0 || !start()) return nullptr;
    if (Byte* b = fitting(need); b != nullptr) {
      unlink(b);
      head(b) |= kUsed;
      head(b + size_of(b)) |= kPrevUsed;
      shrink(b, need);
      return b + kHeader;
    }
    // No free block is large enough: the heap grows, into the free block at its top if there is one.
    Byte* b = top_;
    if ((head(top_) & kPrevUsed) == 0) b = top_ - foot(top_);
    if (!extend_to(b, need)) return nullptr;
    return b + kHeader;
  }

  void release(void* p) noexcept {
    if (p == nullptr) return;
    Byte* b = static_cast<Byte*>(p) - kHeader;
    std::size_t size = size_of(b);
    Word prev_used = head(b) & kPrevUsed;
    Byte* next = b + size;
    if ((head(next) & kUsed) == 0) {
      unlink(next);
      size += size_of(next);
    }
    if (prev_used == 0) {
      const std::size_t before = foot(b);
      b -= before;
      unlink(b);
      size += before;
      prev_used = kPrevUsed;  // the block before a free block is in use
    }
    head(b) = size | prev_used;
    std::memcpy(b + size - sizeof(Word), &size, sizeof(Word));
    head(b + size) &= ~kPrevUsed;
    push(b);
  }

  // A payload at a multiple of `alignment` (a power of two): the block is taken larger, and what lies
  // before the aligned payload and past its end is given back.
  [[nodiscard]] void* allocate_aligned(std::size_t alignment, std::size_t bytes) noexcept {
    if (alignment <= kAlign) return allocate(bytes);
    const std::uint64_t need = block_for(bytes);
    if (need == 0 || need + alignment + kMinBlock > kMaxBlock) return nullptr;
    auto* p = static_cast<Byte*>(allocate(static_cast<std::size_t>(need + alignment + kMinBlock)));
    if (p == nullptr) return nullptr;
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    if (at % alignment == 0) {
      shrink(p - kHeader, need);
      return p;
    }
    // The block before the payload must be one (at least kMinBlock bytes).
    const std::uintptr_t aligned = (at + kMinBlock + alignment - 1) & ~(std::uintptr_t{alignment} - 1);
    Byte* b = p - kHeader;
    Byte* moved = b + (aligned - at);
    head(moved) = (size_of(b) - (aligned - at)) | kUsed | kPrevUsed;
    head(b) = (aligned - at) | kUsed | (head(b) & kPrevUsed);
    release(p);
    shrink(moved, need);
    return moved + kHeader;
  }

  // C's realloc: in place when the block, its free neighbour or the heap's top has the room; else moved.
  // Null when it cannot be had, p then untouched.
  [[nodiscard]] void* reallocate(void* p, std::size_t bytes) noexcept {
    if (p == nullptr) return allocate(bytes);
    const std::uint64_t need = block_for(bytes);
    if (need == 0) return nullptr;
    Byte* b = static_cast<Byte*>(p) - kHeader;
    const std::size_t size = size_of(b);
    if (need <= size) {
      shrink(b, need);
      return p;
    }
    Byte* next = b + size;
    const bool next_free = (head(next) & kUsed) == 0;
    if (next_free && size + size_of(next) >= need) {
      unlink(next);
      head(b) += size_of(next);
      head(b + size_of(b)) |= kPrevUsed;
      shrink(b, need);
      return p;
    }
    if (next == top_ || (next_free && next + size_of(next) == top_)) {
      if (next_free) unlink(next);
      if (extend_to(b, need)) return p;
      if (next_free) push(next);  // the memory did not grow: a free block elsewhere may still hold it
    }
    void* moved = allocate(bytes);
    if (moved == nullptr) return nullptr;
    std::memcpy(moved, p, size - kHeader);
    release(p);
    return moved;
  }

  // The payload's bytes (at least what was asked for).
  [[nodiscard]] static std::size_t usable(const void* p) noexcept {
    return size_of(const_cast<Byte*>(static_cast<const Byte*>(p)) - kHeader) - kHeader;
  }

 private:
  using Byte = std::uint8_t;
  using Word = std::size_t;
  struct Links {
    Byte* next;
    Byte* prev;
  };
  static constexpr Word kUsed = 1;
  static constexpr Word kPrevUsed = 2;
  static constexpr Word kFlags = kUsed | kPrevUsed;
  static constexpr std::size_t kAlign = 8;
  static constexpr std::size_t kHeader = 8;  // the head, padded so that payloads are 8-aligned
  static constexpr std::size_t kMinBlock = (kHeader + sizeof(Links) + sizeof(Word) + kAlign - 1) & ~(kAlign - 1);

  // Size classes: for a size s with highest bit h, class 4h + the two bits under it.
  static constexpr unsigned kClasses = 4 * 32;
  static constexpr unsigned kLookInClass = 8;  // blocks of the request's own class looked at for a fit
  static unsigned class_of(std::uint64_t size) noexcept {
    const unsigned h = 63 - static_cast<unsigned>(__builtin_clzll(size));
    return 4 * h + static_cast<unsigned>((size >> (h - 2)) & 3);
  }
  static std::uint64_t class_start(unsigned c) noexcept {
    const unsigned h = c / 4;
    return (std::uint64_t{1} << h) + (std::uint64_t{c % 4} << (h - 2));
  }

  // A free block of at least `need` bytes, or null.
  Byte* fitting(std::uint64_t need) noexcept {
    const unsigned own = class_of(need);
    unsigned looked = 0;
    for (Byte* b = lists_[own]; b != nullptr && looked < kLookInClass; b = links(b).next, ++looked)
      if (size_of(b) >= need) return b;
    // Every block of a class from `up` on is large enough.
    const unsigned up = class_start(own) == need ? own : own + 1;
    for (unsigned word = up / 32; word < kClasses / 32; ++word) {
      std::uint32_t bits = nonempty_[word];
      if (word == up / 32) bits &= ~std::uint32_t{0} << (up % 32);
      if (bits != 0) return lists_[word * 32 + static_cast<unsigned>(__builtin_ctz(bits))];
    }
    return nullptr;
  }

  static Word& head(Byte* b) noexcept { return *reinterpret_cast<Word*>(b); }
  static std::size_t size_of(Byte* b) noexcept { return head(b) & ~kFlags; }
  static Links& links(Byte* b) noexcept { return *reinterpret_cast<Links*>(b + kHeader); }
  // The size of the free block that ends where b starts.
  static std::size_t foot(Byte* b) noexcept {
    Word size;
    std::memcpy(&size, b - sizeof(Word), sizeof(Word));
    return size;
  }

  // The block that holds `bytes`, or 0 when none can.
  static constexpr std::uint64_t block_for(std::size_t bytes) noexcept {
    if (bytes > kMaxBlock) return 0;  // (and the sum below cannot wrap where size_t has 64 bits)
    std::uint64_t need = (std::uint64_t{bytes} + kHeader + kAlign - 1) & ~std::uint64_t{kAlign - 1};
    if (need < kMinBlock) need = kMinBlock;
    return need > kMaxBlock ? 0 : need;
  }

  bool start() noexcept {
    if (top_ != nullptr) return true;
    const auto base = reinterpret_cast<std::uintptr_t>(memory_.base());
    const std::uint64_t first = (std::uint64_t{base} + kAlign - 1) & ~std::uint64_t{kAlign - 1};
    if (!memory_.reach(first + kHeader)) return false;
    top_ = reinterpret_cast<Byte*>(static_cast<std::uintptr_t>(first));
    head(top_) = kUsed | kPrevUsed;
    return true;
  }

  // Makes b, a used block or the free block before the sentinel or the sentinel itself, a used block of
  // `need` bytes that ends at the new sentinel.
  bool extend_to(Byte* b, std::uint64_t need) noexcept {
    const std::uint64_t end = std::uint64_t{reinterpret_cast<std::uintptr_t>(b)} + need + kHeader;
    if (!memory_.reach(end)) return false;
    const bool was_free = b != top_ && (head(b) & kUsed) == 0;
    if (was_free) unlink(b);
    head(b) = static_cast<Word>(need) | kUsed | (head(b) & kPrevUsed);
    top_ = b + need;
    head(top_) = kUsed | kPrevUsed;
    return true;
  }

  // Gives the tail of used block b past `need` bytes back, when it makes a block.
  void shrink(Byte* b, std::uint64_t need) noexcept {
    const std::size_t size = size_of(b);
    if (size - need < kMinBlock) return;
    head(b) = static_cast<Word>(need) | (head(b) & kFlags);
    Byte* rest = b + need;
    head(rest) = (size - static_cast<std::size_t>(need)) | kUsed | kPrevUsed;
    release(rest + kHeader);
  }

  // Into its class's list, by its size as its head has it now (unlink() must see the same size).
  void push(Byte* b) noexcept {
    const unsigned c = class_of(size_of(b));
    links(b) = {lists_[c], nullptr};
    if (lists_[c] != nullptr) links(lists_[c]).prev = b;
    lists_[c] = b;
    nonempty_[c / 32] |= std::uint32_t{1} << (c % 32);
  }
  void unlink(Byte* b) noexcept {
    const unsigned c = class_of(size_of(b));
    const Links l = links(b);
    (l.prev != nullptr ? links(l.prev).next : lists_[c]) = l.next;
    if (l.next != nullptr) links(l.next).prev = l.prev;
    if (lists_[c] == nullptr) nonempty_[c / 32] &= ~(std::uint32_t{1} << (c % 32));
  }

  Memory memory_;
  Byte* top_ = nullptr;                         // the sentinel
  Byte* lists_[kClasses] = {};                  // the free blocks of each size class
  std::uint32_t nonempty_[kClasses / 32] = {};  // a bit for each class whose list is not empty
};

}  // namespace cuckoo_wasm
