// Elementwise arithmetic: binary ops with numpy broadcasting (add, subtract, multiply,
// divide, maximum, minimum, power, floor_mod, trunc_mod, left_shift, right_shift), unary math
// (nn.relu, negative, abs, sigmoid, tanh, exp, log, sqrt, erf, reciprocal, the trigonometric
// and hyperbolic functions and their inverses, floor, ceil, round, sign) and cast.
//
// Semantics of the reference kernels:
// - Floating-point dtypes compute in double and round once to the result dtype. For +, -,
//   * and / that equals the dtype's own correctly rounded arithmetic, because double has
//   more than twice the precision of f32 (and f64 is double).
// - Integers compute in int64 (u64 as uint64) and wrap modulo 2^bits, as the generated C
//   does on every target we build for. Division truncates toward zero; a zero divisor is an
//   error.
//   power with a negative exponent truncates the real result toward zero (so it is 0
//   unless the base is 1 or -1); zero to a negative power is an error.
// - floor_mod is Python's (and ONNX Mod's with fmod = 0): the remainder has the divisor's
//   sign; trunc_mod is C's fmod (ONNX's fmod = 1): the remainder has the dividend's sign. A
//   zero integer divisor is an error.
// - left_shift and right_shift take unsigned integers; a shift by the width or more gives 0.
// - round rounds half to even; sign is -1, 0 or 1 (NaN and zeros stay themselves).
// - maximum, minimum and nn.relu propagate NaN, as numpy and PyTorch do.
// - cast follows ONNX's rules: floats to floats round to nearest even (beyond the range:
//   infinity); integers to integers wrap modulo 2^bits; anything to bool is "!= 0" (so NaN
//   is true); bool is 0 or 1. Floats to integers truncate toward zero; where ONNX leaves the
//   result undefined (out of range, NaN) we saturate to the integer type's range and map
//   NaN to 0, so every input has one defined result.
#include <cmath>
#include <memory>

#include "elementwise_util.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using namespace elementwise;

// Exponentiation by squaring, wrapping like repeated multiplication would. A u64 exponent
// is never negative. The kernel rejects 0 to a negative power first.
std::int64_t int_power(DType dtype, std::int64_t base, std::int64_t exponent) {
  if (int_less(dtype, exponent, 0)) {
    if (base == 1) return 1;
    if (base == -1) return exponent % 2 == 0 ? 1 : -1;
    return 0;
  }
  std::int64_t result = 1;
  for (auto e = static_cast<std::uint64_t>(exponent); e > 0; e /= 2) {
    if (e % 2 == 1) result = int_multiply(result, base);
    base = int_multiply(base, base);
  }
  return result;
}

double float_maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a > b ? a : b;
}
double float_minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a < b ? a : b;
}

// a - trunc(a / b) * b, and its floor variant, which moves a remainder whose sign differs
// from the divisor's by one divisor.
std::int64_t int_trunc_mod(DType dtype, std::int64_t a, std::int64_t b) {
  return int_subtract(a, int_multiply(int_divide(dtype, a, b), b));
}
std::int64_t int_floor_mod(DType dtype, std::int64_t a, std::int64_t b) {
  std::int64_t r = int_trunc_mod(dtype, a, b);
  bool differs = r != 0 && int_less(dtype, r, 0) != int_less(dtype, b, 0);
  return differs ? int_add(r, b) : r;
}
double float_floor_mod(double a, double b) {
  double r = std::fmod(a, b);
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

// Shifts of unsigned values (get_int's bit patterns); by the width or more, every bit leaves.
std::int64_t int_shift(DType dtype, std::int64_t a, std::int64_t b, bool left) {
  auto bits = static_cast<std::uint64_t>(dtype_size(dtype) * 8);
  auto shift = static_cast<std::uint64_t>(b), value = static_cast<std::uint64_t>(a);
  if (shift >= bits) return 0;
  return static_cast<std::int64_t>(left ? value << shift : value >> shift);
}

double float_sign(double x) {
  if (x > 0) return 1;
  return x < 0 ? -1 : x;
}

// What an integer right-hand side must not be.
enum class IntGuard { None, NonzeroDivisor, NoZeroToNegativePower };

// The integer functions take the operands' dtype, for the ops whose result depends on the
// sign (get_int reads a u64 from 2^63 on as negative).
struct BinaryOp {
  const char* name;
  double (*on_float)(double, double);  // nullptr when only integers are accepted
  std::int64_t (*on_int)(DType, std::int64_t, std::int64_t);
  IntGuard guard = IntGuard::None;
  Accepts accepts = Accepts::Numbers;
};

const BinaryOp kBinaryOps[] = {
    {"add", [](double a, double b) { return a + b; },
     [](DType, std::int64_t a, std::int64_t b) { return int_add(a, b); }},
    {"subtract", [](double a, double b) { return a - b; },
     [](DType, std::int64_t a, std::int64_t b) { return int_subtract(a, b); }},
    {"multiply", [](double a, double b) { return a * b; },
     [](DType, std::int64_t a, std::int64_t b) { return int_multiply(a, b); }},
    {"divide", [](double a, double b) { return a / b; }, int_divide, IntGuard::NonzeroDivisor},
    {"maximum", float_maximum,
     [](DType t, std::int64_t a, std::int64_t b) { return int_less(t, a, b) ? b : a; }},
    {"minimum", float_minimum,
     [](DType t, std::int64_t a, std::int64_t b) { return int_less(t, b, a) ? b : a; }},
    {"power", [](double a, double b) { return std::pow(a, b); }, int_power,
     IntGuard::NoZeroToNegativePower},
    {"floor_mod", float_floor_mod, int_floor_mod, IntGuard::NonzeroDivisor},
    {"trunc_mod", [](double a, double b) { return std::fmod(a, b); }, int_trunc_mod,
     IntGuard::NonzeroDivisor},
    {"left_shift", nullptr,
     [](DType t, std::int64_t a, std::int64_t b) { return int_shift(t, a, b, true); },
     IntGuard::None, Accepts::Unsigned},
    {"right_shift", nullptr,
     [](DType t, std::int64_t a, std::int64_t b) { return int_shift(t, a, b, false); },
     IntGuard::None, Accepts::Unsigned},
};

struct UnaryOp {
  const char* name;
  Accepts accepts;
  double (*on_float)(double);
  std::int64_t (*on_int)(DType, std::int64_t);  // nullptr when only floats are accepted
};

const UnaryOp kUnaryOps[] = {
    {"nn.relu", Accepts::Numbers, [](double x) { return std::isnan(x) || x > 0 ? x : 0.0; },
     [](DType t, std::int64_t x) { return int_less(t, 0, x) ? x : 0; }},
    {"negative", Accepts::Numbers, [](double x) { return -x; },
     [](DType, std::int64_t x) { return int_negative(x); }},
    // Wraps like negation: abs of the most negative value is itself.
    {"abs", Accepts::Numbers, [](double x) { return std::fabs(x); },
     [](DType t, std::int64_t x) { return int_less(t, x, 0) ? int_negative(x) : x; }},
    {"sigmoid", Accepts::Floats, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, nullptr},
    {"tanh", Accepts::Floats, [](double x) { return std::tanh(x); }, nullptr},
    {"exp", Accepts::Floats, [](double x) { return std::exp(x); }, nullptr},
    {"log", Accepts::Floats, [](double x) { return std::log(x); }, nullptr},
    {"sqrt", Accepts::Floats, [](double x) { return std::sqrt(x); }, nullptr},
    {"erf", Accepts::Floats, [](double x) { return std::erf(x); }, nullptr},
    {"reciprocal", Accepts::Floats, [](double x) { return 1.0 / x; }, nullptr},
    {"sin", Accepts::Floats, [](double x) { return std::sin(x); }, nullptr},
    {"cos", Accepts::Floats, [](double x) { return std::cos(x); }, nullptr},
    {"tan", Accepts::Floats, [](double x) { return std::tan(x); }, nullptr},
    {"asin", Accepts::Floats, [](double x) { return std::asin(x); }, nullptr},
    {"acos", Accepts::Floats, [](double x) { return std::acos(x); }, nullptr},
    {"atan", Accepts::Floats, [](double x) { return std::atan(x); }, nullptr},
    {"sinh", Accepts::Floats, [](double x) { return std::sinh(x); }, nullptr},
    {"cosh", Accepts::Floats, [](double x) { return std::cosh(x); }, nullptr},
    {"asinh", Accepts::Floats, [](double x) { return std::asinh(x); }, nullptr},
    {"acosh", Accepts::Floats, [](double x) { return std::acosh(x); }, nullptr},
    {"atanh", Accepts::Floats, [](double x) { return std::atanh(x); }, nullptr},
    {"floor", Accepts::Floats, [](double x) { return std::floor(x); }, nullptr},
    {"ceil", Accepts::Floats, [](double x) { return std::ceil(x); }, nullptr},
    // nearbyint in the default rounding mode rounds half to even.
    {"round", Accepts::Floats, [](double x) { return std::nearbyint(x); }, nullptr},
    {"sign", Accepts::Numbers, float_sign,
     [](DType t, std::int64_t x) -> std::int64_t {
       if (int_less(t, 0, x)) return 1;
       return int_less(t, x, 0) ? -1 : 0;
     }},
};

Expected<std::vector<TensorPtr>> run_binary(const BinaryOp& op,
                                            const std::vector<TensorPtr>& inputs,
                                            const std::vector<Type>& result_types) {
  const Tensor& a = *inputs[0];
  const Tensor& b = *inputs[1];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const Shape& shape = out->shape();
  std::vector<std::int64_t> a_strides = broadcast_strides(a.shape(), shape);
  std::vector<std::int64_t> b_strides = broadcast_strides(b.shape(), shape);
  bool floats = is_float(out->dtype());
  for (std::int64_t i = 0; i < out->num_elements(); ++i) {
    std::int64_t ia = strided_offset(i, shape, a_strides);
    std::int64_t ib = strided_offset(i, shape, b_strides);
    if (floats) {
      out->set(i, op.on_float(a.get(ia), b.get(ib)));
      continue;
    }
    std::int64_t x = get_int(a, ia);
    std::int64_t y = get_int(b, ib);
    if (op.guard == IntGuard::NonzeroDivisor && y == 0)
      return make_error("integer division by zero");
    if (op.guard == IntGuard::NoZeroToNegativePower && x == 0 && int_less(a.dtype(), y, 0))
      return make_error("integer zero raised to the negative power {}", y);
    set_int(*out, i, op.on_int(a.dtype(), x, y));
  }
  return std::vector<TensorPtr>{std::move(out)};
}

Expected<std::vector<TensorPtr>> run_unary(const UnaryOp& op, const std::vector<TensorPtr>& inputs,
                                           const std::vector<Type>& result_types) {
  const Tensor& x = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  bool floats = is_float(out->dtype());
  for (std::int64_t i = 0; i < out->num_elements(); ++i) {
    if (floats)
      out->set(i, op.on_float(x.get(i)));
    else
      set_int(*out, i, op.on_int(x.dtype(), get_int(x, i)));
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- cast ----

Expected<DType> cast_dtype(const AttrMap& attrs) {
  const std::string& name = attrs.get_string("dtype");
  std::optional<DType> dtype = parse_dtype(name);
  if (!dtype)
    return make_error("attribute 'dtype' is \"{}\", but must be one of {}", name, dtype_names());
  return *dtype;
}

Expected<std::vector<Type>> infer_cast(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  UMA_TRY_ASSIGN(DType dtype, cast_dtype(attrs));
  return std::vector<Type>{TensorType{dtype, inputs[0].tensor().shape}};
}

Expected<std::vector<TensorPtr>> cast_kernel(const std::vector<TensorPtr>& inputs, const AttrMap&,
                                             const std::vector<Type>& result_types) {
  const Tensor& x = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  DType from = x.dtype(), to = out->dtype();
  for (std::int64_t i = 0; i < out->num_elements(); ++i) {
    if (to == DType::boolean)
      set_int(*out, i, x.get(i) != 0 ? 1 : 0);  // Tensor::get is exact enough to compare to 0
    else if (is_float(from) && is_float(to))
      out->set(i, x.get(i));
    else if (is_float(from))
      set_int(*out, i, saturating_int(x.get(i), to));
    else if (to == DType::f32 && from == DType::i64)  // one rounding, not two
      out->data<float>()[i] = static_cast<float>(x.data<std::int64_t>()[i]);
    else if (to == DType::f32 && from == DType::u64)
      out->data<float>()[i] = static_cast<float>(x.data<std::uint64_t>()[i]);
    else if (is_float(to))
      out->set(i, x.get(i));
    else
      set_int(*out, i, get_int(x, i));
  }
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

void register_elementwise_ops(OpRegistry& registry) {
  for (const BinaryOp& op : kBinaryOps) {
    OpDef def{.name = op.name,
              .min_inputs = 2,
              .max_inputs = 2,
              .infer = [&op](const std::vector<Type>& inputs,
                             const AttrMap&) -> Expected<std::vector<Type>> {
                UMA_TRY_ASSIGN(TensorType result, infer_broadcast(inputs, op.accepts));
                return std::vector<Type>{result};
              },
              .kernel =
                  [&op](const std::vector<TensorPtr>& inputs, const AttrMap&,
                        const std::vector<Type>& result_types) {
                    return run_binary(op, inputs, result_types);
                  },
              .fusion = FusionCategory::kElementwise};
    UMA_CHECK(registry.add(std::move(def)).ok(), "op {} registered twice", op.name);
  }
  for (const UnaryOp& op : kUnaryOps) {
    OpDef def{.name = op.name,
              .min_inputs = 1,
              .max_inputs = 1,
              .infer = [&op](const std::vector<Type>& inputs,
                             const AttrMap&) -> Expected<std::vector<Type>> {
                UMA_TRY(check_tensor_operands(inputs));
                UMA_TRY(check_dtype(inputs[0].tensor().dtype, op.accepts, "operand is"));
                return std::vector<Type>{inputs[0]};
              },
              .kernel =
                  [&op](const std::vector<TensorPtr>& inputs, const AttrMap&,
                        const std::vector<Type>& result_types) {
                    return run_unary(op, inputs, result_types);
                  },
              .fusion = FusionCategory::kElementwise};
    UMA_CHECK(registry.add(std::move(def)).ok(), "op {} registered twice", op.name);
  }
  OpDef cast{.name = "cast",
             .min_inputs = 1,
             .max_inputs = 1,
             .attrs = {{"dtype", AttrKind::String, std::nullopt}},
             .infer = infer_cast,
             .kernel = cast_kernel,
             .fusion = FusionCategory::kElementwise};
  UMA_CHECK(registry.add(std::move(cast)).ok(), "op cast registered twice");
}

}  // namespace uma
