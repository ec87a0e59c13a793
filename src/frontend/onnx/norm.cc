// Converters for ONNX's normalizations (BatchNormalization, InstanceNormalization,
// LayerNormalization; MeanVarianceNormalization and LRN composed of reductions, pads, slices
// and pointwise ops), Softmax and LogSoftmax, and Resize and Upsample.
//
// Opset differences handled here:
// - BatchNormalization: `spatial` (7-8) must be 1. Before 14 the statistics outputs meant
//   training and are refused; from 14 `training_mode` = 1 normalizes with the batch's
//   statistics and gives the running ones (see batch_norm_training). Since 15 the parameters
//   may have another float type than X: they are cast to X's.
// - Softmax, LogSoftmax: before 13 the input is read as a matrix [d0 * ... * d(axis-1),
//   d(axis) * ... * d(n-1)] (default axis 1) and normalized over whole rows; from 13 over
//   one axis (default -1).
// - Resize: 10 takes (X, scales), maps coordinates "asymmetric" and has no cubic mode; 11
//   adds roi and sizes, cubic, and the coordinate_transformation_mode, nearest_mode,
//   cubic_coeff_a, exclude_outside and extrapolation_value attributes; 13 makes roi and
//   scales optional. Upsample (7: scales attribute; 9: scales input) is Resize 10.
#include <fmt/ranges.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#include "converter.h"
#include "static_input.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;

// Refuses the node when it names any output from `first` on.
Status reject_outputs_from(const NodeContext& ctx, int first, std::string_view why) {
  const onnx::NodeProto& node = ctx.proto();
  for (int i = first; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      return make_error("output {} ('{}') is not supported: {}", i, node.output(i), why);
  return Status::success();
}

Expected<Value*> reshape(NodeContext& ctx, Value* value, const Shape& shape) {
  AttrMap attrs;
  attrs.set("newshape", shape);
  // Without allowzero, a 0 in newshape would copy the input's dimension instead.
  for (std::int64_t dim : shape)
    if (dim == 0) attrs.set("allowzero", std::int64_t{1});
  return ctx.emit_value("reshape", {value}, std::move(attrs));
}

// A rank-0 tensor of `dtype` holding `value`.
// ---- BatchNormalization, InstanceNormalization ----

// BatchNormalization's training mode (opset 14 on): Y normalizes X with the batch's own
// statistics, the mean and the population variance (divided by the count) over every
// dimension but the channels (1), and the running statistics blend them into the inputs:
// running = input * momentum + batch * (1 - momentum), in the inputs' dtype. The batch
// statistics are computed in f32 for 16-bit X, as BatchNormalization-15 specifies.
Expected<std::vector<Value*>> batch_norm_training(NodeContext& ctx,
                                                  const std::vector<Value*>& operands,
                                                  Value* input_mean, Value* input_var,
                                                  AttrMap attrs) {
  UMA_TRY_ASSIGN(double momentum, ctx.attr_float("momentum", 0.9));
  Value* x = operands[0];
  const TensorType& type = x->tensor_type();
  if (type.rank() < 2)
    return make_error("input 0 ('X') is {}, but must have a channel dimension (rank 2 or more)",
                      to_string(x->type()));
  const DType wide = dtype_size(type.dtype) < 4 ? DType::f32 : type.dtype;
  UMA_TRY_ASSIGN(Value * wide_x, cast_to(ctx, x, wide));
  Ints axes = {0};
  for (std::size_t d = 2; d < type.rank(); ++d) axes.push_back(static_cast<std::int64_t>(d));
  AttrMap reduce;
  reduce.set("axes", axes);
  reduce.set("keepdims", std::int64_t{1});
  UMA_TRY_ASSIGN(Value * mean, ctx.emit_value("mean", {wide_x}, reduce));
  UMA_TRY_ASSIGN(Value * centered, ctx.emit_value("subtract", {wide_x, mean}));
  UMA_TRY_ASSIGN(Value * squares, ctx.emit_value("multiply", {centered, centered}));
  reduce.set("keepdims", std::int64_t{0});
  UMA_TRY_ASSIGN(Value * batch_var, ctx.emit_value("mean", {squares}, reduce));
  UMA_TRY_ASSIGN(Value * batch_mean, reshape(ctx, mean, {type.shape[1]}));

  std::vector<Value*> normalize = operands;
  UMA_TRY_ASSIGN(normalize[3], cast_to(ctx, batch_mean, type.dtype));
  UMA_TRY_ASSIGN(normalize[4], cast_to(ctx, batch_var, type.dtype));
  UMA_TRY_ASSIGN(Value * y, ctx.emit_value("nn.batch_norm", normalize, std::move(attrs)));

  // input * momentum + batch * (1 - momentum), in the input's dtype.
  auto running = [&](Value* input, Value* batch) -> Expected<Value*> {
    const DType dtype = input->tensor_type().dtype;
    UMA_TRY_ASSIGN(Value * kept, ctx.emit_value("multiply", {input, scalar(ctx, dtype, momentum)}));
    UMA_TRY_ASSIGN(batch, cast_to(ctx, batch, dtype));
    UMA_TRY_ASSIGN(Value * added,
                   ctx.emit_value("multiply", {batch, scalar(ctx, dtype, 1 - momentum)}));
    return ctx.emit_value("add", {kept, added});
  };
  std::vector<Value*> outputs = {y};
  if (ctx.proto().output_size() > 1) {
    UMA_TRY_ASSIGN(Value * running_mean, running(input_mean, batch_mean));
    outputs.push_back(running_mean);
  }
  if (ctx.proto().output_size() > 2) {
    UMA_TRY_ASSIGN(Value * running_var, running(input_var, batch_var));
    outputs.push_back(running_var);
  }
  return outputs;
}

Expected<std::vector<Value*>> convert_batch_norm(NodeContext& ctx) {
  static constexpr const char* kInputs[] = {"X", "scale", "B", "input_mean", "input_var"};
  bool training = false;
  if (ctx.opset() >= 14) {
    UMA_TRY_ASSIGN(std::int64_t mode, ctx.attr_int("training_mode", 0));
    if (mode != 0 && mode != 1)
      return make_error("attribute 'training_mode' must be 0 or 1, got {}", mode);
    training = mode == 1;
    UMA_TRY(reject_outputs_from(ctx, training ? 3 : 1,
                                training ? "BatchNormalization has 3 outputs"
                                         : "the running statistics exist only in training mode "
                                           "(training_mode = 1)"));
  } else {
    UMA_TRY(reject_outputs_from(ctx, 1,
                                "before opset 14 they mean training, which uma supports from "
                                "opset 14 on (attribute training_mode)"));
  }
  if (ctx.opset() < 9) {
    UMA_TRY_ASSIGN(std::int64_t spatial, ctx.attr_int("spatial", 1));
    if (spatial != 1)
      return make_error("attribute 'spatial' is {}; only 1 (statistics per channel) is supported",
                        spatial);
  }
  UMA_TRY_ASSIGN(double epsilon, ctx.attr_float("epsilon", 1e-5));
  std::vector<Value*> inputs, operands;
  for (std::size_t i = 0; i < 5; ++i) {
    UMA_TRY_ASSIGN(Value * value, required_input(ctx, i, kInputs[i]));
    inputs.push_back(value);
    if (i > 0) {
      UMA_TRY_ASSIGN(value, cast_to(ctx, value, operands[0]->tensor_type().dtype));
    }
    operands.push_back(value);
  }
  AttrMap attrs;
  attrs.set("epsilon", epsilon);
  if (training) return batch_norm_training(ctx, operands, inputs[3], inputs[4], std::move(attrs));
  return single(ctx.emit_value("nn.batch_norm", std::move(operands), std::move(attrs)));
}

Expected<std::vector<Value*>> convert_instance_norm(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "input"));
  UMA_TRY_ASSIGN(Value * scale, required_input(ctx, 1, "scale"));
  UMA_TRY_ASSIGN(Value * bias, required_input(ctx, 2, "B"));
  UMA_TRY_ASSIGN(double epsilon, ctx.attr_float("epsilon", 1e-5));
  AttrMap attrs;
  attrs.set("epsilon", epsilon);
  return single(ctx.emit_value("nn.instance_norm", {x, scale, bias}, std::move(attrs)));
}

// ---- LayerNormalization ----

// Mean and InvStdDev = 1 / sqrt(variance + epsilon) over dimensions [axis, rank), kept as
// size-1 dimensions, in f32 (ONNX's default stash_type). Built from reductions, since only
// models that read them (ONNX's own tests do) pay for them.
Expected<std::pair<Value*, Value*>> layer_norm_statistics(NodeContext& ctx, Value* x,
                                                          std::size_t axis, double epsilon) {
  UMA_TRY_ASSIGN(Value * x32, cast_to(ctx, x, DType::f32));
  Ints axes;
  for (std::size_t d = axis; d < x->tensor_type().rank(); ++d)
    axes.push_back(static_cast<std::int64_t>(d));
  AttrMap reduce;
  reduce.set("axes", axes);
  reduce.set("keepdims", std::int64_t{1});
  UMA_TRY_ASSIGN(Value * mean, ctx.emit_value("mean", {x32}, reduce));
  UMA_TRY_ASSIGN(Value * centered, ctx.emit_value("subtract", {x32, mean}));
  UMA_TRY_ASSIGN(Value * squares, ctx.emit_value("multiply", {centered, centered}));
  UMA_TRY_ASSIGN(Value * variance, ctx.emit_value("mean", {squares}, reduce));
  UMA_TRY_ASSIGN(Value * shifted,
                 ctx.emit_value("add", {variance, scalar(ctx, DType::f32, epsilon)}));
  UMA_TRY_ASSIGN(Value * deviation, ctx.emit_value("sqrt", {shifted}));
  UMA_TRY_ASSIGN(Value * inverse, ctx.emit_value("reciprocal", {deviation}));
  return std::pair{mean, inverse};
}

Expected<std::vector<Value*>> convert_layer_norm(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  UMA_TRY_ASSIGN(Value * scale, required_input(ctx, 1, "Scale"));
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", -1));
  UMA_TRY_ASSIGN(double epsilon, ctx.attr_float("epsilon", 1e-5));
  std::vector<Value*> operands = {x, scale};
  if (ctx.has_input(2)) operands.push_back(ctx.input(2));
  AttrMap attrs;
  attrs.set("axis", axis);
  attrs.set("epsilon", epsilon);
  UMA_TRY_ASSIGN(Value * y, ctx.emit_value("nn.layer_norm", std::move(operands), std::move(attrs)));

  const onnx::NodeProto& node = ctx.proto();
  bool wants_statistics = false;
  for (int i = 1; i < node.output_size() && i < 3; ++i) wants_statistics |= !node.output(i).empty();
  if (!wants_statistics) return std::vector<Value*>{y};
  // nn.layer_norm checked the axis.
  std::size_t normalized = *normalize_axis(axis, x->tensor_type().rank());
  UMA_TRY_ASSIGN(auto statistics, layer_norm_statistics(ctx, x, normalized, epsilon));
  return std::vector<Value*>{y, statistics.first, statistics.second};
}

// ---- Softmax, LogSoftmax ----

Expected<std::vector<Value*>> convert_softmax(NodeContext& ctx, const char* op) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "input"));
  const bool per_axis = ctx.opset() >= 13;
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", per_axis ? -1 : 1));
  AttrMap attrs;
  attrs.set("axis", axis);
  const TensorType& type = x->tensor_type();
  std::optional<std::size_t> normalized = normalize_axis(axis, type.rank());
  // Rows of the coerced matrix are the dimensions from `axis` on; when those after `axis`
  // hold one element (or the tensor none), that is the same as one axis.
  if (per_axis || !normalized || product(type.shape, *normalized + 1, type.rank()) == 1 ||
      type.num_elements() == 0) {
    return single(ctx.emit_value(op, {x}, std::move(attrs)));
  }
  Shape matrix = {product(type.shape, 0, *normalized),
                  product(type.shape, *normalized, type.rank())};
  UMA_TRY_ASSIGN(Value * rows, reshape(ctx, x, matrix));
  attrs.set("axis", std::int64_t{1});
  UMA_TRY_ASSIGN(Value * normalized_rows, ctx.emit_value(op, {rows}, std::move(attrs)));
  return single(reshape(ctx, normalized_rows, type.shape));
}

// ---- Resize, Upsample ----

// What the model asks of one Resize: a scale or a size for every dimension of X.
struct ResizeRequest {
  std::vector<double> scales;  // empty when sizes are given
  Ints sizes;                  // empty when scales are given
  std::string method;
  std::string coordinate_mode;
  std::string nearest_mode;  // empty: Resize 10's rounding (see simple_nearest_mode)
  std::vector<double> roi;   // tf_crop_and_resize: a start per dimension of X, then an end
  AttrMap cubic_and_crop;    // cubic_coeff_a, exclude_outside, extrapolation_value (from 11)
};

Expected<std::vector<double>> read_scales(const TensorPtr& tensor, std::string_view what,
                                          std::size_t rank) {
  if (tensor->shape().size() != 1 || static_cast<std::size_t>(tensor->num_elements()) != rank)
    return make_error("{} has shape {}, but must hold one value per dimension of X (rank {})", what,
                      to_string(tensor->shape()), rank);
  if (!is_float(tensor->dtype()))
    return make_error("{} is {}, but must be floating-point", what, dtype_name(tensor->dtype()));
  std::vector<double> scales;
  for (std::int64_t i = 0; i < tensor->num_elements(); ++i) scales.push_back(tensor->get(i));
  for (double s : scales)
    if (!(s > 0) || std::isinf(s))
      return make_error("{} must be positive and finite, got [{}]", what, fmt::join(scales, ", "));
  return scales;
}

Status check_sizes(const Ints& sizes, std::size_t rank) {
  if (sizes.size() != rank)
    return make_error(
        "input 3 ('sizes') has {} value(s), but must hold one per dimension of X "
        "(rank {})",
        sizes.size(), rank);
  for (std::int64_t s : sizes)
    if (s < 0)
      return make_error("input 3 ('sizes') must not be negative, got {}", format_ints(sizes));
  return Status::success();
}

// Resize 10 and Upsample round nearest-neighbour coordinates down when a dimension grows and
// up when it shrinks (as ONNX Runtime and ONNX's Resize 10 tests do). image.resize has one
// rounding mode for all dimensions, so dimensions must not do both.
Expected<std::string> simple_nearest_mode(const std::vector<double>& scales) {
  bool grows = false, shrinks = false;
  for (double s : scales) {
    grows |= s > 1;
    shrinks |= s < 1;
  }
  if (grows && shrinks)
    return make_error(
        "nearest resizing that grows some dimensions and shrinks others is not "
        "supported before opset 11 (scales [{}])",
        fmt::join(scales, ", "));
  return std::string(shrinks ? "ceil" : "floor");
}

// Resize 11's attributes for cubic and for tf_crop_and_resize, and the roi input that
// tf_crop_and_resize reads (and the other modes ignore).
Status read_cubic_and_crop(const NodeContext& ctx, const Value* x, ResizeRequest& request) {
  UMA_TRY_ASSIGN(double a, ctx.attr_float("cubic_coeff_a", -0.75));
  UMA_TRY_ASSIGN(std::int64_t exclude_outside, ctx.attr_int("exclude_outside", 0));
  UMA_TRY_ASSIGN(double extrapolation_value, ctx.attr_float("extrapolation_value", 0.0));
  request.cubic_and_crop.set("cubic_coeff_a", a);
  request.cubic_and_crop.set("exclude_outside", exclude_outside);
  request.cubic_and_crop.set("extrapolation_value", extrapolation_value);
  if (request.coordinate_mode != "tf_crop_and_resize") return Status::success();
  const std::size_t rank = x->tensor_type().rank();
  UMA_TRY_ASSIGN(TensorPtr roi, ctx.require_constant_input(1, "roi"));
  if (roi->shape().size() != 1 || static_cast<std::size_t>(roi->num_elements()) != 2 * rank)
    return make_error(
        "input 1 ('roi') has shape {}, but tf_crop_and_resize needs a start and an end for each "
        "dimension of X (rank {})",
        to_string(roi->shape()), rank);
  if (!is_float(roi->dtype()))
    return make_error("input 1 ('roi') is {}, but must be floating-point",
                      dtype_name(roi->dtype()));
  for (std::int64_t i = 0; i < roi->num_elements(); ++i) request.roi.push_back(roi->get(i));
  return Status::success();
}

// image.resize resizes the dimensions after N and C; X of rank 1 or 2 gets two leading 1s.
Expected<std::vector<Value*>> emit_resize(NodeContext& ctx, Value* x, ResizeRequest request) {
  const Shape& in = x->tensor_type().shape;
  const std::size_t rank = in.size();
  if (rank == 0) return make_error("X is a scalar, which has no dimensions to resize");
  const bool cubic_exists = ctx.op_type() == "Resize" && ctx.opset() >= 11;
  if (request.method != "nearest" && request.method != "linear" &&
      (request.method != "cubic" || !cubic_exists))
    return make_error("mode '{}' is not supported (only {} are)", request.method,
                      cubic_exists ? "nearest, linear and cubic" : "nearest and linear");

  Ints out = request.sizes;
  if (out.empty()) {
    for (std::size_t d = 0; d < rank; ++d) {
      // ONNX: floor(input * scale), in double as ONNX's reference computes it.
      double size = std::floor(static_cast<double>(in[d]) * request.scales[d]);
      if (size >= 0x1p62)
        return make_error("scale {} makes dimension {} (size {}) too large", request.scales[d], d,
                          in[d]);
      out.push_back(static_cast<std::int64_t>(size));
    }
  }
  // Resize 10 and Upsample (which always give scales) have no nearest_mode.
  if (request.nearest_mode.empty() && request.method == "nearest") {
    UMA_TRY_ASSIGN(request.nearest_mode, simple_nearest_mode(request.scales));
  }

  const std::size_t lead = rank < 3 ? 2 : 0;  // leading 1s added
  // Dimensions 0 and 1 (of a rank-3+ X) are not resized: same size, and a scale of exactly 1
  // so that coordinates map to themselves. tf_half_pixel_for_nn moves even those by half an
  // element, which rounding up or interpolating would see; a region of interest other than
  // [0, 1] moves them too.
  const bool cropped = request.coordinate_mode == "tf_crop_and_resize";
  for (std::size_t d = 0; d < 2 - lead && d < rank; ++d) {
    bool unit_scale = request.scales.empty() || request.scales[d] == 1 || in[d] == 1;
    bool shifted = request.coordinate_mode == "tf_half_pixel_for_nn" && in[d] > 1 &&
                   (request.method != "nearest" || request.nearest_mode == "ceil" ||
                    request.nearest_mode == "round_prefer_ceil");
    shifted |= cropped && in[d] > 1 && (request.roi[d] != 0 || request.roi[rank + d] != 1);
    if (out[d] != in[d] || !unit_scale || shifted)
      return make_error("resizing dimension {} (N or C) is not supported, only dimensions 2 and up",
                        d);
  }

  AttrMap attrs;
  attrs.set("size", Ints(out.begin() + static_cast<std::ptrdiff_t>(2 - lead), out.end()));
  // The given scales matter only where they differ from size / input.
  bool exact = true;
  for (std::size_t d = 0; d < request.scales.size(); ++d)
    exact &= static_cast<double>(out[d]) / static_cast<double>(in[d]) == request.scales[d];
  if (!exact)
    attrs.set("scales",
              std::vector<double>(request.scales.begin() + static_cast<std::ptrdiff_t>(2 - lead),
                                  request.scales.end()));
  attrs.set("method", request.method);
  attrs.set("coordinate_transformation_mode", request.coordinate_mode);
  if (!request.nearest_mode.empty()) attrs.set("nearest_mode", request.nearest_mode);
  for (const auto& [name, value] : request.cubic_and_crop) attrs.set(name, value);
  if (cropped) {
    // The starts and ends of the spatial dimensions (all of a rank-1 or -2 X).
    const auto first = static_cast<std::ptrdiff_t>(2 - lead);
    const auto n = static_cast<std::ptrdiff_t>(rank);
    std::vector<double> roi(request.roi.begin() + first, request.roi.begin() + n);
    roi.insert(roi.end(), request.roi.begin() + n + first, request.roi.end());
    attrs.set("roi", roi);
  }

  Value* data = x;
  if (lead > 0) {
    Shape padded(lead, 1);
    padded.insert(padded.end(), in.begin(), in.end());
    UMA_TRY_ASSIGN(data, reshape(ctx, x, padded));
  }
  UMA_TRY_ASSIGN(Value * y, ctx.emit_value("image.resize", {data}, std::move(attrs)));
  if (lead > 0) {
    UMA_TRY_ASSIGN(y, reshape(ctx, y, out));
  }
  return std::vector<Value*>{y};
}

Expected<std::vector<Value*>> convert_resize(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  const std::size_t rank = x->tensor_type().rank();
  ResizeRequest request;
  UMA_TRY_ASSIGN(request.method, ctx.attr_string("mode", "nearest"));
  if (ctx.opset() < 11) {
    request.coordinate_mode = "asymmetric";
    UMA_TRY_ASSIGN(TensorPtr scales, ctx.require_constant_input(1, "scales"));
    UMA_TRY_ASSIGN(request.scales, read_scales(scales, "input 1 ('scales')", rank));
    return emit_resize(ctx, x, std::move(request));
  }
  UMA_TRY_ASSIGN(request.coordinate_mode,
                 ctx.attr_string("coordinate_transformation_mode", "half_pixel"));
  UMA_TRY_ASSIGN(request.nearest_mode, ctx.attr_string("nearest_mode", "round_prefer_floor"));
  UMA_TRY(read_cubic_and_crop(ctx, x, request));
  // An empty tensor stands for an input left out (opset 11 requires scales to be given).
  TensorPtr scales;
  if (ctx.has_input(2)) {
    UMA_TRY_ASSIGN(scales, ctx.require_constant_input(2, "scales"));
    if (scales->num_elements() == 0) scales = nullptr;
  }
  UMA_TRY_ASSIGN(auto sizes, optional_constant_ints(ctx, 3, "sizes"));
  if (sizes && sizes->empty()) sizes = std::nullopt;
  if (scales && sizes)
    return make_error("inputs 'scales' and 'sizes' exclude each other; give one");
  if (!scales && !sizes) return make_error("give input 'scales' or 'sizes'");
  if (scales) {
    UMA_TRY_ASSIGN(request.scales, read_scales(scales, "input 2 ('scales')", rank));
  } else {
    UMA_TRY(check_sizes(*sizes, rank));
    request.sizes = std::move(*sizes);
  }
  return emit_resize(ctx, x, std::move(request));
}

Expected<std::vector<Value*>> convert_upsample(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  const std::size_t rank = x->tensor_type().rank();
  ResizeRequest request;
  UMA_TRY_ASSIGN(request.method, ctx.attr_string("mode", "nearest"));
  request.coordinate_mode = "asymmetric";
  if (ctx.opset() < 9) {
    UMA_TRY_ASSIGN(request.scales, ctx.attr_floats("scales", std::nullopt));
    if (request.scales.size() != rank)
      return make_error("attribute 'scales' has {} value(s), but X has rank {}",
                        request.scales.size(), rank);
    for (double s : request.scales)
      if (!(s > 0) || std::isinf(s))
        return make_error("attribute 'scales' must be positive and finite, got [{}]",
                          fmt::join(request.scales, ", "));
  } else {
    UMA_TRY_ASSIGN(TensorPtr scales, ctx.require_constant_input(1, "scales"));
    UMA_TRY_ASSIGN(request.scales, read_scales(scales, "input 1 ('scales')", rank));
  }
  return emit_resize(ctx, x, std::move(request));
}

// ---- MeanVarianceNormalization, LRN ----

// (x - mean) / (std + 1e-9) over `axes` (default 0, 2, 3), as ONNX's function body: the
// variance is the centered mean of squares.
Expected<std::vector<Value*>> convert_mean_variance_norm(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  UMA_TRY_ASSIGN(Ints axes, ctx.attr_ints("axes", Ints{0, 2, 3}));
  AttrMap reduce;
  reduce.set("axes", axes);
  reduce.set("keepdims", std::int64_t{1});
  const DType dtype = x->tensor_type().dtype;
  UMA_TRY_ASSIGN(Value * mean, ctx.emit_value("mean", {x}, reduce));
  UMA_TRY_ASSIGN(Value * centered, ctx.emit_value("subtract", {x, mean}));
  UMA_TRY_ASSIGN(Value * squares, ctx.emit_value("multiply", {centered, centered}));
  UMA_TRY_ASSIGN(Value * variance, ctx.emit_value("mean", {squares}, reduce));
  UMA_TRY_ASSIGN(Value * deviation, ctx.emit_value("sqrt", {variance}));
  UMA_TRY_ASSIGN(deviation, ctx.emit_value("add", {deviation, scalar(ctx, dtype, 1e-9)}));
  return single(ctx.emit_value("divide", {centered, deviation}));
}

// x / (bias + alpha / size * s)^beta, s the sum of squares over a window of `size` channels
// around each (floor((size - 1) / 2) before, the rest after): the squares zero-padded along
// the channels and `size` slices of them added.
Expected<std::vector<Value*>> convert_lrn(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  UMA_TRY_ASSIGN(std::int64_t size, ctx.attr_int("size", std::nullopt));
  UMA_TRY_ASSIGN(double alpha, ctx.attr_float("alpha", 1e-4));
  UMA_TRY_ASSIGN(double beta, ctx.attr_float("beta", 0.75));
  UMA_TRY_ASSIGN(double bias, ctx.attr_float("bias", 1.0));
  const Shape& shape = x->tensor_type().shape;
  if (shape.size() < 3)
    return make_error("input 0 has shape {}, but must have at least 3 dimensions (N, C, ...)",
                      to_string(shape));
  if (size < 1) return make_error("attribute 'size' is {}, but must be positive", size);
  const DType dtype = x->tensor_type().dtype;
  UMA_TRY_ASSIGN(Value * squares, ctx.emit_value("multiply", {x, x}));
  Ints widths(2 * shape.size(), 0);
  widths[1] = (size - 1) / 2;
  widths[shape.size() + 1] = size - 1 - (size - 1) / 2;
  AttrMap pad;
  pad.set("pad_width", widths);
  UMA_TRY_ASSIGN(Value * padded, ctx.emit_value("nn.pad", {squares}, std::move(pad)));
  Value* window = nullptr;
  for (std::int64_t i = 0; i < size; ++i) {
    AttrMap slice;
    slice.set("begin", Ints{i});
    slice.set("end", Ints{i + shape[1]});
    slice.set("axes", Ints{1});
    UMA_TRY_ASSIGN(Value * part, ctx.emit_value("strided_slice", {padded}, std::move(slice)));
    if (window == nullptr) {
      window = part;
    } else {
      UMA_TRY_ASSIGN(window, ctx.emit_value("add", {window, part}));
    }
  }
  UMA_TRY_ASSIGN(
      Value * scaled,
      ctx.emit_value("multiply", {window, scalar(ctx, dtype, alpha / static_cast<double>(size))}));
  UMA_TRY_ASSIGN(Value * base, ctx.emit_value("add", {scaled, scalar(ctx, dtype, bias)}));
  UMA_TRY_ASSIGN(Value * divisor, ctx.emit_value("power", {base, scalar(ctx, dtype, beta)}));
  return single(ctx.emit_value("divide", {x, divisor}));
}

}  // namespace

// Each op with the first opset of the definition converted (see ConverterEntry).
void register_norm_converters(ConverterTable& table) {
  // BatchNormalization-6 trained (computed batch statistics) unless is_test was set.
  table.add("BatchNormalization", 7, convert_batch_norm);
  // InstanceNormalization-1 had consumed_inputs.
  table.add("InstanceNormalization", 6, convert_instance_norm);
  table.add("LayerNormalization", 17, convert_layer_norm);
  table.add("Softmax", 1, [](NodeContext& ctx) { return convert_softmax(ctx, "nn.softmax"); });
  table.add("LogSoftmax", 1,
            [](NodeContext& ctx) { return convert_softmax(ctx, "nn.log_softmax"); });
  table.add("Resize", 10, convert_resize);
  table.add("MeanVarianceNormalization", 9, convert_mean_variance_norm);
  table.add("LRN", 1, convert_lrn);
  // Upsample-1 (experimental) had height_scale and width_scale attributes.
  table.add("Upsample", 7, convert_upsample);
}

}  // namespace uma::onnx_import
