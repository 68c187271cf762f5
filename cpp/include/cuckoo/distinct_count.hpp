// An estimate of how many distinct keys a stream holds, in 16 KiB whatever its length: HyperLogLog
// (Flajolet, Fusy, Gandouet and Meunier, 2007) over the keys' 64-bit hashes, with linear counting for small
// counts. 2^14 registers give a relative standard error of 1.04 / 2^7, about 0.81%. The `cuckoo` command
// reads a file once with it (LineDeduper::count_distinct) to start its filter at the size the file's keys
// need, instead of doubling into a table up to twice that.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "detail/compiler.hpp"

namespace cuckoo {
inline namespace v1 {

class DistinctCount {
 public:
  static constexpr unsigned kIndexBits = 14;
  static constexpr std::size_t kRegisters = std::size_t{1} << kIndexBits;

  // A well-mixed hash (XXH3's): its top kIndexBits bits pick a register, which keeps the most leading
  // zeros, plus one, seen in the other bits (a marker bit below them bounds the count at 64 - kIndexBits).
  void add(std::uint64_t hash) noexcept {
    const auto index = static_cast<std::size_t>(hash >> (64 - kIndexBits));
    const std::uint64_t rest = (hash << kIndexBits) | (std::uint64_t{1} << (kIndexBits - 1));
    const auto rank = static_cast<std::uint8_t>(std::countl_zero(rest) + 1);
    if (rank > registers_[index]) registers_[index] = rank;
  }

  // The registers (kRegisters bytes): a count of another part of the stream, merged into this one, makes
  // the count of both parts, exactly as if one count had seen every key (a register keeps a maximum).
  [[nodiscard]] const std::uint8_t* registers() const noexcept { return registers_.data(); }
  CUCKOO_COLD void merge(const std::uint8_t* other) noexcept {
    for (std::size_t i = 0; i < kRegisters; ++i)
      if (other[i] > registers_[i]) registers_[i] = other[i];
  }

  // The estimate: the registers' harmonic mean, bias-corrected (alpha_m), or below 2.5 m keys, while some
  // registers are still 0, linear counting (the raw estimate is biased there). 64-bit hashes need no
  // large-range correction.
  [[nodiscard]] CUCKOO_COLD double estimate() const noexcept {
    double sum = 0;
    std::size_t zeros = 0;
    for (const std::uint8_t r : registers_) {
      sum += 1.0 / static_cast<double>(std::uint64_t{1} << r);  // r <= 51: exact
      zeros += r == 0;
    }
    constexpr double m = static_cast<double>(kRegisters);
    const double raw = 0.7213 / (1 + 1.079 / m) * m * m / sum;
    if (raw <= 2.5 * m && zeros > 0) return m * natural_log(m / static_cast<double>(zeros));
    return raw;
  }

  // ln x for x >= 1, here rather than std::log: the wasm module has no log of its own, and musl's brings a
  // 4 KiB table. x = 2^k y with y in [1, 2), ln y = 2 atanh(z) = 2 (z + z^3 / 3 + ...), z = (y - 1) / (y + 1)
  // <= 1/3: 30 terms are exact to a double.
  [[nodiscard]] CUCKOO_COLD static double natural_log(double x) noexcept {
    int k = 0;
    while (x >= 2) {
      x /= 2;
      ++k;
    }
    const double z = (x - 1) / (x + 1);
    double term = z;
    double sum = 0;
    for (int n = 1; n < 60; n += 2) {
      sum += term / n;
      term *= z * z;
    }
    return k * 0.693147180559945309417 + 2 * sum;
  }

 private:
  std::array<std::uint8_t, kRegisters> registers_{};
};

}  // namespace v1
}  // namespace cuckoo
