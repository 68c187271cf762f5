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
