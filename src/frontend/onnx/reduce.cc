// Converters of ONNX's reductions: ReduceSum, ReduceSumSquare (a multiply, then sum),
// ReduceMean, ReduceMax, ReduceMin and ArgMax.
//
// Opset differences handled here (1..17):
// - ReduceSum takes its axes as an optional input from 13, with noop_with_empty_axes (no
//   axes then means no reduction at all); the others take them as an attribute until 18.
// - ArgMax: select_last_index from 12.
#include "static_input.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// An ONNX reduction that becomes our `op`, whose axes become an input at opset
// `axes_input_since`; `square` squares the data first.
Converter reduction(std::string op, std::int64_t axes_input_since, bool square = false) {
  return [op, axes_input_since, square](NodeContext& ctx) -> Expected<Values> {
    UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
    UMA_TRY_ASSIGN(std::int64_t keepdims, ctx.attr_int("keepdims", 1));
    Ints axes;
    if (ctx.opset() >= axes_input_since) {
      UMA_TRY_ASSIGN(std::optional<Ints> given, optional_constant_ints(ctx, 1, "axes"));
      UMA_TRY_ASSIGN(std::int64_t noop, ctx.attr_int("noop_with_empty_axes", 0));
      axes = given.value_or(Ints{});
      // No reduction at all, though ReduceSumSquare still squares.
      if (axes.empty() && noop != 0) {
        if (square) return single(ctx.emit_value("multiply", {data, data}));
        return Values{data};
      }
    } else {
      UMA_TRY_ASSIGN(axes, ctx.attr_ints("axes", Ints{}));
    }
    if (square) {
      UMA_TRY_ASSIGN(data, ctx.emit_value("multiply", {data, data}));
    }
    AttrMap attrs;
    attrs.set("axes", axes);
    attrs.set("keepdims", keepdims);
    return single(ctx.emit_value(op, {data}, std::move(attrs)));
  };
}

Expected<Values> convert_argmax(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  AttrMap attrs;
  for (const char* name : {"axis", "keepdims", "select_last_index"}) {
    if (ctx.opset() < 12 && std::string_view(name) == "select_last_index") continue;
    UMA_TRY_ASSIGN(std::int64_t value, ctx.attr_int(name, std::string_view(name) == "keepdims"));
    attrs.set(name, value);
  }
  return single(ctx.emit_value("argmax", {data}, std::move(attrs)));
}

}  // namespace

// Each op with the first opset of the definition converted (see ConverterEntry): all of them
// from their first version.
void register_reduce_converters(ConverterTable& table) {
  table.add("ReduceSum", 1, reduction("sum", 13));
  table.add("ReduceSumSquare", 1, reduction("sum", 18, true));
  table.add("ReduceMean", 1, reduction("mean", 18));
  table.add("ReduceMax", 1, reduction("max", 18));
  table.add("ReduceMin", 1, reduction("min", 18));
  table.add("ArgMax", 1, convert_argmax);
}

}  // namespace uma::onnx_import
