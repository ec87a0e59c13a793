// Convolutions over 1 to 3 spatial dimensions: nn.conv1d/2d/3d and their transposes
// nn.conv1d_transpose/2d_transpose/3d_transpose. One rank-generic inference rule and kernel
// serves each kind.
//
// Layouts follow ONNX: data is (N, C, spatial...); a convolution's weight is
// (O, C / groups, kernel...) and a transposed convolution's is (C, O / groups, kernel...).
// `padding` has 2 * rank values, all the begins then all the ends (ONNX's `pads` order;
// for 2-D that is top, left, bottom, right). An optional third operand is a per-output-
// channel bias. Operands share one floating-point dtype (see nn_util.h for the arithmetic),
// or, for nn.convNd only, i32: ONNX's ConvInteger and QLinearConv, exact in the reference
// kernel and summed in i32 by compiled code.
//
// nn.conv2d_packed is nn.conv2d with its weight packed in blocks of b output channels,
// (O / b, C / groups, kh, kw, b) ("OIHW<b>o"): what the host backend makes of a convolution
// with a constant weight, once, at build time, so that b output channels are one vector.
// nn.conv2d_nchwc is the same with its result blocked as (N, O / b, H, W, b) ("NCHW<b>c",
// uma/op/layout.h) and its data either NCHW or blocked likewise by any block: what the
// host's layout pass makes of it, so that channels are innermost from one layer to the next.
#include <fmt/format.h>

#include "nn_util.h"
#include "uma/op/layout.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using nn::spatial_letters;
using nn::spatial_name;
using nn::tap_spans;
using nn::TapSpan;
using nn::Window3;

// The attribute checks both kinds share; `rank` is the number of spatial dimensions.
Status check_conv_attrs(const AttrMap& attrs, std::size_t rank) {
  UMA_TRY(nn::check_ints_attr(attrs, "strides", rank, "", 1));
  UMA_TRY(nn::check_ints_attr(attrs, "padding", 2 * rank, nn::padding_meaning(rank), 0));
  UMA_TRY(nn::check_ints_attr(attrs, "dilation", rank, "", 1));
  std::int64_t groups = attrs.get_int("groups");
  if (groups < 1) return make_error("attribute 'groups' must be positive, got {}", groups);
  return Status::success();
}

// data (N, C, spatial...) and weight (2 channel dimensions, kernel...) of the right ranks and
// dtypes, and a kernel without empty dimensions. `weight_layout` is "OI" or "IO"; a
// convolution (not its transpose) may also be i32, for the integer convolutions.
Status check_conv_operands(const std::vector<Type>& inputs, std::size_t rank,
                           const char* weight_layout, bool allow_i32) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  const TensorType& weight = inputs[1].tensor();
  if (data.rank() != rank + 2)
    return make_error("data must have rank {} (NC{}), got {}", rank + 2, spatial_letters(rank),
                      to_string(Type(data)));
  if (weight.rank() != rank + 2)
    return make_error("weight must have rank {} ({}{}), got {}", rank + 2, weight_layout,
                      spatial_letters(rank), to_string(Type(weight)));
  UMA_TRY(nn::check_float_dtypes(inputs, {"data", "weight", "bias"}, allow_i32));
  Shape kernel(weight.shape.begin() + 2, weight.shape.end());
  for (std::int64_t k : kernel)
    if (k < 1) return make_error("weight has an empty kernel {}", to_string(kernel));
  return Status::success();
}

// ---- nn.convNd ----

Expected<std::vector<Type>> infer_conv(std::size_t rank, const std::vector<Type>& inputs,
                                       const AttrMap& attrs) {
  UMA_TRY(check_conv_operands(inputs, rank, "OI", true));
  UMA_TRY(check_conv_attrs(attrs, rank));
  const TensorType& data = inputs[0].tensor();
  const TensorType& weight = inputs[1].tensor();
  std::int64_t groups = attrs.get_int("groups");
  std::int64_t channels = data.shape[1];
  std::int64_t out_channels = weight.shape[0];
  if (channels % groups != 0)
    return make_error("attribute 'groups' is {} but input channels {} are not divisible by it",
                      groups, channels);
  if (weight.shape[1] != channels / groups)
    return make_error("weight has {} input channels per group, data has {} / groups {} = {}",
                      weight.shape[1], channels, groups, channels / groups);
  if (out_channels % groups != 0)
    return make_error("attribute 'groups' is {} but output channels {} are not divisible by it",
                      groups, out_channels);
  UMA_TRY(nn::check_bias(inputs, out_channels, "output channel"));

  const auto& strides = attrs.get_ints("strides");
  const auto& padding = attrs.get_ints("padding");
  const auto& dilation = attrs.get_ints("dilation");
  TensorType result{data.dtype, {data.shape[0], out_channels}};
  for (std::size_t i = 0; i < rank; ++i) {
    UMA_TRY_ASSIGN(
        std::int64_t size,
        nn::window_output_size(spatial_name(rank, i), data.shape[2 + i], padding[i],
                               padding[rank + i], weight.shape[2 + i], dilation[i], strides[i]));
    result.shape.push_back(size);
  }
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

// out[n][o][p] = bias[o] + sum over the group's input channels c and kernel taps k of
// data[n][first channel of o's group + c][p * stride - pad + k * dilation] * weight[o][c][k]
// (p and k spatial multi-indices), where taps that land in the padding contribute nothing.
//
// The loops run tap by tap and add weight[o][c][k] times a strided slice of the input plane
// to the whole output plane of (n, o): the same sum in another order, which keeps the
// innermost loop free of index arithmetic and bounds tests. Operands are read as T (`read`).
template <typename T>
std::vector<TensorPtr> conv_sum(const std::vector<TensorPtr>& inputs, const AttrMap& attrs,
                                const std::vector<Type>& result_types,
                                std::vector<T> (*read)(const Tensor&)) {
  const Shape& ds = inputs[0]->shape();
  const Shape& ws = inputs[1]->shape();
  const TensorType& out_type = result_types[0].tensor();
  const Shape kernel(ws.begin() + 2, ws.end());
  const Window3 win = nn::make_window(ds, out_type.shape, kernel, attrs.get_ints("strides"),
                                      attrs.get_ints("padding"), attrs.get_ints("dilation"));
  std::vector<T> data = read(*inputs[0]);
  std::vector<T> weight = read(*inputs[1]);
  std::vector<T> bias = inputs.size() > 2 ? read(*inputs[2]) : std::vector<T>();

  const std::int64_t batch = ds[0], channels = ds[1];
  const std::int64_t out_channels = ws[0], group_channels = ws[1];
  const std::int64_t group_out_channels = out_channels / attrs.get_int("groups");
  const std::int64_t in_plane = product(ds, 2, ds.size());
  const std::int64_t out_plane = product(out_type.shape, 2, out_type.rank());
  const std::int64_t taps = product(kernel, 0, kernel.size());
  const auto& [d, h, w] = win;
  // Per tap, the output positions that read inside the input, and where they read.
  const std::vector<TapSpan> z_spans = tap_spans(d), y_spans = tap_spans(h), x_spans = tap_spans(w);

  std::vector<double> out(static_cast<std::size_t>(out_type.num_elements()));
  for (std::int64_t n = 0; n < batch; ++n) {
    for (std::int64_t o = 0; o < out_channels; ++o) {
      double* plane = out.data() + (n * out_channels + o) * out_plane;
      std::fill(plane, plane + out_plane, bias.empty() ? 0.0 : bias[o]);
      std::int64_t first_channel = o / group_out_channels * group_channels;
      for (std::int64_t c = 0; c < group_channels; ++c) {
        const T* src = data.data() + (n * channels + first_channel + c) * in_plane;
        const T* taps_of_c = weight.data() + (o * group_channels + c) * taps;
        for (std::int64_t kz = 0; kz < d.kernel; ++kz) {
          const TapSpan& zs = z_spans[kz];
          for (std::int64_t ky = 0; ky < h.kernel; ++ky) {
            const TapSpan& ys = y_spans[ky];
            for (std::int64_t kx = 0; kx < w.kernel; ++kx) {
              const TapSpan& xs = x_spans[kx];
              double tap = taps_of_c[(kz * h.kernel + ky) * w.kernel + kx];
              for (std::int64_t z = zs.outputs.begin; z < zs.outputs.end; ++z) {
                std::int64_t iz = z * d.stride + zs.offset;
                for (std::int64_t y = ys.outputs.begin; y < ys.outputs.end; ++y) {
                  std::int64_t iy = y * h.stride + ys.offset;
                  const T* row = src + (iz * h.input + iy) * w.input;
                  double* out_row = plane + (z * h.output + y) * w.output;
                  for (std::int64_t x = xs.outputs.begin; x < xs.outputs.end; ++x)
                    out_row[x] += tap * row[x * w.stride + xs.offset];
                }
              }
            }
          }
        }
      }
    }
  }
  return std::vector<TensorPtr>{nn::from_doubles(out, out_type)};
}

// i32 operands (the integer convolutions' 8-bit values less their zero points) are read as
// doubles, so that every product and sum is exact; floats as f32.
Expected<std::vector<TensorPtr>> conv_kernel(const std::vector<TensorPtr>& inputs,
                                             const AttrMap& attrs,
                                             const std::vector<Type>& result_types) {
  if (inputs[0]->dtype() == DType::i32)
    return conv_sum<double>(inputs, attrs, result_types, nn::to_doubles);
  return conv_sum<float>(inputs, attrs, result_types, nn::to_floats);
}

// ---- nn.conv2d_packed ----

// The (O, C / groups, kh, kw) type of a packed weight (O / b, C / groups, kh, kw, b).
Expected<TensorType> unpacked_weight_type(const TensorType& packed) {
  if (packed.rank() != 5)
    return make_error(
        "weight must have rank 5 (OIHW<b>o: output channel blocks, input "
        "channels, kernel height and width, b output channels), got {}",
        to_string(Type(packed)));
  auto out_channels = checked_mul(packed.shape[0], packed.shape[4]);
  if (!out_channels)
    return make_error("weight {} has too many output channels", to_string(Type(packed)));
  return TensorType{packed.dtype,
                    {*out_channels, packed.shape[1], packed.shape[2], packed.shape[3]}};
}

Expected<std::vector<Type>> infer_conv_packed(const std::vector<Type>& inputs,
                                              const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  UMA_TRY_ASSIGN(TensorType weight, unpacked_weight_type(inputs[1].tensor()));
  std::vector<Type> unpacked = inputs;
  unpacked[1] = Type(weight);
  return infer_conv(2, unpacked, attrs);
}

Expected<std::vector<TensorPtr>> conv_packed_kernel(const std::vector<TensorPtr>& inputs,
                                                    const AttrMap& attrs,
                                                    const std::vector<Type>& result_types) {
  const Tensor& packed = *inputs[1];
  UMA_TRY_ASSIGN(TensorType type, unpacked_weight_type(packed.type()));
  auto weight = std::make_shared<Tensor>(type);
  const std::int64_t block = packed.shape()[4];
  const std::int64_t per_channel = type.shape[1] * type.shape[2] * type.shape[3];
  for (std::int64_t o = 0; o < type.shape[0]; ++o)
    for (std::int64_t i = 0; i < per_channel; ++i)
      weight->set(o * per_channel + i,
                  packed.get(((o / block) * per_channel + i) * block + o % block));
  std::vector<TensorPtr> unpacked = inputs;
  unpacked[1] = std::move(weight);
  return conv_kernel(unpacked, attrs, result_types);
}

// ---- nn.conv2d_nchwc ----

// The layout "NCHW<b>c" of a blocked tensor of 2-D data (rank 5, b its last dimension).
std::string nchwc_layout(std::int64_t block) { return fmt::format("NCHW{}c", block); }

// The data of nn.conv2d_nchwc as NCHW, and the block of its result: the weight's.
Expected<std::vector<Type>> infer_conv_nchwc(const std::vector<Type>& inputs,
                                             const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  std::vector<Type> plain = inputs;
  const TensorType& data = inputs[0].tensor();
  if (data.rank() == 5) {
    UMA_TRY_ASSIGN(LayoutTransform unblock,
                   LayoutTransform::make(nchwc_layout(data.shape[4]), "NCHW"));
    UMA_TRY_ASSIGN(Shape shape, unblock.result_shape(data.shape));
    plain[0] = Type(TensorType{data.dtype, shape});
  } else if (data.rank() != 4) {
    return make_error("data must have rank 4 (NCHW) or 5 (NCHW<b>c), got {}",
                      to_string(Type(data)));
  }
  UMA_TRY_ASSIGN(std::vector<Type> result, infer_conv_packed(plain, attrs));
  const TensorType& out = result[0].tensor();
  UMA_TRY_ASSIGN(LayoutTransform block,
                 LayoutTransform::make("NCHW", nchwc_layout(inputs[1].tensor().shape[4])));
  UMA_TRY_ASSIGN(Shape shape, block.result_shape(out.shape));
  return std::vector<Type>{TensorType{out.dtype, shape}};
}

Expected<std::vector<TensorPtr>> conv_nchwc_kernel(const std::vector<TensorPtr>& inputs,
                                                   const AttrMap& attrs,
                                                   const std::vector<Type>& result_types) {
  std::vector<TensorPtr> plain = inputs;
  if (inputs[0]->shape().size() == 5) {
    UMA_TRY_ASSIGN(LayoutTransform unblock,
                   LayoutTransform::make(nchwc_layout(inputs[0]->shape()[4]), "NCHW"));
    UMA_TRY_ASSIGN(plain[0], relayout(*inputs[0], unblock));
  }
  std::vector<Type> plain_types;
  for (const TensorPtr& input : plain) plain_types.emplace_back(input->type());
  UMA_TRY_ASSIGN(std::vector<Type> out_types, infer_conv_packed(plain_types, attrs));
  UMA_TRY_ASSIGN(std::vector<TensorPtr> out, conv_packed_kernel(plain, attrs, out_types));
  UMA_TRY_ASSIGN(LayoutTransform block,
                 LayoutTransform::make("NCHW", nchwc_layout(result_types[0].tensor().shape[4])));
  UMA_TRY_ASSIGN(out[0], relayout(*out[0], block));
  return out;
}

// ---- nn.convNd_transpose ----

// The output size along one spatial dimension: the input's positions spread `stride` apart,
// each covered by the dilated kernel, then cropped by the padding and extended at the end by
// the output padding.
Expected<std::int64_t> transpose_output_size(const char* what, std::int64_t input,
                                             std::int64_t stride, std::int64_t kernel,
                                             std::int64_t dilation, std::int64_t pad_before,
                                             std::int64_t pad_after, std::int64_t output_padding) {
  std::string why =
      fmt::format("(input {}, stride {}, kernel {}, dilation {}, padding {}+{}, output padding {})",
                  input, stride, kernel, dilation, pad_before, pad_after, output_padding);
  // stride * (input - 1) + dilation * (kernel - 1) + 1 + output_padding, less the padding.
  std::optional<std::int64_t> size;
  auto spread = checked_mul(stride, input - 1);
  auto extent = checked_mul(dilation, kernel - 1);
  if (spread && extent)
    if (auto full = checked_add(*spread, *extent))
      if (auto grown = checked_add(*full, output_padding))
        if (auto cropped = checked_add(pad_before, pad_after))
          if (auto one_more = checked_add(*grown, 1)) size = checked_add(*one_more, -*cropped);
  if (!size) return make_error("output {} overflows int64 {}", what, why);
  if (*size < 1) return make_error("output {} would be {} {}", what, *size, why);
  return *size;
}

Expected<std::vector<Type>> infer_conv_transpose(std::size_t rank, const std::vector<Type>& inputs,
                                                 const AttrMap& attrs) {
  UMA_TRY(check_conv_operands(inputs, rank, "IO", false));
  UMA_TRY(check_conv_attrs(attrs, rank));
  UMA_TRY(nn::check_ints_attr(attrs, "output_padding", rank, "", 0));
  const TensorType& data = inputs[0].tensor();
  const TensorType& weight = inputs[1].tensor();
  std::int64_t groups = attrs.get_int("groups");
  std::int64_t channels = data.shape[1];
  if (weight.shape[0] != channels)
    return make_error("weight has {} input channels (dimension 0), data has {}", weight.shape[0],
                      channels);
  if (channels % groups != 0)
    return make_error("attribute 'groups' is {} but input channels {} are not divisible by it",
                      groups, channels);
  // No overflow: groups divides channels, and weight's element count (with a non-empty
  // kernel) bounds channels * weight.shape[1].
  std::int64_t out_channels = weight.shape[1] * groups;
  UMA_TRY(nn::check_bias(inputs, out_channels, "output channel"));

  const auto& strides = attrs.get_ints("strides");
  const auto& padding = attrs.get_ints("padding");
  const auto& dilation = attrs.get_ints("dilation");
  const auto& output_padding = attrs.get_ints("output_padding");
  TensorType result{data.dtype, {data.shape[0], out_channels}};
  for (std::size_t i = 0; i < rank; ++i) {
    UMA_TRY_ASSIGN(std::int64_t size,
                   transpose_output_size(spatial_name(rank, i), data.shape[2 + i], strides[i],
                                         weight.shape[2 + i], dilation[i], padding[i],
                                         padding[rank + i], output_padding[i]));
    result.shape.push_back(size);
  }
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

// The adjoint of the convolution: each input element data[n][c][p] adds
// data[n][c][p] * weight[c][o'][k] to out[n][o][p * stride - pad + k * dilation] for every
// output channel o = (group of c) * O/groups + o' and kernel tap k, where positions outside
// the (cropped) output are dropped; out starts at the bias. The loops scatter one input plane
// into one output plane per tap, like conv_kernel's gather in reverse.
Expected<std::vector<TensorPtr>> conv_transpose_kernel(const std::vector<TensorPtr>& inputs,
                                                       const AttrMap& attrs,
                                                       const std::vector<Type>& result_types) {
  const Shape& ds = inputs[0]->shape();
  const Shape& ws = inputs[1]->shape();
  const TensorType& out_type = result_types[0].tensor();
  const Shape kernel(ws.begin() + 2, ws.end());
  // Read as a window over the output, a position of the input plays the part of an output
  // position of the forward convolution: make_window is told the shapes swapped.
  const Window3 win = nn::make_window(out_type.shape, ds, kernel, attrs.get_ints("strides"),
                                      attrs.get_ints("padding"), attrs.get_ints("dilation"));
  std::vector<float> data = nn::to_floats(*inputs[0]);
  std::vector<float> weight = nn::to_floats(*inputs[1]);
  std::vector<float> bias = inputs.size() > 2 ? nn::to_floats(*inputs[2]) : std::vector<float>();

  const std::int64_t batch = ds[0], channels = ds[1];
  const std::int64_t group_out_channels = ws[1], out_channels = out_type.shape[1];
  const std::int64_t group_channels = channels / attrs.get_int("groups");
  const std::int64_t in_plane = product(ds, 2, ds.size());
  const std::int64_t out_plane = product(out_type.shape, 2, out_type.rank());
  const std::int64_t taps = product(kernel, 0, kernel.size());
  // Here `input` is the output's size and `output` the input's (see above).
  const auto& [d, h, w] = win;
  // Per tap, the input positions that land inside the output, and where they land.
  const std::vector<TapSpan> z_spans = tap_spans(d), y_spans = tap_spans(h), x_spans = tap_spans(w);

  std::vector<double> out(static_cast<std::size_t>(out_type.num_elements()));
  for (std::int64_t n = 0; n < batch; ++n) {
    for (std::int64_t o = 0; o < out_channels; ++o) {
      double* plane = out.data() + (n * out_channels + o) * out_plane;
      std::fill(plane, plane + out_plane, bias.empty() ? 0.0 : bias[o]);
      std::int64_t group = o / group_out_channels, o_in_group = o % group_out_channels;
      for (std::int64_t c = group * group_channels; c < (group + 1) * group_channels; ++c) {
        const float* src = data.data() + (n * channels + c) * in_plane;
        const float* taps_of_c = weight.data() + (c * group_out_channels + o_in_group) * taps;
        for (std::int64_t kz = 0; kz < d.kernel; ++kz) {
          const TapSpan& zs = z_spans[kz];
          for (std::int64_t ky = 0; ky < h.kernel; ++ky) {
            const TapSpan& ys = y_spans[ky];
            for (std::int64_t kx = 0; kx < w.kernel; ++kx) {
              const TapSpan& xs = x_spans[kx];
              double tap = taps_of_c[(kz * h.kernel + ky) * w.kernel + kx];
              for (std::int64_t z = zs.outputs.begin; z < zs.outputs.end; ++z) {
                std::int64_t oz = z * d.stride + zs.offset;
                for (std::int64_t y = ys.outputs.begin; y < ys.outputs.end; ++y) {
                  std::int64_t oy = y * h.stride + ys.offset;
                  const float* row = src + (z * h.output + y) * w.output;
                  double* out_row = plane + (oz * h.input + oy) * w.input;
                  for (std::int64_t x = xs.outputs.begin; x < xs.outputs.end; ++x)
                    out_row[x * w.stride + xs.offset] += tap * row[x];
                }
              }
            }
          }
        }
      }
    }
  }
  return std::vector<TensorPtr>{nn::from_doubles(out, out_type)};
}

}  // namespace

void register_conv_ops(OpRegistry& registry) {
  using Ints = std::vector<std::int64_t>;
  for (std::size_t rank = 1; rank <= 3; ++rank) {
    std::vector<AttrDef> attrs = {{"strides", AttrKind::Ints, Ints(rank, 1)},
                                  {"padding", AttrKind::Ints, Ints(2 * rank, 0)},
                                  {"dilation", AttrKind::Ints, Ints(rank, 1)},
                                  {"groups", AttrKind::Int, std::int64_t{1}}};
    OpDef conv{.name = fmt::format("nn.conv{}d", rank),
               .min_inputs = 2,
               .max_inputs = 3,
               .attrs = attrs,
               .infer = [rank](const std::vector<Type>& inputs,
                               const AttrMap& a) { return infer_conv(rank, inputs, a); },
               .kernel = conv_kernel,
               .fusion = FusionCategory::kAnchor};
    attrs.push_back({"output_padding", AttrKind::Ints, Ints(rank, 0)});
    OpDef transpose{
        .name = fmt::format("nn.conv{}d_transpose", rank),
        .min_inputs = 2,
        .max_inputs = 3,
        .attrs = attrs,
        .infer = [rank](const std::vector<Type>& inputs,
                        const AttrMap& a) { return infer_conv_transpose(rank, inputs, a); },
        .kernel = conv_transpose_kernel,
        .fusion = FusionCategory::kAnchor};
    for (OpDef* op : {&conv, &transpose})
      UMA_CHECK(registry.add(*op).ok(), "op {} registered twice", op->name);
  }
  OpDef packed{.name = "nn.conv2d_packed",
               .min_inputs = 2,
               .max_inputs = 3,
               .attrs = {{"strides", AttrKind::Ints, Ints(2, 1)},
                         {"padding", AttrKind::Ints, Ints(4, 0)},
                         {"dilation", AttrKind::Ints, Ints(2, 1)},
                         {"groups", AttrKind::Int, std::int64_t{1}}},
               .infer = infer_conv_packed,
               .kernel = conv_packed_kernel,
               .fusion = FusionCategory::kAnchor};
  UMA_CHECK(registry.add(packed).ok(), "op {} registered twice", packed.name);
  OpDef blocked = packed;
  blocked.name = "nn.conv2d_nchwc";
  blocked.infer = infer_conv_nchwc;
  blocked.kernel = conv_nchwc_kernel;
  UMA_CHECK(registry.add(blocked).ok(), "op {} registered twice", blocked.name);
}

}  // namespace uma
