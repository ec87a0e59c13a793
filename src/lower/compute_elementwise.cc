// Compute rules of the elementwise family (src/op/elementwise.cc): one pointwise stage per
// op, reading broadcast operands (numpy rules) at the output's indices. The stage is named
// after the op ("add", "relu").
//
// Floating-point values compute in their own type (f16 and bf16 in f32, as the C code
// generator does), which for +, - and * is the correctly rounded result the reference
// kernels give; maximum-like ops keep NaN, as the reference does.
#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;

struct BinaryRule {
  const char* op;
  Expr (*apply)(const Expr& a, const Expr& b);
};

const BinaryRule kBinaryRules[] = {
    {"add", [](const Expr& a, const Expr& b) { return a + b; }},
    {"multiply", [](const Expr& a, const Expr& b) { return a * b; }},
};

struct UnaryRule {
  const char* op;
  Expr (*apply)(const Expr& x);
};

const UnaryRule kUnaryRules[] = {
    // max(x, 0) is `x < 0 ? 0 : x` in C: a NaN x stays NaN, as in the reference.
    {"nn.relu", [](const Expr& x) { return tir::max(x, constant(x.type().dtype, 0)); }},
};

ComputeRule binary_rule(const BinaryRule& rule) {
  return [&rule](const Node& node, const std::vector<TensorView>& in,
                 ComputeBuilder&) -> Expected<std::vector<Stage>> {
    const TensorType& out = node.result()->tensor_type();
    TensorView a = in[0], b = in[1];
    auto element = [&rule, a, b, shape = out.shape](const Indices& idx) {
      return rule.apply(a.at(broadcast_indices(idx, a.shape, shape)),
                        b.at(broadcast_indices(idx, b.shape, shape)));
    };
    return std::vector<Stage>{
        pointwise_stage(block_name(node.op_name()), out.dtype, out.shape, element)};
  };
}

ComputeRule unary_rule(const UnaryRule& rule) {
  return [&rule](const Node& node, const std::vector<TensorView>& in,
                 ComputeBuilder&) -> Expected<std::vector<Stage>> {
    const TensorType& out = node.result()->tensor_type();
    TensorView x = in[0];
    auto element = [&rule, x](const Indices& idx) { return rule.apply(x.at(idx)); };
    return std::vector<Stage>{
        pointwise_stage(block_name(node.op_name()), out.dtype, out.shape, element)};
  };
}

}  // namespace

void register_elementwise_computes(ComputeRegistry& registry) {
  for (const BinaryRule& rule : kBinaryRules)
    UMA_CHECK(registry.add(rule.op, OpPattern::kElementwise, binary_rule(rule)).ok());
  for (const UnaryRule& rule : kUnaryRules)
    UMA_CHECK(registry.add(rule.op, OpPattern::kElementwise, unary_rule(rule)).ok());
}

}  // namespace uma::lower
