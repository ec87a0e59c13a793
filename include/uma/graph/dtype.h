// Element types of tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace uma {

// One list of element types, expanded everywhere: (enumerator, text name, C++ storage type,
// bytes, kind). f16 and bf16 are stored as their raw 16-bit patterns.
#define UMA_FOR_EACH_DTYPE(X)                          \
  X(f32, "f32", float, 4, DTypeKind::Float)            \
  X(f16, "f16", std::uint16_t, 2, DTypeKind::Float)    \
  X(bf16, "bf16", std::uint16_t, 2, DTypeKind::Float)  \
  X(f64, "f64", double, 8, DTypeKind::Float)           \
  X(i8, "i8", std::int8_t, 1, DTypeKind::Signed)       \
  X(i16, "i16", std::int16_t, 2, DTypeKind::Signed)    \
  X(i32, "i32", std::int32_t, 4, DTypeKind::Signed)    \
  X(i64, "i64", std::int64_t, 8, DTypeKind::Signed)    \
  X(u8, "u8", std::uint8_t, 1, DTypeKind::Unsigned)    \
  X(u16, "u16", std::uint16_t, 2, DTypeKind::Unsigned) \
  X(u32, "u32", std::uint32_t, 4, DTypeKind::Unsigned) \
  X(u64, "u64", std::uint64_t, 8, DTypeKind::Unsigned) \
  X(boolean, "bool", std::uint8_t, 1, DTypeKind::Bool)

enum class DTypeKind : std::uint8_t { Float, Signed, Unsigned, Bool };

enum class DType : std::uint8_t {
#define UMA_DTYPE_ENUM(e, name, type, bytes, kind) e,
  UMA_FOR_EACH_DTYPE(UMA_DTYPE_ENUM)
#undef UMA_DTYPE_ENUM
};

std::string_view dtype_name(DType dtype);
std::optional<DType> parse_dtype(std::string_view name);
std::size_t dtype_size(DType dtype);
DTypeKind dtype_kind(DType dtype);
bool is_float(DType dtype);
bool is_integer(DType dtype);   // signed or unsigned integers, not bool
bool is_unsigned(DType dtype);  // unsigned integers, not bool
// Every dtype's text name, in the list's order, separated by ", " (for messages).
std::string_view dtype_names();

// Conversions between f32 and the 16-bit float formats (round to nearest even).
float f16_to_f32(std::uint16_t bits);
std::uint16_t f32_to_f16(float value);
float bf16_to_f32(std::uint16_t bits);
std::uint16_t f32_to_bf16(float value);

}  // namespace uma
