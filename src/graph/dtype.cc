// Element types: names, sizes and 16-bit float conversions.
#include "uma/graph/dtype.h"

#include <bit>
#include <cstring>

namespace uma {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
#define UMA_DTYPE_NAME(e, name, type, bytes, kind) \
  case DType::e:                                   \
    return name;
    UMA_FOR_EACH_DTYPE(UMA_DTYPE_NAME)
#undef UMA_DTYPE_NAME
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
#define UMA_DTYPE_PARSE(e, text, type, bytes, kind) \
  if (name == text) return DType::e;
  UMA_FOR_EACH_DTYPE(UMA_DTYPE_PARSE)
#undef UMA_DTYPE_PARSE
  return std::nullopt;
}

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
#define UMA_DTYPE_SIZE(e, name, type, bytes, kind) \
  case DType::e:                                   \
    return bytes;
    UMA_FOR_EACH_DTYPE(UMA_DTYPE_SIZE)
#undef UMA_DTYPE_SIZE
  }
  return 0;
}

DTypeKind dtype_kind(DType dtype) {
  switch (dtype) {
#define UMA_DTYPE_KIND(e, name, type, bytes, kind) \
  case DType::e:                                   \
    return kind;
    UMA_FOR_EACH_DTYPE(UMA_DTYPE_KIND)
#undef UMA_DTYPE_KIND
  }
  return DTypeKind::Bool;
}

bool is_float(DType dtype) { return dtype_kind(dtype) == DTypeKind::Float; }

bool is_integer(DType dtype) {
  DTypeKind kind = dtype_kind(dtype);
  return kind == DTypeKind::Signed || kind == DTypeKind::Unsigned;
}

bool is_unsigned(DType dtype) { return dtype_kind(dtype) == DTypeKind::Unsigned; }

std::string_view dtype_names() {
#define UMA_DTYPE_LISTED(e, name, type, bytes, kind) ", " name
  static constexpr std::string_view kAll = "" UMA_FOR_EACH_DTYPE(UMA_DTYPE_LISTED);
#undef UMA_DTYPE_LISTED
  return kAll.substr(2);
}

float f16_to_f32(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1f;
  std::uint32_t mantissa = h & 0x3ff;
  std::uint32_t bits;
  if (exponent == 0x1f) {  // inf or nan
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {  // normal
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // zero
    bits = sign;
  } else {  // subnormal: value = mantissa * 2^-24, exact in f32
    float value = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -value : value;
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t f32_to_f16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  std::uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00u;   // nan stays a (quiet) nan
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to or beyond infinity
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero): scale so the f16 subnormal step is 1, round to even.
    float magnitude = std::bit_cast<float>(abs) * 0x1p24f;
    std::uint32_t m = static_cast<std::uint32_t>(magnitude);
    float fraction = magnitude - static_cast<float>(m);
    if (fraction > 0.5f || (fraction == 0.5f && (m & 1u))) ++m;
    return static_cast<std::uint16_t>(sign | m);
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits to nearest even.
  std::uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

float bf16_to_f32(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t f32_to_bf16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  std::uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

}  // namespace uma
