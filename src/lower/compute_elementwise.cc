// Compute rules of the elementwise family (src/op/elementwise.cc): one pointwise stage per
// op, reading broadcast operands (numpy rules) at the output's indices. The stage is named
// after the op ("add", "relu").
//
// As in the reference kernels (whose semantics the comment of src/op/elementwise.cc lists):
// - Floating-point values compute in their own type (f16 and bf16 in f32, as the C code
//   generator does), which for +, -, * and / is the correctly rounded result the reference's
//   doubles give once rounded; math functions are the C library's, within an ulp or two.
// - Integers wrap modulo 2^bits. divide truncates toward zero ("truncdiv"); power wraps like
//   repeated multiplication and truncates negative powers (the integer "pow" intrinsic).
//   What the reference refuses (a zero divisor of divide, floor_mod and trunc_mod, zero to a
//   negative power) is a run-time check (uma/tir/run_checks.h); the value computed beside
//   it (truncdiv gives 0) is never returned.
// - maximum and minimum propagate NaN and otherwise pick as the reference's `a > b ? a : b`
//   and `a < b ? a : b` do; nn.relu keeps NaN.
// - floor_mod and trunc_mod of floats are TIR's floor modulo and C's fmod; of integers
//   a - truncdiv(a, b) * b, moved by b for floor_mod.
// - left_shift and right_shift multiply and divide by the wrapping integer power of 2, which
//   is 0 from the type's width on (so both shifts give 0 there, as in the reference).
// - cast converts as the reference does (see convert()).
#include "pointwise_util.h"
#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;
using tir::SelectNode;

// max(b, a) prints as `b < a ? a : b`, the reference's `a > b ? a : b`; a NaN `b` comes out
// of it, a NaN `a` is taken explicitly.
Expr float_pick(const Expr& a, const Expr& b, bool maximum) {
  return bind(a, "a", [&](const Expr& x) {
    Expr pick = maximum ? tir::max(b, x) : tir::min(b, x);
    return SelectNode::make(intrinsic("isnan", {x}), x, pick);
  });
}

// a - truncdiv(a, b) * b: C's % where that is defined.
Expr int_trunc_mod(const Expr& a, const Expr& b) { return a - intrinsic("truncdiv", {a, b}) * b; }

Expr floor_mod(const Expr& a, const Expr& b) {
  if (is_float(a.type().dtype)) return a % b;
  return bind(int_trunc_mod(a, b), "r", [&](const Expr& r) {
    if (is_unsigned(r.type().dtype)) return r;
    Expr zero = constant(r.type().dtype, 0);
    return SelectNode::make(r != zero && (r < zero) != (b < zero), r + b, r);
  });
}

Expr power_of_two(const Expr& b) { return intrinsic("pow", {constant(b.type().dtype, 2), b}); }

// What the reference refuses of integer operands (its IntGuard): run-time checks report it.
enum class IntGuard : std::uint8_t { kNone, kNonzeroDivisor, kNoZeroToNegativePower };

struct BinaryRule {
  const char* op;
  Expr (*apply)(const Expr& a, const Expr& b);
  IntGuard guard = IntGuard::kNone;
};

const BinaryRule kBinaryRules[] = {
    {"add", [](const Expr& a, const Expr& b) { return a + b; }},
    {"subtract", [](const Expr& a, const Expr& b) { return a - b; }},
    {"multiply", [](const Expr& a, const Expr& b) { return a * b; }},
    {"divide",
     [](const Expr& a, const Expr& b) {
       return is_float(a.type().dtype) ? a / b : intrinsic("truncdiv", {a, b});
     },
     IntGuard::kNonzeroDivisor},
    {"maximum",
     [](const Expr& a, const Expr& b) {
       return is_float(a.type().dtype) ? float_pick(a, b, true) : tir::max(a, b);
     }},
    {"minimum",
     [](const Expr& a, const Expr& b) {
       return is_float(a.type().dtype) ? float_pick(a, b, false) : tir::min(a, b);
     }},
    {"power",
     [](const Expr& a, const Expr& b) {
       return intrinsic("pow", {a, b});
     },
     IntGuard::kNoZeroToNegativePower},
    {"floor_mod", floor_mod, IntGuard::kNonzeroDivisor},
    {"trunc_mod",
     [](const Expr& a, const Expr& b) {
       return is_float(a.type().dtype) ? intrinsic("fmod", {a, b}) : int_trunc_mod(a, b);
     },
     IntGuard::kNonzeroDivisor},
    {"left_shift", [](const Expr& a, const Expr& b) { return a * power_of_two(b); }},
    {"right_shift",
     [](const Expr& a, const Expr& b) {
       return intrinsic("truncdiv", {a, power_of_two(b)});
     }},
};

// -1, 0 or 1; NaN and zeros are themselves.
Expr sign(const Expr& x) {
  DType dtype = x.type().dtype;
  return bind(x, "x", [dtype](const Expr& v) {
    Expr zero = constant(dtype, 0);
    return SelectNode::make(v > zero, constant(dtype, 1),
                            SelectNode::make(v < zero, constant(dtype, -1), v));
  });
}

struct UnaryRule {
  const char* op;
  Expr (*apply)(const Expr& x);
};

const UnaryRule kUnaryRules[] = {
    // max(x, 0) is `x < 0 ? 0 : x` in C: a NaN x stays NaN, as in the reference.
    {"nn.relu", [](const Expr& x) { return tir::max(x, constant(x.type().dtype, 0)); }},
    // -1 * x keeps a zero's sign flip and NaN; integers wrap (-INT_MIN is INT_MIN).
    {"negative",
     [](const Expr& x) {
       return is_float(x.type().dtype) ? x * -1.0 : constant(x.type().dtype, 0) - x;
     }},
    {"abs",
     [](const Expr& x) { return intrinsic(is_float(x.type().dtype) ? "fabs" : "abs", {x}); }},
    {"sigmoid", [](const Expr& x) { return intrinsic("sigmoid", {x}); }},
    {"tanh", [](const Expr& x) { return intrinsic("tanh", {x}); }},
    {"exp", [](const Expr& x) { return intrinsic("exp", {x}); }},
    {"log", [](const Expr& x) { return intrinsic("log", {x}); }},
    {"sqrt", [](const Expr& x) { return intrinsic("sqrt", {x}); }},
    {"erf", [](const Expr& x) { return intrinsic("erf", {x}); }},
    {"reciprocal", [](const Expr& x) { return 1.0 / x; }},
    {"sin", [](const Expr& x) { return intrinsic("sin", {x}); }},
    {"cos", [](const Expr& x) { return intrinsic("cos", {x}); }},
    {"tan", [](const Expr& x) { return intrinsic("tan", {x}); }},
    {"asin", [](const Expr& x) { return intrinsic("asin", {x}); }},
    {"acos", [](const Expr& x) { return intrinsic("acos", {x}); }},
    {"atan", [](const Expr& x) { return intrinsic("atan", {x}); }},
    {"sinh", [](const Expr& x) { return intrinsic("sinh", {x}); }},
    {"cosh", [](const Expr& x) { return intrinsic("cosh", {x}); }},
    {"asinh", [](const Expr& x) { return intrinsic("asinh", {x}); }},
    {"acosh", [](const Expr& x) { return intrinsic("acosh", {x}); }},
    {"atanh", [](const Expr& x) { return intrinsic("atanh", {x}); }},
    {"floor", [](const Expr& x) { return intrinsic("floor", {x}); }},
    {"ceil", [](const Expr& x) { return intrinsic("ceil", {x}); }},
    {"round", [](const Expr& x) { return intrinsic("round", {x}); }},
    {"sign", sign},
};

// The run-time check of the operands the reference refuses, with its words. A divisor is
// checked once per element of b: every one is read when the result is not empty.
void check_operands(IntGuard guard, const TensorView& a, const TensorView& b, const Shape& shape,
                    ComputeBuilder& builder) {
  if (guard == IntGuard::kNone || is_float(a.dtype) ||
      TensorType{a.dtype, shape}.num_elements() == 0)
    return;
  auto divisor = [b](const Indices& idx) { return cast(DType::i64, b.at(idx)); };
  if (guard == IntGuard::kNonzeroDivisor) {
    builder.check(
        b.shape, [b](const Indices& idx) { return b.at(idx) == constant(b.dtype, 0); }, divisor,
        "integer division by zero");
    return;
  }
  if (is_unsigned(b.dtype)) return;
  auto exponent = [b, shape](const Indices& idx) {
    return cast(DType::i64, b.at(broadcast_indices(idx, b.shape, shape)));
  };
  builder.check(
      shape,
      [a, b, shape](const Indices& idx) {
        return a.at(broadcast_indices(idx, a.shape, shape)) == constant(a.dtype, 0) &&
               b.at(broadcast_indices(idx, b.shape, shape)) < constant(b.dtype, 0);
      },
      exponent, "integer zero raised to the negative power {value}");
}

ComputeRule binary_rule(const BinaryRule& rule) {
  return [&rule](const Node& node, const std::vector<TensorView>& in,
                 ComputeBuilder& builder) -> Expected<std::vector<Stage>> {
    TensorView a = in[0], b = in[1];
    const Shape& shape = node.result()->tensor_type().shape;
    check_operands(rule.guard, a, b, shape, builder);
    return pointwise_result(node, [&rule, a, b, shape](const Indices& idx) {
      return rule.apply(a.at(broadcast_indices(idx, a.shape, shape)),
                        b.at(broadcast_indices(idx, b.shape, shape)));
    });
  };
}

ComputeRule unary_rule(const UnaryRule& rule) {
  return [&rule](const Node& node, const std::vector<TensorView>& in,
                 ComputeBuilder&) -> Expected<std::vector<Stage>> {
    TensorView x = in[0];
    return pointwise_result(node, [&rule, x](const Indices& idx) { return rule.apply(x.at(idx)); });
  };
}

Expected<std::vector<Stage>> cast_rule(const Node& node, const std::vector<TensorView>& in,
                                       ComputeBuilder&) {
  TensorView x = in[0];
  DType dtype = node.result()->tensor_type().dtype;
  return pointwise_result(node,
                          [x, dtype](const Indices& idx) { return convert(dtype, x.at(idx)); });
}

}  // namespace

void register_elementwise_computes(ComputeRegistry& registry) {
  for (const BinaryRule& rule : kBinaryRules)
    UMA_CHECK(registry.add(rule.op, binary_rule(rule)).ok());
  for (const UnaryRule& rule : kUnaryRules) UMA_CHECK(registry.add(rule.op, unary_rule(rule)).ok());
  UMA_CHECK(registry.add("cast", cast_rule).ok());
}

}  // namespace uma::lower
