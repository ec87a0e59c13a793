// Converters of ONNX's convolutions, matrix products and pools: Conv, ConvTranspose, Gemm,
// MatMul, MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool and MaxUnpool.
//
// auto_pad is resolved here into explicit padding from the static shapes, so uma's ops see
// only `padding` (ONNX's pads order: all begins, then all ends).
//
// Opset differences handled here (1..17):
// - Gemm: before 7 attribute `broadcast` let C broadcast, and without it C had to be (M, N)
//   already: either way the numpy broadcasting of C that Gemm-7 defines gives the same. C is
//   required before 11 and optional from 11.
// - MaxPool: the Indices output and storage_order (which orders it) from 8; ceil_mode and
//   dilations from 10.
// - AveragePool: ceil_mode from 10 (count_include_pad exists from 7 on).
// Later versions of Conv, ConvTranspose, MatMul and the global pools only add types, and
// MaxUnpool-11 only says more about output_shape.
#include <algorithm>
#include <cstring>

#include "static_input.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// The number of spatial dimensions of input 0, (N, C, spatial...) with 1 to 3 of them.
Expected<std::size_t> spatial_rank(const NodeContext& ctx, const Value* data) {
  std::size_t rank = shape_of(data).size();
  if (rank < 3 || rank > 5)
    return make_error(
        "input 0 ('X') is {}, but {} takes (N, C, spatial...) with 1 to 3 spatial "
        "dimensions",
        to_string(data->type()), ctx.op_type());
  return rank - 2;
}

// An ints attribute with one value per spatial dimension, `fill` when absent.
Expected<Ints> spatial_attr(const NodeContext& ctx, const char* name, std::size_t count,
                            std::int64_t fill) {
  UMA_TRY_ASSIGN(Ints values, ctx.attr_ints(name, Ints(count, fill)));
  if (values.size() != count)
    return make_error("attribute '{}' has {} values, but must have {}", name, values.size(), count);
  return values;
}

// kernel_shape, when given, must match the weight's kernel.
Status check_kernel_shape(const NodeContext& ctx, const Shape& kernel) {
  if (!ctx.has_attr("kernel_shape")) return Status::success();
  UMA_TRY_ASSIGN(Ints given, ctx.attr_ints("kernel_shape", std::nullopt));
  if (given != kernel)
    return make_error("attribute 'kernel_shape' is {}, but the weight's kernel is {}",
                      format_ints(given), format_ints(kernel));
  return Status::success();
}

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

Expected<AutoPad> auto_pad(const NodeContext& ctx) {
  UMA_TRY_ASSIGN(std::string mode, ctx.attr_string("auto_pad", "NOTSET"));
  if (mode == "NOTSET") return AutoPad::NotSet;
  if (mode == "SAME_UPPER") return AutoPad::SameUpper;
  if (mode == "SAME_LOWER") return AutoPad::SameLower;
  if (mode == "VALID") return AutoPad::Valid;
  return make_error(
      "attribute 'auto_pad' is '{}', but must be NOTSET, SAME_UPPER, SAME_LOWER or "
      "VALID",
      mode);
}

// Splits a total padding between begin and end: SAME_UPPER puts the odd one at the end,
// anything else at the begin (ONNX's rule for SAME_LOWER, and for ConvTranspose's
// output_shape without SAME_UPPER).
void split_padding(Ints& padding, std::size_t dim, std::size_t rank, std::int64_t total,
                   AutoPad mode) {
  std::int64_t smaller = total / 2;
  padding[dim] = mode == AutoPad::SameUpper ? smaller : total - smaller;
  padding[rank + dim] = total - padding[dim];
}

// The padding of a convolution or pool over `input` (spatial sizes) with windows of `kernel`:
// `pads` under NOTSET, none under VALID, and under SAME_* what makes the output
// ceil(input / stride) long, split as split_padding says.
Expected<Ints> window_padding(const NodeContext& ctx, const Shape& input, const Shape& kernel,
                              const Ints& strides, const Ints& dilations) {
  const std::size_t rank = input.size();
  UMA_TRY_ASSIGN(AutoPad mode, auto_pad(ctx));
  UMA_TRY_ASSIGN(Ints pads, spatial_attr(ctx, "pads", 2 * rank, 0));
  if (mode == AutoPad::NotSet) return pads;
  Ints padding(2 * rank, 0);
  if (mode != AutoPad::Valid) {
    for (std::size_t i = 0; i < rank; ++i) {
      if (strides[i] < 1 || dilations[i] < 1 || kernel[i] < 1)
        return make_error(
            "auto_pad needs positive strides, dilations and kernel sizes, got {}, "
            "{} and {}",
            format_ints(strides), format_ints(dilations), format_ints(kernel));
      std::int64_t output = input[i] / strides[i] + (input[i] % strides[i] != 0 ? 1 : 0);
      // (output - 1) * stride + dilation * (kernel - 1) + 1 - input, at least 0.
      std::optional<std::int64_t> total;
      if (auto spread = checked_mul(output - 1, strides[i]))
        if (auto extent = checked_mul(dilations[i], kernel[i] - 1))
          total = checked_add(*spread, *extent);
      if (!total)
        return make_error("the padding that auto_pad asks for overflows int64 (dimension {})",
                          2 + i);
      split_padding(padding, i, rank, std::max<std::int64_t>(0, *total + 1 - input[i]), mode);
    }
  }
  // Both given: harmless only when they agree.
  if (ctx.has_attr("pads") && pads != padding)
    return make_error("attribute 'pads' is {}, but auto_pad gives {}; use one or the other",
                      format_ints(pads), format_ints(padding));
  return padding;
}

AttrMap window_attrs(const Ints& strides, const Ints& padding, const Ints& dilations) {
  AttrMap attrs;
  attrs.set("strides", strides);
  attrs.set("padding", padding);
  attrs.set("dilation", dilations);
  return attrs;
}

// ---- Conv, ConvTranspose ----

struct ConvInputs {
  Values operands;  // X, W and B if given
  std::size_t rank;
  Shape input, kernel;  // spatial sizes of X and of W's kernel
};

// X, W and B if given, of ONNX's Conv and ConvTranspose.
Expected<Values> conv_operands(const NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  UMA_TRY_ASSIGN(Value * w, required_input(ctx, 1, "W"));
  Values operands = {x, w};
  if (ctx.has_input(2)) operands.push_back(ctx.input(2));
  return operands;
}

Expected<ConvInputs> conv_inputs(const NodeContext& ctx, Values operands) {
  ConvInputs in;
  Value* x = operands[0];
  Value* w = operands[1];
  UMA_TRY_ASSIGN(in.rank, spatial_rank(ctx, x));
  if (shape_of(w).size() != shape_of(x).size())
    return make_error("input 1 ('W') is {}, but must have the rank of input 0 ('X'), {}",
                      to_string(w->type()), to_string(x->type()));
  in.input.assign(shape_of(x).begin() + 2, shape_of(x).end());
  in.kernel.assign(shape_of(w).begin() + 2, shape_of(w).end());
  in.operands = std::move(operands);
  UMA_TRY(check_kernel_shape(ctx, in.kernel));
  return in;
}

Expected<ConvInputs> conv_inputs(const NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values operands, conv_operands(ctx));
  return conv_inputs(ctx, std::move(operands));
}

Expected<Values> convert_conv(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values operands, conv_operands(ctx));
  return single(emit_conv(ctx, std::move(operands)));
}

// The padding (and extra output padding) of a ConvTranspose: ONNX derives it from
// output_shape when given, or under SAME_* from an output of input * stride; the total
// padding is stride * (input - 1) + output_padding + dilation * (kernel - 1) + 1 - output.
// A negative total (an output larger than the full one) extends the output at its end,
// which is what output padding does.
Expected<Ints> transpose_padding(const NodeContext& ctx, const ConvInputs& in, const Ints& strides,
                                 const Ints& dilations, Ints& output_padding) {
  const std::size_t rank = in.rank;
  UMA_TRY_ASSIGN(AutoPad mode, auto_pad(ctx));
  std::optional<Ints> output_shape;
  if (ctx.has_attr("output_shape")) {
    UMA_TRY_ASSIGN(Ints given, ctx.attr_ints("output_shape", std::nullopt));
    // Early versions of the spec gave the whole shape, later ones the spatial part.
    if (given.size() == rank + 2) given.erase(given.begin(), given.begin() + 2);
    if (given.size() != rank)
      return make_error("attribute 'output_shape' has {} values, but must have {}", given.size(),
                        rank);
    for (std::int64_t size : given)
      if (size < 1)
        return make_error("attribute 'output_shape' must be positive, got {}", format_ints(given));
    output_shape = given;
  } else if (mode == AutoPad::SameUpper || mode == AutoPad::SameLower) {
    output_shape = Ints(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      std::optional<std::int64_t> size = checked_mul(in.input[i], strides[i]);
      if (!size) return make_error("the output size that auto_pad asks for overflows int64");
      (*output_shape)[i] = *size;
    }
  }
  if (!output_shape) {
    if (mode == AutoPad::Valid) return Ints(2 * rank, 0);
    return spatial_attr(ctx, "pads", 2 * rank, 0);
  }
  Ints padding(2 * rank, 0);
  for (std::size_t i = 0; i < rank; ++i) {
    std::optional<std::int64_t> total;
    if (auto spread = checked_mul(strides[i], in.input[i] - 1))
      if (auto extent = checked_mul(dilations[i], in.kernel[i] - 1))
        if (auto full = checked_add(*spread, *extent))
          if (auto grown = checked_add(*full, output_padding[i]))
            total = checked_add(*grown, -((*output_shape)[i] - 1));
    if (!total)
      return make_error("the padding for attribute 'output_shape' {} overflows int64",
                        format_ints(*output_shape));
    if (*total < 0)
      output_padding[i] -= *total;
    else
      split_padding(padding, i, rank, *total, mode);
  }
  return padding;
}

Expected<Values> convert_conv_transpose(NodeContext& ctx) {
  UMA_TRY_ASSIGN(ConvInputs in, conv_inputs(ctx));
  UMA_TRY_ASSIGN(Ints strides, spatial_attr(ctx, "strides", in.rank, 1));
  UMA_TRY_ASSIGN(Ints dilations, spatial_attr(ctx, "dilations", in.rank, 1));
  UMA_TRY_ASSIGN(Ints output_padding, spatial_attr(ctx, "output_padding", in.rank, 0));
  UMA_TRY_ASSIGN(std::int64_t group, ctx.attr_int("group", 1));
  UMA_TRY_ASSIGN(Ints padding, transpose_padding(ctx, in, strides, dilations, output_padding));
  AttrMap attrs = window_attrs(strides, padding, dilations);
  attrs.set("groups", group);
  attrs.set("output_padding", output_padding);
  return single(ctx.emit_value(fmt::format("nn.conv{}d_transpose", in.rank), in.operands, attrs));
}

// ---- MatMul, Gemm ----

Expected<Values> convert_matmul(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * a, required_input(ctx, 0, "A"));
  UMA_TRY_ASSIGN(Value * b, required_input(ctx, 1, "B"));
  return single(ctx.emit_value("nn.matmul", {a, b}));
}

// A copy of a constant's bytes under another shape with the same element count.
TensorPtr reshaped(const Tensor& t, Shape shape) {
  auto copy = std::make_shared<Tensor>(TensorType{t.dtype(), std::move(shape)});
  std::memcpy(copy->bytes().data(), t.bytes().data(), t.bytes().size());
  return copy;
}

// The transpose of a constant matrix, element by element of whatever size.
TensorPtr transposed(const Tensor& t) {
  const std::int64_t rows = t.shape()[0], columns = t.shape()[1];
  auto out = std::make_shared<Tensor>(TensorType{t.dtype(), {columns, rows}});
  const std::size_t size = dtype_size(t.dtype());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < columns; ++j)
      std::memcpy(out->bytes().data() + (j * rows + i) * size,
                  t.bytes().data() + (i * columns + j) * size, size);
  return out;
}

// Y = alpha * A' * B' + beta * C, where A' and B' are A and B transposed when transA and
// transB say, and C broadcasts to Y's shape (M, N). Emits as few ops as it can: B' * as
// nn.dense's transposed weight (B itself under transB, or a constant B transposed here),
// else nn.matmul; C as nn.dense's bias when it is one value per column and no scaling
// intervenes; multiply only for an alpha or beta other than 1. A beta of 0 drops C, as
// ONNX Runtime does.
Expected<Values> convert_gemm(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * a, required_input(ctx, 0, "A"));
  UMA_TRY_ASSIGN(Value * b, required_input(ctx, 1, "B"));
  if (ctx.opset() < 11 && !ctx.has_input(2))
    return make_error("input 2 ('C') is missing (it is optional only from opset 11)");
  UMA_TRY_ASSIGN(double alpha, ctx.attr_float("alpha", 1.0));
  UMA_TRY_ASSIGN(double beta, ctx.attr_float("beta", 1.0));
  UMA_TRY_ASSIGN(std::int64_t trans_a, ctx.attr_int("transA", 0));
  UMA_TRY_ASSIGN(std::int64_t trans_b, ctx.attr_int("transB", 0));
  const char* names[] = {"A", "B"};
  Value* operands[] = {a, b};
  for (std::size_t i = 0; i < 2; ++i)
    if (shape_of(operands[i]).size() != 2)
      return make_error("input {} ('{}') must be a matrix, got {}", i, names[i],
                        to_string(operands[i]->type()));
  if (trans_a != 0) {
    AttrMap attrs;
    attrs.set("axes", Ints{1, 0});
    UMA_TRY_ASSIGN(a, ctx.emit_value("transpose", {a}, attrs));
  }
  // The weight of nn.dense is B' transposed: B under transB, else B transposed if constant.
  Value* weight = nullptr;
  if (trans_b != 0)
    weight = b;
  else if (TensorPtr constant = ctx.constant_input(1))
    weight = ctx.constant(transposed(*constant));
  const std::int64_t columns = trans_b != 0 ? shape_of(b)[0] : shape_of(b)[1];

  Value* c = beta != 0 && ctx.has_input(2) ? ctx.input(2) : nullptr;
  if (c != nullptr && weight != nullptr && alpha == 1 && beta == 1) {
    const Shape& c_shape = shape_of(c);
    Value* bias = nullptr;
    if (c_shape == Shape{columns}) {
      bias = c;
    } else if (c_shape == Shape{1, columns}) {
      if (TensorPtr constant = ctx.constant_input(2))
        bias = ctx.constant(reshaped(*constant, {columns}));
    }
    if (bias != nullptr) return single(ctx.emit_value("nn.dense", {a, weight, bias}));
  }

  Value* y = nullptr;
  if (weight != nullptr) {
    UMA_TRY_ASSIGN(y, ctx.emit_value("nn.dense", {a, weight}));
  } else {
    UMA_TRY_ASSIGN(y, ctx.emit_value("nn.matmul", {a, b}));
  }
  const DType dtype = y->tensor_type().dtype;
  if (alpha != 1) {
    UMA_TRY_ASSIGN(y, ctx.emit_value("multiply", {y, scalar(ctx, dtype, alpha)}));
  }
  if (c == nullptr) return Values{y};
  // C broadcasts to Y, never Y to C.
  Expected<Shape> both = broadcast_shapes(shape_of(y), shape_of(c));
  if (!both || *both != shape_of(y))
    return make_error("input 2 ('C') has shape {}, which does not broadcast to the result's {}",
                      to_string(c->type()), to_string(y->type()));
  if (beta != 1) {
    UMA_TRY_ASSIGN(c, ctx.emit_value("multiply", {c, scalar(ctx, dtype, beta)}));
  }
  return single(ctx.emit_value("add", {y, c}));
}

// ---- MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool ----

// A pool's kernel_shape, one size per spatial dimension.
Expected<Ints> pool_kernel(const NodeContext& ctx, std::size_t rank) {
  UMA_TRY_ASSIGN(Ints kernel, ctx.attr_ints("kernel_shape", std::nullopt));
  if (kernel.size() != rank)
    return make_error(
        "attribute 'kernel_shape' has {} values, but the input has {} spatial "
        "dimensions",
        kernel.size(), rank);
  return kernel;
}

Expected<Values> convert_pool(NodeContext& ctx, bool max) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  UMA_TRY_ASSIGN(std::size_t rank, spatial_rank(ctx, x));
  const bool with_indices = max && ctx.proto().output_size() > 1 && !ctx.proto().output(1).empty();
  if (with_indices && ctx.opset() < 8)
    return make_error("output 1 ('Indices') exists only from opset 8");
  UMA_TRY_ASSIGN(Ints kernel, pool_kernel(ctx, rank));
  UMA_TRY_ASSIGN(Ints strides, spatial_attr(ctx, "strides", rank, 1));
  Ints dilations(rank, 1);
  if (max && ctx.opset() >= 10) {
    UMA_TRY_ASSIGN(dilations, spatial_attr(ctx, "dilations", rank, 1));
  }
  const Shape input(shape_of(x).begin() + 2, shape_of(x).end());
  UMA_TRY_ASSIGN(Ints padding, window_padding(ctx, input, kernel, strides, dilations));
  std::int64_t ceil_mode = 0;
  if (ctx.opset() >= 10) {
    UMA_TRY_ASSIGN(ceil_mode, ctx.attr_int("ceil_mode", 0));
  }

  AttrMap attrs = window_attrs(strides, padding, dilations);
  attrs.set("pool_size", kernel);
  attrs.set("ceil_mode", ceil_mode);
  if (!max) {
    attrs.erase("dilation");
    UMA_TRY_ASSIGN(std::int64_t count_include_pad, ctx.attr_int("count_include_pad", 0));
    attrs.set("count_include_pad", count_include_pad);
  }
  if (with_indices) {
    UMA_TRY_ASSIGN(std::int64_t storage_order, ctx.attr_int("storage_order", 0));
    attrs.set("storage_order", storage_order);
    UMA_TRY_ASSIGN(Node * pool,
                   ctx.emit(fmt::format("nn.max_pool{}d_with_indices", rank), {x}, attrs));
    return pool->results();
  }
  return single(
      ctx.emit_value(fmt::format("nn.{}_pool{}d", max ? "max" : "avg", rank), {x}, attrs));
}

Expected<Values> convert_global_pool(NodeContext& ctx, const char* op) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  return single(ctx.emit_value(op, {x}));
}

// ---- MaxUnpool ----

// The spatial sizes MaxUnpool gives X's: (in - 1) * stride + kernel - pads begin and end.
Expected<Shape> unpooled_sizes(const Shape& input, const Ints& kernel, const Ints& strides,
                               const Ints& pads) {
  const std::size_t rank = input.size();
  Shape sizes;
  for (std::size_t i = 0; i < rank; ++i) {
    std::optional<std::int64_t> size;
    if (input[i] > 0 && strides[i] > 0 && kernel[i] > 0 && pads[i] >= 0 && pads[rank + i] >= 0)
      if (auto spread = checked_mul(input[i] - 1, strides[i]))
        if (auto covered = checked_add(*spread, kernel[i]))
          size = checked_add(*covered - pads[i], -pads[rank + i]);
    if (!size || *size < 1)
      return make_error(
          "the input's spatial sizes {} unpool to no positive sizes with kernel_shape {}, "
          "strides {} and pads {}",
          format_ints(input), format_ints(kernel), format_ints(strides), format_ints(pads));
    sizes.push_back(*size);
  }
  return sizes;
}

// X's elements stored at I's positions in zeros of the unpooled shape, as ONNX's reference
// does: an index counts in the whole output flattened, as MaxPool's Indices do
// ((n * C + c) * S + s for offset s of a plane of S elements), and a negative one from its
// end; one out of range is a run-time error, as for every scatter. An output_shape larger
// than the unpooled shape pads it with zeros after each dimension's end, the indices keeping
// their meaning (the reference's reading, which ONNX's node test checks).
Expected<Values> convert_max_unpool(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  UMA_TRY_ASSIGN(Value * indices, required_input(ctx, 1, "I"));
  UMA_TRY_ASSIGN(std::size_t rank, spatial_rank(ctx, x));
  const Shape& shape = shape_of(x);
  if (indices->tensor_type().dtype != DType::i64 || shape_of(indices) != shape)
    return make_error("input 1 ('I') is {}, but must be i64 of X's shape {}",
                      to_string(indices->type()), to_string(shape));
  UMA_TRY_ASSIGN(Ints kernel, pool_kernel(ctx, rank));
  UMA_TRY_ASSIGN(Ints strides, spatial_attr(ctx, "strides", rank, 1));
  UMA_TRY_ASSIGN(Ints pads, spatial_attr(ctx, "pads", 2 * rank, 0));
  UMA_TRY_ASSIGN(Shape sizes,
                 unpooled_sizes(Shape(shape.begin() + 2, shape.end()), kernel, strides, pads));
  Shape unpooled{shape[0], shape[1]};
  unpooled.insert(unpooled.end(), sizes.begin(), sizes.end());
  std::optional<std::int64_t> total = 1;
  for (std::int64_t d : unpooled)
    if (total) total = checked_mul(*total, d);
  if (!total)
    return make_error("the unpooled shape {} has more elements than an int64 counts",
                      to_string(unpooled));
  Ints padding(2 * unpooled.size(), 0);
  if (ctx.has_input(2)) {
    UMA_TRY_ASSIGN(Ints wanted, constant_ints(ctx, 2, "output_shape"));
    bool fits = wanted.size() == unpooled.size();
    for (std::size_t d = 0; fits && d < wanted.size(); ++d) {
      fits = wanted[d] >= unpooled[d];
      padding[unpooled.size() + d] = wanted[d] - unpooled[d];
    }
    if (!fits)
      return make_error(
          "input 2 ('output_shape') is {}, but must be of rank {} and at least the "
          "unpooled shape {} in every dimension",
          format_ints(wanted), unpooled.size(), to_string(unpooled));
  }

  const std::int64_t count = product(shape, 0, shape.size());
  UMA_TRY_ASSIGN(
      Value * zeros,
      ctx.emit_value("full", {},
                     attrs_of({{"shape", Ints{*total}},
                               {"dtype", std::string(dtype_name(x->tensor_type().dtype))}})));
  UMA_TRY_ASSIGN(Value * flat_indices, reshaped(ctx, indices, {count}));
  UMA_TRY_ASSIGN(Value * flat_x, reshaped(ctx, x, {count}));
  UMA_TRY_ASSIGN(Value * scattered,
                 ctx.emit_value("scatter_elements", {zeros, flat_indices, flat_x},
                                attrs_of({{"axis", std::int64_t{0}}})));
  UMA_TRY_ASSIGN(Value * y, reshaped(ctx, scattered, Ints(unpooled)));
  if (std::all_of(padding.begin(), padding.end(), [](std::int64_t p) { return p == 0; }))
    return Values{y};
  return single(ctx.emit_value("nn.pad", {y}, attrs_of({{"pad_width", padding}})));
}

}  // namespace

Expected<Value*> emit_conv(NodeContext& ctx, std::vector<Value*> operands) {
  UMA_TRY_ASSIGN(ConvInputs in, conv_inputs(ctx, std::move(operands)));
  UMA_TRY_ASSIGN(Ints strides, spatial_attr(ctx, "strides", in.rank, 1));
  UMA_TRY_ASSIGN(Ints dilations, spatial_attr(ctx, "dilations", in.rank, 1));
  UMA_TRY_ASSIGN(std::int64_t group, ctx.attr_int("group", 1));
  UMA_TRY_ASSIGN(Ints padding, window_padding(ctx, in.input, in.kernel, strides, dilations));
  AttrMap attrs = window_attrs(strides, padding, dilations);
  attrs.set("groups", group);
  return ctx.emit_value(fmt::format("nn.conv{}d", in.rank), in.operands, attrs);
}

// Each op with the first opset of the definition converted (see ConverterEntry): all of them
// from their first version.
void register_conv_converters(ConverterTable& table) {
  table.add("Conv", 1, convert_conv);
  table.add("ConvTranspose", 1, convert_conv_transpose);
  table.add("MatMul", 1, convert_matmul);
  table.add("Gemm", 1, convert_gemm);
  table.add("MaxPool", 1, [](NodeContext& ctx) { return convert_pool(ctx, true); });
  table.add("AveragePool", 1, [](NodeContext& ctx) { return convert_pool(ctx, false); });
  table.add("GlobalMaxPool", 1,
            [](NodeContext& ctx) { return convert_global_pool(ctx, "nn.global_max_pool"); });
  table.add("GlobalAveragePool", 1,
            [](NodeContext& ctx) { return convert_global_pool(ctx, "nn.global_avg_pool"); });
  table.add("MaxUnpool", 9, convert_max_unpool);
}

}  // namespace uma::onnx_import
