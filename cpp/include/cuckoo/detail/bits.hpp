// Loads, stores and word-at-a-time (SWAR) helpers: the one place where bytes become integers.
//
// Both targets (x86-64, wasm32) are little-endian. The native loads below are only used where that is
// checked (the packed table, the short-key hash) or where byte order does not matter (zero-byte search);
// the export format goes through put_le / get_le, which are explicit about it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <cstring>
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cuckoo {
inline namespace v1 {
namespace detail {

inline constexpr bool kLittleEndian = std::endian::native == std::endian::little;

[[nodiscard]] inline std::uint32_t load32(const std::uint8_t* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[nodiscard]] inline std::uint64_t load64(const std::uint8_t* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void store64(std::uint8_t* p, std::uint64_t v) noexcept { std::memcpy(p, &v, sizeof v); }

// Fields of a little-endian bit stream (the packed tables: bit k of the stream is bit k % 8 of byte k / 8).
// A 64-bit load at the field's first byte must stay in bounds (the tables' tail padding).

// The 64 bits of the stream from bit `bit` on (bits past a field belong to its neighbours).
[[nodiscard]] inline std::uint64_t bits_at(const std::uint8_t* data, std::uint64_t bit) noexcept {
  return load64(data + bit / 8) >> (bit % 8);
}

// Replaces the field of the stream at bit `bit` (width given by `field_mask`, at most 57 bits); the
// neighbours sharing the 64-bit word are rewritten with their own bits.
inline void store_field(std::uint8_t* data, std::uint64_t bit, std::uint64_t field_mask, std::uint64_t value) noexcept {
  std::uint8_t* p = data + bit / 8;
  const unsigned shift = static_cast<unsigned>(bit % 8);
  store64(p, (load64(p) & ~(field_mask << shift)) | (static_cast<std::uint64_t>(value) << shift));
}

// `bytes` little-endian bytes, whatever the machine's byte order (the export format).
inline void put_le(std::uint8_t* out, std::uint64_t value, unsigned bytes) noexcept {
  for (unsigned i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

[[nodiscard]] inline std::uint64_t get_le(const std::uint8_t* in, unsigned bytes) noexcept {
  std::uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return value;
}

[[nodiscard]] constexpr std::uint32_t byteswap32(std::uint32_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_bswap32(x);
#else
  return (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
#endif
}

[[nodiscard]] constexpr std::uint64_t byteswap64(std::uint64_t x) noexcept {
#if defined(__wasm__)
  // wasm has no byte swap, and LLVM expands its bswap byte by byte (35 instructions with their constants).
  // Halves swapped with one rotate, then 16-bit and 8-bit fields with two masks, two shifts and an or
  // each: 20 with their constants (KeyHasher's 9 to 16 byte keys swap a word each). The empty asm keeps
  // LLVM from seeing a byte swap in the steps and expanding it again.
  if (!std::is_constant_evaluated()) {
    std::uint64_t y = (x << 32) | (x >> 32);
    __asm__("" : "+r"(y));
    y = ((y & 0x0000FFFF0000FFFFull) << 16) | ((y >> 16) & 0x0000FFFF0000FFFFull);
    return ((y & 0x00FF00FF00FF00FFull) << 8) | ((y >> 8) & 0x00FF00FF00FF00FFull);
  }
#endif
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_bswap64(x);
#else
  return (std::uint64_t{byteswap32(static_cast<std::uint32_t>(x))} << 32) |
         byteswap32(static_cast<std::uint32_t>(x >> 32));
#endif
}

// SWAR over f-bit fields, `low` holding bit 0 of each field and `high` its top bit. Non-zero iff some
// field of x is zero; its lowest set bit is the top bit of the lowest zero field (bits above that one may
// be spurious, from the borrow).
[[nodiscard]] inline std::uint64_t zero_fields(std::uint64_t x, std::uint64_t low, std::uint64_t high) noexcept {
  return (x - low) & ~x & high;
}

// zero_fields for 8-bit fields: the byte `byte` in a word.
inline constexpr std::uint64_t kByteLows = 0x0101010101010101ULL;
[[nodiscard]] inline std::uint64_t bytes_equal_to(std::uint64_t word, std::uint8_t byte) noexcept {
  return zero_fields(word ^ (kByteLows * byte), kByteLows, kByteLows * 0x80);
}

// Bit k set where byte k of data[0, 64) is `byte`, a word at a time (SWAR): exact, unlike bytes_equal_to's
// higher bits (a byte's low 7 bits plus 0x7F carry into its top bit only within it, so no borrow crosses
// bytes). The eight flags of a word are gathered into its byte of the mask by one multiply: flag j (bit
// 8j) times 2^(56 - 7i) lands on bit 56 + 8j - 7i, which is in the top byte only for i = j, and no two
// products share a bit (8 (j - j') = 7 (i - i') has no other solution in 0 .. 7), so nothing carries.
// byte_mask64 below where a target has no 16-byte vectors.
[[nodiscard]] inline std::uint64_t byte_mask64_words(const std::uint8_t* data, std::uint8_t byte) noexcept {
  constexpr std::uint64_t kLow7 = kByteLows * 0x7F;
  constexpr std::uint64_t kGather = 0x0102040810204080ULL;
  std::uint64_t mask = 0;
  for (unsigned k = 0; k < 8; ++k) {
    const std::uint64_t x = load64(data + 8 * k) ^ (kByteLows * byte);
    const std::uint64_t equal = ~(((x & kLow7) + kLow7) | x) & (kByteLows * 0x80);
    mask |= (((equal >> 7) * kGather) >> 56) << (8 * k);
  }
  return mask;
}

// Bit k set where byte k of data[0, 64) is `byte`: four 16-byte compares, each one mask of 16 bits
// (WebAssembly SIMD's i8x16.eq and i8x16.bitmask, SSE2's pcmpeqb and pmovmskb natively). In wasm a count
// of 10M log lines (527 MB, one thread) took 278-288 ms this way against 336 ms a word at a time
// (docs/PERFORMANCE.md, "WebAssembly SIMD for the line ends").
[[nodiscard]] inline std::uint64_t byte_mask64(const std::uint8_t* data, std::uint8_t byte) noexcept {
#if defined(__wasm_simd128__)
  const v128_t pattern = wasm_i8x16_splat(static_cast<std::int8_t>(byte));
  std::uint64_t mask = 0;
  for (unsigned k = 0; k < 4; ++k)
    mask |= std::uint64_t{wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(data + 16 * k), pattern))} << (16 * k);
  return mask;
#elif defined(__SSE2__)
  const __m128i pattern = _mm_set1_epi8(static_cast<char>(byte));
  std::uint64_t mask = 0;
  for (unsigned k = 0; k < 4; ++k) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * k));
    mask |= std::uint64_t{static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, pattern)))} << (16 * k);
  }
  return mask;
#else
  return byte_mask64_words(data, byte);
#endif
}

// True when some f-bit field of word1 or of word2 equals `fingerprint`: XOR turns matches into zero
// fields, then the zero-field test. Exact as a yes/no: a borrow only leaves a field that is zero.
[[nodiscard]] inline bool either_has_field_equal(std::uint64_t word1, std::uint64_t word2, std::uint32_t fingerprint,
                                                 std::uint64_t low, std::uint64_t high) noexcept {
  const std::uint64_t pattern = fingerprint * low;
  return (zero_fields(word1 ^ pattern, low, high) | zero_fields(word2 ^ pattern, low, high)) != 0;
}

// The field whose top bit is the lowest set bit of a non-zero zero_fields() result: bit s*f + f - 1 gives
// s. `reciprocal` is ceil(2^16 / f): floor(n / f) == (n * reciprocal) >> 16 for every n <= 64, f <= 32.
[[nodiscard]] inline unsigned lowest_field(std::uint64_t zero_field_mask, unsigned reciprocal) noexcept {
  return (((static_cast<unsigned>(std::countr_zero(zero_field_mask)) + 1) * reciprocal) >> 16) - 1;
}

}  // namespace detail
}  // namespace v1
}  // namespace cuckoo
