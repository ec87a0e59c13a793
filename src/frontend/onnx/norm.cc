// Converters for ONNX's normalizations (BatchNormalization, InstanceNormalization,
// LayerNormalization), Softmax and LogSoftmax, and Resize and Upsample.
//
// Opset differences handled here:
// - BatchNormalization: `spatial` (7-8) must be 1; `training_mode` (14+) must be 0; the
//   optional outputs (running or saved statistics) exist only in training and are refused.
//   Since 15 the parameters may have another float type than X: they are cast to X's.
// - Softmax, LogSoftmax: before 13 the input is read as a matrix [d0 * ... * d(axis-1),
//   d(axis) * ... * d(n-1)] (default axis 1) and normalized over whole rows; from 13 over
//   one axis (default -1).
// - Resize: 10 takes (X, scales) and maps coordinates "asymmetric"; 11 adds roi and sizes
//   and the coordinate_transformation_mode / nearest_mode attributes; 13 makes roi and
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

Expected<Value*> cast_to(NodeContext& ctx, Value* value, DType dtype) {
  if (value->tensor_type().dtype == dtype) return value;
  AttrMap attrs;
  attrs.set("dtype", std::string(dtype_name(dtype)));
  return ctx.emit_value("cast", {value}, std::move(attrs));
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
Value* scalar(NodeContext& ctx, DType dtype, double value) {
  auto tensor = std::make_shared<Tensor>(TensorType{dtype, {}});
  tensor->set(0, value);
  return ctx.constant(std::move(tensor));
}

// ---- BatchNormalization, InstanceNormalization ----

Expected<std::vector<Value*>> convert_batch_norm(NodeContext& ctx) {
  static constexpr const char* kInputs[] = {"X", "scale", "B", "input_mean", "input_var"};
  UMA_TRY(reject_outputs_from(ctx, 1,
                              "BatchNormalization's statistics outputs exist only in "
                              "training mode, and only inference is supported"));
  if (ctx.opset() < 9) {
    UMA_TRY_ASSIGN(std::int64_t spatial, ctx.attr_int("spatial", 1));
    if (spatial != 1)
      return make_error("attribute 'spatial' is {}; only 1 (statistics per channel) is supported",
                        spatial);
  }
  if (ctx.opset() >= 14) {
    UMA_TRY_ASSIGN(std::int64_t training, ctx.attr_int("training_mode", 0));
    if (training != 0)
      return make_error("attribute 'training_mode' is {}; only inference (0) is supported",
                        training);
  }
  UMA_TRY_ASSIGN(double epsilon, ctx.attr_float("epsilon", 1e-5));
  std::vector<Value*> operands;
  for (std::size_t i = 0; i < 5; ++i) {
    UMA_TRY_ASSIGN(Value * value, required_input(ctx, i, kInputs[i]));
    if (i > 0) {
      UMA_TRY_ASSIGN(value, cast_to(ctx, value, operands[0]->tensor_type().dtype));
    }
    operands.push_back(value);
  }
  AttrMap attrs;
  attrs.set("epsilon", epsilon);
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

// image.resize resizes the dimensions after N and C; X of rank 1 or 2 gets two leading 1s.
Expected<std::vector<Value*>> emit_resize(NodeContext& ctx, Value* x, ResizeRequest request) {
  const Shape& in = x->tensor_type().shape;
  const std::size_t rank = in.size();
  if (rank == 0) return make_error("X is a scalar, which has no dimensions to resize");
  if (request.method != "nearest" && request.method != "linear")
    return make_error("mode '{}' is not supported (only nearest and linear are)", request.method);
  if (request.coordinate_mode == "tf_crop_and_resize")
    return make_error(
        "coordinate_transformation_mode 'tf_crop_and_resize' (a region of interest) is not "
        "supported");

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
  // element, which rounding up or interpolating would see.
  for (std::size_t d = 0; d < 2 - lead && d < rank; ++d) {
    bool unit_scale = request.scales.empty() || request.scales[d] == 1 || in[d] == 1;
    bool shifted = request.coordinate_mode == "tf_half_pixel_for_nn" && in[d] > 1 &&
                   (request.method == "linear" || request.nearest_mode == "ceil" ||
                    request.nearest_mode == "round_prefer_ceil");
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
  // exclude_outside only changes cubic weights: nearest and linear never weigh an element
  // outside the input differently from the edge element it clamps to.
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

}  // namespace

void register_norm_converters(ConverterTable& table) {
  table.add("BatchNormalization", convert_batch_norm);
  table.add("InstanceNormalization", convert_instance_norm);
  table.add("LayerNormalization", convert_layer_norm);
  table.add("Softmax", [](NodeContext& ctx) { return convert_softmax(ctx, "nn.softmax"); });
  table.add("LogSoftmax", [](NodeContext& ctx) { return convert_softmax(ctx, "nn.log_softmax"); });
  table.add("Resize", convert_resize);
  table.add("Upsample", convert_upsample);
}

}  // namespace uma::onnx_import
