// C types and literals of the generated code.
#include "c_types.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace uma::codegen {

std::string_view value_type(DType dtype) {
  switch (dtype) {
    case DType::f32:
    case DType::f16:
    case DType::bf16:
      return "float";
    case DType::f64:
      return "double";
    case DType::i8:
      return "int8_t";
    case DType::i16:
      return "int16_t";
    case DType::i32:
      return "int32_t";
    case DType::i64:
      return "int64_t";
    case DType::u8:
      return "uint8_t";
    case DType::u16:
      return "uint16_t";
    case DType::u32:
      return "uint32_t";
    case DType::u64:
      return "uint64_t";
    case DType::boolean:
      return "bool";
  }
  return "?";
}

std::string_view storage_type(DType dtype) {
  if (dtype == DType::f16 || dtype == DType::bf16) return "uint16_t";
  if (dtype == DType::boolean) return "uint8_t";
  return value_type(dtype);
}

std::string c_type(tir::DataType type) {
  if (type.handle) return "void*";
  return std::string(value_type(type.dtype));
}

std::string const_declaration(tir::DataType type, const std::string& name) {
  if (type.handle) return "void* const " + name;
  return fmt::format("const {} {}", value_type(type.dtype), name);
}

std::string_view helper_suffix(DType dtype) {
  switch (dtype) {
    case DType::f32:
    case DType::f16:
    case DType::bf16:
      return "f32";
    case DType::f64:
      return "f64";
    case DType::i64:
      return "i64";
    case DType::u32:
      return "u32";
    case DType::u64:
      return "u64";
    default:
      return "i32";  // narrower integers and bool promote to int
  }
}

std::string int_literal(tir::DataType type, std::int64_t value, bool typed) {
  DType dtype = type.dtype;
  if (dtype == DType::boolean) return value != 0 ? "true" : "false";
  if (dtype == DType::u64) return fmt::format("UINT64_C({})", static_cast<std::uint64_t>(value));
  if (dtype == DType::i64 && value == std::numeric_limits<std::int64_t>::min()) return "INT64_MIN";
  bool fits_int = value >= std::numeric_limits<std::int32_t>::min() &&
                  value <= std::numeric_limits<std::int32_t>::max();
  if (!fits_int) {
    if (dtype == DType::u32) return fmt::format("{}u", value);
    return fmt::format("INT64_C({})", value);
  }
  // int32 arithmetic on literals is already int; wider or unsigned types need the cast.
  if (typed && dtype != DType::i32 && dtype != DType::i16 && dtype != DType::i8)
    return fmt::format("({}){}", value_type(dtype), value);
  return fmt::format("{}", value);
}

std::string float_literal(tir::DataType type, double value) {
  bool single = type.dtype != DType::f64;
  if (std::isnan(value)) return single ? "NAN" : "(double)NAN";
  if (std::isinf(value)) {
    std::string inf = single ? "INFINITY" : "(double)INFINITY";
    return value < 0 ? "-" + inf : inf;
  }
  // The shortest text that reads back as the same value ({} in fmt), with a '.' or an
  // exponent so C reads it as a floating literal.
  std::string text =
      single ? fmt::format("{}", static_cast<float>(value)) : fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return single ? text + "f" : text;
}

}  // namespace uma::codegen
