// Converters of ONNX's quantization ops, composed of ours: QuantizeLinear, DequantizeLinear
// and DynamicQuantizeLinear (divides, half-to-even rounding, clips and casts), MatMulInteger
// and QLinearMatMul (integer products summed in i32, without nn.matmul, which takes floats
// only), ConvInteger and QLinearConv (nn.convNd of i32 values less their zero points). Rounding and
// saturation are the spec's: round(x / scale) half to even, plus the zero point, clipped to the
// integer type's range.
//
// Opset differences handled here: QuantizeLinear and DequantizeLinear take a per-axis scale
// (1-D, along `axis`) from 13; before, scale and zero point are scalars.
#include "static_input.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// The range of an integer type a quantized value may take.
Expected<std::pair<double, double>> quantized_range(DType dtype, std::string_view what) {
  if (dtype == DType::u8) return std::pair<double, double>{0, 255};
  if (dtype == DType::i8) return std::pair<double, double>{-128, 127};
  return make_error("{} is {}, but must be u8 or i8", what, dtype_name(dtype));
}

// A scale or zero point as it applies to an input of rank `rank`: a scalar as it is, a 1-D
// one along `axis` (reshaped to broadcast there).
Expected<Value*> along_axis(NodeContext& ctx, Value* value, std::int64_t axis_attr,
                            std::size_t rank, std::int64_t dim, std::string_view what) {
  const Shape& shape = value->tensor_type().shape;
  if (shape.empty() || (shape.size() == 1 && shape[0] == 1 && dim != 1)) return value;
  std::optional<std::size_t> axis = normalize_axis(axis_attr, rank);
  if (!axis) return make_error("attribute 'axis' is {}, but {}", axis_attr, valid_axes(rank));
  if (shape.size() != 1 || shape[0] != dim)
    return make_error(
        "{} has shape {}, but must be a scalar or hold {} values (one per "
        "element along axis {})",
        what, to_string(shape), dim, *axis);
  Ints along(rank - *axis, 1);
  along[0] = dim;
  AttrMap attrs;
  attrs.set("newshape", along);
  return ctx.emit_value("reshape", {value}, std::move(attrs));
}

// Input `i` (a scale or zero point) for the data `x`, per axis from opset 13.
Expected<Value*> quantization_param(NodeContext& ctx, Value* x, std::size_t i,
                                    std::string_view name) {
  UMA_TRY_ASSIGN(Value * value, required_input(ctx, i, name));
  const Shape& shape = x->tensor_type().shape;
  std::int64_t axis = 1;
  if (ctx.opset() >= 13) {
    UMA_TRY_ASSIGN(axis, ctx.attr_int("axis", 1));
  }
  const std::string what = fmt::format("input {} ('{}')", i, name);
  if (ctx.opset() < 13 || shape.empty()) {
    if (value->tensor_type().num_elements() != 1)
      return make_error("{} has shape {}, but must be a scalar", what,
                        to_string(value->tensor_type().shape));
    return value;
  }
  std::optional<std::size_t> normalized = normalize_axis(axis, shape.size());
  std::int64_t dim = normalized ? shape[*normalized] : 0;
  return along_axis(ctx, value, axis, shape.size(), dim, what);
}

// round(scaled) + zero_point (an f32 value), saturated to `dtype` and cast to it.
Expected<Value*> saturate(NodeContext& ctx, Value* scaled, Value* zero_point, DType dtype) {
  UMA_TRY_ASSIGN(auto range, quantized_range(dtype, "the zero point"));
  UMA_TRY_ASSIGN(Value * rounded, ctx.emit_value("round", {scaled}));
  if (zero_point != nullptr) {
    UMA_TRY_ASSIGN(rounded, ctx.emit_value("add", {rounded, zero_point}));
  }
  AttrMap clip;
  clip.set("a_min", range.first);
  clip.set("a_max", range.second);
  UMA_TRY_ASSIGN(Value * clipped, ctx.emit_value("clip", {rounded}, std::move(clip)));
  return cast_to(ctx, clipped, dtype);
}

// round(x / scale) + zero_point, saturated to `dtype` and cast to it.
Expected<Value*> quantize(NodeContext& ctx, Value* x, Value* scale, Value* zero_point,
                          DType dtype) {
  UMA_TRY_ASSIGN(Value * scaled, ctx.emit_value("divide", {x, scale}));
  return saturate(ctx, scaled, zero_point, dtype);
}

Expected<Values> convert_quantize_linear(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "x"));
  if (!is_float(x->tensor_type().dtype))
    return make_error("input 0 is {}, but must be floating-point",
                      dtype_name(x->tensor_type().dtype));
  UMA_TRY_ASSIGN(x, cast_to(ctx, x, DType::f32));
  UMA_TRY_ASSIGN(Value * scale, quantization_param(ctx, x, 1, "y_scale"));
  DType dtype = DType::u8;
  Value* zero_point = nullptr;
  if (ctx.has_input(2)) {
    UMA_TRY_ASSIGN(Value * given, quantization_param(ctx, x, 2, "y_zero_point"));
    dtype = given->tensor_type().dtype;
    UMA_TRY_ASSIGN(zero_point, cast_to(ctx, given, DType::f32));
  }
  return single(quantize(ctx, x, scale, zero_point, dtype));
}

Expected<Values> convert_dequantize_linear(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "x"));
  const DType dtype = x->tensor_type().dtype;
  if (dtype != DType::u8 && dtype != DType::i8 && dtype != DType::i32)
    return make_error("input 0 is {}, but must be u8, i8 or i32", dtype_name(dtype));
  UMA_TRY_ASSIGN(Value * scale, quantization_param(ctx, x, 1, "x_scale"));
  UMA_TRY_ASSIGN(Value * real, cast_to(ctx, x, DType::f32));
  if (ctx.has_input(2)) {
    UMA_TRY_ASSIGN(Value * zero_point, quantization_param(ctx, x, 2, "x_zero_point"));
    UMA_TRY_ASSIGN(zero_point, cast_to(ctx, zero_point, DType::f32));
    UMA_TRY_ASSIGN(real, ctx.emit_value("subtract", {real, zero_point}));
  }
  return single(ctx.emit_value("multiply", {real, scale}));
}

// u8 with the scale and zero point that map [min(x, 0), max(x, 0)] onto [0, 255].
Expected<Values> convert_dynamic_quantize_linear(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "x"));
  if (x->tensor_type().dtype != DType::f32)
    return make_error("input 0 is {}, but must be f32", dtype_name(x->tensor_type().dtype));
  Value* zero = scalar(ctx, DType::f32, 0);
  AttrMap whole;
  whole.set("keepdims", std::int64_t{0});
  UMA_TRY_ASSIGN(Value * low, ctx.emit_value("min", {x}, whole));
  UMA_TRY_ASSIGN(low, ctx.emit_value("minimum", {low, zero}));
  UMA_TRY_ASSIGN(Value * high, ctx.emit_value("max", {x}, whole));
  UMA_TRY_ASSIGN(high, ctx.emit_value("maximum", {high, zero}));
  UMA_TRY_ASSIGN(Value * span, ctx.emit_value("subtract", {high, low}));
  UMA_TRY_ASSIGN(Value * scale, ctx.emit_value("divide", {span, scalar(ctx, DType::f32, 255)}));
  UMA_TRY_ASSIGN(Value * negated, ctx.emit_value("subtract", {zero, low}));
  UMA_TRY_ASSIGN(Value * zero_point, quantize(ctx, negated, scale, nullptr, DType::u8));
  UMA_TRY_ASSIGN(Value * shift, cast_to(ctx, zero_point, DType::f32));
  UMA_TRY_ASSIGN(Value * y, quantize(ctx, x, scale, shift, DType::u8));
  return Values{y, scale, zero_point};
}

// (a - a_zero_point) x (b - b_zero_point) in i32: a's zero point a scalar or one per row,
// b's a scalar or one per column. The products are summed along the shared dimension.
Expected<Value*> integer_matmul(NodeContext& ctx, std::size_t a_index, std::size_t a_zp,
                                std::size_t b_index, std::size_t b_zp) {
  UMA_TRY_ASSIGN(Value * a, required_input(ctx, a_index, "A"));
  UMA_TRY_ASSIGN(Value * b, required_input(ctx, b_index, "B"));
  const Shape a_shape = a->tensor_type().shape, b_shape = b->tensor_type().shape;
  if (a_shape.size() < 2 || b_shape.size() < 2)
    return make_error("inputs {} and {} have shapes {} and {}, but must have rank 2 or more",
                      a_index, b_index, to_string(a_shape), to_string(b_shape));
  for (std::size_t index : {a_index, b_index}) {
    DType dtype = ctx.input(index)->tensor_type().dtype;
    if (auto range = quantized_range(dtype, fmt::format("input {}", index)); !range)
      return range.error();
  }
  UMA_TRY_ASSIGN(a, cast_to(ctx, a, DType::i32));
  UMA_TRY_ASSIGN(b, cast_to(ctx, b, DType::i32));
  if (ctx.has_input(a_zp)) {
    UMA_TRY_ASSIGN(Value * zp, cast_to(ctx, ctx.input(a_zp), DType::i32));
    // One per row: a column along a's rows.
    UMA_TRY_ASSIGN(zp, along_axis(ctx, zp, -2, a_shape.size(), a_shape[a_shape.size() - 2],
                                  fmt::format("input {} (A's zero point)", a_zp)));
    UMA_TRY_ASSIGN(a, ctx.emit_value("subtract", {a, zp}));
  }
  if (ctx.has_input(b_zp)) {
    UMA_TRY_ASSIGN(Value * zp, cast_to(ctx, ctx.input(b_zp), DType::i32));
    UMA_TRY_ASSIGN(zp, along_axis(ctx, zp, -1, b_shape.size(), b_shape.back(),
                                  fmt::format("input {} (B's zero point)", b_zp)));
    UMA_TRY_ASSIGN(b, ctx.emit_value("subtract", {b, zp}));
  }
  // a [..., M, K, 1] times b [..., 1, K, N], summed over K.
  AttrMap column, row;
  column.set("axes", Ints{static_cast<std::int64_t>(a_shape.size())});
  row.set("axes", Ints{static_cast<std::int64_t>(b_shape.size() - 2)});
  UMA_TRY_ASSIGN(a, ctx.emit_value("expand_dims", {a}, std::move(column)));
  UMA_TRY_ASSIGN(b, ctx.emit_value("expand_dims", {b}, std::move(row)));
  UMA_TRY_ASSIGN(Value * products, ctx.emit_value("multiply", {a, b}));
  AttrMap sum;
  sum.set("axes", Ints{-2});
  sum.set("keepdims", std::int64_t{0});
  return ctx.emit_value("sum", {products}, std::move(sum));
}

Expected<Values> convert_matmul_integer(NodeContext& ctx) {
  return single(integer_matmul(ctx, 0, 2, 1, 3));
}

// The integer product scaled by a_scale * b_scale / y_scale, quantized with y's zero point.
Expected<Values> convert_qlinear_matmul(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * product, integer_matmul(ctx, 0, 2, 3, 5));
  UMA_TRY_ASSIGN(Value * a_scale, required_input(ctx, 1, "a_scale"));
  UMA_TRY_ASSIGN(Value * b_scale, required_input(ctx, 4, "b_scale"));
  UMA_TRY_ASSIGN(Value * y_scale, required_input(ctx, 6, "y_scale"));
  UMA_TRY_ASSIGN(Value * y_zero_point, required_input(ctx, 7, "y_zero_point"));
  UMA_TRY_ASSIGN(Value * real, cast_to(ctx, product, DType::f32));
  UMA_TRY_ASSIGN(Value * scale, ctx.emit_value("multiply", {a_scale, b_scale}));
  UMA_TRY_ASSIGN(real, ctx.emit_value("multiply", {real, scale}));
  UMA_TRY_ASSIGN(Value * shift, cast_to(ctx, y_zero_point, DType::f32));
  return single(quantize(ctx, real, y_scale, shift, y_zero_point->tensor_type().dtype));
}

// Input `index` (u8 or i8) less its zero point (input `zp_index`, if given) in i32. The zero
// point is a scalar, or with `per_channel` one per element along axis 0 (a weight's output
// channels).
Expected<Value*> less_zero_point(NodeContext& ctx, std::size_t index, std::string_view name,
                                 std::size_t zp_index, bool per_channel) {
  UMA_TRY_ASSIGN(Value * value, required_input(ctx, index, name));
  const std::string what = fmt::format("input {} ('{}')", index, name);
  if (auto range = quantized_range(value->tensor_type().dtype, what); !range) return range.error();
  UMA_TRY_ASSIGN(Value * wide, cast_to(ctx, value, DType::i32));
  if (!ctx.has_input(zp_index)) return wide;
  UMA_TRY_ASSIGN(Value * zp, cast_to(ctx, ctx.input(zp_index), DType::i32));
  const std::string zp_what = fmt::format("input {} ({}'s zero point)", zp_index, name);
  const Shape& shape = value->tensor_type().shape;
  if (per_channel && !shape.empty()) {
    UMA_TRY_ASSIGN(zp, along_axis(ctx, zp, 0, shape.size(), shape[0], zp_what));
  } else if (zp->tensor_type().num_elements() != 1) {
    return make_error("{} has shape {}, but must be a scalar", zp_what,
                      to_string(zp->tensor_type().shape));
  }
  return ctx.emit_value("subtract", {wide, zp});
}

// ConvInteger: (x - x_zero_point) convolved with (w - w_zero_point), summed in i32.
Expected<Values> convert_conv_integer(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, less_zero_point(ctx, 0, "x", 2, false));
  UMA_TRY_ASSIGN(Value * w, less_zero_point(ctx, 1, "w", 3, true));
  return single(emit_conv(ctx, {x, w}));
}

// QLinearConv: the integer convolution plus the i32 bias, times x_scale * w_scale / y_scale
// (w_scale a scalar or one per output channel), rounded half to even, plus y's zero point,
// saturated: the spec's requantization, with the multiplier computed first as ONNX Runtime
// does.
Expected<Values> convert_qlinear_conv(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, less_zero_point(ctx, 0, "x", 2, false));
  UMA_TRY_ASSIGN(Value * w, less_zero_point(ctx, 3, "w", 5, true));
  Values operands = {x, w};
  if (ctx.has_input(8)) {
    Value* bias = ctx.input(8);
    if (bias->tensor_type().dtype != DType::i32)
      return make_error("input 8 ('B') is {}, but must be i32",
                        dtype_name(bias->tensor_type().dtype));
    operands.push_back(bias);
  }
  UMA_TRY_ASSIGN(Value * sum, emit_conv(ctx, std::move(operands)));
  UMA_TRY_ASSIGN(Value * x_scale, required_input(ctx, 1, "x_scale"));
  UMA_TRY_ASSIGN(Value * w_scale, required_input(ctx, 4, "w_scale"));
  UMA_TRY_ASSIGN(Value * y_scale, required_input(ctx, 6, "y_scale"));
  UMA_TRY_ASSIGN(Value * y_zero_point, required_input(ctx, 7, "y_zero_point"));
  const Shape& out = sum->tensor_type().shape;
  UMA_TRY_ASSIGN(w_scale, along_axis(ctx, w_scale, 1, out.size(), out[1], "input 4 ('w_scale')"));
  UMA_TRY_ASSIGN(Value * scale, ctx.emit_value("multiply", {x_scale, w_scale}));
  UMA_TRY_ASSIGN(scale, ctx.emit_value("divide", {scale, y_scale}));
  UMA_TRY_ASSIGN(Value * real, cast_to(ctx, sum, DType::f32));
  UMA_TRY_ASSIGN(real, ctx.emit_value("multiply", {real, scale}));
  UMA_TRY_ASSIGN(Value * shift, cast_to(ctx, y_zero_point, DType::f32));
  return single(saturate(ctx, real, shift, y_zero_point->tensor_type().dtype));
}

}  // namespace

// Each op with the first opset of the definition converted (see ConverterEntry).
void register_quantize_converters(ConverterTable& table) {
  table.add("QuantizeLinear", 10, convert_quantize_linear);
  table.add("DequantizeLinear", 10, convert_dequantize_linear);
  table.add("DynamicQuantizeLinear", 11, convert_dynamic_quantize_linear);
  table.add("MatMulInteger", 10, convert_matmul_integer);
  table.add("QLinearMatMul", 10, convert_qlinear_matmul);
  table.add("ConvInteger", 10, convert_conv_integer);
  table.add("QLinearConv", 10, convert_qlinear_conv);
}

}  // namespace uma::onnx_import
