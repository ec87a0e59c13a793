// Normalizations and softmax: nn.batch_norm (inference), nn.instance_norm, nn.layer_norm,
// nn.softmax and nn.log_softmax. (image.resize lives in resize.cc.)
//
// All take floating-point tensors; parameters share the data's dtype. The kernels read every
// dtype as double, compute statistics in double (two passes: the mean, then the mean squared
// deviation, which does not cancel the way E[x^2] - E[x]^2 does) and round once to the result
// dtype. Variances are population variances (divided by the count, not count - 1), as ONNX
// and PyTorch's normalizations use them.
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <memory>

#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using Ints = std::vector<std::int64_t>;

// Operand 0 is the data; `params` names the operands after it, which may be fewer (optional
// ones left out).
using ParamNames = std::initializer_list<const char*>;

// The data is floating-point and the parameters have its dtype.
Status check_float_operands(const std::vector<Type>& inputs, ParamNames params) {
  DType dtype = inputs[0].tensor().dtype;
  if (!is_float(dtype))
    return make_error(
        "data is {}, but only floating-point types (f32, f16, bf16, f64) are supported",
        dtype_name(dtype));
  std::size_t i = 1;
  for (const char* name : params) {
    if (i >= inputs.size()) break;
    if (inputs[i].tensor().dtype != dtype)
      return make_error("{} is {}, but data is {}", name, dtype_name(inputs[i].tensor().dtype),
                        dtype_name(dtype));
    ++i;
  }
  return Status::success();
}

// The parameters hold one value per element of data's dimension `axis`.
Status check_per_channel(const std::vector<Type>& inputs, ParamNames params, std::size_t axis) {
  std::int64_t channels = inputs[0].tensor().shape[axis];
  std::size_t i = 1;
  for (const char* name : params) {
    if (i >= inputs.size()) break;
    const Shape& shape = inputs[i++].tensor().shape;
    if (shape != Shape{channels})
      return make_error(
          "{} has shape {}, but must have shape {} (one value per element of "
          "dimension {} of data)",
          name, to_string(shape), channels, axis);
  }
  return Status::success();
}

// The int attribute `name` as an axis of data.
Expected<std::size_t> axis_of(const AttrMap& attrs, const char* name, std::size_t rank) {
  std::int64_t axis = attrs.get_int(name);
  std::optional<std::size_t> normalized = normalize_axis(axis, rank);
  if (!normalized) return make_error("attribute '{}' is {}, but {}", name, axis, valid_axes(rank));
  return *normalized;
}

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> values(static_cast<std::size_t>(t.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = t.get(static_cast<std::int64_t>(i));
  return values;
}

std::vector<TensorPtr> from_doubles(const std::vector<double>& values, const TensorType& type) {
  auto out = std::make_shared<Tensor>(type);
  for (std::size_t i = 0; i < values.size(); ++i) out->set(static_cast<std::int64_t>(i), values[i]);
  return {std::move(out)};
}

// Normalizes each of `rows` consecutive runs of `count` elements of `x` in place to zero mean
// and unit variance: (x - mean) / sqrt(variance + epsilon).
void normalize_rows(std::vector<double>& x, std::int64_t rows, std::int64_t count, double epsilon) {
  for (std::int64_t r = 0; r < rows; ++r) {
    double* row = x.data() + r * count;
    double sum = 0;
    for (std::int64_t i = 0; i < count; ++i) sum += row[i];
    double mean = sum / static_cast<double>(count);
    double squares = 0;
    for (std::int64_t i = 0; i < count; ++i) squares += (row[i] - mean) * (row[i] - mean);
    double scale = 1.0 / std::sqrt(squares / static_cast<double>(count) + epsilon);
    for (std::int64_t i = 0; i < count; ++i) row[i] = (row[i] - mean) * scale;
  }
}

// ---- nn.batch_norm ----

Expected<std::vector<Type>> infer_batch_norm(const std::vector<Type>& inputs,
                                             const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  UMA_TRY_ASSIGN(std::size_t axis, axis_of(attrs, "axis", data.rank()));
  const ParamNames params = {"gamma", "beta", "moving_mean", "moving_var"};
  UMA_TRY(check_float_operands(inputs, params));
  UMA_TRY(check_per_channel(inputs, params, axis));
  return std::vector<Type>{data};
}

// out = (data - moving_mean[c]) / sqrt(moving_var[c] + epsilon) * gamma[c] + beta[c], where c
// is the element's index along `axis`.
Expected<std::vector<TensorPtr>> batch_norm_kernel(const std::vector<TensorPtr>& inputs,
                                                   const AttrMap& attrs,
                                                   const std::vector<Type>& result_types) {
  const Shape& shape = inputs[0]->shape();
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), shape.size());
  double epsilon = attrs.get_float("epsilon");
  std::vector<double> x = to_doubles(*inputs[0]);
  std::vector<double> gamma = to_doubles(*inputs[1]), beta = to_doubles(*inputs[2]);
  std::vector<double> mean = to_doubles(*inputs[3]), var = to_doubles(*inputs[4]);
  const std::int64_t channels = shape[axis];
  const std::int64_t inner = product(shape, axis + 1, shape.size());
  for (std::int64_t i = 0; i < std::ssize(x); ++i) {
    std::int64_t c = i / inner % channels;
    x[i] = (x[i] - mean[c]) / std::sqrt(var[c] + epsilon) * gamma[c] + beta[c];
  }
  return from_doubles(x, result_types[0].tensor());
}

// ---- nn.instance_norm ----

Expected<std::vector<Type>> infer_instance_norm(const std::vector<Type>& inputs, const AttrMap&) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  if (data.rank() < 2)
    return make_error("data must have rank 2 or more (N, C, spatial...), got {}",
                      to_string(Type(data)));
  UMA_TRY(check_float_operands(inputs, {"gamma", "beta"}));
  UMA_TRY(check_per_channel(inputs, {"gamma", "beta"}, 1));
  return std::vector<Type>{data};
}

// Each (sample, channel) plane is normalized over its spatial elements, then scaled by
// gamma[c] and shifted by beta[c].
Expected<std::vector<TensorPtr>> instance_norm_kernel(const std::vector<TensorPtr>& inputs,
                                                      const AttrMap& attrs,
                                                      const std::vector<Type>& result_types) {
  const Shape& shape = inputs[0]->shape();
  std::vector<double> x = to_doubles(*inputs[0]);
  std::vector<double> gamma = to_doubles(*inputs[1]), beta = to_doubles(*inputs[2]);
  const std::int64_t channels = shape[1];
  const std::int64_t planes = shape[0] * channels;
  const std::int64_t plane_size = product(shape, 2, shape.size());
  normalize_rows(x, planes, plane_size, attrs.get_float("epsilon"));
  for (std::int64_t i = 0; i < std::ssize(x); ++i) {
    std::int64_t c = i / plane_size % channels;
    x[i] = x[i] * gamma[c] + beta[c];
  }
  return from_doubles(x, result_types[0].tensor());
}

// ---- nn.layer_norm ----

// gamma and beta broadcast (numpy rules, one way) to the normalized shape: dimensions
// [axis, rank) of data. ONNX's own models give them exactly that shape.
Expected<std::vector<Type>> infer_layer_norm(const std::vector<Type>& inputs,
                                             const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  UMA_TRY_ASSIGN(std::size_t axis, axis_of(attrs, "axis", data.rank()));
  UMA_TRY(check_float_operands(inputs, {"gamma", "beta"}));
  const Shape normalized(data.shape.begin() + static_cast<std::ptrdiff_t>(axis), data.shape.end());
  static constexpr const char* kParams[] = {"gamma", "beta"};
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const Shape& shape = inputs[i].tensor().shape;
    bool fits = shape.size() <= normalized.size();
    for (std::size_t d = 0; fits && d < shape.size(); ++d) {
      std::int64_t target = normalized[normalized.size() - shape.size() + d];
      fits = shape[d] == target || shape[d] == 1;
    }
    if (!fits)
      return make_error(
          "{} has shape {}, which does not broadcast to the normalized shape {} (the dimensions "
          "of data from {} on)",
          kParams[i - 1], to_string(shape), to_string(normalized), axis);
  }
  return std::vector<Type>{data};
}

// A parameter broadcast to the normalized shape, flattened: one value per normalized element.
std::vector<double> broadcast_param(const Tensor& param, const Shape& normalized) {
  std::vector<std::int64_t> strides = broadcast_strides(param.shape(), normalized);
  std::vector<double> values(static_cast<std::size_t>(product(normalized, 0, normalized.size())));
  for (std::size_t j = 0; j < values.size(); ++j)
    values[j] = param.get(strided_offset(static_cast<std::int64_t>(j), normalized, strides));
  return values;
}

// Each run of the normalized dimensions is normalized on its own, then multiplied by gamma
// and shifted by beta (elementwise over the normalized shape).
Expected<std::vector<TensorPtr>> layer_norm_kernel(const std::vector<TensorPtr>& inputs,
                                                   const AttrMap& attrs,
                                                   const std::vector<Type>& result_types) {
  const Shape& shape = inputs[0]->shape();
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), shape.size());
  const Shape normalized(shape.begin() + static_cast<std::ptrdiff_t>(axis), shape.end());
  const std::int64_t count = product(normalized, 0, normalized.size());
  std::vector<double> x = to_doubles(*inputs[0]);
  std::vector<double> gamma = broadcast_param(*inputs[1], normalized);
  std::vector<double> beta = inputs.size() > 2 ? broadcast_param(*inputs[2], normalized)
                                               : std::vector<double>(gamma.size(), 0.0);
  normalize_rows(x, product(shape, 0, axis), count, attrs.get_float("epsilon"));
  for (std::int64_t i = 0; i < std::ssize(x); ++i) {
    std::int64_t j = i % count;
    x[i] = x[i] * gamma[j] + beta[j];
  }
  return from_doubles(x, result_types[0].tensor());
}

// ---- nn.softmax, nn.log_softmax ----

Expected<std::vector<Type>> infer_softmax(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  if (auto axis = axis_of(attrs, "axis", data.rank()); !axis) return axis.error();
  UMA_TRY(check_float_operands(inputs, {}));
  return std::vector<Type>{data};
}

// Along `axis`: softmax(x)_k = exp(x_k - m) / sum_j exp(x_j - m) and log_softmax(x)_k =
// x_k - m - log(sum_j exp(x_j - m)), with m the maximum, so that no exp overflows.
Expected<std::vector<TensorPtr>> softmax_kernel(bool log, const std::vector<TensorPtr>& inputs,
                                                const AttrMap& attrs,
                                                const std::vector<Type>& result_types) {
  const Shape& shape = inputs[0]->shape();
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), shape.size());
  std::vector<double> x = to_doubles(*inputs[0]);
  const std::int64_t outer = product(shape, 0, axis);
  const std::int64_t length = shape[axis];
  const std::int64_t inner = product(shape, axis + 1, shape.size());
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      // Element k of this line is at base + k * inner.
      double* base = x.data() + o * length * inner + i;
      double max = -std::numeric_limits<double>::infinity();
      for (std::int64_t k = 0; k < length; ++k) max = std::fmax(max, base[k * inner]);
      double sum = 0;
      for (std::int64_t k = 0; k < length; ++k) sum += std::exp(base[k * inner] - max);
      for (std::int64_t k = 0; k < length; ++k) {
        double shifted = base[k * inner] - max;
        base[k * inner] = log ? shifted - std::log(sum) : std::exp(shifted) / sum;
      }
    }
  }
  return from_doubles(x, result_types[0].tensor());
}

}  // namespace

void register_norm_ops(OpRegistry& registry) {
  const std::vector<OpDef> ops = {
      {.name = "nn.batch_norm",
       .min_inputs = 5,
       .max_inputs = 5,
       .attrs = {{"axis", AttrKind::Int, std::int64_t{1}}, {"epsilon", AttrKind::Float, 1e-5}},
       .infer = infer_batch_norm,
       .kernel = batch_norm_kernel,
       // Pointwise with per-channel parameters: it fuses after an anchor like any
       // elementwise op.
       .fusion = FusionCategory::kElementwise},
      {.name = "nn.instance_norm",
       .min_inputs = 3,
       .max_inputs = 3,
       .attrs = {{"epsilon", AttrKind::Float, 1e-5}},
       .infer = infer_instance_norm,
       .kernel = instance_norm_kernel,
       .fusion = FusionCategory::kAnchor},
      {.name = "nn.layer_norm",
       .min_inputs = 2,
       .max_inputs = 3,
       .attrs = {{"axis", AttrKind::Int, std::int64_t{-1}}, {"epsilon", AttrKind::Float, 1e-5}},
       .infer = infer_layer_norm,
       .kernel = layer_norm_kernel,
       .fusion = FusionCategory::kAnchor},
      {.name = "nn.softmax",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"axis", AttrKind::Int, std::int64_t{-1}}},
       .infer = infer_softmax,
       .kernel =
           [](const std::vector<TensorPtr>& inputs, const AttrMap& attrs,
              const std::vector<Type>& result_types) {
             return softmax_kernel(false, inputs, attrs, result_types);
           },
       .fusion = FusionCategory::kAnchor},
      {.name = "nn.log_softmax",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"axis", AttrKind::Int, std::int64_t{-1}}},
       .infer = infer_softmax,
       .kernel =
           [](const std::vector<TensorPtr>& inputs, const AttrMap& attrs,
              const std::vector<Type>& result_types) {
             return softmax_kernel(true, inputs, attrs, result_types);
           },
       .fusion = FusionCategory::kAnchor},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
