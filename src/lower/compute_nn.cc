// Compute rules of the matrix products (src/op/nn.cc): nn.dense, nn.dense_packed and
// nn.matmul, one reduction stage each ("dense", "dense", "matmul").
#include <fmt/format.h>

#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;

DType accumulator(DType dtype) {
  return dtype == DType::f16 || dtype == DType::bf16 ? DType::f32 : dtype;
}

// out[..., u] = bias[u] + sum over k of data[..., k] * weight[u, k].
Expected<std::vector<Stage>> dense_rule(const Node& node, const std::vector<TensorView>& in,
                                        ComputeBuilder&) {
  const TensorType& out = node.result()->tensor_type();
  const TensorView data = in[0], weight = in[1];
  Reduction sum;
  sum.extents = {weight.shape[1]};
  sum.axis_names = {"k"};
  sum.accumulate_dtype = accumulator(data.dtype);
  sum.body = [data, weight](const Indices& o, const Indices& r) {
    Indices at(o.begin(), o.end() - 1);
    at.push_back(r[0]);
    return data.at(at) * weight.at({o.back(), r[0]});
  };
  if (in.size() > 2) {
    TensorView bias = in[2];
    sum.finalize = [bias](const Expr& acc, const Indices& o) {
      return acc + cast(acc.type().dtype, bias.at({o.back()}));
    };
  }
  Stage stage;
  stage.name = "dense";
  stage.dtype = out.dtype;
  stage.shape = out.shape;
  stage.reduction = std::move(sum);
  return std::vector<Stage>{std::move(stage)};
}

// nn.dense reading its weight (units / b, input features, b) at (u / b, k, u % b).
Expected<std::vector<Stage>> dense_packed_rule(const Node& node, const std::vector<TensorView>& in,
                                               ComputeBuilder& builder) {
  std::vector<TensorView> unpacked = in;
  UMA_TRY_ASSIGN(unpacked[1], relaid_view(in[1], fmt::format("NK{}n", in[1].shape[2]), "NK"));
  return dense_rule(node, unpacked, builder);
}

// numpy's matmul: out[batch..., i, j] = sum over k of a[batch..., i, k] * b[batch..., k, j],
// the batch dimensions broadcast; a 1-D a is one row and a 1-D b one column, whose
// dimension the result leaves out.
Expected<std::vector<Stage>> matmul_rule(const Node& node, const std::vector<TensorView>& in,
                                         ComputeBuilder&) {
  const TensorType& out = node.result()->tensor_type();
  const TensorView a = in[0], b = in[1];
  const bool a_row = a.shape.size() == 1, b_column = b.shape.size() == 1;
  const std::size_t batch_rank = out.shape.size() - (a_row ? 0 : 1) - (b_column ? 0 : 1);
  const Shape a_batch = a_row ? Shape() : Shape(a.shape.begin(), a.shape.end() - 2);
  const Shape b_batch = b_column ? Shape() : Shape(b.shape.begin(), b.shape.end() - 2);
  const Shape batch_shape(out.shape.begin(),
                          out.shape.begin() + static_cast<std::ptrdiff_t>(batch_rank));
  Reduction sum;
  sum.extents = {a.shape.back()};
  sum.axis_names = {"k"};
  sum.accumulate_dtype = accumulator(a.dtype);
  sum.body = [=](const Indices& o, const Indices& r) {
    Indices batch(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(batch_rank));
    Indices at_a = broadcast_indices(batch, a_batch, batch_shape);
    if (!a_row) at_a.push_back(o[batch_rank]);
    at_a.push_back(r[0]);
    Indices at_b = broadcast_indices(batch, b_batch, batch_shape);
    at_b.push_back(r[0]);
    if (!b_column) at_b.push_back(o.back());
    return a.at(at_a) * b.at(at_b);
  };
  Stage stage;
  stage.name = "matmul";
  stage.dtype = out.dtype;
  stage.shape = out.shape;
  stage.reduction = std::move(sum);
  return std::vector<Stage>{std::move(stage)};
}

}  // namespace

void register_nn_computes(ComputeRegistry& registry) {
  UMA_CHECK(registry.add("nn.dense", dense_rule).ok());
  UMA_CHECK(registry.add("nn.dense_packed", dense_packed_rule).ok());
  UMA_CHECK(registry.add("nn.matmul", matmul_rule).ok());
}

}  // namespace uma::lower
