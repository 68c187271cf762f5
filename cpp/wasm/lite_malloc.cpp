// The lite module's malloc, free, calloc and realloc (linked with -sMALLOC=none): small_heap.hpp over the
// module's linear memory, from __heap_base (after the data and the stack) up. Nothing else in the module
// moves the break: sbrk is not called.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "small_heap.hpp"

extern "C" {
extern unsigned char __heap_base;
// The module's import that js/src/lite_module.ts provides (as Emscripten's standalone runtime declares it).
void emscripten_notify_memory_growth(std::size_t memory_index);
}

namespace {

struct LinearMemory {
  static constexpr std::uint64_t kPage = 65536;
  static constexpr std::uint64_t kEnd = std::uint64_t{1} << 32;  // wasm32 addresses

  [[nodiscard]] void* base() const noexcept { return &__heap_base; }
  // Grows by an eighth of the memory at the least (then by what `end` needs, if that much more cannot be
  // had): a memory.grow costs a millisecond or so, and growing by the pages asked for, one filter's at a
  // time, made 256 MB of small filters take 4,274 of them (10.8 s, against the full entry's 1.7).
  [[nodiscard]] bool reach(std::uint64_t end) const noexcept {
    const std::uint64_t have = std::uint64_t{__builtin_wasm_memory_size(0)} * kPage;
    if (end <= have) return true;
    if (end > kEnd) return false;
    const std::uint64_t needed = (end - have + kPage - 1) / kPage;
    const std::uint64_t ahead = std::min(std::max(needed, have / kPage / 8), (kEnd - have) / kPage);
    if (__builtin_wasm_memory_grow(0, static_cast<std::size_t>(ahead)) == SIZE_MAX &&
        __builtin_wasm_memory_grow(0, static_cast<std::size_t>(needed)) == SIZE_MAX)
      return false;
    emscripten_notify_memory_growth(0);  // the page's views of the memory are made anew
    return true;
  }
};

constinit cuckoo_wasm::SmallHeap<LinearMemory> heap;

}  // namespace

extern "C" {

void* malloc(std::size_t bytes) { return heap.allocate(bytes); }
void free(void* p) { heap.release(p); }
void* realloc(void* p, std::size_t bytes) { return heap.reallocate(p, bytes); }
void* calloc(std::size_t count, std::size_t size) {
  std::size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) return nullptr;
  void* p = heap.allocate(bytes);
  if (p != nullptr) std::memset(p, 0, bytes);
  return p;
}

int posix_memalign(void** out, std::size_t alignment, std::size_t bytes) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return 22;  // EINVAL
  void* p = heap.allocate_aligned(alignment, bytes);
  if (p == nullptr) return 12;  // ENOMEM
  *out = p;
  return 0;
}

}  // extern "C"
