// Running out of memory in a module built without exceptions. A failed `new` has nothing to throw: the
// module would abort, and an abort in the middle of a call leaves the module's stack pointer where the
// call had moved it (thousands of aborts later the stack runs into the heap and corrupts filters). The
// core allocates its tables and bookkeeping with malloc or nothrow new and reports a failure as a Status;
// what is left to `new` is small and short-lived (the Status's message, std::to_string's text).
//
// For those, each module keeps a reserve of kReserveBytes. Every call that may allocate first makes sure it
// holds the reserve (handles.hpp, memory_for_call), and is refused with out_of_memory, before it changes
// anything, when the heap cannot give it back; a `new` that finds the heap full frees the reserve and
// tries again. So within a call, `new` can fail only after more than kReserveBytes of such allocations,
// which no call makes. Nothrow `new` never touches the reserve: its callers handle null themselves.
#pragma once

#include <cstddef>

namespace cuckoo_wasm {

inline constexpr std::size_t kReserveBytes = std::size_t{64} << 10;

// True when the reserve is held (taken again from the heap if a `new` has spent it).
bool hold_reserve() noexcept;

}  // namespace cuckoo_wasm
