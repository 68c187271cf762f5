// The reserve of memory_reserve.hpp, and the module's replacements of the global operator new: compiled
// into each wasm module once (cpp/wasm/wasm_module.cmake).
#include "memory_reserve.hpp"

#include <cstdlib>
#include <new>

namespace cuckoo_wasm {

namespace {
void* g_reserve = nullptr;
}  // namespace

bool hold_reserve() noexcept {
  if (g_reserve == nullptr) g_reserve = std::malloc(kReserveBytes);
  return g_reserve != nullptr;
}

}  // namespace cuckoo_wasm

void* operator new(std::size_t size) {
  if (size == 0) size = 1;
  for (;;) {
    if (void* p = std::malloc(size)) return p;
    // Only reached by a call that did not take the reserve, or allocated more than it: a bug, not a
    // state of the heap.
    if (cuckoo_wasm::g_reserve == nullptr) std::abort();
    std::free(cuckoo_wasm::g_reserve);
    cuckoo_wasm::g_reserve = nullptr;
  }
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return std::malloc(size == 0 ? 1 : size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return std::malloc(size == 0 ? 1 : size); }
// The library's operator delete frees with free(), which is what these allocate with.
