// dnnl's patterns and their predicates: an anchor (a convolution of 1 to 3 spatial
// dimensions, nn.dense, or nn.matmul) with constant weights, or nn.matmul of two computed
// tensors, either maybe read through a transpose, then up to two adds (a constant bias, a
// residual), then one activation oneDNN fuses as a post-op; poolings, softmaxes,
// concatenations, normalizations, binary and unary elementwise ops alone. A predicate refuses what
// the kernel cannot compute and what oneDNN would run with its slow reference implementation, with
// the reason in the partition report.
#include <fmt/format.h>

#include "backends/dnnl/dnnl.h"

namespace uma::backends::dnnl {
namespace {

// An add of a constant (a bias) or, failing that, of anything (a residual): the constant
// first, so that a bias's constant is the composite's own rather than an operand.
PatternPtr add_step(const PatternPtr& x) {
  return alt(alt(is_op("add", {x, is_constant()}), is_op("add", {is_constant(), x})),
             alt(is_op("add", {x, wildcard()}), is_op("add", {wildcard(), x})));
}

// An activation oneDNN fuses, or swish: x * sigmoid(x) (EfficientNet's, as exported).
PatternPtr activation(const PatternPtr& x) {
  PatternPtr sigmoid = is_op("sigmoid", {x});
  return alt(is_op({"nn.relu", "nn.leaky_relu", "clip", "sigmoid", "tanh", "nn.elu",
                    "nn.hard_swish", "nn.hard_sigmoid", "nn.gelu"},
                   {x}),
             alt(is_op("multiply", {x, sigmoid}), is_op("multiply", {sigmoid, x})));
}

// anchor → optional add → optional add → optional activation, longest first.
PatternPtr with_epilogue(const PatternPtr& anchor) {
  return optional(optional(optional(anchor, add_step), add_step), activation);
}

// The transpose first, so that it is read in place (its strides permuted) when the predicate
// accepts that; else the operand as it is.
PatternPtr maybe_transposed(const PatternPtr& x) { return alt(is_op("transpose", {x}), x); }

std::vector<const Node*> match_nodes(const Match& match) {
  return std::vector<const Node*>(match.nodes.begin(), match.nodes.end());
}

}  // namespace

PatternPtr conv_pattern() {
  std::vector<std::string> convs = {"nn.conv1d", "nn.conv2d", "nn.conv3d"};
  return with_epilogue(alt(is_op(convs, {wildcard(), is_constant(), is_constant()}),
                           is_op(convs, {wildcard(), is_constant()})));
}

PatternPtr dense_pattern() {
  return with_epilogue(alt(alt(is_op("nn.dense", {wildcard(), is_constant(), is_constant()}),
                               is_op("nn.dense", {wildcard(), is_constant()})),
                           is_op("nn.matmul", {wildcard(), is_constant()})));
}

PatternPtr matmul_pattern() {
  return with_epilogue(
      is_op("nn.matmul", {maybe_transposed(wildcard()), maybe_transposed(wildcard())}));
}

PatternPtr concat_pattern() { return is_op("concatenate"); }

PatternPtr pool_pattern() {
  std::vector<std::string> pools = {"nn.global_avg_pool", "nn.global_max_pool"};
  for (int rank = 1; rank <= 3; ++rank)
    for (const char* kind : {"max", "avg"})
      pools.push_back(fmt::format("nn.{}_pool{}d", kind, rank));
  return is_op(pools, {wildcard()});
}

PatternPtr softmax_pattern() {
  return is_op(std::vector<std::string>{"nn.softmax", "nn.log_softmax"}, {wildcard()});
}

// A batch normalization and the relu after it first (one primitive), else either alone.
PatternPtr norm_pattern() {
  return alt(is_op("nn.relu", {is_op("nn.batch_norm")}), is_op({"nn.batch_norm", "nn.layer_norm"}));
}

// A unary op, or power by a constant exponent (which the composite holds).
PatternPtr eltwise_pattern() {
  return alt(is_op(eltwise_ops(), {wildcard()}), is_op("power", {wildcard(), is_constant()}));
}

PatternPtr binary_pattern() {
  return is_op(
      std::vector<std::string>{"add", "subtract", "multiply", "divide", "maximum", "minimum"},
      {wildcard(), wildcard()});
}

Status check_conv(const Match& match, const Target& target) {
  Expected<ConvCall> call = conv_call(match_nodes(match), target);
  if (!call) return make_error("dnnl.conv: {}", call.error().message());
  return check_implementation("conv", conv_primitive(*call, target));
}

Status check_dense(const Match& match, const Target& target) {
  Expected<DenseCall> call = dense_call(match_nodes(match), target);
  if (!call) return make_error("dnnl.dense: {}", call.error().message());
  return check_implementation("dense", dense_primitive(*call, target));
}

Status check_matmul(const Match& match, const Target& target) {
  Expected<MatmulCall> call = matmul_call(match_nodes(match));
  if (!call) return make_error("dnnl.matmul: {}", call.error().message());
  return check_implementation("matmul", matmul_primitive(*call, target));
}

Status check_concat(const Match& match, const Target&) {
  Expected<ConcatCall> call = concat_call(match_nodes(match));
  if (!call) return make_error("dnnl.concat: {}", call.error().message());
  return Status::success();
}

Status check_pool(const Match& match, const Target& target) {
  Expected<PoolCall> call = pool_call(match_nodes(match));
  if (!call) return make_error("dnnl.pool: {}", call.error().message());
  return check_implementation("pool", pool_primitive(*call, target));
}

Status check_binary(const Match& match, const Target& target) {
  Expected<BinaryCall> call = binary_call(match_nodes(match));
  if (!call) return make_error("dnnl.binary: {}", call.error().message());
  return check_implementation("binary", binary_primitive(*call, target));
}

Status check_norm(const Match& match, const Target& target) {
  Expected<NormCall> call = norm_call(match_nodes(match));
  if (!call) return make_error("dnnl.norm: {}", call.error().message());
  return check_implementation("norm", norm_primitive(*call, target));
}

Status check_eltwise(const Match& match, const Target& target) {
  Expected<EltwiseCall> call = eltwise_call(match_nodes(match));
  if (!call) return make_error("dnnl.eltwise: {}", call.error().message());
  return check_implementation("eltwise", eltwise_primitive(*call, target));
}

Status check_softmax(const Match& match, const Target& target) {
  Expected<SoftmaxCall> call = softmax_call(match_nodes(match));
  if (!call) return make_error("dnnl.softmax: {}", call.error().message());
  return check_implementation("softmax", softmax_primitive(*call, target));
}

}  // namespace uma::backends::dnnl
