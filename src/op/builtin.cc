// Structural ops: constant, tuple, get_item and call.
#include "uma/op/op_registry.h"

namespace uma {
namespace {

Expected<std::vector<Type>> infer_constant(const std::vector<Type>&, const AttrMap& attrs) {
  const TensorPtr& value = attrs.get_tensor("value");
  if (value == nullptr) return make_error("attribute 'value' holds no tensor");
  return std::vector<Type>{value->type()};
}

Expected<std::vector<Type>> infer_tuple(const std::vector<Type>& inputs, const AttrMap&) {
  return std::vector<Type>{TupleType{inputs}};
}

Expected<std::vector<Type>> infer_get_item(const std::vector<Type>& inputs, const AttrMap& attrs) {
  if (!inputs[0].is_tuple()) return make_error("operand is {}, not a tuple", to_string(inputs[0]));
  const auto& fields = inputs[0].tuple().fields;
  std::int64_t index = attrs.get_int("index");
  if (index < 0 || index >= static_cast<std::int64_t>(fields.size()))
    return make_error("attribute 'index' is {}, but the tuple has {} field(s)", index,
                      fields.size());
  return std::vector<Type>{fields[static_cast<std::size_t>(index)]};
}

// A call's types come from its callee (infer_call_types); nothing is known from the op alone.
Expected<std::vector<Type>> infer_call(const std::vector<Type>&, const AttrMap&) {
  return make_error("a call's result types come from its callee");
}

Expected<std::vector<TensorPtr>> constant_kernel(const std::vector<TensorPtr>&,
                                                 const AttrMap& attrs, const std::vector<Type>&) {
  const TensorPtr& value = attrs.get_tensor("value");
  if (!value->has_data())
    return make_error("constant '{}' has no data (it was printed with its data elided)",
                      value->name);
  return std::vector<TensorPtr>{value};
}

}  // namespace

void register_builtin_ops(OpRegistry& registry) {
  const std::vector<OpDef> ops = {
      {.name = "constant",
       .attrs = {{"value", AttrKind::Tensor, std::nullopt}},
       .infer = infer_constant,
       .kernel = constant_kernel},
      {.name = "tuple", .max_inputs = OpDef::kVariadic, .infer = infer_tuple},
      {.name = "get_item",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"index", AttrKind::Int, std::nullopt}},
       .infer = infer_get_item},
      {.name = "call", .max_inputs = OpDef::kVariadic, .infer = infer_call},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
