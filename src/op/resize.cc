// image.resize: nearest-neighbour, (multi)linear and (multi)cubic resizing of the spatial
// dimensions of an (N, C, spatial...) tensor, with ONNX Resize's coordinate mappings, rounding
// modes and cubic options.
//
// Attributes:
//   size      output spatial sizes, one per spatial dimension.
//   scales    the scale factor of each spatial dimension as the model gave it, or [] for
//             size / input size. ONNX maps coordinates with the given scale, which differs
//             from size / input when the size was rounded down (input 4, scale 0.6 gives size
//             2, but coordinates still divide by 0.6).
//   method    "nearest", "linear" or "cubic".
//   coordinate_transformation_mode
//             how output coordinate x maps to input coordinate x' in one dimension (input
//             length in, output length out = in * scale, not rounded):
//               half_pixel            x' = (x + 0.5) / scale - 0.5
//               pytorch_half_pixel    the same, but x' = 0 when out is 1
//               align_corners         x' = x * (in - 1) / (out - 1), or 0 when out is 1
//               asymmetric            x' = x / scale
//               tf_half_pixel_for_nn  x' = (x + 0.5) / scale
//               tf_crop_and_resize    x' = start * (in - 1) + x * (end - start) * (in - 1) /
//                                     (out - 1), or (start + end) / 2 * (in - 1) when out is 1,
//                                     with [start, end] the dimension's region of interest
//   nearest_mode
//             how "nearest" rounds x': round_prefer_floor, round_prefer_ceil (round to the
//             nearest integer, halves going down or up), floor or ceil.
//   cubic_coeff_a
//             the a of the cubic convolution kernel (Keys 1981): -0.75 as in PyTorch, -0.5 as
//             in TensorFlow.
//   exclude_outside
//             1: cubic weights of elements outside the input become 0, and the others are
//             scaled to sum to 1.
//   roi       tf_crop_and_resize's region of interest, [start..., end...] with one start and
//             one end per spatial dimension, in units of the input's extent (0 first element,
//             1 last); [] for other modes.
//   extrapolation_value
//             the output wherever tf_crop_and_resize's x' falls outside [0, in - 1].
//
// Indices outside the input clamp to its edge (as ONNX's reference pads it by repeating the
// edge). "linear" interpolates between the two input elements around x' in each spatial
// dimension, "cubic" among the four (bicubic for 2 spatial dimensions); both need a
// floating-point dtype. "nearest" copies elements and takes any dtype.
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

constexpr std::array<const char*, 3> kMethods = {"nearest", "linear", "cubic"};
constexpr std::array<const char*, 6> kCoordinateModes = {
    "half_pixel", "pytorch_half_pixel",   "align_corners",
    "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
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

// roi holds a start and an end per spatial dimension under tf_crop_and_resize, else nothing.
Status check_roi(const AttrMap& attrs, std::size_t spatial) {
  const std::vector<double>& roi = attrs.get_floats("roi");
  if (attrs.get_string("coordinate_transformation_mode") != "tf_crop_and_resize") {
    if (!roi.empty())
      return make_error("attribute 'roi' is given, but only tf_crop_and_resize uses it");
    return Status::success();
  }
  if (roi.size() != 2 * spatial)
    return make_error(
        "attribute 'roi' has {} value(s), but tf_crop_and_resize needs a start and an end for "
        "each of the {} spatial dimension(s)",
        roi.size(), spatial);
  for (double r : roi)
    if (!std::isfinite(r))
      return make_error("attribute 'roi' must be finite, got [{}]", fmt::join(roi, ", "));
  return Status::success();
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

  UMA_TRY(check_choice(attrs, "method", kMethods));
  UMA_TRY(check_choice(attrs, "coordinate_transformation_mode", kCoordinateModes));
  UMA_TRY(check_choice(attrs, "nearest_mode", kNearestModes));
  UMA_TRY(check_roi(attrs, spatial));
  if (!std::isfinite(attrs.get_float("cubic_coeff_a")))
    return make_error("attribute 'cubic_coeff_a' must be finite, got {}",
                      attrs.get_float("cubic_coeff_a"));
  std::int64_t exclude_outside = attrs.get_int("exclude_outside");
  if (exclude_outside != 0 && exclude_outside != 1)
    return make_error("attribute 'exclude_outside' must be 0 or 1, got {}", exclude_outside);
  const std::string& method = attrs.get_string("method");
  if (method != "nearest" && !is_float(data.dtype))
    return make_error("data is {}, but method {} needs a floating-point type (f32, f16, bf16)",
                      dtype_name(data.dtype), method);
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
  double roi_start = 0, roi_end = 1;  // tf_crop_and_resize's region of interest

  // The input coordinate x' of output coordinate x. Every mode but tf_crop_and_resize clamps
  // it to [-1, in] (every x' beyond that clamps to the same elements), so that it converts to
  // an integer safely; tf_crop_and_resize's x' outside [0, in - 1] is never read.
  double source(std::int64_t x) const {
    const double xf = static_cast<double>(x);
    const double last = static_cast<double>(in - 1);
    if (*mode == "tf_crop_and_resize") {
      if (out_length == 1) return (roi_start + roi_end) / 2 * last;
      return roi_start * last + xf * (roi_end - roi_start) * last / (out_length - 1);
    }
    double s;
    if (*mode == "half_pixel") {
      s = (xf + 0.5) / scale - 0.5;
    } else if (*mode == "pytorch_half_pixel") {
      s = out_length > 1 ? (xf + 0.5) / scale - 0.5 : 0.0;
    } else if (*mode == "align_corners") {
      s = out_length == 1 ? 0.0 : xf * last / (out_length - 1);
    } else if (*mode == "asymmetric") {
      s = xf / scale;
    } else {  // tf_half_pixel_for_nn
      s = (xf + 0.5) / scale;
    }
    return std::clamp(s, -1.0, static_cast<double>(in));
  }

  // Whether the output at x' is tf_crop_and_resize's extrapolation value (NaN counts too).
  bool extrapolates(double s) const {
    return *mode == "tf_crop_and_resize" && !(s >= 0 && s <= static_cast<double>(in - 1));
  }

  std::int64_t clamp_index(std::int64_t i) const { return std::clamp<std::int64_t>(i, 0, in - 1); }
};

std::vector<AxisMapping> axis_mappings(const Shape& in_shape, const AttrMap& attrs) {
  const Ints& size = attrs.get_ints("size");
  const std::vector<double>& scales = attrs.get_floats("scales");
  const std::vector<double>& roi = attrs.get_floats("roi");
  const std::string& mode = attrs.get_string("coordinate_transformation_mode");
  std::vector<AxisMapping> mappings;
  for (std::size_t d = 0; d < size.size(); ++d) {
    std::int64_t in = in_shape[2 + d];
    double out = static_cast<double>(size[d]);
    double scale = scales.empty() ? out / static_cast<double>(in) : scales[d];
    AxisMapping mapping{in, scale, scales.empty() ? out : static_cast<double>(in) * scale, &mode};
    if (!roi.empty()) {
      mapping.roi_start = roi[d];
      mapping.roi_end = roi[size.size() + d];
    }
    mappings.push_back(mapping);
  }
  return mappings;
}

// ---- nearest ----

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

// Copies, for each output element, the input element its nearest-neighbour source names, or
// writes the extrapolation value. Bytes are copied, so every dtype works.
void resize_nearest(const Tensor& data, const std::vector<AxisMapping>& mappings,
                    const AttrMap& attrs, Tensor& out) {
  const std::string& rounding = attrs.get_string("nearest_mode");
  const Shape& in_shape = data.shape();
  const Shape& out_shape = out.shape();
  const std::size_t spatial = in_shape.size() - 2;
  // nearest[d][x]: the input index that output coordinate x of dimension d copies, or -1
  // where it extrapolates.
  std::vector<Ints> nearest(spatial);
  for (std::size_t d = 0; d < spatial; ++d) {
    for (std::int64_t x = 0; x < out_shape[2 + d]; ++x) {
      double source = mappings[d].source(x);
      nearest[d].push_back(mappings[d].extrapolates(source)
                               ? -1
                               : mappings[d].clamp_index(round_nearest(source, rounding)));
    }
  }

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
      bool extrapolated = false;
      std::int64_t rest = s;  // s in the mixed radix of the output's spatial dimensions
      for (std::size_t d = spatial; d-- > 0;) {
        std::int64_t index = nearest[d][rest % out_shape[2 + d]];
        extrapolated |= index < 0;
        offset += index * in_strides[d];
        rest /= out_shape[2 + d];
      }
      const std::int64_t at = p * out_plane_size + s;
      if (extrapolated)
        out.set(at, attrs.get_float("extrapolation_value"));
      else
        std::memcpy(out.bytes().data() + at * bytes, data.bytes().data() + offset * bytes,
                    static_cast<std::size_t>(bytes));
    }
  }
}

// ---- linear and cubic ----

// One input element that an output coordinate reads, and its weight.
struct Tap {
  std::int64_t index;
  double weight;
};

// The weights of the input elements floor(x') - 1 .. floor(x') + 2 around x' = floor(x') + t
// in cubic convolution with coefficient a: Keys' kernel of each element's distance from x'
// (written as ONNX's reference cubic_coeffs writes it).
std::array<double, 4> cubic_weights(double t, double a) {
  auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };       // |d| <= 1
  auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 < |d| < 2
  return {far(t + 1), near(t), near(1 - t), far((1 - t) + 1)};
}

// The taps of input coordinate x' of one dimension, indices clamped to the input's edge; none
// where tf_crop_and_resize extrapolates. Taps of weight 0 are left out, so that an x' right on
// an input element copies it, even beside an infinity.
std::vector<Tap> taps_at(const AxisMapping& mapping, double source, const AttrMap& attrs) {
  if (mapping.extrapolates(source)) return {};
  const double lower = std::floor(source);
  const double t = source - lower;
  const auto first = static_cast<std::int64_t>(lower);
  std::vector<Tap> taps;
  if (attrs.get_string("method") == "linear") {
    taps = {{first, 1 - t}, {first + 1, t}};
  } else {
    std::array<double, 4> weights = cubic_weights(t, attrs.get_float("cubic_coeff_a"));
    for (std::int64_t k = 0; k < 4; ++k) taps.push_back({first - 1 + k, weights[k]});
    if (attrs.get_int("exclude_outside") == 1) {
      double sum = 0;
      for (Tap& tap : taps) {
        if (tap.index < 0 || tap.index >= mapping.in) tap.weight = 0;
        sum += tap.weight;
      }
      if (sum != 0)
        for (Tap& tap : taps) tap.weight /= sum;
    }
  }
  std::vector<Tap> kept;
  for (const Tap& tap : taps)
    if (tap.weight != 0) kept.push_back({mapping.clamp_index(tap.index), tap.weight});
  return kept;
}

// Multilinear and multicubic interpolation are separable: one weighted sum per spatial
// dimension, done one dimension at a time on doubles, which is linear in the output size
// where a sum over every tap of each output element's box would not be. Shrinking dimensions
// go first, so no intermediate is larger than the input or the output. An output that one
// dimension extrapolates holds the extrapolation value, which later sums keep (their weights
// add up to 1), as in ONNX's reference.
void resize_separable(const Tensor& data, const std::vector<AxisMapping>& mappings,
                      const AttrMap& attrs, Tensor& out) {
  const Shape& out_shape = out.shape();
  const double extrapolation = attrs.get_float("extrapolation_value");
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
      const std::vector<Tap> taps = taps_at(mappings[d], mappings[d].source(x), attrs);
      for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t k = 0; k < inner; ++k) {
          double sum = taps.empty() ? extrapolation : 0.0;
          for (const Tap& tap : taps) sum += tap.weight * values[(o * in + tap.index) * inner + k];
          next[(o * out_length + x) * inner + k] = sum;
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
    resize_nearest(data, mappings, attrs, *out);
  else
    resize_separable(data, mappings, attrs, *out);
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
                {"nearest_mode", AttrKind::String, std::string("round_prefer_floor")},
                {"cubic_coeff_a", AttrKind::Float, -0.75},
                {"exclude_outside", AttrKind::Int, std::int64_t{0}},
                {"roi", AttrKind::Floats, std::vector<double>{}},
                {"extrapolation_value", AttrKind::Float, 0.0}},
      .infer = infer_resize,
      .kernel = resize_kernel,
      .fusion = FusionCategory::kInjective};
  UMA_CHECK(registry.add(std::move(resize)).ok(), "op image.resize registered twice");
}

}  // namespace uma
