// Compute rules of the shape family (src/op/shape.cc): shape_of, full and arange. Their
// values depend on attributes and types only, never on data: each element is an immediate
// or a function of its index, so the stages are injective (inlined wherever they are read).
#include "pointwise_util.h"
#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;

// The operand's dimensions, picked by the index.
Expected<std::vector<Stage>> shape_of_rule(const Node& node, const std::vector<TensorView>& in,
                                           ComputeBuilder&) {
  const Shape shape = in[0].shape;
  return pointwise_result(
      node,
      [shape](const Indices& idx) {
        if (shape.empty()) return Expr(0);  // no element is ever read
        Expr value = Expr(shape.back());
        for (std::size_t d = shape.size() - 1; d-- > 0;)
          value =
              tir::SelectNode::make(idx[0] == static_cast<std::int64_t>(d), Expr(shape[d]), value);
        return value;
      },
      /*injective=*/true);
}

Expected<std::vector<Stage>> full_rule(const Node& node, const std::vector<TensorView>&,
                                       ComputeBuilder&) {
  Expr value = stored_constant(node.result()->tensor_type().dtype, node.attrs().get_float("value"));
  return pointwise_result(
      node, [value](const Indices&) { return value; }, /*injective=*/true);
}

// Element i is start + i * step, computed in double and converted to the dtype, as the
// reference kernel stores it.
Expected<std::vector<Stage>> arange_rule(const Node& node, const std::vector<TensorView>&,
                                         ComputeBuilder&) {
  const DType dtype = node.result()->tensor_type().dtype;
  const double start = node.attrs().get_float("start"), step = node.attrs().get_float("step");
  return pointwise_result(
      node,
      [dtype, start, step](const Indices& idx) {
        Expr i = cast(DType::f64, idx[0]);
        return convert(dtype, i * step + start);
      },
      /*injective=*/true);
}

}  // namespace

void register_shape_computes(ComputeRegistry& registry) {
  UMA_CHECK(registry.add("shape_of", shape_of_rule).ok());
  UMA_CHECK(registry.add("full", full_rule).ok());
  UMA_CHECK(registry.add("arange", arange_rule).ok());
}

}  // namespace uma::lower
