// C types and literals of the generated code.
#pragma once

#include <string>

#include "uma/tir/ir.h"

namespace uma::codegen {

// The C type a value of `dtype` is computed in: f16 and bf16 are computed as float.
std::string_view value_type(DType dtype);
// The C type a buffer of `dtype` holds: f16 and bf16 as raw uint16_t, bool as uint8_t.
std::string_view storage_type(DType dtype);
// A scalar's C type; handles are void*.
std::string c_type(tir::DataType type);
// `const T name` for a scalar (its element type for a vector), `void* const name` for a
// handle.
std::string const_declaration(tir::DataType type, const std::string& name);
// The suffix of the helper family for `dtype`'s arithmetic: "i32" for every signed type up
// to 32 bits (C promotes them), "i64", "u32", "u64", "f32" for every float up to 32 bits,
// "f64".
std::string_view helper_suffix(DType dtype);

// A C literal of the value. Integers that fit in int are bare; with `typed` they are cast
// to their IR type so arithmetic between two literals happens in that type.
std::string int_literal(tir::DataType type, std::int64_t value, bool typed);
// Floats round-trip exactly: "0.5f", "1e+30", "INFINITY", "NAN".
std::string float_literal(tir::DataType type, double value);

}  // namespace uma::codegen
