// Compute rules of the convolutions (src/op/conv.cc): nn.conv1d/2d/3d and their transposes,
// each one reduction stage in the NC[D][H]W layout, with the optional bias added when the
// sum is done.
//
// Stages are named as backends look for them: conv2d_nchw, depthwise_conv2d_nchw (one
// input channel per group and as many groups as channels), group_conv2d_nchw, and
// conv2d_transpose_nchw (likewise for 1-D and 3-D, with ncw and ncdhw); nn.conv2d_nchwc's
// are conv2d_nchwc, depthwise_conv2d_nchwc and group_conv2d_nchwc. Padding is a padded
// view of the data (an index test inlined into the sum), never a copy. An nn.pad of the data
// that fuse-ops put in the convolution's function is folded into the block's padding
// attribute when it is a zero pad of the spatial dimensions, else materialized (Stage::attrs).
#include <fmt/format.h>

#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;
using Ints = std::vector<std::int64_t>;

// "ncw", "nchw", "ncdhw".
const char* layout(std::size_t rank) {
  static constexpr const char* kLayouts[] = {"ncw", "nchw", "ncdhw"};
  return kLayouts[rank - 1];
}

// Loop names: n, c and the spatial letters; r and the same letters for the reduction.
std::vector<std::string> spatial_letters(std::size_t rank) {
  static constexpr const char* kLetters[] = {"d", "h", "w"};
  return std::vector<std::string>(kLetters + 3 - rank, kLetters + 3);
}

std::vector<std::string> output_axes(std::size_t rank) {
  std::vector<std::string> names = {"n", "c"};
  for (const std::string& s : spatial_letters(rank)) names.push_back(s);
  return names;
}

std::vector<std::string> reduction_axes(std::size_t rank) {
  std::vector<std::string> names = {"rc"};
  for (const std::string& s : spatial_letters(rank)) names.push_back("r" + s);
  return names;
}

// The accumulator's type: f32 for the 16-bit floats, else the data's.
DType accumulator(DType dtype) {
  return dtype == DType::f16 || dtype == DType::bf16 ? DType::f32 : dtype;
}

// acc + bias[o], when there is a bias.
std::function<Expr(const Expr&, const Indices&)> bias_finalize(const std::vector<TensorView>& in) {
  if (in.size() < 3) return nullptr;
  TensorView bias = in[2];
  return [bias](const Expr& acc, const Indices& out) {
    return acc + cast(acc.type().dtype, bias.at({out[1]}));
  };
}

// out[n, o, p] = bias[o] + sum over rc < C/groups and taps k of
//   data[n, (o / (O/groups)) * C/groups + rc, p * stride - pad_before + k * dilation]
//   * weight[o, rc, k]
// with zeros read in the padding.
//
// With `out_block` b > 0 (2-D only), the stage is the result blocked as NCHW<b>c: its
// element (n, c, h, w, l) is out[n, c * b + l, h, w].
Expected<std::vector<Stage>> conv_rule(std::size_t rank, const Node& node,
                                       const std::vector<TensorView>& in, ComputeBuilder& builder,
                                       std::int64_t out_block = 0) {
  const TensorType& out = node.result()->tensor_type();
  const AttrMap& attrs = node.attrs();
  const Ints& strides = attrs.get_ints("strides");
  const Ints& padding = attrs.get_ints("padding");
  const Ints& dilation = attrs.get_ints("dilation");
  const std::int64_t groups = attrs.get_int("groups");
  const TensorView weight = in[1];
  const std::int64_t channels = in[0].shape[1];
  const std::int64_t group_channels = weight.shape[1];
  const std::int64_t group_out_channels = weight.shape[0] / groups;

  // A zero nn.pad of the spatial dimensions before the convolution is its padding too.
  Ints before(2, 0), after(2, 0);
  before.insert(before.end(), padding.begin(), padding.begin() + static_cast<std::ptrdiff_t>(rank));
  after.insert(after.end(), padding.begin() + static_cast<std::ptrdiff_t>(rank), padding.end());
  Expr zero = constant(in[0].dtype, 0);
  PaddedInput input = fold_padding(in[0], before, after, zero, 2, builder);
  TensorView padded = pad_view(input.data, input.before, input.after, zero);

  Reduction sum;
  sum.extents.push_back(group_channels);
  for (std::size_t i = 0; i < rank; ++i) sum.extents.push_back(weight.shape[2 + i]);
  sum.axis_names = reduction_axes(rank);
  sum.accumulate_dtype = accumulator(in[0].dtype);
  // The stage's indices as the logical (N, C, spatial...) ones.
  auto logical = [out_block](const Indices& o) {
    if (out_block == 0) return o;
    return Indices{o[0], o[1] * out_block + o[4], o[2], o[3]};
  };
  if (auto finalize = bias_finalize(in))
    sum.finalize = [finalize, logical](const Expr& acc, const Indices& o) {
      return finalize(acc, logical(o));
    };
  sum.body = [=](const Indices& stage_index, const Indices& r) {
    Indices o = logical(stage_index);
    Expr channel = groups == 1 ? r[0] : o[1] / group_out_channels * group_channels + r[0];
    Indices at = {o[0], channel};
    Indices taps = {o[1], r[0]};
    for (std::size_t i = 0; i < rank; ++i) {
      at.push_back(o[2 + i] * strides[i] + r[1 + i] * dilation[i]);
      taps.push_back(r[1 + i]);
    }
    return padded.at(at) * weight.at(taps);
  };

  Stage stage;
  bool depthwise = groups > 1 && groups == channels && group_channels == 1;
  stage.name = fmt::format("{}conv{}d_{}",
                           depthwise    ? "depthwise_"
                           : groups > 1 ? "group_"
                                        : "",
                           rank, out_block > 0 ? "nchwc" : layout(rank));
  stage.dtype = out.dtype;
  stage.shape = out.shape;
  stage.reduction = std::move(sum);
  stage.axis_names = output_axes(rank);
  if (out_block > 0) stage.axis_names.push_back("cl");
  if (input.folded) {
    Ints folded(input.before.begin() + 2, input.before.end());
    folded.insert(folded.end(), input.after.begin() + 2, input.after.end());
    stage.attrs = block_attrs(node);
    stage.attrs.set("padding", folded);
  }
  return std::vector<Stage>{std::move(stage)};
}

// The adjoint: input position q of channel c adds to output position
// q * stride - pad_before + k * dilation. So out[n, o, p] = bias[o] + sum over rc < C/groups
// and taps k, where t = p + pad_before - k * dilation is a multiple of the stride and
// q = t / stride lies in the input, of data[n, g * C/groups + rc, q] * weight[g * C/groups +
// rc, o % (O/groups), k], with g = o / (O/groups) the output channel's group.
Expected<std::vector<Stage>> conv_transpose_rule(std::size_t rank, const Node& node,
                                                 const std::vector<TensorView>& in,
                                                 ComputeBuilder& builder) {
  const TensorType& out = node.result()->tensor_type();
  const AttrMap& attrs = node.attrs();
  const Ints& strides = attrs.get_ints("strides");
  const Ints& padding = attrs.get_ints("padding");
  const Ints& dilation = attrs.get_ints("dilation");
  const std::int64_t groups = attrs.get_int("groups");
  // Its padding crops the output: an nn.pad of the data is no part of it.
  const TensorView data = materialize_padding(in[0], builder);
  const TensorView weight = in[1];
  const std::int64_t group_channels = data.shape[1] / groups;
  const std::int64_t group_out_channels = weight.shape[1];

  Reduction sum;
  sum.extents.push_back(group_channels);
  for (std::size_t i = 0; i < rank; ++i) sum.extents.push_back(weight.shape[2 + i]);
  sum.axis_names = reduction_axes(rank);
  sum.accumulate_dtype = accumulator(data.dtype);
  sum.finalize = bias_finalize(in);
  sum.body = [=](const Indices& o, const Indices& r) {
    Expr channel = groups == 1 ? r[0] : o[1] / group_out_channels * group_channels + r[0];
    Expr out_channel = groups == 1 ? o[1] : o[1] % group_out_channels;
    Indices at = {o[0], channel};
    Indices taps = {channel, out_channel};
    Expr valid;
    for (std::size_t i = 0; i < rank; ++i) {
      Expr t = o[2 + i] + padding[i] - r[1 + i] * dilation[i];
      Expr q = strides[i] == 1 ? t : t / strides[i];
      Expr ok = t >= 0 && q < data.shape[2 + i];
      if (strides[i] != 1) ok = ok && t % strides[i] == 0;
      valid = valid.defined() ? (valid && ok) : ok;
      at.push_back(q);
      taps.push_back(r[1 + i]);
    }
    Expr product = data.at(at) * weight.at(taps);
    return tir::SelectNode::make(valid, product, constant(product.type().dtype, 0));
  };

  Stage stage;
  stage.name = fmt::format("conv{}d_transpose_{}", rank, layout(rank));
  stage.dtype = out.dtype;
  stage.shape = out.shape;
  stage.reduction = std::move(sum);
  stage.axis_names = output_axes(rank);
  return std::vector<Stage>{std::move(stage)};
}

// The packed weight (O / b, C / groups, kh, kw, b) of nn.conv2d_packed and nn.conv2d_nchwc
// read as (O, C / groups, kh, kw), so that b consecutive output channels read one vector.
Expected<TensorView> unpacked_weight(const TensorView& packed) {
  return relaid_view(packed, fmt::format("OIHW{}o", packed.shape[4]), "OIHW");
}

Expected<std::vector<Stage>> conv_packed_rule(const Node& node, const std::vector<TensorView>& in,
                                              ComputeBuilder& builder) {
  std::vector<TensorView> unpacked = in;
  UMA_TRY_ASSIGN(unpacked[1], unpacked_weight(in[1]));
  return conv_rule(2, node, unpacked, builder);
}

// nn.conv2d_nchwc: nn.conv2d_packed with its data read as NCHW when it is blocked (rank 5,
// NCHW<b'>c), and its result blocked by the weight's b.
Expected<std::vector<Stage>> conv_nchwc_rule(const Node& node, const std::vector<TensorView>& in,
                                             ComputeBuilder& builder) {
  std::vector<TensorView> plain = in;
  if (in[0].shape.size() == 5) {
    UMA_TRY_ASSIGN(plain[0], relaid_view(in[0], fmt::format("NCHW{}c", in[0].shape[4]), "NCHW"));
  }
  UMA_TRY_ASSIGN(plain[1], unpacked_weight(in[1]));
  return conv_rule(2, node, plain, builder, in[1].shape[4]);
}

}  // namespace

void register_conv_computes(ComputeRegistry& registry) {
  for (std::size_t rank = 1; rank <= 3; ++rank) {
    auto conv = [rank](const Node& node, const std::vector<TensorView>& in, ComputeBuilder& b) {
      return conv_rule(rank, node, in, b);
    };
    auto transpose = [rank](const Node& node, const std::vector<TensorView>& in,
                            ComputeBuilder& b) { return conv_transpose_rule(rank, node, in, b); };
    UMA_CHECK(registry.add(fmt::format("nn.conv{}d", rank), conv).ok());
    UMA_CHECK(registry.add(fmt::format("nn.conv{}d_transpose", rank), transpose).ok());
  }
  UMA_CHECK(registry.add("nn.conv2d_packed", conv_packed_rule).ok());
  UMA_CHECK(registry.add("nn.conv2d_nchwc", conv_nchwc_rule).ok());
}

}  // namespace uma::lower
