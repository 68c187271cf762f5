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
