// Neural-network ops: nn.conv2d (NCHW data, OIHW weight) and nn.dense (Relay's dense).
//
// Both take floating-point tensors of one dtype. The reference kernels read f16 and
// bf16 as f32, accumulate in double (so they are a stricter reference than any backend
// that accumulates in f32) and round once to the result dtype.
#include <memory>

#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

// data, weight and the optional bias share one floating-point dtype.
Status check_dtypes(const std::vector<Type>& inputs) {
  static constexpr const char* kNames[] = {"data", "weight", "bias"};
  DType dtype = inputs[0].tensor().dtype;
  if (!is_float(dtype))
    return make_error("data is {}, but only floating-point types (f32, f16, bf16) are supported",
                      dtype_name(dtype));
  for (std::size_t i = 1; i < inputs.size(); ++i)
    if (inputs[i].tensor().dtype != dtype)
      return make_error("{} is {}, but data is {}", kNames[i], dtype_name(inputs[i].tensor().dtype),
                        dtype_name(dtype));
  return Status::success();
}

// The optional bias holds one value per output channel or unit.
Status check_bias(const std::vector<Type>& inputs, std::int64_t count, const char* per) {
  if (inputs.size() < 3) return Status::success();
  const Shape& shape = inputs[2].tensor().shape;
  if (shape != Shape{count})
    return make_error("bias has shape {}, but must have shape {} (one value per {})",
                      to_string(shape), count, per);
  return Status::success();
}

// ---- nn.conv2d ----

Status check_attr_values(const AttrMap& attrs, const char* name, std::size_t count,
                         const char* meaning, std::int64_t min) {
  const std::vector<std::int64_t>& values = attrs.get_ints(name);
  if (values.size() != count)
    return make_error("attribute '{}' must have {} values{}, got {}", name, count, meaning,
                      values.size());
  for (std::int64_t v : values)
    if (v < min)
      return make_error("attribute '{}' must be {}, got {}", name,
                        min == 0 ? "non-negative" : "positive", format_ints(values));
  return Status::success();
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - (a % b != 0 && a < 0 ? 1 : 0);
}

// The output size along one spatial dimension ("height" or "width"). A too-small input
// reports the negative size it would give, which tells the user by how much it misses.
Expected<std::int64_t> conv_output_size(const char* what, std::int64_t input,
                                        std::int64_t pad_before, std::int64_t pad_after,
                                        std::int64_t kernel, std::int64_t dilation,
                                        std::int64_t stride) {
  std::string why = fmt::format("(input {}, padding {}+{}, kernel {}, dilation {}, stride {})",
                                input, pad_before, pad_after, kernel, dilation, stride);
  std::optional<std::int64_t> padded, extent;
  if (auto p = checked_add(input, pad_before)) padded = checked_add(*p, pad_after);
  if (auto e = checked_mul(dilation, kernel - 1)) extent = checked_add(*e, 1);
  if (!padded || !extent) return make_error("output {} overflows int64 {}", what, why);
  std::int64_t size = floor_div(*padded - *extent, stride) + 1;
  if (size < 1) return make_error("output {} would be {} {}", what, size, why);
  return size;
}

Expected<std::vector<Type>> infer_conv2d(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  const TensorType& weight = inputs[1].tensor();
  if (data.rank() != 4)
    return make_error("data must have rank 4 (NCHW), got {}", to_string(Type(data)));
  if (weight.rank() != 4)
    return make_error("weight must have rank 4 (OIHW), got {}", to_string(Type(weight)));
  UMA_TRY(check_dtypes(inputs));
  UMA_TRY(check_attr_values(attrs, "strides", 2, "", 1));
  UMA_TRY(check_attr_values(attrs, "padding", 4, " (top, left, bottom, right)", 0));
  UMA_TRY(check_attr_values(attrs, "dilation", 2, "", 1));
  std::int64_t groups = attrs.get_int("groups");
  if (groups < 1) return make_error("attribute 'groups' must be positive, got {}", groups);

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
  if (weight.shape[2] < 1 || weight.shape[3] < 1)
    return make_error("weight has an empty kernel {}x{}", weight.shape[2], weight.shape[3]);
  UMA_TRY(check_bias(inputs, out_channels, "output channel"));

  const auto& strides = attrs.get_ints("strides");
  const auto& padding = attrs.get_ints("padding");
  const auto& dilation = attrs.get_ints("dilation");
  UMA_TRY_ASSIGN(std::int64_t height,
                 conv_output_size("height", data.shape[2], padding[0], padding[2], weight.shape[2],
                                  dilation[0], strides[0]));
  UMA_TRY_ASSIGN(std::int64_t width,
                 conv_output_size("width", data.shape[3], padding[1], padding[3], weight.shape[3],
                                  dilation[1], strides[1]));
  TensorType result{data.dtype, {data.shape[0], out_channels, height, width}};
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

std::vector<float> to_floats(const Tensor& t) {
  if (t.dtype() == DType::f32) return {t.data<float>(), t.data<float>() + t.num_elements()};
  std::vector<float> values(static_cast<std::size_t>(t.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(t.get(static_cast<std::int64_t>(i)));
  return values;
}

std::vector<TensorPtr> from_doubles(const std::vector<double>& values, const TensorType& type) {
  auto out = std::make_shared<Tensor>(type);
  for (std::size_t i = 0; i < values.size(); ++i) out->set(static_cast<std::int64_t>(i), values[i]);
  return {std::move(out)};
}

// Straight from the definition: out[n][o][y][x] = bias[o] + sum over the group's input
// channels c and kernel taps (ky, kx) of data[n][c][y*stride - pad + ky*dilation][...]
// * weight[o][c][ky][kx], where taps that land in the padding contribute nothing.
Expected<std::vector<TensorPtr>> conv2d_kernel(const std::vector<TensorPtr>& inputs,
                                               const AttrMap& attrs,
                                               const std::vector<Type>& result_types) {
  const Shape& ds = inputs[0]->shape();
  const Shape& ws = inputs[1]->shape();
  const TensorType& out_type = result_types[0].tensor();
  std::vector<float> data = to_floats(*inputs[0]);
  std::vector<float> weight = to_floats(*inputs[1]);
  std::vector<float> bias = inputs.size() > 2 ? to_floats(*inputs[2]) : std::vector<float>();

  const std::int64_t batch = ds[0], channels = ds[1], in_h = ds[2], in_w = ds[3];
  const std::int64_t out_channels = ws[0], group_channels = ws[1], k_h = ws[2], k_w = ws[3];
  const std::int64_t out_h = out_type.shape[2], out_w = out_type.shape[3];
  const std::int64_t stride_h = attrs.get_ints("strides")[0],
                     stride_w = attrs.get_ints("strides")[1];
  const std::int64_t pad_top = attrs.get_ints("padding")[0],
                     pad_left = attrs.get_ints("padding")[1];
  const std::int64_t dil_h = attrs.get_ints("dilation")[0], dil_w = attrs.get_ints("dilation")[1];
  const std::int64_t group_out_channels = out_channels / attrs.get_int("groups");

  std::vector<double> out(static_cast<std::size_t>(out_type.num_elements()));
  for (std::int64_t n = 0; n < batch; ++n) {
    for (std::int64_t o = 0; o < out_channels; ++o) {
      std::int64_t first_channel = o / group_out_channels * group_channels;
      for (std::int64_t y = 0; y < out_h; ++y) {
        for (std::int64_t x = 0; x < out_w; ++x) {
          double sum = bias.empty() ? 0.0 : bias[o];
          for (std::int64_t c = 0; c < group_channels; ++c) {
            for (std::int64_t ky = 0; ky < k_h; ++ky) {
              std::int64_t iy = y * stride_h - pad_top + ky * dil_h;
              if (iy < 0 || iy >= in_h) continue;
              for (std::int64_t kx = 0; kx < k_w; ++kx) {
                std::int64_t ix = x * stride_w - pad_left + kx * dil_w;
                if (ix < 0 || ix >= in_w) continue;
                double d = data[((n * channels + first_channel + c) * in_h + iy) * in_w + ix];
                double w = weight[((o * group_channels + c) * k_h + ky) * k_w + kx];
                sum += d * w;
              }
            }
          }
          out[((n * out_channels + o) * out_h + y) * out_w + x] = sum;
        }
      }
    }
  }
  return from_doubles(out, out_type);
}

// ---- nn.dense ----

Expected<std::vector<Type>> infer_dense(const std::vector<Type>& inputs, const AttrMap&) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  const TensorType& weight = inputs[1].tensor();
  if (data.rank() < 1)
    return make_error("data must have rank 1 or more ([..., input features]), got {}",
                      to_string(Type(data)));
  if (weight.rank() != 2)
    return make_error("weight must have rank 2 ([units, input features]), got {}",
                      to_string(Type(weight)));
  UMA_TRY(check_dtypes(inputs));
  if (weight.shape[1] != data.shape.back())
    return make_error(
        "weight has {} input features (dimension 1), data has {} (its last dimension)",
        weight.shape[1], data.shape.back());
  UMA_TRY(check_bias(inputs, weight.shape[0], "unit"));
  TensorType result = data;
  result.shape.back() = weight.shape[0];
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

// out[m][u] = bias[u] + sum over k of data[m][k] * weight[u][k], where m runs over all
// leading dimensions of data flattened.
Expected<std::vector<TensorPtr>> dense_kernel(const std::vector<TensorPtr>& inputs, const AttrMap&,
                                              const std::vector<Type>& result_types) {
  const TensorType& out_type = result_types[0].tensor();
  std::vector<float> data = to_floats(*inputs[0]);
  std::vector<float> weight = to_floats(*inputs[1]);
  std::vector<float> bias = inputs.size() > 2 ? to_floats(*inputs[2]) : std::vector<float>();
  const std::int64_t units = inputs[1]->shape()[0], features = inputs[1]->shape()[1];
  const Shape& data_shape = inputs[0]->shape();
  const std::int64_t rows = product(data_shape, 0, data_shape.size() - 1);

  std::vector<double> out(static_cast<std::size_t>(out_type.num_elements()));
  for (std::int64_t m = 0; m < rows; ++m) {
    for (std::int64_t u = 0; u < units; ++u) {
      double sum = bias.empty() ? 0.0 : bias[u];
      for (std::int64_t k = 0; k < features; ++k)
        sum += double{data[m * features + k]} * weight[u * features + k];
      out[m * units + u] = sum;
    }
  }
  return from_doubles(out, out_type);
}

}  // namespace

void register_nn_ops(OpRegistry& registry) {
  using Ints = std::vector<std::int64_t>;
  const std::vector<OpDef> ops = {
      {.name = "nn.conv2d",
       .min_inputs = 2,
       .max_inputs = 3,
       .attrs = {{"strides", AttrKind::Ints, Ints{1, 1}},
                 {"padding", AttrKind::Ints, Ints{0, 0, 0, 0}},
                 {"dilation", AttrKind::Ints, Ints{1, 1}},
                 {"groups", AttrKind::Int, std::int64_t{1}}},
       .infer = infer_conv2d,
       .kernel = conv2d_kernel},
      {.name = "nn.dense",
       .min_inputs = 2,
       .max_inputs = 3,
       .infer = infer_dense,
       .kernel = dense_kernel},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
