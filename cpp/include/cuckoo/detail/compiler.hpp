// Compiler attributes shared by the core.
#pragma once

// Marks code that runs once per filter (option checks, export reading, merge), not per key: compiled for
// size, so that the wasm module stays small while the per-key paths keep -O3.
#if defined(__clang__)
#define CUCKOO_COLD [[gnu::cold]] __attribute__((minsize))
#elif defined(__GNUC__)
#define CUCKOO_COLD [[gnu::cold]]
#else
#define CUCKOO_COLD
#endif

// A function called from many inlined places that need not be fast in wasm: one copy in the module
// instead of one per caller (the package's size budget); natively it is inlined as usual.
#if defined(__wasm__)
#define CUCKOO_OUT_OF_LINE_IN_WASM [[gnu::noinline]]
#else
#define CUCKOO_OUT_OF_LINE_IN_WASM
#endif

#include <cstdint>

namespace cuckoo {
inline namespace v1 {
namespace detail {

// Where a batch keeps the value of its prefetches. WebAssembly has no prefetch instruction, so there a
// prefetch is a one-byte load (bucket_table.hpp's prefetch), which happens only if its value is kept: the
// batches fold their loads' values and keep them here, from const member functions. A module instance
// runs on one thread, so that write races with nothing. Natively a prefetch is a hint and its value 0, and
// nothing is written: lookups of one filter from several threads at once write nothing to it
// (tests/cpp/threads, under ThreadSanitizer).
class PrefetchSink {
 public:
  void keep(std::uint8_t touched) const noexcept {
#if defined(__wasm__)
    value_ = touched;
#else
    (void)touched;
#endif
  }

 private:
#if defined(__wasm__)
  mutable std::uint8_t value_ = 0;
#endif
};

}  // namespace detail
}  // namespace v1
}  // namespace cuckoo
