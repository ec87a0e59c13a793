// Compute rules of the normalizations and softmax (src/op/norm.cc).
//
// - nn.batch_norm (inference) is pointwise: (x - mean[c]) / sqrt(var[c] + epsilon) *
//   gamma[c] + beta[c], so it fuses into the block of the convolution before it.
// - nn.instance_norm and nn.layer_norm materialize two statistics, each a reduction stage
//   (<op>_mean, then <op>_variance: the mean squared deviation, the two-pass form the
//   reference uses), and normalize pointwise.
// - nn.softmax and nn.log_softmax materialize the maximum along the axis (softmax_max) and
//   the sum of exp(x - max) (softmax_sum), then compute exp(x - max) / sum, or
//   x - max - log(sum), pointwise.
// 16-bit floats compute in f32.
#include "uma/lower/compute_util.h"
#include "uma/op/shape_util.h"

namespace uma::lower {
namespace {

using tir::Expr;

// The type values compute in: f32 for the 16-bit floats.
DType compute_dtype(DType dtype) {
  return dtype == DType::f16 || dtype == DType::bf16 ? DType::f32 : dtype;
}

Expr widened(const Expr& e) { return cast(compute_dtype(e.type().dtype), e); }

std::size_t axis_attr(const Node& node, std::size_t rank) {
  return *normalize_axis(node.attrs().get_int("axis"), rank);
}

Expected<std::vector<Stage>> batch_norm_rule(const Node& node, const std::vector<TensorView>& in,
                                             ComputeBuilder&) {
  const TensorType& out = node.result()->tensor_type();
  const std::size_t axis = axis_attr(node, out.rank());
  const double epsilon = node.attrs().get_float("epsilon");
  std::vector<TensorView> v = in;
  auto element = [v, axis, epsilon](const Indices& idx) {
    Indices c = {idx[axis]};
    Expr x = widened(v[0].at(idx));
    DType dtype = x.type().dtype;
    Expr gamma = widened(v[1].at(c)), beta = widened(v[2].at(c));
    Expr mean = widened(v[3].at(c)), var = widened(v[4].at(c));
    return (x - mean) / intrinsic("sqrt", {var + constant(dtype, epsilon)}) * gamma + beta;
  };
  return std::vector<Stage>{pointwise_stage("batch_norm", out.dtype, out.shape, element)};
}

// The statistics of `x` over its dimensions [first, rank), for each index of the ones
// before: the mean, then the variance, both materialized. `name` prefixes their stages.
struct Statistics {
  TensorView mean, variance;
};

Statistics statistics(const std::string& name, const TensorView& x, std::size_t first,
                      ComputeBuilder& builder) {
  const Shape outer(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(first));
  const Shape inner(x.shape.begin() + static_cast<std::ptrdiff_t>(first), x.shape.end());
  const DType dtype = compute_dtype(x.dtype);
  std::int64_t count = 1;
  for (std::int64_t d : inner) count *= d;
  auto at = [x](const Indices& o, const Indices& r) {
    Indices idx = o;
    idx.insert(idx.end(), r.begin(), r.end());
    return widened(x.at(idx));
  };
  auto average = [count](const Expr& acc, const Indices&) {
    return acc / constant(acc.type().dtype, static_cast<double>(count));
  };

  Stage mean;
  mean.name = name + "_mean";
  mean.dtype = dtype;
  mean.shape = outer;
  mean.reduction = Reduction{.extents = inner, .body = at, .finalize = average};
  TensorView mean_view = builder.materialize(mean);

  Stage variance = mean;
  variance.name = name + "_variance";
  variance.reduction->body = [at, mean_view](const Indices& o, const Indices& r) {
    Expr deviation = at(o, r) - mean_view.at(o);
    return deviation * deviation;
  };
  return {mean_view, builder.materialize(variance)};
}

// Each (n, c) plane normalized over its spatial elements, then scaled and shifted per channel.
Expected<std::vector<Stage>> instance_norm_rule(const Node& node, const std::vector<TensorView>& in,
                                                ComputeBuilder& builder) {
  const TensorType& out = node.result()->tensor_type();
  const double epsilon = node.attrs().get_float("epsilon");
  Statistics stats = statistics("instance_norm", in[0], 2, builder);
  std::vector<TensorView> v = in;
  auto element = [v, stats, epsilon](const Indices& idx) {
    Indices plane = {idx[0], idx[1]}, c = {idx[1]};
    Expr x = widened(v[0].at(idx));
    Expr scale = intrinsic("sqrt", {stats.variance.at(plane) + constant(x.type().dtype, epsilon)});
    return (x - stats.mean.at(plane)) / scale * widened(v[1].at(c)) + widened(v[2].at(c));
  };
  return std::vector<Stage>{pointwise_stage("instance_norm", out.dtype, out.shape, element)};
}

// Normalized over the dimensions from `axis` on; gamma and beta broadcast to them.
Expected<std::vector<Stage>> layer_norm_rule(const Node& node, const std::vector<TensorView>& in,
                                             ComputeBuilder& builder) {
  const TensorType& out = node.result()->tensor_type();
  const std::size_t axis = axis_attr(node, out.rank());
  const double epsilon = node.attrs().get_float("epsilon");
  Statistics stats = statistics("layer_norm", in[0], axis, builder);
  std::vector<TensorView> v = in;
  const Shape shape(out.shape.begin() + static_cast<std::ptrdiff_t>(axis), out.shape.end());
  auto element = [v, stats, axis, epsilon, shape](const Indices& idx) {
    Indices outer(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(axis));
    Indices normalized(idx.begin() + static_cast<std::ptrdiff_t>(axis), idx.end());
    Expr x = widened(v[0].at(idx));
    DType dtype = x.type().dtype;
    Expr scale = intrinsic("sqrt", {stats.variance.at(outer) + constant(dtype, epsilon)});
    Expr y = (x - stats.mean.at(outer)) / scale *
             widened(v[1].at(broadcast_indices(normalized, v[1].shape, shape)));
    if (v.size() > 2) y = y + widened(v[2].at(broadcast_indices(normalized, v[2].shape, shape)));
    return y;
  };
  return std::vector<Stage>{pointwise_stage("layer_norm", out.dtype, out.shape, element)};
}

Expected<std::vector<Stage>> softmax_rule(bool log, const Node& node,
                                          const std::vector<TensorView>& in,
                                          ComputeBuilder& builder) {
  const TensorType& out = node.result()->tensor_type();
  const std::size_t axis = axis_attr(node, out.rank());
  const TensorView x = in[0];
  const DType dtype = compute_dtype(x.dtype);
  const std::string name = log ? "log_softmax" : "softmax";
  Shape rest = x.shape;
  rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(axis));
  // The element at position k along the axis of the line that `o` (without the axis) names.
  auto line = [x, axis](const Indices& o, const Expr& k) {
    Indices idx = o;
    idx.insert(idx.begin() + static_cast<std::ptrdiff_t>(axis), k);
    return widened(x.at(idx));
  };
  auto without_axis = [axis](const Indices& idx) {
    Indices o = idx;
    o.erase(o.begin() + static_cast<std::ptrdiff_t>(axis));
    return o;
  };

  Stage max;
  max.name = name + "_max";
  max.dtype = dtype;
  max.shape = rest;
  max.reduction =
      Reduction{.combiner = Reduction::Combiner::kMax,
                .extents = {x.shape[axis]},
                .body = [line](const Indices& o, const Indices& r) { return line(o, r[0]); }};
  TensorView max_view = builder.materialize(max);

  Stage sum = max;
  sum.name = name + "_sum";
  sum.reduction = Reduction{.extents = {x.shape[axis]},
                            .body = [line, max_view](const Indices& o, const Indices& r) {
                              return intrinsic("exp", {line(o, r[0]) - max_view.at(o)});
                            }};
  TensorView sum_view = builder.materialize(sum);

  auto element = [x, max_view, sum_view, without_axis, log](const Indices& idx) {
    Indices o = without_axis(idx);
    Expr shifted = widened(x.at(idx)) - max_view.at(o);
    if (log) return shifted - intrinsic("log", {sum_view.at(o)});
    return intrinsic("exp", {shifted}) / sum_view.at(o);
  };
  return std::vector<Stage>{pointwise_stage(name, out.dtype, out.shape, element)};
}

}  // namespace

void register_norm_computes(ComputeRegistry& registry) {
  UMA_CHECK(registry.add("nn.batch_norm", batch_norm_rule).ok());
  UMA_CHECK(registry.add("nn.instance_norm", instance_norm_rule).ok());
  UMA_CHECK(registry.add("nn.layer_norm", layer_norm_rule).ok());
  for (bool log : {false, true}) {
    auto rule = [log](const Node& node, const std::vector<TensorView>& in, ComputeBuilder& b) {
      return softmax_rule(log, node, in, b);
    };
    UMA_CHECK(registry.add(log ? "nn.log_softmax" : "nn.softmax", rule).ok());
  }
}

}  // namespace uma::lower
