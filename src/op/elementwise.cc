// Elementwise ops: binary arithmetic with numpy broadcasting, and unary activations.
//
// Semantics of the reference kernels:
// - Floating-point dtypes compute in double and round once to the result dtype. For +, -,
//   * and / that equals the dtype's own correctly rounded arithmetic, because double has
//   more than twice the precision of f32.
// - Integers compute in int64 and wrap modulo 2^bits, as the generated C does on every
//   target we build for. Division truncates toward zero; a zero divisor is an error.
// - maximum, minimum and nn.relu propagate NaN, as numpy and PyTorch do.
#include <cmath>
#include <memory>

#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

enum class Accepts { Numbers, Floats };

// `subject` is "operand is" or "operands are", so the message reads naturally.
Status check_dtype(DType dtype, Accepts accepts, const char* subject) {
  if (accepts == Accepts::Floats && !is_float(dtype))
    return make_error("{} {}, but only floating-point types (f32, f16, bf16) are supported",
                      subject, dtype_name(dtype));
  if (dtype == DType::boolean)
    return make_error("{} bool, but only numbers are supported", subject);
  return Status::success();
}

// Integer elements as int64: unlike Tensor::get, exact for every i64 value.
std::int64_t get_int(const Tensor& t, std::int64_t i) {
  switch (t.dtype()) {
    case DType::i8:
      return t.data<std::int8_t>()[i];
    case DType::u8:
      return t.data<std::uint8_t>()[i];
    case DType::i32:
      return t.data<std::int32_t>()[i];
    case DType::i64:
      return t.data<std::int64_t>()[i];
    default:
      break;
  }
  internal_error(__FILE__, __LINE__, fmt::format("get_int on {}", dtype_name(t.dtype())));
}

// Stores the value modulo 2^bits (conversion to a narrower integer wraps in C++20).
void set_int(Tensor& t, std::int64_t i, std::int64_t value) {
  switch (t.dtype()) {
    case DType::i8:
      t.data<std::int8_t>()[i] = static_cast<std::int8_t>(value);
      return;
    case DType::u8:
      t.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(value);
      return;
    case DType::i32:
      t.data<std::int32_t>()[i] = static_cast<std::int32_t>(value);
      return;
    case DType::i64:
      t.data<std::int64_t>()[i] = value;
      return;
    default:
      break;
  }
  internal_error(__FILE__, __LINE__, fmt::format("set_int on {}", dtype_name(t.dtype())));
}

// Wrapping int64 arithmetic: unsigned arithmetic is modular, signed overflow is undefined.
std::uint64_t bits(std::int64_t v) { return static_cast<std::uint64_t>(v); }
std::int64_t wrap(std::uint64_t v) { return static_cast<std::int64_t>(v); }

std::int64_t int_add(std::int64_t a, std::int64_t b) { return wrap(bits(a) + bits(b)); }
std::int64_t int_subtract(std::int64_t a, std::int64_t b) { return wrap(bits(a) - bits(b)); }
std::int64_t int_multiply(std::int64_t a, std::int64_t b) { return wrap(bits(a) * bits(b)); }
std::int64_t int_negative(std::int64_t a) { return wrap(0 - bits(a)); }
// The kernel rejects b == 0 first; INT64_MIN / -1 wraps like the negation it is.
std::int64_t int_divide(std::int64_t a, std::int64_t b) {
  return b == -1 ? int_negative(a) : a / b;
}

double float_maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a > b ? a : b;
}
double float_minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a < b ? a : b;
}

struct BinaryOp {
  const char* name;
  double (*on_float)(double, double);
  std::int64_t (*on_int)(std::int64_t, std::int64_t);
  bool divides = false;  // integer divisors must be nonzero
};

const BinaryOp kBinaryOps[] = {
    {"add", [](double a, double b) { return a + b; }, int_add},
    {"subtract", [](double a, double b) { return a - b; }, int_subtract},
    {"multiply", [](double a, double b) { return a * b; }, int_multiply},
    {"divide", [](double a, double b) { return a / b; }, int_divide, true},
    {"maximum", float_maximum, [](std::int64_t a, std::int64_t b) { return a > b ? a : b; }},
    {"minimum", float_minimum, [](std::int64_t a, std::int64_t b) { return a < b ? a : b; }},
};

struct UnaryOp {
  const char* name;
  Accepts accepts;
  double (*on_float)(double);
  std::int64_t (*on_int)(std::int64_t);  // nullptr when only floats are accepted
};

const UnaryOp kUnaryOps[] = {
    {"nn.relu", Accepts::Numbers, [](double x) { return std::isnan(x) || x > 0 ? x : 0.0; },
     [](std::int64_t x) { return x > 0 ? x : 0; }},
    {"negative", Accepts::Numbers, [](double x) { return -x; }, int_negative},
    {"sigmoid", Accepts::Floats, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, nullptr},
    {"tanh", Accepts::Floats, [](double x) { return std::tanh(x); }, nullptr},
    {"exp", Accepts::Floats, [](double x) { return std::exp(x); }, nullptr},
};

Expected<std::vector<Type>> infer_binary(const std::vector<Type>& inputs, const AttrMap&) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& a = inputs[0].tensor();
  const TensorType& b = inputs[1].tensor();
  if (a.dtype != b.dtype)
    return make_error("operands have different dtypes {} and {}", dtype_name(a.dtype),
                      dtype_name(b.dtype));
  UMA_TRY(check_dtype(a.dtype, Accepts::Numbers, "operands are"));
  UMA_TRY_ASSIGN(Shape shape, broadcast_shapes(a.shape, b.shape));
  TensorType result{a.dtype, std::move(shape)};
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

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
    std::int64_t y = get_int(b, ib);
    if (op.divides && y == 0) return make_error("integer division by zero");
    set_int(*out, i, op.on_int(get_int(a, ia), y));
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
      set_int(*out, i, op.on_int(get_int(x, i)));
  }
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

void register_elementwise_ops(OpRegistry& registry) {
  for (const BinaryOp& op : kBinaryOps) {
    OpDef def{.name = op.name,
              .min_inputs = 2,
              .max_inputs = 2,
              .infer = infer_binary,
              .kernel =
                  [&op](const std::vector<TensorPtr>& inputs, const AttrMap&,
                        const std::vector<Type>& result_types) {
                    return run_binary(op, inputs, result_types);
                  },
              .elementwise = true};
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
              .elementwise = true};
    UMA_CHECK(registry.add(std::move(def)).ok(), "op {} registered twice", op.name);
  }
}

}  // namespace uma
