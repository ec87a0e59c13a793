// Compute rules of the activation family (src/op/activation.cc): nn.leaky_relu, nn.elu,
// nn.selu, nn.hard_sigmoid, nn.hard_swish, nn.gelu, nn.softplus, nn.softsign, nn.celu,
// nn.thresholded_relu, nn.shrink, nn.prelu and clip, each one pointwise stage named after
// the op.
//
// The reference kernels compute in double and round once; these compute in the data's type
// (f16 and bf16 in f32), written so that no step cancels: expm1 for exp(x) - 1, erfc for
// 1 + erf(x), x * sigmoid(2u) for x / 2 * (1 + tanh(u)). The results then stay within a few
// units in the last place of the reference's. Comparisons and min/max keep the reference's
// operand order, so NaN goes where it goes there (hard_sigmoid of NaN is 1, the others keep
// NaN).
#include <cmath>
#include <numbers>

#include "../op/elementwise_util.h"
#include "pointwise_util.h"
#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;
using tir::SelectNode;

// std::max(0, std::min(1, alpha * x + beta)): min and max take their operands in that
// order, as the reference's std::min and std::max do (a NaN second operand is dropped).
Expr hard_sigmoid(const Expr& x, double alpha, double beta) {
  return tir::max(Expr(0.0), tir::min(Expr(1.0), x * alpha + beta));
}

struct Activation {
  const char* op;
  Expr (*apply)(const Expr& x, const AttrMap& attrs);
};

const Activation kActivations[] = {
    {"nn.leaky_relu",
     [](const Expr& x, const AttrMap& attrs) {
       return SelectNode::make(x < 0.0, x * attrs.get_float("alpha"), x);
     }},
    {"nn.elu",
     [](const Expr& x, const AttrMap& attrs) {
       return SelectNode::make(x < 0.0, intrinsic("expm1", {x}) * attrs.get_float("alpha"), x);
     }},
    {"nn.selu",
     [](const Expr& x, const AttrMap& attrs) {
       double alpha = attrs.get_float("alpha"), gamma = attrs.get_float("gamma");
       return SelectNode::make(x <= 0.0, intrinsic("expm1", {x}) * alpha * gamma, x * gamma);
     }},
    {"nn.hard_sigmoid",
     [](const Expr& x, const AttrMap& attrs) {
       return hard_sigmoid(x, attrs.get_float("alpha"), attrs.get_float("beta"));
     }},
    {"nn.hard_swish",
     [](const Expr& x, const AttrMap&) { return x * hard_sigmoid(x, 1.0 / 6.0, 0.5); }},
    {"nn.gelu",
     [](const Expr& x, const AttrMap& attrs) {
       if (attrs.get_string("approximate") == "tanh") {
         // x / 2 * (1 + tanh(u)) = x * sigmoid(2u), u = sqrt(2 / pi) * (x + 0.044715 x^3).
         const double k = std::sqrt(2.0 / std::numbers::pi);
         Expr u = (x + x * x * x * 0.044715) * (2 * k);
         return x * intrinsic("sigmoid", {u});
       }
       // x / 2 * (1 + erf(x / sqrt(2))) = x / 2 * erfc(-x / sqrt(2)).
       return x * 0.5 * intrinsic("erfc", {x * (-1.0 / std::numbers::sqrt2)});
     }},
    {"nn.softplus",
     [](const Expr& x, const AttrMap&) {
       Expr zero = constant(x.type().dtype, 0);
       return SelectNode::make(x > zero, x + intrinsic("log1p", {intrinsic("exp", {zero - x})}),
                               intrinsic("log1p", {intrinsic("exp", {x})}));
     }},
    {"nn.softsign",
     [](const Expr& x, const AttrMap&) { return x / (intrinsic("fabs", {x}) + 1.0); }},
    {"nn.celu",
     [](const Expr& x, const AttrMap& attrs) {
       double alpha = attrs.get_float("alpha");
       return SelectNode::make(x > 0.0, x, intrinsic("expm1", {x / alpha}) * alpha);
     }},
    {"nn.thresholded_relu",
     [](const Expr& x, const AttrMap& attrs) {
       return SelectNode::make(x > attrs.get_float("alpha"), x, constant(x.type().dtype, 0));
     }},
    {"nn.shrink",
     [](const Expr& x, const AttrMap& attrs) {
       double bias = attrs.get_float("bias"), lambd = attrs.get_float("lambd");
       return SelectNode::make(x < -lambd, x + bias,
                               SelectNode::make(x > lambd, x - bias, constant(x.type().dtype, 0)));
     }},
};

ComputeRule activation_rule(const Activation& activation) {
  return [&activation](const Node& node, const std::vector<TensorView>& in,
                       ComputeBuilder&) -> Expected<std::vector<Stage>> {
    TensorView x = in[0];
    AttrMap attrs = node.attrs();
    return pointwise_result(node, [&activation, x, attrs](const Indices& idx) {
      return bind(x.at(idx), "x", [&](const Expr& v) { return activation.apply(v, attrs); });
    });
  };
}

// x < 0 ? slope * x : x, with slope broadcast to x's shape. Integers multiply with wrapping;
// an unsigned x is never negative.
Expected<std::vector<Stage>> prelu_rule(const Node& node, const std::vector<TensorView>& in,
                                        ComputeBuilder&) {
  TensorView x = in[0], slope = in[1];
  return pointwise_result(node, [x, slope](const Indices& idx) {
    return bind(x.at(idx), "x", [&](const Expr& v) {
      if (is_unsigned(x.dtype)) return v;
      Expr zero = constant(x.dtype, 0);
      return SelectNode::make(v < zero, slope.at(broadcast_indices(idx, slope.shape, x.shape)) * v,
                              v);
    });
  });
}

// min(max(x, a_min), a_max) in the reference's operand order (a NaN x stays NaN; with
// a_min > a_max every element is a_max). A float bound is the dtype's value nearest to it,
// which decides every comparison as the exact bound does; an integer x compares with
// ceil(a_min) and floor(a_max), saturated to its type (elementwise::saturating_int). Bounds
// that cannot bind (infinite, or the type's own limits) are left out.
Expected<std::vector<Stage>> clip_rule(const Node& node, const std::vector<TensorView>& in,
                                       ComputeBuilder&) {
  TensorView x = in[0];
  const DType dtype = x.dtype;
  const double a_min = node.attrs().get_float("a_min"), a_max = node.attrs().get_float("a_max");
  Expr lo, hi;
  if (is_float(dtype)) {
    if (!std::isinf(a_min) || a_min > 0) lo = stored_constant(dtype, a_min);
    if (!std::isinf(a_max) || a_max < 0) hi = stored_constant(dtype, a_max);
  } else {
    std::int64_t low = elementwise::saturating_int(std::ceil(a_min), dtype);
    std::int64_t high = elementwise::saturating_int(std::floor(a_max), dtype);
    tir::DataType type = tir::DataType::scalar(dtype);
    if (low != elementwise::int_min(dtype)) lo = tir::IntImmNode::make(type, low);
    if (high != elementwise::int_max(dtype)) hi = tir::IntImmNode::make(type, high);
  }
  return pointwise_result(node, [x, lo, hi](const Indices& idx) {
    Expr v = x.at(idx);
    if (lo.defined()) v = tir::max(v, lo);
    if (hi.defined()) v = tir::min(v, hi);
    return v;
  });
}

}  // namespace

void register_activation_computes(ComputeRegistry& registry) {
  for (const Activation& activation : kActivations)
    UMA_CHECK(registry.add(activation.op, activation_rule(activation)).ok());
  UMA_CHECK(registry.add("nn.prelu", prelu_rule).ok());
  UMA_CHECK(registry.add("clip", clip_rule).ok());
}

}  // namespace uma::lower
