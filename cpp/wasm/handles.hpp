// What the bindings of both wasm modules (bindings.cpp, redis_bindings.cpp) share: objects travel as
// handles (their addresses), keys as (address, length) in the heap, and errors as the last Status.
#pragma once

#include <cuckoo/detail/compiler.hpp>
#include <cuckoo/status.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "memory_reserve.hpp"

namespace cuckoo_wasm {

using Handle = std::uint32_t;

// The error of the last failed call, read by the wrapper right after it (lastErrorCode, and the text at
// lastErrorText). It lives in static memory, and recording or reading it never allocates: an error is
// reported even when the heap is full (embind would have had to malloc a std::string to return it).
struct LastError {
  cuckoo::ErrorCode code = cuckoo::ErrorCode::ok;
  char text[512] = {};  // NUL-terminated; the core's messages are ASCII, and a longer one is cut
};
inline LastError g_last_error;

// Records `message` under `code` (nothing for ok); returns code == ok. Out of line: every call that can
// fail records.
[[gnu::noinline]] CUCKOO_COLD inline bool record(cuckoo::ErrorCode code, const char* message,
                                                 std::size_t length) noexcept {
  g_last_error.code = code;
  if (code == cuckoo::ErrorCode::ok) return true;
  const std::size_t n = length < sizeof g_last_error.text - 1 ? length : sizeof g_last_error.text - 1;
  std::memcpy(g_last_error.text, message, n);
  g_last_error.text[n] = '\0';
  return false;
}
[[gnu::noinline]] CUCKOO_COLD inline bool record(const cuckoo::Status& s) noexcept {
  return record(s.code, s.message.data(), s.message.size());
}

inline int last_error_code() { return static_cast<int>(g_last_error.code); }
inline std::uint32_t last_error_text() {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(g_last_error.text));
}

// For the calls that may allocate (through operator new: messages, bookkeeping): true when the reserve is
// held (memory_reserve.hpp), so that nothing they allocate can abort the module; otherwise the call is
// refused with out_of_memory before it changes anything.
// Records that the heap is full; returns false.
[[gnu::noinline]] CUCKOO_COLD inline bool heap_is_full() noexcept {
  static constexpr char kFull[] = "the WebAssembly heap is full (dispose of filters you no longer need)";
  return record(cuckoo::ErrorCode::out_of_memory, kFull, sizeof kFull - 1);
}
[[gnu::noinline]] CUCKOO_COLD inline bool memory_for_call() noexcept { return hold_reserve() || heap_is_full(); }

template <class T>
T& object_at(Handle h) {
  return *reinterpret_cast<T*>(static_cast<std::uintptr_t>(h));
}

// The handle of a new object, or 0 (out_of_memory: `no_memory`, a message naming it) when
// `new (std::nothrow)` gave none.
[[gnu::noinline]] CUCKOO_COLD inline Handle handle_of(void* object, const char* no_memory) {
  if (object == nullptr) {
    record(cuckoo::ErrorCode::out_of_memory, no_memory, std::strlen(no_memory));
    return 0;
  }
  return static_cast<Handle>(reinterpret_cast<std::uintptr_t>(object));
}

inline const std::uint8_t* ptr(std::uint32_t address) {
  return reinterpret_cast<const std::uint8_t*>(static_cast<std::uintptr_t>(address));
}
inline std::uint8_t* mutable_ptr(std::uint32_t address) {
  return reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(address));
}
inline std::span<const std::uint8_t> key(std::uint32_t address, std::uint32_t length) { return {ptr(address), length}; }

}  // namespace cuckoo_wasm
