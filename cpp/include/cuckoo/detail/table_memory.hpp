// The memory of a packed table: zeroed bytes from the C heap, or, for large tables on Linux, a mapping of
// their own that the kernel may back with 2 MiB pages.
//
// Why: every lookup reads two buckets at random places in the table. With 4 KiB pages, a table larger
// than the second-level TLB's reach (1,536-2,048 entries, 6-8 MiB, on current x86 cores) pays a page
// walk on most of those reads. Side by side with the paper's reference code on a 24 MB table (10M keys,
// ../shared/refbench), 2 MiB pages took our lookups from 0.87-0.92 to 0.96-1.06 of its rate and inserts
// from 0.83 to 0.93-1.00. A hint only: with transparent huge pages off, or none free, the mapping gets
// 4 KiB pages and works the same. The cost: where THP's defrag setting is "madvise" (Debian's default),
// the first touch of each 2 MiB page may wait for the kernel to compact memory on a fragmented host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "compiler.hpp"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#define CUCKOO_HUGE_PAGE_TABLES 1
#else
#define CUCKOO_HUGE_PAGE_TABLES 0
#endif

namespace cuckoo {
inline namespace v1 {
namespace detail {

// Tables of at least this many bytes get a mapping of their own: past the TLB's reach, and large enough
// that rounding up to whole 2 MiB pages adds at most a quarter.
inline constexpr std::size_t kHugePageTableBytes = std::size_t{8} << 20;
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Whether `count` items of `size` bytes fit this build's address space. In wasm size_t has 32 bits: a
// size computed in 64 bits (from options or an export's header) must be checked here before it is
// handed to malloc, calloc or realloc, which would take it cut to its low 32 bits.
[[nodiscard]] constexpr bool addressable(std::uint64_t count, std::uint64_t size = 1) noexcept {
  return size == 0 || count <= SIZE_MAX / size;
}

// Releases a table's memory the way it was had: munmap of `mapped_bytes`, or free when that is 0.
struct TableMemoryDeleter {
  std::size_t mapped_bytes = 0;
  void operator()(std::uint8_t* p) const noexcept {
#if CUCKOO_HUGE_PAGE_TABLES
    if (mapped_bytes != 0) {
      munmap(p, mapped_bytes);
      return;
    }
#endif
    std::free(p);
  }
};

using TableMemory = std::unique_ptr<std::uint8_t[], TableMemoryDeleter>;

#if CUCKOO_HUGE_PAGE_TABLES
// `bytes` rounded up to whole 2 MiB pages, mapped at a 2 MiB boundary (so that every page of it can be a
// huge one) and marked for huge pages; null when the mapping fails. Anonymous mappings read as zero.
[[nodiscard]] inline TableMemory map_huge_page_aligned(std::size_t bytes) noexcept {
  const std::size_t length = (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  // One page more than needed, then the unaligned head and the tail beyond `length` are unmapped.
  void* raw = mmap(nullptr, length + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePageBytes - 1) & ~std::uintptr_t{kHugePageBytes - 1};
  if (aligned != start) munmap(raw, aligned - start);
  const std::uintptr_t end = start + length + kHugePageBytes;
  if (end != aligned + length) munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
  // A hint: when it fails (THP compiled out or set to "never") the table works the same on 4 KiB pages.
  (void)madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
  return TableMemory(reinterpret_cast<std::uint8_t*>(aligned), TableMemoryDeleter{length});
}
#endif

// Marks the whole 2 MiB pages inside a large table that the C heap gave (a table that grows in place is
// reallocated, so it cannot have a mapping of its own): a hint, as for map_huge_page_aligned.
inline void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if CUCKOO_HUGE_PAGE_TABLES
  if (bytes < kHugePageTableBytes) return;
  const auto start = (reinterpret_cast<std::uintptr_t>(p) + kHugePageBytes - 1) & ~std::uintptr_t{kHugePageBytes - 1};
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~std::uintptr_t{kHugePageBytes - 1};
  if (end > start) (void)madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
#endif
}

// malloc(bytes), or calloc(bytes, 1) when `zeroed`; null when they cannot be had. In wasm, a block of 2 GiB
// or more could not be had from a heap that had to grow by that much for it, however much room the
// 4 GiB heap had: dlmalloc asks sbrk() for the growth, and sbrk's increment, an intptr_t, has 32 bits
// there (a filter of 2.27 GB failed in a new module and was made in one that had held as much before, and
// a filter over 2 GiB that exportChunks() wrote could not be loaded in a fresh process). So on failure the
// heap is grown by blocks of at most 1 GiB held together, then freed (they join the heap's free top), and
// the block asked for again.
[[nodiscard]] inline void* allocate_block(std::size_t bytes, bool zeroed) noexcept {
  const auto once = [&]() noexcept { return zeroed ? std::calloc(bytes, 1) : std::malloc(bytes); };
  void* p = once();
#if defined(__EMSCRIPTEN__)
  constexpr std::size_t kStep = std::size_t{1} << 30;
  if (p == nullptr && bytes > kStep) {
    void* pieces[4] = {};
    unsigned held = 0;
    for (std::size_t had = 0; had < bytes && held < 4; ++held) {
      const std::size_t piece = bytes - had < kStep ? bytes - had + (std::size_t{1} << 16) : kStep;
      // volatile: the compiler may remove a malloc whose block is only freed.
      void* volatile block = std::malloc(piece);
      if (block == nullptr) break;
      pieces[held] = block;
      had += piece;
    }
    for (unsigned i = held; i-- > 0;) std::free(pieces[i]);
    p = once();
  }
#endif
  return p;
}

// `bytes` zeroed bytes and `padding` more after them; null when they cannot be had. `zeroed` false: the
// caller writes every one of the `bytes` itself (an import), so they are not cleared first (the padding
// is): in wasm, calloc clears every page of a new block, and a stream's header alone that declared a 64
// MiB table (importChunks) took 64 MiB more of the process for good; untouched, the pages a heap grows
// by take no memory until they are written.
[[nodiscard]] inline TableMemory allocate_table_memory(std::uint64_t bytes, std::size_t padding,
                                                       bool zeroed = true) noexcept {
  if (!addressable(bytes) || bytes > SIZE_MAX - padding) return nullptr;
  const std::size_t total = static_cast<std::size_t>(bytes) + padding;
#if CUCKOO_HUGE_PAGE_TABLES
  if (total >= kHugePageTableBytes && total <= SIZE_MAX - 2 * kHugePageBytes) {
    if (TableMemory mapped = map_huge_page_aligned(total)) return mapped;
  }
#endif
  auto* p = static_cast<std::uint8_t*>(allocate_block(total, zeroed));
  if (p != nullptr && !zeroed) std::memset(p + bytes, 0, padding);
  return TableMemory(p);
}

// realloc(p, new_bytes) for a block of `old_bytes` that grows (a table that doubles in place); null when
// it cannot, p then untouched. In wasm the heap is Emscripten's dlmalloc over one linear memory that never
// shrinks, and its realloc extends a block in place only into room the heap already has: a block at the
// top of the heap, growing past the heap's end, was moved to a new place above itself, and the old one,
// its pages touched, stayed in the process's memory. So each doubling left the table's previous sizes
// behind, about as much again as the table (20M keys: a heap of 288 MB for a table of 141 MB). Taking the
// room first and giving it back makes it the heap's free top, which realloc then extends into: the table
// stays where it is. A block that is not at the top is moved as before (the room given back is where it
// goes). When the room cannot be had, neither can the larger block: realloc says so. A realloc that then
// fails anyway (a block not at the top, and no room for its copy) leaves the heap grown by the room, free
// for later use: a heap that is full was so before too.
// The sizes are 64-bit: a table's, computed from its bucket count, may pass what this build addresses (in
// wasm, 4 GiB); then nullptr, where realloc would have taken the size cut to 32 bits (a table widened past
// 4 GiB was shrunk, then written past its end).
[[nodiscard]] CUCKOO_OUT_OF_LINE_IN_WASM inline void* grow_block(void* p, [[maybe_unused]] std::uint64_t old_bytes,
                                                                 std::uint64_t new_bytes) noexcept {
  if (!addressable(new_bytes)) return nullptr;
#if defined(__EMSCRIPTEN__)
  if (new_bytes > old_bytes) {
    // volatile: the compiler may remove a malloc whose block is only freed, and did.
    void* volatile room = std::malloc(static_cast<std::size_t>(new_bytes - old_bytes));
    std::free(room);
  }
#endif
  return std::realloc(p, static_cast<std::size_t>(new_bytes));
}

}  // namespace detail
}  // namespace v1
}  // namespace cuckoo
