// Converters of ONNX's losses, NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (a
// log-softmax over the classes, then the same), composed of ours as ONNX's reference
// computes them: each position's input at its target class, negated, weighted by its
// class's weight, with ignored positions weighing 0; then no reduction, the sum, or the sum
// divided by the weights' sum (the count of positions not ignored, without weights).
#include "static_input.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// The loss of `input` ([N, C, d...], log-probabilities) at `target` ([N, d...]).
Expected<Value*> negative_log_likelihood(NodeContext& ctx, Value* input, Value* target,
                                         Value* weight) {
  const TensorType& type = input->tensor_type();
  const TensorType& classes = target->tensor_type();
  if (type.rank() < 2)
    return make_error("the input is {}, but must be [N, C] or [N, C, d1, ...]",
                      to_string(Type(type)));
  Shape expected = type.shape;
  expected.erase(expected.begin() + 1);
  if (classes.shape != expected)
    return make_error("the target is {}, but the input {} needs targets of shape {}",
                      to_string(Type(classes)), to_string(Type(type)), to_string(expected));
  if (classes.dtype != DType::i64 && classes.dtype != DType::i32)
    return make_error("the target is {}, but must be i64 or i32", to_string(Type(classes)));
  if (weight != nullptr && weight->tensor_type().shape != Shape{type.shape[1]})
    return make_error("the weight is {}, but must be 1-D of the {} classes",
                      to_string(Type(weight->tensor_type())), type.shape[1]);
  UMA_TRY_ASSIGN(std::string reduction, ctx.attr_string("reduction", "mean"));
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return make_error("attribute 'reduction' is '{}', not none, sum or mean", reduction);

  // Ignored positions read class 0, so that their target is never an index out of range.
  Value* ignored = nullptr;
  Value* safe = target;
  if (ctx.has_attr("ignore_index")) {
    UMA_TRY_ASSIGN(std::int64_t ignore, ctx.attr_int("ignore_index", std::nullopt));
    UMA_TRY_ASSIGN(
        ignored,
        ctx.emit_value("equal", {target, scalar(ctx, classes.dtype, static_cast<double>(ignore))}));
    UMA_TRY_ASSIGN(safe, ctx.emit_value("where", {ignored, scalar(ctx, classes.dtype, 0), target}));
  }
  UMA_TRY_ASSIGN(Value * index,
                 ctx.emit_value("expand_dims", {safe}, attrs_of({{"axes", Ints{1}}})));
  UMA_TRY_ASSIGN(Value * picked, ctx.emit_value("gather_elements", {input, index},
                                                attrs_of({{"axis", std::int64_t{1}}})));
  UMA_TRY_ASSIGN(picked, ctx.emit_value("squeeze", {picked}, attrs_of({{"axes", Ints{1}}})));
  UMA_TRY_ASSIGN(Value * loss, ctx.emit_value("negative", {picked}));

  // Each position's weight: its class's, or 1; 0 where ignored.
  Value* weights = nullptr;
  if (weight != nullptr) {
    UMA_TRY_ASSIGN(weights,
                   ctx.emit_value("take", {weight, safe}, attrs_of({{"axis", std::int64_t{0}}})));
  }
  if (ignored != nullptr) {
    Value* kept = weights != nullptr ? weights : scalar(ctx, type.dtype, 1);
    UMA_TRY_ASSIGN(weights, ctx.emit_value("where", {ignored, scalar(ctx, type.dtype, 0), kept}));
  }
  if (weights != nullptr) {
    UMA_TRY_ASSIGN(loss, ctx.emit_value("multiply", {loss, weights}));
  }
  if (reduction == "none") return loss;
  Ints all;
  for (std::size_t d = 0; d < expected.size(); ++d) all.push_back(static_cast<std::int64_t>(d));
  AttrMap reduce = attrs_of({{"axes", all}, {"keepdims", std::int64_t{0}}});
  if (reduction == "mean" && weights == nullptr) return ctx.emit_value("mean", {loss}, reduce);
  UMA_TRY_ASSIGN(Value * total, ctx.emit_value("sum", {loss}, reduce));
  if (reduction == "sum") return total;
  UMA_TRY_ASSIGN(Value * weight_total, ctx.emit_value("sum", {weights}, reduce));
  return ctx.emit_value("divide", {total, weight_total});
}

Expected<Values> convert_negative_log_likelihood(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * input, required_input(ctx, 0, "input"));
  UMA_TRY_ASSIGN(Value * target, required_input(ctx, 1, "target"));
  return single(negative_log_likelihood(ctx, input, target, ctx.input(2)));
}

Expected<Values> convert_softmax_cross_entropy(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * scores, required_input(ctx, 0, "scores"));
  UMA_TRY_ASSIGN(Value * labels, required_input(ctx, 1, "labels"));
  if (scores->tensor_type().rank() < 2)
    return make_error("the scores are {}, but must be [N, C] or [N, C, d1, ...]",
                      to_string(Type(scores->tensor_type())));
  UMA_TRY_ASSIGN(Value * log_prob,
                 ctx.emit_value("nn.log_softmax", {scores}, attrs_of({{"axis", std::int64_t{1}}})));
  UMA_TRY_ASSIGN(Value * loss, negative_log_likelihood(ctx, log_prob, labels, ctx.input(2)));
  if (ctx.proto().output_size() < 2) return Values{loss};
  return Values{loss, log_prob};
}

}  // namespace

void register_loss_converters(ConverterTable& table) {
  table.add("NegativeLogLikelihoodLoss", 12, convert_negative_log_likelihood);
  table.add("SoftmaxCrossEntropyLoss", 12, convert_softmax_cross_entropy);
}

}  // namespace uma::onnx_import
