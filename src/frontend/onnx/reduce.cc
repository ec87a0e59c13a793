// Converters of ONNX's reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
// those that are a sum with pointwise steps (ReduceSumSquare, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp), ArgMax, ArgMin, CumSum (whose axis must be a constant)
// and TopK (whose k must be a constant).
//
// Opset differences handled here (1..17):
// - ReduceSum takes its axes as an optional input from 13, with noop_with_empty_axes (no
//   axes then means no reduction at all); the others take them as an attribute until 18.
// - ArgMax and ArgMin: select_last_index from 12.
// - TopK: k an attribute before 10, an input from 10; largest and sorted from 11 (before,
//   the largest in order); a negative axis from 11 (accepted before too).
#include "static_input.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// How an ONNX reduction is ours: `op` on the data, after `before` (unary, or "square") and
// followed by `after` (unary); the empty string for none.
struct ReductionForm {
  std::string op;
  std::string before;
  std::string after;
};

// The pointwise step of a form: "square" is x * x.
Expected<Value*> pointwise(NodeContext& ctx, const std::string& op, Value* x) {
  if (op == "square") return ctx.emit_value("multiply", {x, x});
  return ctx.emit_value(op, {x});
}

// The axes and keepdims of an ONNX reduction whose axes become an input at opset
// `axes_input_since`; `noop` when noop_with_empty_axes and no axes ask for no reduction.
struct ReductionAttrs {
  AttrMap attrs;
  bool noop = false;
};

Expected<ReductionAttrs> reduction_attrs(const NodeContext& ctx, std::int64_t axes_input_since) {
  UMA_TRY_ASSIGN(std::int64_t keepdims, ctx.attr_int("keepdims", 1));
  Ints axes;
  if (ctx.opset() >= axes_input_since) {
    UMA_TRY_ASSIGN(std::optional<Ints> given, optional_constant_ints(ctx, 1, "axes"));
    UMA_TRY_ASSIGN(std::int64_t noop, ctx.attr_int("noop_with_empty_axes", 0));
    axes = given.value_or(Ints{});
    if (axes.empty() && noop != 0) return ReductionAttrs{{}, true};
  } else {
    UMA_TRY_ASSIGN(axes, ctx.attr_ints("axes", Ints{}));
  }
  AttrMap attrs;
  attrs.set("axes", axes);
  attrs.set("keepdims", keepdims);
  return ReductionAttrs{std::move(attrs), false};
}

Converter reduction(ReductionForm form, std::int64_t axes_input_since) {
  return [form, axes_input_since](NodeContext& ctx) -> Expected<Values> {
    UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
    UMA_TRY_ASSIGN(ReductionAttrs reduce, reduction_attrs(ctx, axes_input_since));
    if (!form.before.empty()) {
      UMA_TRY_ASSIGN(data, pointwise(ctx, form.before, data));
    }
    // No reduction at all, though the pointwise steps still apply.
    Expected<Value*> result = reduce.noop ? data : ctx.emit_value(form.op, {data}, reduce.attrs);
    if (result && !form.after.empty()) result = pointwise(ctx, form.after, *result);
    return single(result);
  };
}

// log(sum(exp(x))) as m + log(sum(exp(x - m))), m the maximum where it is finite (else 0),
// so that exp overflows only where the result does.
Expected<Values> convert_reduce_log_sum_exp(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
  // Before opset 18 the axes are an attribute: there is always a reduction.
  UMA_TRY_ASSIGN(ReductionAttrs reduce, reduction_attrs(ctx, 18));
  const AttrMap& attrs = reduce.attrs;
  AttrMap kept = attrs;
  kept.set("keepdims", std::int64_t{1});
  UMA_TRY_ASSIGN(Value * max, ctx.emit_value("max", {data}, kept));
  UMA_TRY_ASSIGN(Value * infinite, ctx.emit_value("isinf", {max}));
  auto zero = std::make_shared<Tensor>(TensorType{max->tensor_type().dtype, {}});
  UMA_TRY_ASSIGN(Value * shift, ctx.emit_value("where", {infinite, ctx.constant(zero), max}));
  UMA_TRY_ASSIGN(Value * shifted, ctx.emit_value("subtract", {data, shift}));
  UMA_TRY_ASSIGN(Value * exp, ctx.emit_value("exp", {shifted}));
  UMA_TRY_ASSIGN(Value * sum, ctx.emit_value("sum", {exp}, attrs));
  UMA_TRY_ASSIGN(Value * log, ctx.emit_value("log", {sum}));
  if (attrs.get_int("keepdims") == 0) {
    AttrMap reshape;
    reshape.set("newshape", log->tensor_type().shape);
    reshape.set("allowzero", std::int64_t{1});
    UMA_TRY_ASSIGN(shift, ctx.emit_value("reshape", {shift}, std::move(reshape)));
  }
  return single(ctx.emit_value("add", {log, shift}));
}

Converter arg_reduction(std::string op) {
  return [op](NodeContext& ctx) -> Expected<Values> {
    UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "data"));
    AttrMap attrs;
    for (const char* name : {"axis", "keepdims", "select_last_index"}) {
      if (ctx.opset() < 12 && std::string_view(name) == "select_last_index") continue;
      UMA_TRY_ASSIGN(std::int64_t value, ctx.attr_int(name, std::string_view(name) == "keepdims"));
      attrs.set(name, value);
    }
    return single(ctx.emit_value(op, {data}, std::move(attrs)));
  };
}

Expected<Values> convert_cumsum(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * data, required_input(ctx, 0, "x"));
  UMA_TRY_ASSIGN(TensorPtr axis, ctx.require_constant_input(1, "axis"));
  if (axis->num_elements() != 1)
    return make_error("input 1 ('axis') has {} elements, but must be a scalar",
                      axis->num_elements());
  AttrMap attrs;
  attrs.set("axis", static_cast<std::int64_t>(axis->get(0)));
  for (const char* name : {"exclusive", "reverse"}) {
    UMA_TRY_ASSIGN(std::int64_t value, ctx.attr_int(name, 0));
    attrs.set(name, value);
  }
  return single(ctx.emit_value("cumsum", {data}, std::move(attrs)));
}

// TopK: k an attribute before 10, a constant one-element input from 10; largest and sorted
// from 11.
Expected<Values> convert_topk(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  AttrMap attrs;
  if (ctx.opset() < 10) {
    UMA_TRY_ASSIGN(std::int64_t k, ctx.attr_int("k", std::nullopt));
    attrs.set("k", k);
  } else {
    // k decides the results' shapes, which the error for a k known only at run time says.
    if (Expected<TensorPtr> known = ctx.require_shaping_input(1, "K"); !known) return known.error();
    UMA_TRY_ASSIGN(Ints k, constant_ints(ctx, 1, "K"));
    if (k.size() != 1)
      return make_error("input 1 ('K') has {} elements, but must have one", k.size());
    attrs.set("k", k[0]);
  }
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", -1));
  attrs.set("axis", axis);
  for (const char* name : {"largest", "sorted"}) {
    std::int64_t value = 1;
    if (ctx.opset() >= 11) {
      UMA_TRY_ASSIGN(value, ctx.attr_int(name, 1));
    }
    attrs.set(name, value);
  }
  UMA_TRY_ASSIGN(Node * node, ctx.emit("topk", {x}, std::move(attrs)));
  return node->results();
}

}  // namespace

// Each op with the first opset of the definition converted (see ConverterEntry): all of them
// from their first version.
void register_reduce_converters(ConverterTable& table) {
  table.add("ReduceSum", 1, reduction({"sum"}, 13));
  table.add("ReduceSumSquare", 1, reduction({"sum", "square"}, 18));
  table.add("ReduceMean", 1, reduction({"mean"}, 18));
  table.add("ReduceMax", 1, reduction({"max"}, 18));
  table.add("ReduceMin", 1, reduction({"min"}, 18));
  table.add("ReduceProd", 1, reduction({"prod"}, 18));
  table.add("ReduceL1", 1, reduction({"sum", "abs"}, 18));
  table.add("ReduceL2", 1, reduction({"sum", "square", "sqrt"}, 18));
  table.add("ReduceLogSum", 1, reduction({"sum", "", "log"}, 18));
  table.add("ReduceLogSumExp", 1, convert_reduce_log_sum_exp);
  table.add("ArgMax", 1, arg_reduction("argmax"));
  table.add("ArgMin", 1, arg_reduction("argmin"));
  table.add("CumSum", 11, convert_cumsum);
  table.add("TopK", 1, convert_topk);
}

}  // namespace uma::onnx_import
