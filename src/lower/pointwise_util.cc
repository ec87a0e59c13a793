// Helpers of the pointwise compute rules.
#include "pointwise_util.h"

#include "../op/elementwise_util.h"
#include "uma/graph/tensor.h"
#include "uma/lower/compute_util.h"

namespace uma::lower {

using namespace tir;

Expr bind(const Expr& value, std::string_view name, const std::function<Expr(const Expr&)>& body) {
  switch (value.kind()) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::Var:
    case ExprKind::Load:
      return body(value);
    default:
      break;
  }
  Var v = VarNode::make(std::string(name), value.type());
  return LetNode::make(v, value, body(v));
}

Expr stored_constant(DType dtype, double value) {
  Tensor t(TensorType{dtype, {}});
  t.set(0, value);
  DataType type = DataType::scalar(dtype);
  if (is_float(dtype)) return FloatImmNode::make(type, t.get(0));
  return IntImmNode::make(type, elementwise::get_int(t, 0));
}

namespace {

// A float `x` to an integer type, as elementwise::saturating_int does: the bounds compare in
// double (exact for every float type), and the conversion happens only within range.
Expr saturate(DType dtype, const Expr& x) {
  DataType type = DataType::scalar(dtype);
  double lo = static_cast<double>(elementwise::int_min(dtype));
  // The least double at or above which the value saturates: the greatest value, or 2^64 for
  // u64 (whose greatest reads as -1). INT64_MAX rounds up to 2^63 as a double, as it should.
  double hi = dtype == DType::u64 ? 0x1p64 : static_cast<double>(elementwise::int_max(dtype));
  return bind(cast(DType::f64, x), "v", [&](const Expr& v) {
    Expr in_range = SelectNode::make(
        v <= lo, IntImmNode::make(type, elementwise::int_min(dtype)),
        SelectNode::make(v >= hi, IntImmNode::make(type, elementwise::int_max(dtype)),
                         CastNode::make(type, v)));
    return SelectNode::make(intrinsic("isnan", {v}), IntImmNode::make(type, 0), in_range);
  });
}

}  // namespace

Expr convert(DType dtype, const Expr& x) {
  DType from = x.type().dtype;
  if (is_float(from) && is_integer(dtype)) return saturate(dtype, x);
  return cast(dtype, x);
}

std::vector<Stage> pointwise_result(const Node& node, std::function<Expr(const Indices&)> element,
                                    bool injective) {
  const TensorType& out = node.result()->tensor_type();
  return {pointwise_stage(block_name(node.op_name()), out.dtype, out.shape, std::move(element),
                          injective)};
}

}  // namespace uma::lower
