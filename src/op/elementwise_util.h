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
enum class Accepts { Numbers, Floats, Unsigned, Bools, Any };

// `subject` names the operand(s) so the message reads naturally: "operand is", "operands
// are", "slope is".
Status check_dtype(DType dtype, Accepts accepts, std::string_view subject);

// Two tensor operands of one dtype that `accepts` allows, broadcast together (numpy rules).
// The result has their dtype and the broadcast shape.
Expected<TensorType> infer_broadcast(const std::vector<Type>& inputs, Accepts accepts);

// Integer and bool elements as int64: unlike Tensor::get, exact for every i64 and u64 value.
// A u64 travels as its bit pattern (from 2^63 on it reads as negative): +, -, *, negation and
// narrowing give the same bits either way, but order, division and the sign do not, so
// kernels go through the dtype-aware helpers below for those.
std::int64_t get_int(const Tensor& t, std::int64_t i);
// Stores the value modulo 2^bits of an integer dtype; for bool, stores value != 0.
void set_int(Tensor& t, std::int64_t i, std::int64_t value);

// The value, as get_int reads it, mapped so that int64 order is the dtype's order (u64 flips
// its top bit; the others are themselves).
std::int64_t int_order_key(DType dtype, std::int64_t value);
// a < b for values of an integer or bool dtype as get_int reads them.
inline bool int_less(DType dtype, std::int64_t a, std::int64_t b) {
  return int_order_key(dtype, a) < int_order_key(dtype, b);
}

// The smallest and largest value of an integer dtype, as get_int would read them (u64's
// largest is all ones).
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
// a / b truncated toward zero, unsigned for u64; b must not be 0. INT64_MIN / -1 wraps like
// the negation it is.
std::int64_t int_divide(DType dtype, std::int64_t a, std::int64_t b);

// `value` truncated toward zero and clamped to the range of integer dtype `dtype`, as get_int
// would read the result; NaN gives 0. Defined for every double, unlike a C++ float-to-integer
// conversion.
std::int64_t saturating_int(double value, DType dtype);

}  // namespace uma::elementwise
