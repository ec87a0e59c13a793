// Compute rules of the transform family (src/op/transform.cc): split, reshape, concatenate,
// transpose, squeeze, expand_dims and layout_transform. Every output element is an input element,
// so each stage is injective: inlined wherever it is read, even into reductions, and never a loop
// nest of its own unless it is a function's output.
#include "pointwise_util.h"
#include "uma/lower/compute_util.h"
#include "uma/op/layout.h"
#include "uma/op/shape_util.h"

namespace uma::lower {
namespace {

using tir::Expr;

// The input index that reads, in row-major order, the element a reshape's output holds at
// `out`. The shapes are cut into the shortest runs of dimensions whose sizes multiply to the
// same number on both sides; only a run that merges or splits dimensions needs division:
// flattening [N, C, H, W] to [N, C * H * W] keeps N as it is, and a squeeze or expand_dims
// divides nothing.
Indices reshape_indices(const Indices& out, const Shape& out_shape, const Shape& in_shape) {
  Indices in(in_shape.size(), Expr(0));
  if (product(out_shape, 0, out_shape.size()) == 0) return in;  // nothing is ever read
  std::size_t i = 0, j = 0;
  while (true) {
    // Dimensions of size 1 read index 0 and take no part in the runs.
    while (i < in_shape.size() && in_shape[i] == 1) ++i;
    while (j < out_shape.size() && out_shape[j] == 1) ++j;
    if (i == in_shape.size() || j == out_shape.size()) break;  // only 1s are left
    const std::size_t i0 = i, j0 = j;
    std::int64_t in_size = in_shape[i++], out_size = out_shape[j++];
    // The products end equal (the element counts are), so neither side runs out first.
    while (in_size != out_size) {
      if (in_size < out_size)
        in_size *= in_shape[i++];
      else
        out_size *= out_shape[j++];
    }
    if (i - i0 == 1 && j - j0 == 1) {
      in[i0] = out[j0];
      continue;
    }
    Expr linear = Expr(0);
    for (std::size_t d = j0; d < j; ++d)
      if (out_shape[d] != 1) linear = linear * out_shape[d] + out[d];
    std::int64_t stride = in_size;
    for (std::size_t d = i0; d < i; ++d) {
      if (in_shape[d] == 1) continue;
      stride /= in_shape[d];
      Expr index = stride == 1 ? linear : linear / stride;
      in[d] = d == i0 ? index : index % in_shape[d];
    }
  }
  return in;
}

Expected<std::vector<Stage>> reshape_rule(const Node& node, const std::vector<TensorView>& in,
                                          ComputeBuilder&) {
  TensorView x = in[0];
  Shape shape = node.result()->tensor_type().shape;
  return pointwise_result(
      node, [x, shape](const Indices& idx) { return x.at(reshape_indices(idx, shape, x.shape)); },
      /*injective=*/true);
}

// Output dimension i is input dimension axes[i] (all of them reversed when axes is empty).
Expected<std::vector<Stage>> transpose_rule(const Node& node, const std::vector<TensorView>& in,
                                            ComputeBuilder&) {
  TensorView x = in[0];
  const std::size_t rank = x.shape.size();
  const std::vector<std::int64_t>& axes = node.attrs().get_ints("axes");
  std::vector<std::size_t> permutation(rank);
  for (std::size_t i = 0; i < rank; ++i)
    permutation[i] = axes.empty() ? rank - 1 - i : *normalize_axis(axes[i], rank);
  return pointwise_result(
      node,
      [x, permutation](const Indices& idx) {
        Indices from(idx.size());
        for (std::size_t i = 0; i < idx.size(); ++i) from[permutation[i]] = idx[i];
        return x.at(from);
      },
      /*injective=*/true);
}

// Along the axis, the output reads operand k from its first row on: a balanced tree of
// selects (a chain would nest as deep as there are operands, for every pass that walks the
// expression and for the C compiler), of which only the taken branch reads its operand.
// Operands without rows are left out.
Expected<std::vector<Stage>> concatenate_rule(const Node& node, const std::vector<TensorView>& in,
                                              ComputeBuilder&) {
  const std::size_t rank = in[0].shape.size();
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), rank);
  std::vector<TensorView> parts;
  std::vector<std::int64_t> firsts;
  std::int64_t first = 0;
  for (const TensorView& view : in) {
    if (view.shape[axis] == 0) continue;
    parts.push_back(view);
    firsts.push_back(first);
    first += view.shape[axis];
  }
  if (parts.empty()) {  // the result has no elements
    parts.push_back(in[0]);
    firsts.push_back(0);
  }
  return pointwise_result(
      node,
      [parts, firsts, axis](const Indices& idx) {
        auto read = [&](std::size_t k) {
          Indices at = idx;
          at[axis] = idx[axis] - firsts[k];
          return parts[k].at(at);
        };
        // Operands [begin, end) by halves; the recursion is as deep as log2 of their count.
        auto pick = [&](auto& self, std::size_t begin, std::size_t end) -> Expr {
          if (end - begin == 1) return read(begin);
          std::size_t middle = begin + (end - begin) / 2;
          return tir::SelectNode::make(idx[axis] < firsts[middle], self(self, begin, middle),
                                       self(self, middle, end));
        };
        return pick(pick, 0, parts.size());
      },
      /*injective=*/true);
}

// Result k reads the input from the rows the results before it took on.
Expected<std::vector<Stage>> split_rule(const Node& node, const std::vector<TensorView>& in,
                                        ComputeBuilder&) {
  TensorView x = in[0];
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), x.shape.size());
  std::vector<Stage> stages;
  std::int64_t first = 0;
  for (const Value* result : node.results()) {
    const TensorType& type = result->tensor_type();
    auto element = [x, axis, first](const Indices& idx) {
      Indices at = idx;
      at[axis] = idx[axis] + first;
      return x.at(at);
    };
    stages.push_back(pointwise_stage("split", type.dtype, type.shape, element, true));
    first += type.shape[axis];
  }
  return stages;
}

// The result's element at idx is the source's at the indices the layouts give it.
Expected<std::vector<Stage>> layout_transform_rule(const Node& node,
                                                   const std::vector<TensorView>& in,
                                                   ComputeBuilder&) {
  TensorView x = in[0];
  const AttrMap& attrs = node.attrs();
  UMA_TRY_ASSIGN(LayoutTransform transform, LayoutTransform::make(attrs.get_string("src_layout"),
                                                                  attrs.get_string("dst_layout")));
  return pointwise_result(
      node, [x, transform](const Indices& idx) { return x.at(transform.source_indices(idx)); },
      /*injective=*/true);
}

}  // namespace

void register_transform_computes(ComputeRegistry& registry) {
  UMA_CHECK(registry.add("split", split_rule).ok());
  // squeeze and expand_dims keep the elements in order, as reshape does.
  for (const char* op : {"reshape", "squeeze", "expand_dims"})
    UMA_CHECK(registry.add(op, reshape_rule).ok());
  UMA_CHECK(registry.add("concatenate", concatenate_rule).ok());
  UMA_CHECK(registry.add("transpose", transpose_rule).ok());
  UMA_CHECK(registry.add("layout_transform", layout_transform_rule).ok());
}

}  // namespace uma::lower
