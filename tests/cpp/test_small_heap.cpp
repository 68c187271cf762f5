// The lite module's allocator (cpp/wasm/small_heap.hpp), run here over an array: every live block keeps its
// bytes whatever else is allocated, moved or freed (an exact model of what each holds), payloads are
// aligned, freed neighbours join, and a block that does not fit is refused with the heap unchanged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "../../cpp/wasm/small_heap.hpp"

namespace {

// An arena of `bytes`, starting `skew` bytes past an 8-aligned address (the heap aligns its start), that
// grows up to its end like linear memory and no further.
struct Arena {
  std::vector<std::uint8_t>* storage;
  std::size_t skew;
  std::uint64_t* reached;
  [[nodiscard]] void* base() const noexcept { return storage->data() + skew; }
  [[nodiscard]] bool reach(std::uint64_t end) const noexcept {
    const auto limit = std::uint64_t{reinterpret_cast<std::uintptr_t>(storage->data())} + storage->size();
    if (end > limit) return false;
    *reached = std::max(*reached, end);
    return true;
  }
};

using Heap = cuckoo_wasm::SmallHeap<Arena>;

struct Live {
  std::uint8_t* p;
  std::size_t bytes;
  std::uint8_t fill;
};

bool holds(const Live& b) {
  return std::all_of(b.p, b.p + b.bytes, [&](std::uint8_t v) { return v == b.fill; });
}

bool disjoint(std::vector<Live> live) {
  std::sort(live.begin(), live.end(), [](const Live& a, const Live& b) { return a.p < b.p; });
  for (std::size_t i = 1; i < live.size(); ++i)
    if (live[i - 1].p + live[i - 1].bytes > live[i].p) return false;
  return true;
}

}  // namespace

TEST_CASE("small heap: blocks keep their bytes through random allocations, reallocations and frees", "[small_heap]") {
  for (const std::size_t skew : {0u, 3u}) {
    std::vector<std::uint8_t> storage(std::size_t{4} << 20);
    std::uint64_t reached = 0;
    Heap heap(Arena{&storage, skew, &reached});
    std::mt19937_64 rng(skew + 11);
    std::vector<Live> live;
    std::uint8_t next_fill = 1;
    std::size_t refused = 0;
    for (int step = 0; step < 20000; ++step) {
      const auto op = rng() % 10;
      // Mostly small blocks, some large enough that the arena runs out.
      const std::size_t bytes = rng() % 8 == 0 ? rng() % (std::size_t{1} << 20) : rng() % 200;
      if (op < 4 || live.empty()) {
        const bool aligned = op == 3;
        const std::size_t alignment = std::size_t{16} << (rng() % 8);
        auto* p = static_cast<std::uint8_t*>(aligned ? heap.allocate_aligned(alignment, bytes) : heap.allocate(bytes));
        if (p == nullptr) {
          ++refused;
          continue;
        }
        REQUIRE(reinterpret_cast<std::uintptr_t>(p) % (aligned ? alignment : 8) == 0);
        REQUIRE(Heap::usable(p) >= bytes);
        std::memset(p, next_fill, bytes);
        live.push_back({p, bytes, next_fill});
      } else if (op < 7) {
        const std::size_t i = rng() % live.size();
        REQUIRE(holds(live[i]));
        heap.release(live[i].p);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        Live& b = live[rng() % live.size()];
        REQUIRE(holds(b));
        auto* p = static_cast<std::uint8_t*>(heap.reallocate(b.p, bytes));
        if (p == nullptr) {
          ++refused;
          REQUIRE(holds(b));  // untouched
          continue;
        }
        REQUIRE(reinterpret_cast<std::uintptr_t>(p) % 8 == 0);
        // What it held, up to the smaller size, is still there; the rest is written anew.
        REQUIRE(std::all_of(p, p + std::min(b.bytes, bytes), [&](std::uint8_t v) { return v == b.fill; }));
        std::memset(p, next_fill, bytes);
        b = {p, bytes, next_fill};
      }
      next_fill = static_cast<std::uint8_t>(next_fill % 250 + 1);
      if (step % 500 == 0) {
        REQUIRE(disjoint(live));
        for (const Live& b : live) REQUIRE(holds(b));
      }
    }
    CHECK(refused > 0);  // the arena's end was met, and the heap went on
    REQUIRE(disjoint(live));
    for (const Live& b : live) {
      REQUIRE(holds(b));
      heap.release(b.p);
    }
    // Every block freed joined its neighbours: one block takes all the arena the heap reached.
    const auto start = (std::uint64_t{reinterpret_cast<std::uintptr_t>(storage.data())} + skew + 7) & ~std::uint64_t{7};
    void* all = heap.allocate(static_cast<std::size_t>(reached - start - 16));
    CHECK(all != nullptr);
    heap.release(all);
  }
}

TEST_CASE("small heap: a block past its limit or the memory's end is refused, and the heap is unchanged",
          "[small_heap]") {
  std::vector<std::uint8_t> storage(std::size_t{1} << 20);
  std::uint64_t reached = 0;
  Heap heap(Arena{&storage, 0, &reached});
  auto* a = static_cast<std::uint8_t*>(heap.allocate(1000));
  REQUIRE(a != nullptr);
  std::memset(a, 7, 1000);
  CHECK(heap.allocate(SIZE_MAX) == nullptr);
  CHECK(heap.allocate(SIZE_MAX - 7) == nullptr);
  CHECK(heap.allocate(static_cast<std::size_t>(Heap::kMaxBlock)) == nullptr);
  CHECK(heap.allocate_aligned(1 << 20, static_cast<std::size_t>(Heap::kMaxBlock) - 64) == nullptr);
  CHECK(heap.allocate(std::size_t{2} << 20) == nullptr);  // more than the arena
  CHECK(heap.reallocate(a, std::size_t{2} << 20) == nullptr);
  CHECK(std::all_of(a, a + 1000, [](std::uint8_t v) { return v == 7; }));
  // The block at the top grows where it is, into memory the heap had not reached.
  auto* grown = static_cast<std::uint8_t*>(heap.reallocate(a, 500000));
  CHECK(grown == a);
  CHECK(std::all_of(a, a + 1000, [](std::uint8_t v) { return v == 7; }));
  // A block freed and asked for again comes from the free list, not from new memory.
  const std::uint64_t before = reached;
  heap.release(grown);
  void* again = heap.allocate(400000);
  CHECK(again == a);
  CHECK(reached == before);
}

TEST_CASE("small heap: a small block takes a small hole, not the large one a table left", "[small_heap]") {
  std::vector<std::uint8_t> storage(std::size_t{64} << 20);
  std::uint64_t reached = 0;
  Heap heap(Arena{&storage, 0, &reached});
  std::vector<void*> pins;
  for (int i = 0; i < 10; ++i) pins.push_back(heap.allocate(100));
  void* table = heap.allocate(std::size_t{20} << 20);
  void* pin = heap.allocate(100);
  void* other = heap.allocate(std::size_t{19} << 20);
  REQUIRE((table != nullptr && pin != nullptr && other != nullptr));
  // A small hole, then the table's large one, freed last.
  void* const small_hole = pins[5];
  heap.release(small_hole);
  heap.release(table);
  CHECK(heap.allocate(100) == small_hole);
  // So the table fits in its own old place again (it went on to the top of the heap, or failed there).
  const std::uint64_t before = reached;
  CHECK(heap.allocate(std::size_t{20} << 20) == table);
  CHECK(reached == before);
}

TEST_CASE("small heap: a table rebuilt larger each round beside one small block keeps the heap in proportion",
          "[small_heap]") {
  std::vector<std::uint8_t> storage(std::size_t{256} << 20);
  std::uint64_t reached = 0;
  Heap heap(Arena{&storage, 0, &reached});
  void* previous = nullptr;
  std::size_t largest = 0;
  for (std::size_t round = 1; round <= 400; ++round) {
    largest = round * 4096;
    void* current = heap.allocate(largest);
    REQUIRE(current != nullptr);
    REQUIRE(heap.allocate(64) != nullptr);  // kept
    heap.release(previous);
    previous = current;
  }
  // The tables' sizes add up to 330 MB; taking each small block from the last table's hole stranded the rest
  // of it, and the heap grew by most of that. Here it stays within a few of the largest tables (12 MB for
  // tables of up to 1.6 MB; through the package, 600 rounds of the same: 30 MB, dlmalloc's 29).
  const auto start = std::uint64_t{reinterpret_cast<std::uintptr_t>(storage.data())};
  INFO(reached - start);
  CHECK(reached - start < 10 * largest);
}
