// What the bindings of both wasm modules (bindings.cpp, redis_bindings.cpp) share: objects travel as
// handles (their addresses), keys as (address, length) in the heap, and errors as the last Status.
#pragma once

#include <cuckoo/status.hpp>
#include <cstdint>
#include <span>
#include <string>

namespace cuckoo_wasm {

using Handle = std::uint32_t;

// Set by every call that can fail; read by the wrapper right after a failure (last_error_code/message).
inline cuckoo::Status g_last_error;

inline int last_error_code() { return static_cast<int>(g_last_error.code); }
inline std::string last_error_message() { return g_last_error.message; }

template <class T>
T& object_at(Handle h) {
  return *reinterpret_cast<T*>(static_cast<std::uintptr_t>(h));
}

// The handle of a new object, or 0 (out_of_memory) when `new (std::nothrow)` gave none.
template <class T>
Handle handle_of(T* object, const char* what) {
  if (object == nullptr) {
    g_last_error = cuckoo::Status::error(cuckoo::ErrorCode::out_of_memory, std::string("cannot allocate the ") + what);
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
