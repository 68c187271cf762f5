// Which parts of the core a build compiles. The package's lite WebAssembly module (cpp/wasm/lite_bindings.cpp,
// the cuckoo-wasm/lite entry) is built with CUCKOO_SIZED_ONLY: filters sized at creation, in plain buckets.
// There every test of growth (a chain, a table that doubles) and of semi-sorted buckets is the constant
// false, so the compiler drops those branches and the linker what only they reached: the same code as the
// full build for the rest, without a second definition of any of it.
#pragma once

namespace cuckoo::detail {

#if defined(CUCKOO_SIZED_ONLY)
inline constexpr bool kSizedOnly = true;
#else
inline constexpr bool kSizedOnly = false;
#endif

}  // namespace cuckoo::detail
