// Compute rules of the index family (src/op/index.cc): strided_slice, take and
// gather_elements. Each output element is one input element, so the stages are injective
// (inlined wherever they are read).
#include "../op/index_util.h"
#include "pointwise_util.h"
#include "uma/lower/compute_util.h"
#include "uma/op/shape_util.h"

namespace uma::lower {
namespace {

using tir::Expr;

// Output index j along an axis reads input index begin + j * step.
Expected<std::vector<Stage>> strided_slice_rule(const Node& node, const std::vector<TensorView>& in,
                                                ComputeBuilder&) {
  TensorView x = in[0];
  UMA_TRY_ASSIGN(std::vector<AxisSlice> slices, resolve_slices(node.attrs(), x.shape));
  return pointwise_result(
      node,
      [x, slices](const Indices& idx) {
        Indices from(idx.size());
        for (std::size_t d = 0; d < idx.size(); ++d)
          from[d] = idx[d] * slices[d].step + slices[d].begin;
        return x.at(from);
      },
      /*injective=*/true);
}

// An index along an axis of `dim` elements: a negative one counts from the end, and one out
// of range (which the reference kernels reject) reads the nearest element, so that no read
// leaves the data.
Expr clamped_index(const Expr& index, std::int64_t dim) {
  return bind(cast(DType::i64, index), "row", [&](const Expr& r) {
    Expr wrapped = tir::SelectNode::make(r < 0, r + dim, r);
    return tir::min(tir::max(wrapped, Expr(0)), Expr(dim - 1));
  });
}

// take(data, indices): data with the axis replaced by the indices' dimensions, each index
// read as clamped_index does.
Expected<std::vector<Stage>> take_rule(const Node& node, const std::vector<TensorView>& in,
                                       ComputeBuilder&) {
  TensorView data = in[0], indices = in[1];
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), data.shape.size());
  const std::int64_t dim = data.shape[axis];
  return pointwise_result(
      node,
      [data, indices, axis, dim](const Indices& idx) {
        const std::size_t count = indices.shape.size();
        Indices which(idx.begin() + static_cast<std::ptrdiff_t>(axis),
                      idx.begin() + static_cast<std::ptrdiff_t>(axis + count));
        Indices from(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(axis));
        from.push_back(clamped_index(indices.at(which), dim));
        from.insert(from.end(), idx.begin() + static_cast<std::ptrdiff_t>(axis + count), idx.end());
        return data.at(from);
      },
      /*injective=*/true);
}

// gather_elements(data, indices): data at the output's indices, the axis's replaced by the
// index there.
Expected<std::vector<Stage>> gather_elements_rule(const Node& node,
                                                  const std::vector<TensorView>& in,
                                                  ComputeBuilder&) {
  TensorView data = in[0], indices = in[1];
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), data.shape.size());
  const std::int64_t dim = data.shape[axis];
  return pointwise_result(
      node,
      [data, indices, axis, dim](const Indices& idx) {
        Indices from = idx;
        from[axis] = clamped_index(indices.at(idx), dim);
        return data.at(from);
      },
      /*injective=*/true);
}

}  // namespace

void register_index_computes(ComputeRegistry& registry) {
  UMA_CHECK(registry.add("strided_slice", strided_slice_rule).ok());
  UMA_CHECK(registry.add("take", take_rule).ok());
  UMA_CHECK(registry.add("gather_elements", gather_elements_rule).ok());
}

}  // namespace uma::lower
