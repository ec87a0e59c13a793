// image.resize: nearest-neighbour and (multi)linear resizing of the spatial dimensions of an
// (N, C, spatial...) tensor, with ONNX Resize's coordinate mappings and rounding modes.
//
// Attributes:
//   size      output spatial sizes, one per spatial dimension.
//   scales    the scale factor of each spatial dimension as the model gave it, or [] for
//             size / input size. ONNX maps coordinates with the given scale, which differs
//             from size / input when the size was rounded down (input 4, scale 0.6 gives size
//             2, but coordinates still divide by 0.6).
//   method    "nearest" or "linear".
//   coordinate_transformation_mode
//             how output coordinate x maps to input coordinate x' in one dimension (input
//             length in, output length out = in * scale, not rounded):
//               half_pixel            x' = (x + 0.5) / scale - 0.5
//               pytorch_half_pixel    the same, but x' = 0 when out is 1
//               align_corners         x' = x * (in - 1) / (out - 1), or 0 when out is 1
//               asymmetric            x' = x / scale
//               tf_half_pixel_for_nn  x' = (x + 0.5) / scale
//   nearest_mode
//             how "nearest" rounds x': round_prefer_floor, round_prefer_ceil (round to the
//             nearest integer, halves going down or up), floor or ceil.
//
// Indices outside the input clamp to its edge, for both methods. "linear" interpolates
// between the two input elements around x' in each spatial dimension (bilinear for 2, and
// so on) and needs a floating-point dtype; "nearest" copies elements and takes any dtype.
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>

#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using Ints = std::vector<std::int64_t>;

constexpr std::array<const char*, 5> kCoordinateModes = {
    "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"};
constexpr std::array<const char*, 4> kNearestModes = {"round_prefer_floor", "round_prefer_ceil",
                                                      "floor", "ceil"};

template <std::size_t N>
Status check_choice(const AttrMap& attrs, const char* name,
                    const std::array<const char*, N>& choices) {
  const std::string& value = attrs.get_string(name);
  for (const char* choice : choices)
    if (value == choice) return Status::success();
  return make_error("attribute '{}' is \"{}\", but must be one of {}", name, value,
                    fmt::join(choices, ", "));
}

Expected<std::vector<Type>> infer_resize(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  if (data.rank() < 3)
    return make_error("data must have rank 3 or more (N, C, spatial...), got {}",
                      to_string(Type(data)));
  const std::size_t spatial = data.rank() - 2;
  const Ints& size = attrs.get_ints("size");
  if (size.size() != spatial)
    return make_error("attribute 'size' has {} value(s), but data has {} spatial dimension(s)",
                      size.size(), spatial);
  for (std::int64_t s : size)
    if (s < 0)
      return make_error("attribute 'size' must not be negative, got {}", format_ints(size));
  const std::vector<double>& scales = attrs.get_floats("scales");
  if (!scales.empty() && scales.size() != spatial)
    return make_error("attribute 'scales' has {} value(s), but data has {} spatial dimension(s)",
                      scales.size(), spatial);
  for (double s : scales)
    if (!(s > 0) || std::isinf(s))
      return make_error("attribute 'scales' must be positive and finite, got [{}]",
                        fmt::join(scales, ", "));

  const std::string& method = attrs.get_string("method");
  if (method != "nearest" && method != "linear")
    return make_error("attribute 'method' is \"{}\", but must be nearest or linear", method);
  UMA_TRY(check_choice(attrs, "coordinate_transformation_mode", kCoordinateModes));
  UMA_TRY(check_choice(attrs, "nearest_mode", kNearestModes));
  if (method == "linear" && !is_float(data.dtype))
    return make_error("data is {}, but method linear needs a floating-point type (f32, f16, bf16)",
                      dtype_name(data.dtype));
  for (std::size_t d = 0; d < spatial; ++d)
    if (data.shape[2 + d] == 0 && size[d] != 0)
      return make_error("data dimension {} is empty, so it cannot be resized to {}", 2 + d,
                        size[d]);

  TensorType result{data.dtype, {data.shape[0], data.shape[1]}};
  result.shape.insert(result.shape.end(), size.begin(), size.end());
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

// How one spatial dimension maps output coordinates to input coordinates.
struct AxisMapping {
  std::int64_t in;    // input length
  double scale;       // the given scale, or out / in
  double out_length;  // in * scale: not rounded, as ONNX uses it
  const std::string* mode;

  // The input coordinate x' of output coordinate x, clamped to [-1, in] (every x' beyond
  // that clamps to the same elements), so that it converts to an integer safely.
  double source(std::int64_t x) const {
    const double xf = static_cast<double>(x);
    double s;
    if (*mode == "half_pixel") {
      s = (xf + 0.5) / scale - 0.5;
    } else if (*mode == "pytorch_half_pixel") {
      s = out_length > 1 ? (xf + 0.5) / scale - 0.5 : 0.0;
    } else if (*mode == "align_corners") {
      s = out_length == 1 ? 0.0 : xf * static_cast<double>(in - 1) / (out_length - 1);
    } else if (*mode == "asymmetric") {
      s = xf / scale;
    } else {  // tf_half_pixel_for_nn
      s = (xf + 0.5) / scale;
    }
    return std::clamp(s, -1.0, static_cast<double>(in));
  }

  std::int64_t clamp_index(std::int64_t i) const { return std::clamp<std::int64_t>(i, 0, in - 1); }
};

std::vector<AxisMapping> axis_mappings(const Shape& in_shape, const AttrMap& attrs) {
  const Ints& size = attrs.get_ints("size");
  const std::vector<double>& scales = attrs.get_floats("scales");
  const std::string& mode = attrs.get_string("coordinate_transformation_mode");
  std::vector<AxisMapping> mappings;
  for (std::size_t d = 0; d < size.size(); ++d) {
    std::int64_t in = in_shape[2 + d];
    double out = static_cast<double>(size[d]);
    double scale = scales.empty() ? out / static_cast<double>(in) : scales[d];
    mappings.push_back({in, scale, scales.empty() ? out : static_cast<double>(in) * scale, &mode});
  }
  return mappings;
}

// ONNX's rounding of a nearest-neighbour coordinate; integers stay as they are.
std::int64_t round_nearest(double x, const std::string& mode) {
  double lower = std::floor(x);
  double ratio = x - lower;
  auto down = static_cast<std::int64_t>(lower);
  if (ratio == 0) return down;
  if (mode == "round_prefer_floor") return ratio <= 0.5 ? down : down + 1;
  if (mode == "round_prefer_ceil") return ratio < 0.5 ? down : down + 1;
  if (mode == "floor") return down;
  return down + 1;  // ceil
}

// Copies, for each output element, the input element its nearest-neighbour source names.
// Bytes are copied, so every dtype works.
void resize_nearest(const Tensor& data, const std::vector<AxisMapping>& mappings,
                    const std::string& rounding, Tensor& out) {
  const Shape& in_shape = data.shape();
  const Shape& out_shape = out.shape();
  const std::size_t spatial = in_shape.size() - 2;
  // nearest[d][x]: the input index that output coordinate x of dimension d copies.
  std::vector<Ints> nearest(spatial);
  for (std::size_t d = 0; d < spatial; ++d)
    for (std::int64_t x = 0; x < out_shape[2 + d]; ++x)
      nearest[d].push_back(mappings[d].clamp_index(round_nearest(mappings[d].source(x), rounding)));

  // The tensors are planes (one per n, c) of row-major spatial elements.
  const std::int64_t planes = out_shape[0] * out_shape[1];
  const std::int64_t in_plane_size = product(in_shape, 2, in_shape.size());
  const std::int64_t out_plane_size = product(out_shape, 2, out_shape.size());
  const std::vector<std::int64_t> in_strides =
      row_major_strides(Shape(in_shape.begin() + 2, in_shape.end()));
  const auto bytes = static_cast<std::int64_t>(dtype_size(data.dtype()));
  for (std::int64_t p = 0; p < planes; ++p) {
    for (std::int64_t s = 0; s < out_plane_size; ++s) {
      std::int64_t offset = p * in_plane_size;
      std::int64_t rest = s;  // s in the mixed radix of the output's spatial dimensions
      for (std::size_t d = spatial; d-- > 0;) {
        offset += nearest[d][rest % out_shape[2 + d]] * in_strides[d];
        rest /= out_shape[2 + d];
      }
      std::memcpy(out.bytes().data() + (p * out_plane_size + s) * bytes,
                  data.bytes().data() + offset * bytes, static_cast<std::size_t>(bytes));
    }
  }
}

// Multilinear interpolation factors into one linear interpolation per spatial dimension,
// done one dimension at a time on doubles: linear in the output size, where a sum over the
// 2^spatial corners of each output element's box would not be. Shrinking dimensions go
// first, so no intermediate is larger than the input or the output.
void resize_linear(const Tensor& data, const std::vector<AxisMapping>& mappings, Tensor& out) {
  const Shape& out_shape = out.shape();
  std::vector<double> values(static_cast<std::size_t>(data.num_elements()));
  for (std::int64_t i = 0; i < data.num_elements(); ++i) values[i] = data.get(i);
  Shape shape = data.shape();
  std::vector<std::size_t> order(mappings.size());
  for (std::size_t d = 0; d < order.size(); ++d) order[d] = d;
  std::stable_partition(order.begin(), order.end(),
                        [&](std::size_t d) { return out_shape[2 + d] < shape[2 + d]; });
  for (std::size_t d : order) {
    const std::size_t axis = 2 + d;
    const std::int64_t outer = product(shape, 0, axis),
                       inner = product(shape, axis + 1, shape.size());
    const std::int64_t in = shape[axis], out_length = out_shape[axis];
    std::vector<double> next(static_cast<std::size_t>(outer * out_length * inner));
    for (std::int64_t x = 0; x < out_length; ++x) {
      // Between input elements i and i + 1, at fraction t of the way. At t == 0 the result is
      // element i itself, even when its neighbour is infinite.
      const double source = mappings[d].source(x);
      const double t = source - std::floor(source);
      const auto i = static_cast<std::int64_t>(std::floor(source));
      const std::int64_t lo = mappings[d].clamp_index(i), hi = mappings[d].clamp_index(i + 1);
      for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t k = 0; k < inner; ++k) {
          double a = values[(o * in + lo) * inner + k], b = values[(o * in + hi) * inner + k];
          next[(o * out_length + x) * inner + k] = t == 0 ? a : (1 - t) * a + t * b;
        }
      }
    }
    values = std::move(next);
    shape[axis] = out_length;
  }
  for (std::int64_t i = 0; i < out.num_elements(); ++i) out.set(i, values[i]);
}

Expected<std::vector<TensorPtr>> resize_kernel(const std::vector<TensorPtr>& inputs,
                                               const AttrMap& attrs,
                                               const std::vector<Type>& result_types) {
  const Tensor& data = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const std::vector<AxisMapping> mappings = axis_mappings(data.shape(), attrs);
  if (attrs.get_string("method") == "nearest")
    resize_nearest(data, mappings, attrs.get_string("nearest_mode"), *out);
  else
    resize_linear(data, mappings, *out);
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

void register_resize_ops(OpRegistry& registry) {
  OpDef resize{
      .name = "image.resize",
      .min_inputs = 1,
      .max_inputs = 1,
      .attrs = {{"size", AttrKind::Ints, std::nullopt},
                {"scales", AttrKind::Floats, std::vector<double>{}},
                {"method", AttrKind::String, std::string("nearest")},
                {"coordinate_transformation_mode", AttrKind::String, std::string("half_pixel")},
                {"nearest_mode", AttrKind::String, std::string("round_prefer_floor")}},
      .infer = infer_resize,
      .kernel = resize_kernel};
  UMA_CHECK(registry.add(std::move(resize)).ok(), "op image.resize registered twice");
}

}  // namespace uma
