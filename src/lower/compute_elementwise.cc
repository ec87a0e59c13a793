// Compute rules of the elementwise family (src/op/elementwise.cc): one pointwise stage per
// op, reading broadcast operands (numpy rules) at the output's indices. The stage is named
// after the op ("add", "relu").
//
// As in the reference kernels (whose semantics the comment of src/op/elementwise.cc lists):
// - Floating-point values compute in their own type (f16 and bf16 in f32, as the C code
//   generator does), which for +, -, * and / is the correctly rounded result the reference's
//   doubles give once rounded; math functions are the C library's, within an ulp or two.
// - Integers wrap modulo 2^bits. divide truncates toward zero ("truncdiv"; where the
//   reference rejects a zero divisor, the generated code gives 0); power wraps like
//   repeated multiplication and truncates negative powers (the integer "pow" intrinsic).
// - maximum and minimum propagate NaN and otherwise pick as the reference's `a > b ? a : b`
//   and `a < b ? a : b` do; nn.relu keeps NaN.
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

struct BinaryRule {
  const char* op;
  Expr (*apply)(const Expr& a, const Expr& b);
};

const BinaryRule kBinaryRules[] = {
    {"add", [](const Expr& a, const Expr& b) { return a + b; }},
    {"subtract", [](const Expr& a, const Expr& b) { return a - b; }},
    {"multiply", [](const Expr& a, const Expr& b) { return a * b; }},
    {"divide",
     [](const Expr& a, const Expr& b) {
       return is_float(a.type().dtype) ? a / b : intrinsic("truncdiv", {a, b});
     }},
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
     }},
};

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
};

ComputeRule binary_rule(const BinaryRule& rule) {
  return [&rule](const Node& node, const std::vector<TensorView>& in,
                 ComputeBuilder&) -> Expected<std::vector<Stage>> {
    TensorView a = in[0], b = in[1];
    return pointwise_result(
        node, [&rule, a, b, shape = node.result()->tensor_type().shape](const Indices& idx) {
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
