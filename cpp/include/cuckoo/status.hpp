// The error codes and the Status of the non-throwing API.
#pragma once

#include <string>
#include <utility>

namespace cuckoo {
inline namespace v1 {

// The numbers cross the wasm boundary (js/src/abi.ts is generated from cpp/wasm/abi.hpp): never renumber.
enum class ErrorCode : int { ok = 0, invalid_argument = 1, bad_format = 2, out_of_memory = 3, capacity_exceeded = 4 };

// The one funnel for errors of the non-throwing API (used by the wasm binding, which is built without
// exceptions); the throwing API turns a Status into an exception.
struct Status {
  ErrorCode code = ErrorCode::ok;
  std::string message;
  [[nodiscard]] bool ok() const noexcept { return code == ErrorCode::ok; }
  [[nodiscard]] static Status error(ErrorCode c, std::string m) { return Status{c, std::move(m)}; }
};

}  // namespace v1
}  // namespace cuckoo
