// Converters of ONNX's elementwise ops: arithmetic (Add ... Pow, Mod, BitShift, variadic Max,
// Min, Sum and Mean), unary math (trigonometric and hyperbolic functions, Floor, Ceil, Round,
// Sign, ...), activations, comparisons and logic, IsNaN and IsInf, Where, Clip, Cast and
// CastLike, and the ops that vanish at inference (Identity, Dropout).
//
// Opset differences handled here (1..17; the registration table says from which opset on each
// op is converted):
// - Binary ops before 7 broadcast only with attribute `broadcast` (see legacy_broadcast).
// - Clip: min and max are attributes before 11 and optional inputs from 11. Absent bounds
//   are numeric_limits::lowest()/max() as ONNX specifies (so Clip maps +-inf to the largest
//   finite value); constant bounds become clip's attributes, others maximum/minimum.
// - Dropout: `ratio` is an attribute before 12 and an input from 12, with the input
//   training_mode; the mask output is of the data's type before 10 and bool from 10.
// - Pow: from 12 the exponent may have another dtype than the base (see convert_pow).
// - Mod: fmod = 0 is Python's remainder (floor_mod), fmod = 1 C's fmod (trunc_mod).
// Everything else keeps its meaning from the opset it is registered with; later opsets only
// add dtypes. Integer operands of binary ops must share a dtype, as ONNX requires: only Pow
// inserts casts.
#include <cmath>
#include <initializer_list>
#include <limits>

#include "static_input.h"
#include "uma/frontend/onnx/tensor_proto.h"

namespace uma::onnx_import {
namespace {

using Values = std::vector<Value*>;

Expected<Values> single(Expected<Value*> value) {
  if (!value) return value.error();
  return Values{*value};
}

// Every input, none of them left out.
Expected<Values> all_inputs(const NodeContext& ctx) {
  Values inputs;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return make_error("input {} is missing", i);
    inputs.push_back(ctx.input(i));
  }
  return inputs;
}

DType dtype_of(const Value* value) { return value->tensor_type().dtype; }

// An ONNX op that is one of ours, operand for operand.
Converter same_operands(std::string op) {
  return [op](NodeContext& ctx) -> Expected<Values> {
    UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
    return single(ctx.emit_value(op, std::move(inputs)));
  };
}

// Before opset 7 a binary op broadcasts only when attribute `broadcast` is 1, and then B to A:
// B holds one element, or its dimensions are A's from `axis` on (by default A's last ones).
// Reshaping B to A's rank, with 1s around those dimensions, makes the numpy broadcasting of
// our ops compute the same. Without `broadcast` the shapes must be equal.
Expected<Value*> legacy_broadcast(NodeContext& ctx, Value* a, Value* b) {
  const Shape& a_shape = a->tensor_type().shape;
  const Shape& b_shape = b->tensor_type().shape;
  UMA_TRY_ASSIGN(std::int64_t broadcast, ctx.attr_int("broadcast", 0));
  if (broadcast == 0) {
    if (a_shape != b_shape)
      return make_error(
          "inputs have shapes {} and {}, which must be equal without attribute 'broadcast' "
          "(before opset 7)",
          to_string(a_shape), to_string(b_shape));
    return b;
  }
  const auto a_rank = static_cast<std::int64_t>(a_shape.size());
  const auto b_rank = static_cast<std::int64_t>(b_shape.size());
  if (b->tensor_type().num_elements() == 1 && b_rank <= a_rank) return b;
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", a_rank - b_rank));
  bool fits = b_rank <= a_rank && axis >= 0 && axis <= a_rank - b_rank;
  for (std::int64_t d = 0; fits && d < b_rank; ++d) fits = b_shape[d] == a_shape[axis + d];
  if (!fits)
    return make_error(
        "input 1 has shape {}, which is neither one element nor the dimensions of input 0's "
        "shape {} from axis {} on, as attribute 'broadcast' requires (before opset 7)",
        to_string(b_shape), to_string(a_shape), axis);
  if (axis == a_rank - b_rank) return b;
  Shape aligned = b_shape;
  aligned.resize(static_cast<std::size_t>(a_rank - axis), 1);
  AttrMap attrs;
  attrs.set("newshape", aligned);
  attrs.set("allowzero", std::int64_t{1});
  return ctx.emit_value("reshape", {b}, std::move(attrs));
}

// A binary ONNX op that is one of ours, with the broadcasting of its opset.
Converter binary(std::string op) {
  return [op](NodeContext& ctx) -> Expected<Values> {
    UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
    if (inputs.size() != 2) return make_error("needs 2 inputs, got {}", inputs.size());
    if (ctx.opset() < 7) {
      UMA_TRY_ASSIGN(inputs[1], legacy_broadcast(ctx, inputs[0], inputs[1]));
    }
    return single(ctx.emit_value(op, std::move(inputs)));
  };
}

// A variadic ONNX op (Max, Min, Sum) as a left fold of our binary op; one input is itself.
Converter fold_inputs(std::string op) {
  return [op](NodeContext& ctx) -> Expected<Values> {
    UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
    if (inputs.empty()) return make_error("needs at least one input");
    Value* result = inputs[0];
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      UMA_TRY_ASSIGN(result, ctx.emit_value(op, {result, inputs[i]}));
    }
    return Values{result};
  };
}

Expected<Values> convert_mean(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values sum, fold_inputs("add")(ctx));
  if (ctx.num_inputs() == 1) return sum;
  Value* count = scalar(ctx, dtype_of(sum[0]), static_cast<double>(ctx.num_inputs()));
  return single(ctx.emit_value("divide", {sum[0], count}));
}

// One of our ops whose float attributes are the ONNX attributes of the same names; absent
// ones take ONNX's defaults.
Converter with_float_attrs(std::string op, std::vector<std::pair<const char*, double>> defaults) {
  return [op, defaults](NodeContext& ctx) -> Expected<Values> {
    UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
    AttrMap attrs;
    for (const auto& [name, fallback] : defaults) {
      UMA_TRY_ASSIGN(double value, ctx.attr_float(name, fallback));
      attrs.set(name, value);
    }
    return single(ctx.emit_value(op, std::move(inputs), std::move(attrs)));
  };
}

// Opset 12 lets the exponent have its own dtype; the result has the base's. A float base
// takes the exponent cast to its dtype. An integer base with a float exponent computes in
// the exponent's float type and truncates the result toward zero, as ONNX Runtime does
// (4^0.5 is 2, which casting the exponent to an integer would lose).
Expected<Values> convert_pow(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
  if (inputs.size() != 2) return make_error("needs 2 inputs, got {}", inputs.size());
  Value* base = inputs[0];
  Value* exponent = inputs[1];
  if (ctx.opset() < 7) {
    UMA_TRY_ASSIGN(exponent, legacy_broadcast(ctx, base, exponent));
  }
  DType base_dtype = dtype_of(base), exponent_dtype = dtype_of(exponent);
  if (is_float(base_dtype) || !is_float(exponent_dtype)) {
    UMA_TRY_ASSIGN(exponent, cast_to(ctx, exponent, base_dtype));
    return single(ctx.emit_value("power", {base, exponent}));
  }
  UMA_TRY_ASSIGN(base, cast_to(ctx, base, exponent_dtype));
  UMA_TRY_ASSIGN(Value * power, ctx.emit_value("power", {base, exponent}));
  return single(cast_to(ctx, power, base_dtype));
}

Expected<Values> convert_mod(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
  if (inputs.size() != 2) return make_error("needs 2 inputs, got {}", inputs.size());
  UMA_TRY_ASSIGN(std::int64_t fmod, ctx.attr_int("fmod", 0));
  if (fmod != 0 && fmod != 1) return make_error("attribute 'fmod' is {}, but must be 0 or 1", fmod);
  return single(ctx.emit_value(fmod == 1 ? "trunc_mod" : "floor_mod", std::move(inputs)));
}

Expected<Values> convert_bit_shift(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
  if (inputs.size() != 2) return make_error("needs 2 inputs, got {}", inputs.size());
  UMA_TRY_ASSIGN(std::string direction, ctx.attr_string("direction", std::nullopt));
  if (direction != "LEFT" && direction != "RIGHT")
    return make_error("attribute 'direction' is \"{}\", but must be \"LEFT\" or \"RIGHT\"",
                      direction);
  return single(
      ctx.emit_value(direction == "LEFT" ? "left_shift" : "right_shift", std::move(inputs)));
}

Expected<Values> convert_is_inf(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
  if (inputs.size() != 1) return make_error("needs 1 input, got {}", inputs.size());
  AttrMap attrs;
  for (const char* name : {"detect_positive", "detect_negative"}) {
    UMA_TRY_ASSIGN(std::int64_t value, ctx.attr_int(name, 1));
    attrs.set(name, value);
  }
  return single(ctx.emit_value("isinf", std::move(inputs), std::move(attrs)));
}

// ---- Clip ----

double largest_finite(DType dtype) {
  switch (dtype) {
    case DType::f16:
      return 65504.0;
    case DType::bf16:
      return bf16_to_f32(0x7f7f);
    case DType::f64:
      return std::numeric_limits<double>::max();
    default:
      return std::numeric_limits<float>::max();
  }
}

// One bound of Clip (from 11): a number for clip's attribute, or a value for maximum/minimum.
struct Bound {
  std::optional<double> number;
  Value* value = nullptr;
};

Expected<Bound> clip_bound(const NodeContext& ctx, std::size_t index, const char* what,
                           double sign) {
  DType dtype = dtype_of(ctx.input(0));
  if (!ctx.has_input(index)) {
    // An integer's own range bounds it already.
    if (!is_float(dtype)) return Bound{};
    return Bound{sign * largest_finite(dtype)};
  }
  Value* value = ctx.input(index);
  TensorPtr tensor = ctx.constant_input(index);
  if (tensor == nullptr) return Bound{std::nullopt, value};
  if (tensor->num_elements() != 1)
    return make_error("input {} ('{}') must be a scalar, got shape {}", index, what,
                      to_string(tensor->shape()));
  if (tensor->dtype() != dtype)
    return make_error("input {} ('{}') is {}, but input 0 is {}", index, what,
                      dtype_name(tensor->dtype()), dtype_name(dtype));
  if (tensor->dtype() == DType::i64) {
    // Beyond 2^53 a double may not hold the bound: compare exactly through maximum/minimum.
    std::int64_t exact = tensor->data<std::int64_t>()[0];
    auto rounded = static_cast<double>(exact);
    if (std::fabs(rounded) >= 0x1p63 || static_cast<std::int64_t>(rounded) != exact)
      return Bound{std::nullopt, value};
  }
  if (tensor->dtype() == DType::u64) {
    std::uint64_t exact = tensor->data<std::uint64_t>()[0];
    auto rounded = static_cast<double>(exact);
    if (rounded >= 0x1p64 || static_cast<std::uint64_t>(rounded) != exact)
      return Bound{std::nullopt, value};
  }
  return Bound{tensor->get(0)};
}

Expected<Values> convert_clip(NodeContext& ctx) {
  if (!ctx.has_input(0)) return make_error("input 0 is missing");
  Value* x = ctx.input(0);
  if (ctx.opset() < 11) {
    double largest = std::numeric_limits<float>::max();
    UMA_TRY_ASSIGN(double a_min, ctx.attr_float("min", -largest));
    UMA_TRY_ASSIGN(double a_max, ctx.attr_float("max", largest));
    return single(ctx.emit_value("clip", {x}, attrs_of({{"a_min", a_min}, {"a_max", a_max}})));
  }
  if (ctx.num_inputs() > 3) return make_error("takes at most 3 inputs, got {}", ctx.num_inputs());
  UMA_TRY_ASSIGN(Bound lower, clip_bound(ctx, 1, "min", -1));
  UMA_TRY_ASSIGN(Bound upper, clip_bound(ctx, 2, "max", 1));
  if (lower.value == nullptr && upper.value == nullptr) {
    AttrMap attrs;
    if (lower.number) attrs.set("a_min", *lower.number);
    if (upper.number) attrs.set("a_max", *upper.number);
    if (attrs.empty()) return Values{x};
    return single(ctx.emit_value("clip", {x}, std::move(attrs)));
  }
  // numpy's order, min(max(x, lower), upper), so that lower > upper gives upper.
  Value* result = x;
  Expected<Value*> step = result;
  if (lower.value != nullptr)
    step = ctx.emit_value("maximum", {result, lower.value});
  else if (lower.number)
    step = ctx.emit_value("clip", {result}, attrs_of({{"a_min", *lower.number}}));
  UMA_TRY_ASSIGN(result, step);
  step = result;
  if (upper.value != nullptr)
    step = ctx.emit_value("minimum", {result, upper.value});
  else if (upper.number)
    step = ctx.emit_value("clip", {result}, attrs_of({{"a_max", *upper.number}}));
  return single(step);
}

// ---- Cast, CastLike ----

Expected<Values> convert_cast(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
  if (inputs.size() != 1) return make_error("needs 1 input, got {}", inputs.size());
  UMA_TRY_ASSIGN(std::int64_t to, ctx.attr_int("to", std::nullopt));
  // An out-of-range enum value reads as 0 (UNDEFINED), which is refused as well.
  int onnx_type = to == static_cast<int>(to) ? static_cast<int>(to) : 0;
  std::optional<DType> dtype = dtype_from_onnx(onnx_type);
  if (!dtype) return unsupported_onnx_type("attribute 'to'", onnx_type);
  return single(cast_to(ctx, inputs[0], *dtype));
}

Expected<Values> convert_cast_like(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
  if (inputs.size() != 2) return make_error("needs 2 inputs, got {}", inputs.size());
  return single(cast_to(ctx, inputs[0], dtype_of(inputs[1])));
}

// ---- Identity, Dropout ----

Expected<Values> convert_identity(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Values inputs, all_inputs(ctx));
  if (inputs.size() != 1) return make_error("needs 1 input, got {}", inputs.size());
  return inputs;
}

// At inference Dropout passes its input through and keeps every element: the mask is all
// true (all ones before opset 10, when it had the data's type). Training mode drops at
// random, which an inference compiler cannot reproduce, unless the ratio is 0.
Expected<Values> convert_dropout(NodeContext& ctx) {
  if (!ctx.has_input(0)) return make_error("input 0 is missing");
  Value* data = ctx.input(0);
  if (ctx.opset() >= 12 && ctx.has_input(2)) {
    UMA_TRY_ASSIGN(TensorPtr training, ctx.require_constant_input(2, "training_mode"));
    if (training->num_elements() != 1)
      return make_error("input 2 ('training_mode') must be a scalar, got shape {}",
                        to_string(training->shape()));
    TensorPtr ratio = ctx.constant_input(1);
    bool keeps_all =
        ctx.has_input(1) && ratio != nullptr && ratio->num_elements() == 1 && ratio->get(0) == 0;
    if (training->get(0) != 0 && !keeps_all)
      return make_error(
          "training mode (random dropout) is not supported; export the model for inference "
          "or give a constant ratio of 0");
  }
  Values outputs{data};
  if (ctx.proto().output_size() > 1 && !ctx.proto().output(1).empty()) {
    // A `full` node rather than a constant: import folds it only when it is small, so a
    // model that declares a huge input cannot make the importer allocate its mask.
    const TensorType& type = data->tensor_type();
    AttrMap attrs;
    attrs.set("shape", type.shape);
    attrs.set("value", 1.0);
    attrs.set("dtype", std::string(dtype_name(ctx.opset() >= 10 ? DType::boolean : type.dtype)));
    UMA_TRY_ASSIGN(Value * mask, ctx.emit_value("full", {}, std::move(attrs)));
    outputs.push_back(mask);
  }
  return outputs;
}

}  // namespace

void register_elementwise_converters(ConverterTable& table) {
  // ONNX op, our op, and the first opset of the definition converted: where the op appeared,
  // or 6 where earlier versions had consumed_inputs (an in-place hint of the first opsets).
  struct Row {
    const char* onnx_op;
    const char* op;
    std::int64_t since;
  };
  const Row plain[] = {
      {"Relu", "nn.relu", 6},
      {"Sigmoid", "sigmoid", 6},
      {"Tanh", "tanh", 6},
      {"Exp", "exp", 6},
      {"Log", "log", 6},
      {"Sqrt", "sqrt", 6},
      {"Erf", "erf", 9},
      {"Reciprocal", "reciprocal", 6},
      {"Neg", "negative", 6},
      {"Abs", "abs", 6},
      {"HardSwish", "nn.hard_swish", 14},
      {"PRelu", "nn.prelu", 6},
      {"Not", "logical_not", 1},
      {"Where", "where", 9},
      {"Sin", "sin", 7},
      {"Cos", "cos", 7},
      {"Tan", "tan", 7},
      {"Asin", "asin", 7},
      {"Acos", "acos", 7},
      {"Atan", "atan", 7},
      {"Sinh", "sinh", 9},
      {"Cosh", "cosh", 9},
      {"Asinh", "asinh", 9},
      {"Acosh", "acosh", 9},
      {"Atanh", "atanh", 9},
      {"Floor", "floor", 6},
      {"Ceil", "ceil", 6},
      {"Round", "round", 11},
      {"Sign", "sign", 9},
      {"IsNaN", "isnan", 9},
      {"Softplus", "nn.softplus", 1},
      {"Softsign", "nn.softsign", 1},
  };
  for (const auto& [onnx_op, op, since] : plain) table.add(onnx_op, since, same_operands(op));
  // Binary ops with the legacy broadcasting of opsets before 7.
  const Row binary_ops[] = {
      {"Add", "add", 6},
      {"Sub", "subtract", 6},
      {"Mul", "multiply", 6},
      {"Div", "divide", 6},
      {"Equal", "equal", 1},
      {"Less", "less", 1},
      {"LessOrEqual", "less_equal", 12},
      {"Greater", "greater", 1},
      {"GreaterOrEqual", "greater_equal", 12},
      {"And", "logical_and", 1},
      {"Or", "logical_or", 1},
      {"Xor", "logical_xor", 1},
  };
  for (const auto& [onnx_op, op, since] : binary_ops) table.add(onnx_op, since, binary(op));
  table.add("Pow", 1, convert_pow);
  table.add("Max", 6, fold_inputs("maximum"));
  table.add("Min", 6, fold_inputs("minimum"));
  table.add("Sum", 6, fold_inputs("add"));
  table.add("Mean", 6, convert_mean);
  table.add("LeakyRelu", 6, with_float_attrs("nn.leaky_relu", {{"alpha", 0.01}}));
  table.add("Elu", 6, with_float_attrs("nn.elu", {{"alpha", 1.0}}));
  table.add("Selu", 6,
            with_float_attrs("nn.selu", {{"alpha", 1.67326319217681884765625},
                                         {"gamma", 1.05070102214813232421875}}));
  table.add("HardSigmoid", 6, with_float_attrs("nn.hard_sigmoid", {{"alpha", 0.2}, {"beta", 0.5}}));
  table.add("Celu", 12, with_float_attrs("nn.celu", {{"alpha", 1.0}}));
  table.add("ThresholdedRelu", 10, with_float_attrs("nn.thresholded_relu", {{"alpha", 1.0}}));
  table.add("Shrink", 9, with_float_attrs("nn.shrink", {{"bias", 0.0}, {"lambd", 0.5}}));
  table.add("Mod", 10, convert_mod);
  table.add("BitShift", 11, convert_bit_shift);
  table.add("IsInf", 10, convert_is_inf);
  table.add("Clip", 6, convert_clip);
  // Cast-1 named the target type with a string.
  table.add("Cast", 6, convert_cast);
  table.add("CastLike", 15, convert_cast_like);
  table.add("Identity", 1, convert_identity);
  // Dropout-6 dropped at random unless is_test was set.
  table.add("Dropout", 7, convert_dropout);
}

}  // namespace uma::onnx_import
