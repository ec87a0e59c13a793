// Converters of ONNX's data-movement ops: Reshape, Flatten, Transpose, Concat, Split, Slice,
// Gather, GatherElements, GatherND, Scatter, ScatterElements, ScatterND, Squeeze, Unsqueeze,
// Expand, Tile, Pad, Shape, ConstantOfShape, Range, Size, DepthToSpace and SpaceToDepth; and
// of the ops that select by position, composed of ours: EyeLike and Trilu (a constant mask),
// OneHot and Hardmax (positions compared with an arange), ReverseSequence (a gather along
// time) and Compress (a take of the positions its constant condition keeps).
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
// - DepthToSpace: mode (DCR or CRD) from 11; DCR before.
// - OneHot: negative indices count from the end from 11.
// - Hardmax: before 13 the input is seen as 2-D, its dimensions before `axis` (default 1) as
//   rows; from 13 it takes the maximum along `axis` (default -1).
// - GatherND: batch_dims from 12.
// - ScatterElements and ScatterND: reduction (none, add, mul) from 16. Scatter (9, 10) is
//   ScatterElements without it.
// - Compress: a negative axis from 11.
#include <algorithm>
#include <functional>
#include <limits>

#include "static_input.h"
#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

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

Expected<Values> convert_gather_elements(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(Value * indices, required_input(ctx, 1, "indices"));
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", 0));
  return single(ctx.emit_value("gather_elements", {data, indices}, attrs_of({{"axis", axis}})));
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

Expected<Values> convert_size(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  auto size = std::make_shared<Tensor>(TensorType{DType::i64, {}});
  size->data<std::int64_t>()[0] = data->tensor_type().num_elements();
  return Values{ctx.constant(std::move(size))};
}

// Reshape, transpose, reshape: the moves of DepthToSpace and SpaceToDepth.
Expected<Value*> regroup(NodeContext& ctx, Value* data, Ints split, Ints perm, Ints merged) {
  UMA_TRY_ASSIGN(Value * grouped, reshaped(ctx, data, std::move(split)));
  UMA_TRY_ASSIGN(Value * moved,
                 ctx.emit_value("transpose", {grouped}, attrs_of({{"axes", std::move(perm)}})));
  return reshaped(ctx, moved, std::move(merged));
}

// The block size of an NCHW input whose dimensions `divided` it must divide (the channels
// by its square).
Expected<std::int64_t> block_size(const NodeContext& ctx, const Shape& shape,
                                  std::initializer_list<std::size_t> divided) {
  if (shape.size() != 4)
    return make_error("input 0 has shape {}, but must be 4-D (NCHW)", to_string(shape));
  UMA_TRY_ASSIGN(std::int64_t b, ctx.attr_int("blocksize", std::nullopt));
  if (b < 1) return make_error("attribute 'blocksize' is {}, but must be positive", b);
  for (std::size_t d : divided) {
    std::int64_t factor = d == 1 ? b * b : b;
    if (shape[d] % factor != 0)
      return make_error("dimension {} of input 0 is {}, which {} does not divide", d, shape[d],
                        factor);
  }
  return b;
}

Expected<Values> convert_depth_to_space(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "input"));
  const Shape& s = shape_of(data);
  UMA_TRY_ASSIGN(std::int64_t b, block_size(ctx, s, {1}));
  std::string mode = "DCR";
  if (ctx.opset() >= 11) {
    UMA_TRY_ASSIGN(mode, ctx.attr_string("mode", std::string("DCR")));
  }
  if (mode != "DCR" && mode != "CRD")
    return make_error("attribute 'mode' is \"{}\", but must be \"DCR\" or \"CRD\"", mode);
  std::int64_t c = s[1] / (b * b);
  Ints merged{s[0], c, s[2] * b, s[3] * b};
  if (mode == "DCR")
    return single(regroup(ctx, data, {s[0], b, b, c, s[2], s[3]}, {0, 3, 4, 1, 5, 2}, merged));
  return single(regroup(ctx, data, {s[0], c, b, b, s[2], s[3]}, {0, 1, 4, 2, 5, 3}, merged));
}

Expected<Values> convert_space_to_depth(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "input"));
  const Shape& s = shape_of(data);
  UMA_TRY_ASSIGN(std::int64_t b, block_size(ctx, s, {2, 3}));
  return single(regroup(ctx, data, {s[0], s[1], s[2] / b, b, s[3] / b, b}, {0, 3, 5, 1, 2, 4},
                        {s[0], s[1] * b * b, s[2] / b, s[3] / b}));
}

// A bool value of `shape` (2-D), true where column - row compares (`compare`: "equal",
// "greater_equal" or "less_equal") to k. Computed by the graph from two aranges, not stored
// as a constant: a matrix of a huge shape costs nothing until it runs (and then the memory
// budget refuses it by name).
Expected<Value*> diagonal_mask(NodeContext& ctx, const Shape& shape, std::int64_t k,
                               const char* compare) {
  auto range = [&](std::int64_t n) {
    return ctx.emit_value(
        "arange", {}, attrs_of({{"stop", static_cast<double>(n)}, {"dtype", std::string("i64")}}));
  };
  UMA_TRY_ASSIGN(Value * rows, range(shape[0]));
  UMA_TRY_ASSIGN(rows, reshaped(ctx, rows, {shape[0], 1}));
  UMA_TRY_ASSIGN(Value * columns, range(shape[1]));
  UMA_TRY_ASSIGN(Value * offset, ctx.emit_value("subtract", {columns, rows}));
  return ctx.emit_value(compare, {offset, scalar(ctx, DType::i64, static_cast<double>(k))});
}

Expected<DType> dtype_attr(const NodeContext& ctx, DType fallback) {
  if (!ctx.has_attr("dtype")) return fallback;
  UMA_TRY_ASSIGN(std::int64_t onnx_type, ctx.attr_int("dtype", std::nullopt));
  int type = onnx_type == static_cast<int>(onnx_type) ? static_cast<int>(onnx_type) : 0;
  std::optional<DType> dtype = dtype_from_onnx(type);
  if (!dtype) return unsupported_onnx_type("attribute 'dtype'", type);
  return *dtype;
}

Expected<Values> convert_eye_like(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  const Shape& shape = shape_of(input);
  if (shape.size() != 2)
    return make_error("input 0 has shape {}, but must be 2-D", to_string(shape));
  UMA_TRY_ASSIGN(std::int64_t k, ctx.attr_int("k", 0));
  UMA_TRY_ASSIGN(DType dtype, dtype_attr(ctx, input->tensor_type().dtype));
  UMA_TRY_ASSIGN(Value * ones, diagonal_mask(ctx, shape, k, "equal"));
  return single(
      ctx.emit_value("cast", {ones}, attrs_of({{"dtype", std::string(dtype_name(dtype))}})));
}

// The upper (or lower) triangle from diagonal k of each matrix of the last two dimensions;
// zeros elsewhere.
Expected<Values> convert_trilu(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  const Shape& shape = shape_of(input);
  if (shape.size() < 2)
    return make_error("input 0 has shape {}, but must have at least 2 dimensions",
                      to_string(shape));
  std::int64_t k = 0;
  if (ctx.has_input(1)) {
    UMA_TRY_ASSIGN(TensorPtr given, ctx.require_constant_input(1, "k"));
    if (given->num_elements() != 1)
      return make_error("input 1 ('k') has {} elements, but must be a scalar",
                        given->num_elements());
    k = static_cast<std::int64_t>(given->get(0));
  }
  UMA_TRY_ASSIGN(std::int64_t upper, ctx.attr_int("upper", 1));
  Shape matrix(shape.end() - 2, shape.end());
  UMA_TRY_ASSIGN(Value * keep,
                 diagonal_mask(ctx, matrix, k, upper != 0 ? "greater_equal" : "less_equal"));
  Value* zero = scalar(ctx, input->tensor_type().dtype, 0);
  return single(ctx.emit_value("where", {keep, input, zero}));
}

// Whether each of `positions` (i64, a 1 where the one-hot axis goes) is the position along
// that axis: an arange of `depth` shaped to broadcast along `axis` of a rank `rank` result.
Expected<Value*> is_position(NodeContext& ctx, Value* positions, std::int64_t depth,
                             std::size_t axis, std::size_t rank) {
  UMA_TRY_ASSIGN(Value * range, ctx.emit_value("arange", {},
                                               attrs_of({{"stop", static_cast<double>(depth)},
                                                         {"dtype", std::string("i64")}})));
  Ints along(rank - axis, 1);
  along[0] = depth;
  UMA_TRY_ASSIGN(range, reshaped(ctx, range, along));
  return ctx.emit_value("equal", {positions, range});
}

Expected<Values> convert_one_hot(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * indices, required_input(ctx, 0, "indices"));
  UMA_TRY_ASSIGN(TensorPtr depth_tensor, ctx.require_constant_input(1, "depth"));
  UMA_TRY_ASSIGN(Value * values, required_input(ctx, 2, "values"));
  if (depth_tensor->num_elements() != 1)
    return make_error("input 1 ('depth') has {} elements, but must be a scalar",
                      depth_tensor->num_elements());
  auto depth = static_cast<std::int64_t>(depth_tensor->get(0));
  if (depth < 1) return make_error("input 1 ('depth') is {}, but must be positive", depth);
  if (values->tensor_type().num_elements() != 2)
    return make_error("input 2 ('values') has shape {}, but must hold 2 elements",
                      to_string(shape_of(values)));
  const Shape& shape = shape_of(indices);
  std::size_t rank = shape.size() + 1;
  UMA_TRY_ASSIGN(std::int64_t axis_attr, ctx.attr_int("axis", -1));
  std::optional<std::size_t> axis = normalize_axis(axis_attr, rank);
  if (!axis)
    return make_error("attribute 'axis' is {}, but must be in [{}, {}]", axis_attr,
                      -static_cast<std::int64_t>(rank), rank - 1);
  UMA_TRY_ASSIGN(Value * index,
                 ctx.emit_value("cast", {indices}, attrs_of({{"dtype", std::string("i64")}})));
  if (ctx.opset() >= 11) {
    Value* zero = scalar(ctx, DType::i64, 0);
    UMA_TRY_ASSIGN(Value * negative, ctx.emit_value("less", {index, zero}));
    UMA_TRY_ASSIGN(
        Value * wrapped,
        ctx.emit_value("add", {index, scalar(ctx, DType::i64, static_cast<double>(depth))}));
    UMA_TRY_ASSIGN(index, ctx.emit_value("where", {negative, wrapped, index}));
  }
  Ints expanded(shape.begin(), shape.end());
  expanded.insert(expanded.begin() + static_cast<std::ptrdiff_t>(*axis), 1);
  UMA_TRY_ASSIGN(index, reshaped(ctx, index, expanded));
  UMA_TRY_ASSIGN(Value * hot, is_position(ctx, index, depth, *axis, rank));
  UMA_TRY_ASSIGN(Value * off, ctx.emit_value("strided_slice", {values},
                                             attrs_of({{"begin", Ints{0}}, {"end", Ints{1}}})));
  UMA_TRY_ASSIGN(Value * on, ctx.emit_value("strided_slice", {values},
                                            attrs_of({{"begin", Ints{1}}, {"end", Ints{2}}})));
  return single(ctx.emit_value("where", {hot, on, off}));
}

// 1 at the first maximum along the axis, 0 elsewhere.
Expected<Values> convert_hardmax(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  const Shape shape = shape_of(input);
  const auto rank = static_cast<std::int64_t>(shape.size());
  bool coerced = ctx.opset() < 13;
  UMA_TRY_ASSIGN(std::int64_t axis_attr, ctx.attr_int("axis", coerced ? 1 : -1));
  std::optional<std::size_t> axis = normalize_axis(axis_attr, shape.size());
  if (!axis)
    return make_error("attribute 'axis' is {}, but must be in [{}, {}]", axis_attr, -rank,
                      rank - 1);
  Value* data = input;
  std::size_t along = *axis;
  if (coerced) {
    Ints rows{product(shape, 0, along), product(shape, along, shape.size())};
    UMA_TRY_ASSIGN(data, reshaped(ctx, input, rows));
    along = 1;
  }
  const Shape& seen = shape_of(data);
  UMA_TRY_ASSIGN(
      Value * first,
      ctx.emit_value("argmax", {data}, attrs_of({{"axis", static_cast<std::int64_t>(along)}})));
  UMA_TRY_ASSIGN(Value * hot, is_position(ctx, first, seen[along], along, seen.size()));
  UMA_TRY_ASSIGN(
      Value * result,
      ctx.emit_value("cast", {hot},
                     attrs_of({{"dtype", std::string(dtype_name(input->tensor_type().dtype))}})));
  if (!coerced) return Values{result};
  return single(reshaped(ctx, result, Ints(shape)));
}

Expected<Values> convert_gather_nd(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(Value * indices, required_input(ctx, 1, "indices"));
  std::int64_t batch_dims = 0;
  if (ctx.opset() >= 12) {
    UMA_TRY_ASSIGN(batch_dims, ctx.attr_int("batch_dims", 0));
  }
  return single(
      ctx.emit_value("gather_nd", {data, indices}, attrs_of({{"batch_dims", batch_dims}})));
}

// The `reduction` attribute of ScatterElements and ScatterND, from opset 16.
Expected<std::string> scatter_reduction(const NodeContext& ctx) {
  if (ctx.opset() < 16) return std::string("none");
  return ctx.attr_string("reduction", std::string("none"));
}

// ScatterElements, and Scatter (opset 9 and 10), which is ScatterElements without reduction.
Expected<Values> convert_scatter_elements(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(Value * indices, required_input(ctx, 1, "indices"));
  UMA_TRY_ASSIGN(Value * updates, required_input(ctx, 2, "updates"));
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", 0));
  UMA_TRY_ASSIGN(std::string reduction, scatter_reduction(ctx));
  return single(ctx.emit_value("scatter_elements", {data, indices, updates},
                               attrs_of({{"axis", axis}, {"reduction", reduction}})));
}

Expected<Values> convert_scatter_nd(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  UMA_TRY_ASSIGN(Value * indices, required_input(ctx, 1, "indices"));
  UMA_TRY_ASSIGN(Value * updates, required_input(ctx, 2, "updates"));
  UMA_TRY_ASSIGN(std::string reduction, scatter_reduction(ctx));
  return single(
      ctx.emit_value("scatter_nd", {data, indices, updates}, attrs_of({{"reduction", reduction}})));
}

// Each batch's first sequence_lens[b] steps reversed: a gather along the time axis whose
// index is len - 1 - t for t < len and t after it.
Expected<Values> convert_reverse_sequence(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  UMA_TRY_ASSIGN(Value * lens, required_input(ctx, 1, "sequence_lens"));
  UMA_TRY_ASSIGN(std::int64_t batch_axis, ctx.attr_int("batch_axis", 1));
  UMA_TRY_ASSIGN(std::int64_t time_axis, ctx.attr_int("time_axis", 0));
  const Shape shape = shape_of(input);
  if (shape.size() < 2)
    return make_error("input 0 has shape {}, but must have at least 2 dimensions",
                      to_string(shape));
  if ((batch_axis != 0 && batch_axis != 1) || (time_axis != 0 && time_axis != 1) ||
      batch_axis == time_axis)
    return make_error(
        "attributes 'batch_axis' and 'time_axis' are {} and {}, but must be 0 and 1 "
        "or 1 and 0",
        batch_axis, time_axis);
  auto batch = static_cast<std::size_t>(batch_axis), time = static_cast<std::size_t>(time_axis);
  if (shape_of(lens) != Shape{shape[batch]})
    return make_error("input 1 ('sequence_lens') has shape {}, but must be [{}] (the batch)",
                      to_string(shape_of(lens)), shape[batch]);
  // Both [batch, time] or [time, batch] as the input has them, then 1s for the other axes.
  Ints along_batch(shape.size(), 1), along_time(shape.size(), 1);
  along_batch[batch] = shape[batch];
  along_time[time] = shape[time];
  UMA_TRY_ASSIGN(Value * len,
                 ctx.emit_value("cast", {lens}, attrs_of({{"dtype", std::string("i64")}})));
  UMA_TRY_ASSIGN(len, reshaped(ctx, len, along_batch));
  UMA_TRY_ASSIGN(Value * t, ctx.emit_value("arange", {},
                                           attrs_of({{"stop", static_cast<double>(shape[time])},
                                                     {"dtype", std::string("i64")}})));
  UMA_TRY_ASSIGN(t, reshaped(ctx, t, along_time));
  UMA_TRY_ASSIGN(Value * reversed, ctx.emit_value("subtract", {len, t}));
  UMA_TRY_ASSIGN(reversed, ctx.emit_value("subtract", {reversed, scalar(ctx, DType::i64, 1)}));
  UMA_TRY_ASSIGN(Value * inside, ctx.emit_value("less", {t, len}));
  UMA_TRY_ASSIGN(Value * index, ctx.emit_value("where", {inside, reversed, t}));
  UMA_TRY_ASSIGN(index,
                 ctx.emit_value("broadcast_to", {index}, attrs_of({{"shape", Ints(shape)}})));
  return single(ctx.emit_value("gather_elements", {input, index},
                               attrs_of({{"axis", static_cast<std::int64_t>(time)}})));
}

// The positions where the constant condition holds, taken along the axis (of the input
// flattened, without one).
Expected<Values> convert_compress(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  UMA_TRY_ASSIGN(TensorPtr condition, ctx.require_shaping_input(1, "condition"));
  if (condition->shape().size() != 1)
    return make_error("input 1 ('condition') has shape {}, but must be 1-D",
                      to_string(condition->shape()));
  Value* data = input;
  std::int64_t axis = 0;
  if (ctx.has_attr("axis")) {
    UMA_TRY_ASSIGN(axis, ctx.attr_int("axis", std::nullopt));
    const auto rank = static_cast<std::int64_t>(shape_of(input).size());
    std::int64_t lowest = ctx.opset() >= 11 ? -rank : 0;
    if (axis < lowest || axis >= rank)
      return make_error("attribute 'axis' is {}, but must be in [{}, {}] for an input of rank {}",
                        axis, lowest, rank - 1, rank);
  } else {
    UMA_TRY_ASSIGN(data, reshaped(ctx, input, {input->tensor_type().num_elements()}));
  }
  const std::int64_t dim = shape_of(data)[*normalize_axis(axis, shape_of(data).size())];
  Ints kept;
  for (std::int64_t i = 0; i < condition->num_elements(); ++i) {
    if (condition->get(i) == 0) continue;
    if (i >= dim)
      return make_error(
          "input 1 ('condition') holds at position {}, beyond the {} elements "
          "along the axis",
          i, dim);
    kept.push_back(i);
  }
  auto positions =
      std::make_shared<Tensor>(TensorType{DType::i64, {static_cast<std::int64_t>(kept.size())}});
  std::copy(kept.begin(), kept.end(), positions->data<std::int64_t>());
  return single(ctx.emit_value("take", {data, ctx.constant(std::move(positions))},
                               attrs_of({{"axis", axis}})));
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
  table.add("GatherElements", 11, convert_gather_elements);
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
  table.add("Size", 1, convert_size);
  table.add("DepthToSpace", 1, convert_depth_to_space);
  table.add("SpaceToDepth", 1, convert_space_to_depth);
  table.add("EyeLike", 9, convert_eye_like);
  table.add("Trilu", 14, convert_trilu);
  table.add("OneHot", 9, convert_one_hot);
  table.add("Hardmax", 1, convert_hardmax);
  table.add("GatherND", 11, convert_gather_nd);
  table.add("Scatter", 9, convert_scatter_elements);
  table.add("ScatterElements", 11, convert_scatter_elements);
  table.add("ScatterND", 11, convert_scatter_nd);
  table.add("ReverseSequence", 10, convert_reverse_sequence);
  table.add("Compress", 9, convert_compress);
}

}  // namespace uma::onnx_import
