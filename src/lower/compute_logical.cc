// Compute rules of the logical family (src/op/logical.cc): comparisons, logical operators,
// isnan, isinf and where, each one pointwise stage named after the op, reading its operands
// with numpy broadcasting.
//
// Floats compare as IEEE numbers in their own type, which decides every comparison as the
// reference's doubles do; integers compare in theirs (u64 unsigned); bools are 0 or 1.
#include "pointwise_util.h"
#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;

struct Binary {
  const char* op;
  Expr (*apply)(const Expr& a, const Expr& b);
};

const Binary kBinaries[] = {
    {"equal", [](const Expr& a, const Expr& b) { return a == b; }},
    {"less", [](const Expr& a, const Expr& b) { return a < b; }},
    {"less_equal", [](const Expr& a, const Expr& b) { return a <= b; }},
    {"greater", [](const Expr& a, const Expr& b) { return a > b; }},
    {"greater_equal", [](const Expr& a, const Expr& b) { return a >= b; }},
    {"logical_and", [](const Expr& a, const Expr& b) { return a && b; }},
    {"logical_or", [](const Expr& a, const Expr& b) { return a || b; }},
    {"logical_xor", [](const Expr& a, const Expr& b) { return a != b; }},
};

ComputeRule binary_rule(const Binary& binary) {
  return [&binary](const Node& node, const std::vector<TensorView>& in,
                   ComputeBuilder&) -> Expected<std::vector<Stage>> {
    TensorView a = in[0], b = in[1];
    return pointwise_result(
        node, [&binary, a, b, shape = node.result()->tensor_type().shape](const Indices& idx) {
          return binary.apply(a.at(broadcast_indices(idx, a.shape, shape)),
                              b.at(broadcast_indices(idx, b.shape, shape)));
        });
  };
}

Expected<std::vector<Stage>> logical_not_rule(const Node& node, const std::vector<TensorView>& in,
                                              ComputeBuilder&) {
  TensorView x = in[0];
  return pointwise_result(node, [x](const Indices& idx) { return !x.at(idx); });
}

Expected<std::vector<Stage>> isnan_rule(const Node& node, const std::vector<TensorView>& in,
                                        ComputeBuilder&) {
  TensorView x = in[0];
  return pointwise_result(node,
                          [x](const Indices& idx) { return intrinsic("isnan", {x.at(idx)}); });
}

// isinf(x), restricted to the signs the attributes detect.
Expected<std::vector<Stage>> isinf_rule(const Node& node, const std::vector<TensorView>& in,
                                        ComputeBuilder&) {
  TensorView x = in[0];
  bool positive = node.attrs().get_int("detect_positive") != 0;
  bool negative = node.attrs().get_int("detect_negative") != 0;
  return pointwise_result(node, [x, positive, negative](const Indices& idx) {
    if (!positive && !negative) return constant(DType::boolean, 0);
    return bind(x.at(idx), "x", [&](const Expr& v) {
      Expr infinite = intrinsic("isinf", {v});
      if (positive && negative) return infinite;
      Expr zero = constant(v.type().dtype, 0);
      return infinite && (positive ? v > zero : v < zero);
    });
  });
}

// The unselected operand is never read (a `select` evaluates one branch).
Expected<std::vector<Stage>> where_rule(const Node& node, const std::vector<TensorView>& in,
                                        ComputeBuilder&) {
  TensorView condition = in[0], x = in[1], y = in[2];
  const Shape shape = node.result()->tensor_type().shape;
  return pointwise_result(node, [condition, x, y, shape](const Indices& idx) {
    return tir::SelectNode::make(condition.at(broadcast_indices(idx, condition.shape, shape)),
                                 x.at(broadcast_indices(idx, x.shape, shape)),
                                 y.at(broadcast_indices(idx, y.shape, shape)));
  });
}

}  // namespace

void register_logical_computes(ComputeRegistry& registry) {
  for (const Binary& binary : kBinaries)
    UMA_CHECK(registry.add(binary.op, binary_rule(binary)).ok());
  UMA_CHECK(registry.add("logical_not", logical_not_rule).ok());
  UMA_CHECK(registry.add("isnan", isnan_rule).ok());
  UMA_CHECK(registry.add("isinf", isinf_rule).ok());
  UMA_CHECK(registry.add("where", where_rule).ok());
}

}  // namespace uma::lower
