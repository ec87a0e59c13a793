// Helpers shared by the elementwise op families (private to src/op): elementwise.cc,
// activation.cc and logical.cc. Operand dtype checks, broadcasting inference, exact integer
// element access and wrapping integer arithmetic.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "uma/graph/tensor.h"
#include "uma/graph/type.h"
#include "uma/support/error.h"

namespace uma::elementwise {

// The dtypes an op accepts for an operand.
enum class Accepts { Numbers, Floats, Bools, Any };

// `subject` names the operand(s) so the message reads naturally: "operand is", "operands
// are", "slope is".
Status check_dtype(DType dtype, Accepts accepts, std::string_view subject);

// Two tensor operands of one dtype that `accepts` allows, broadcast together (numpy rules).
// The result has their dtype and the broadcast shape.
Expected<TensorType> infer_broadcast(const std::vector<Type>& inputs, Accepts accepts);

// Integer and bool elements as int64: unlike Tensor::get, exact for every i64 value.
std::int64_t get_int(const Tensor& t, std::int64_t i);
// Stores the value modulo 2^bits of an integer dtype; for bool, stores value != 0.
void set_int(Tensor& t, std::int64_t i, std::int64_t value);

// The smallest and largest value of an integer dtype.
std::int64_t int_min(DType dtype);
std::int64_t int_max(DType dtype);

// Wrapping int64 arithmetic (unsigned arithmetic is modular; signed overflow is undefined).
inline std::int64_t int_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline std::int64_t int_subtract(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
inline std::int64_t int_multiply(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
inline std::int64_t int_negative(std::int64_t a) { return int_subtract(0, a); }

// `value` truncated toward zero and clamped to [lo, hi], which holds 0; NaN gives 0. Defined
// for every double, unlike a C++ float-to-integer conversion.
std::int64_t saturating_int(double value, std::int64_t lo, std::int64_t hi);

}  // namespace uma::elementwise
