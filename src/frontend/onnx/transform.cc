// Converters of ONNX's data-movement ops: Reshape, Flatten, Transpose, Concat, Split, Slice,
// Gather, Squeeze, Unsqueeze, Expand, Tile, Pad, Shape, ConstantOfShape and Range.
//
// Shapes, axes, pads, slice bounds and repeats must be constants (initializers, Constant
// nodes, or computations on them that the importer folds): uma's shapes are static.
//
// Opset differences handled here (1..17; the registration table says from which opset on each
// op is converted):
// - Reshape: the shape is an input from 5 (an attribute before, which is not supported);
//   allowzero from 14.
// - Concat: axis defaults to 1 before 4 and is required from 4.
// - Flatten: a negative axis from 11.
// - Split: sizes in the `split` attribute before 13, the optional input 1 from 13. Without
//   them the axis is split evenly among the node's outputs.
// - Slice: starts, ends and axes are attributes before 10; from 10 they are inputs, with
//   optional steps.
// - Squeeze and Unsqueeze: axes are an attribute before 13 and an input from 13.
// - Pad: pads and value are attributes before 11; from 11 pads and constant_value are inputs.
// - Shape: start and end from 15.
#include <limits>

#include "static_input.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

const Shape& shape_of(const Value* value) { return value->tensor_type().shape; }

AttrMap attrs_of(std::initializer_list<std::pair<const char*, Attribute>> entries) {
  AttrMap attrs;
  for (const auto& [name, value] : entries) attrs.set(name, value);
  return attrs;
}

// An attribute before opset `since`, an optional constant input `index` from it on.
Expected<std::optional<Ints>> ints_attr_or_input(const NodeContext& ctx, const char* name,
                                                 std::int64_t since, std::size_t index) {
  if (ctx.opset() >= since) return optional_constant_ints(ctx, index, name);
  if (!ctx.has_attr(name)) return std::optional<Ints>();
  UMA_TRY_ASSIGN(Ints values, ctx.attr_ints(name, std::nullopt));
  return std::optional<Ints>(std::move(values));
}

Expected<Values> convert_reshape(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(Ints shape, constant_ints(ctx, 1, "shape"));
  std::int64_t allow_zero = 0;
  if (ctx.opset() >= 14) {
    UMA_TRY_ASSIGN(allow_zero, ctx.attr_int("allowzero", 0));
  }
  return single(ctx.emit_value("reshape", {data},
                               attrs_of({{"newshape", shape}, {"allowzero", allow_zero}})));
}

// Flatten to 2-D: the dimensions before `axis` make the first, the rest the second.
Expected<Values> convert_flatten(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", 1));
  const Shape& shape = shape_of(input);
  auto rank = static_cast<std::int64_t>(shape.size());
  std::int64_t lowest = ctx.opset() >= 11 ? -rank : 0;
  if (axis < lowest || axis > rank)
    return make_error("attribute 'axis' is {}, but must be in [{}, {}] for an input of rank {}",
                      axis, lowest, rank, rank);
  auto split = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  // allowzero: a 0 here is an empty dimension, not "copy the input's".
  Ints newshape{product(shape, 0, split), product(shape, split, shape.size())};
  return single(ctx.emit_value("reshape", {input},
                               attrs_of({{"newshape", newshape}, {"allowzero", std::int64_t{1}}})));
}

Expected<Values> convert_transpose(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(Ints perm, ctx.attr_ints("perm", Ints{}));
  return single(ctx.emit_value("transpose", {data}, attrs_of({{"axes", perm}})));
}

Expected<Values> convert_concat(NodeContext& ctx) {
  UMA_TRY_ASSIGN(
      std::int64_t axis,
      ctx.attr_int("axis", ctx.opset() < 4 ? std::optional<std::int64_t>(1) : std::nullopt));
  Values inputs;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    UMA_TRY_ASSIGN(Value * input, required_input(ctx, i, "inputs"));
    inputs.push_back(input);
  }
  return single(ctx.emit_value("concatenate", std::move(inputs), attrs_of({{"axis", axis}})));
}

Expected<Values> convert_split(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", 0));
  UMA_TRY_ASSIGN(std::optional<Ints> sizes, ints_attr_or_input(ctx, "split", 13, 1));
  auto outputs = static_cast<std::size_t>(ctx.proto().output_size());
  AttrMap attrs = attrs_of({{"axis", axis}});
  if (sizes && !sizes->empty()) {
    if (sizes->size() != outputs)
      return make_error("'split' has {} values, but the node has {} outputs", sizes->size(),
                        outputs);
    attrs.set("sizes", *sizes);
  } else {
    attrs.set("sections", static_cast<std::int64_t>(outputs));
  }
  UMA_TRY_ASSIGN(Node * node, ctx.emit("split", {input}, std::move(attrs)));
  return node->results();
}

Expected<Values> convert_slice(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  Ints starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    UMA_TRY_ASSIGN(starts, ctx.attr_ints("starts", std::nullopt));
    UMA_TRY_ASSIGN(ends, ctx.attr_ints("ends", std::nullopt));
    UMA_TRY_ASSIGN(axes, ctx.attr_ints("axes", Ints{}));
  } else {
    UMA_TRY_ASSIGN(starts, constant_ints(ctx, 1, "starts"));
    UMA_TRY_ASSIGN(ends, constant_ints(ctx, 2, "ends"));
    UMA_TRY_ASSIGN(std::optional<Ints> given_axes, optional_constant_ints(ctx, 3, "axes"));
    UMA_TRY_ASSIGN(std::optional<Ints> given_steps, optional_constant_ints(ctx, 4, "steps"));
    axes = given_axes.value_or(Ints{});
    steps = given_steps.value_or(Ints{});
  }
  return single(ctx.emit_value(
      "strided_slice", {data},
      attrs_of({{"begin", starts}, {"end", ends}, {"strides", steps}, {"axes", axes}})));
}

Expected<Values> convert_gather(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(Value * indices, required_input(ctx, 1, "indices"));
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", 0));
  return single(ctx.emit_value("take", {data, indices}, attrs_of({{"axis", axis}})));
}

Expected<Values> convert_squeeze(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(std::optional<Ints> axes, ints_attr_or_input(ctx, "axes", 13, 1));
  return single(ctx.emit_value("squeeze", {data}, attrs_of({{"axes", axes.value_or(Ints{})}})));
}

Expected<Values> convert_unsqueeze(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(std::optional<Ints> axes, ints_attr_or_input(ctx, "axes", 13, 1));
  if (!axes)
    return ctx.opset() >= 13 ? make_error("input 1 ('axes') is missing")
                             : make_error("attribute 'axes' is required");
  return single(ctx.emit_value("expand_dims", {data}, attrs_of({{"axes", *axes}})));
}

// Expand broadcasts both ways: the result's shape is the input's and `shape` broadcast
// together, so a 1 in `shape` keeps the input's dimension.
Expected<Values> convert_expand(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  UMA_TRY_ASSIGN(Ints shape, constant_ints(ctx, 1, "shape"));
  for (std::int64_t dim : shape)
    if (dim < 0)
      return make_error("input 1 ('shape') {} has a negative dimension", format_ints(shape));
  auto result = broadcast_shapes(shape_of(input), shape);
  if (!result) return result.error().with_context("input 0 and input 1 ('shape')");
  return single(ctx.emit_value("broadcast_to", {input}, attrs_of({{"shape", *result}})));
}

Expected<Values> convert_tile(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  UMA_TRY_ASSIGN(Ints repeats, constant_ints(ctx, 1, "repeats"));
  if (repeats.size() != shape_of(input).size())
    return make_error("input 1 ('repeats') has {} values, but input 0 has rank {}", repeats.size(),
                      shape_of(input).size());
  return single(ctx.emit_value("tile", {input}, attrs_of({{"reps", repeats}})));
}

Expected<Values> convert_pad(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(std::string mode, ctx.attr_string("mode", "constant"));
  Ints pads;
  double value = 0;
  if (ctx.opset() < 11) {
    UMA_TRY_ASSIGN(pads, ctx.attr_ints("pads", std::nullopt));
    UMA_TRY_ASSIGN(value, ctx.attr_float("value", 0.0));
  } else {
    UMA_TRY_ASSIGN(pads, constant_ints(ctx, 1, "pads"));
    if (ctx.has_input(2)) {
      UMA_TRY_ASSIGN(TensorPtr constant, ctx.require_constant_input(2, "constant_value"));
      if (constant->num_elements() != 1)
        return make_error("input 2 ('constant_value') has {} elements, but must have one",
                          constant->num_elements());
      value = constant->get(0);
    }
    if (ctx.has_input(3)) return make_error("input 3 ('axes', opset 18) is not supported");
  }
  return single(ctx.emit_value(
      "nn.pad", {data}, attrs_of({{"pad_width", pads}, {"mode", mode}, {"pad_value", value}})));
}

// Shape's start and end (opset 15) select dimensions as a slice would, clamped to the rank.
Expected<Values> convert_shape(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(Value * shape, ctx.emit_value("shape_of", {data}));
  std::int64_t start = 0, end = std::numeric_limits<std::int64_t>::max();
  if (ctx.opset() >= 15) {
    UMA_TRY_ASSIGN(start, ctx.attr_int("start", 0));
    UMA_TRY_ASSIGN(end, ctx.attr_int("end", end));
  }
  if (start == 0 && end >= static_cast<std::int64_t>(shape_of(data).size())) return Values{shape};
  return single(ctx.emit_value("strided_slice", {shape},
                               attrs_of({{"begin", Ints{start}}, {"end", Ints{end}}})));
}

// The value attribute is a one-element tensor whose dtype is the result's (f32 0 if absent).
Expected<Values> convert_constant_of_shape(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Ints shape, constant_ints(ctx, 0, "input"));
  double value = 0;
  DType dtype = DType::f32;
  if (ctx.has_attr("value")) {
    UMA_TRY_ASSIGN(TensorPtr tensor, ctx.attr_tensor("value"));
    if (tensor->num_elements() != 1)
      return make_error("attribute 'value' has {} elements, but must have one",
                        tensor->num_elements());
    value = tensor->get(0);
    dtype = tensor->dtype();
  }
  return single(ctx.emit_value(
      "full", {},
      attrs_of({{"shape", shape}, {"value", value}, {"dtype", std::string(dtype_name(dtype))}})));
}

// Range's inputs are scalars of one dtype, which the result takes.
Expected<Values> convert_range(NodeContext& ctx) {
  static constexpr const char* kNames[] = {"start", "limit", "delta"};
  double numbers[3];
  DType dtype = DType::f32;
  for (std::size_t i = 0; i < 3; ++i) {
    UMA_TRY_ASSIGN(TensorPtr tensor, ctx.require_constant_input(i, kNames[i]));
    if (tensor->num_elements() != 1)
      return make_error("input {} ('{}') has {} elements, but must be a scalar", i, kNames[i],
                        tensor->num_elements());
    if (i == 0) dtype = tensor->dtype();
    if (tensor->dtype() != dtype)
      return make_error("input {} ('{}') is {}, but input 0 ('start') is {}", i, kNames[i],
                        dtype_name(tensor->dtype()), dtype_name(dtype));
    numbers[i] = tensor->get(0);
  }
  return single(ctx.emit_value("arange", {},
                               attrs_of({{"start", numbers[0]},
                                         {"stop", numbers[1]},
                                         {"step", numbers[2]},
                                         {"dtype", std::string(dtype_name(dtype))}})));
}

}  // namespace

// Each op with the first opset of the definition converted (see ConverterEntry).
void register_transform_converters(ConverterTable& table) {
  table.add("Reshape", 5, convert_reshape);
  table.add("Flatten", 1, convert_flatten);
  table.add("Transpose", 1, convert_transpose);
  table.add("Concat", 1, convert_concat);
  // Split-1 could take the sizes as a second input.
  table.add("Split", 2, convert_split);
  table.add("Slice", 1, convert_slice);
  table.add("Gather", 1, convert_gather);
  table.add("Squeeze", 1, convert_squeeze);
  table.add("Unsqueeze", 1, convert_unsqueeze);
  table.add("Expand", 8, convert_expand);
  // Tile-1 took the number of tiles and one axis as inputs.
  table.add("Tile", 6, convert_tile);
  // Pad-1 named its pads `paddings`.
  table.add("Pad", 2, convert_pad);
  table.add("Shape", 1, convert_shape);
  table.add("ConstantOfShape", 9, convert_constant_of_shape);
  table.add("Range", 11, convert_range);
}

}  // namespace uma::onnx_import
