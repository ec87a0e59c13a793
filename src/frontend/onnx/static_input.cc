// Reading the inputs that uma needs at import time.
#include "static_input.h"

namespace uma::onnx_import {

Expected<std::vector<std::int64_t>> constant_ints(const NodeContext& ctx, std::size_t i,
                                                  std::string_view what) {
  UMA_TRY_ASSIGN(TensorPtr tensor, ctx.require_constant_input(i, what));
  if (tensor->dtype() != DType::i64 && tensor->dtype() != DType::i32)
    return make_error("input {} ('{}') is {}, but must be i64 or i32", i, what,
                      dtype_name(tensor->dtype()));
  if (tensor->shape().size() != 1)
    return make_error("input {} ('{}') has shape {}, but must be 1-D", i, what,
                      to_string(Type(tensor->type())));
  std::vector<std::int64_t> values(static_cast<std::size_t>(tensor->num_elements()));
  for (std::size_t k = 0; k < values.size(); ++k)
    values[k] = tensor->dtype() == DType::i64 ? tensor->data<std::int64_t>()[k]
                                              : tensor->data<std::int32_t>()[k];
  return values;
}

Expected<std::optional<std::vector<std::int64_t>>> optional_constant_ints(const NodeContext& ctx,
                                                                          std::size_t i,
                                                                          std::string_view what) {
  if (!ctx.has_input(i)) return std::optional<std::vector<std::int64_t>>();
  UMA_TRY_ASSIGN(std::vector<std::int64_t> values, constant_ints(ctx, i, what));
  return std::optional<std::vector<std::int64_t>>(std::move(values));
}

Expected<Value*> required_input(const NodeContext& ctx, std::size_t i, std::string_view what) {
  if (!ctx.has_input(i)) return make_error("input {} ('{}') is missing", i, what);
  return ctx.input(i);
}

AttrMap attrs_of(std::initializer_list<std::pair<const char*, Attribute>> entries) {
  AttrMap attrs;
  for (const auto& [name, value] : entries) attrs.set(name, value);
  return attrs;
}

Value* scalar(NodeContext& ctx, DType dtype, double value) {
  auto tensor = std::make_shared<Tensor>(TensorType{dtype, {}});
  tensor->set(0, value);
  return ctx.constant(std::move(tensor));
}

TensorPtr i64_tensor(Shape shape, const std::vector<std::int64_t>& values) {
  auto tensor = std::make_shared<Tensor>(TensorType{DType::i64, std::move(shape)});
  std::copy(values.begin(), values.end(), tensor->data<std::int64_t>());
  return tensor;
}

Expected<Value*> cast_to(NodeContext& ctx, Value* value, DType dtype) {
  if (value->tensor_type().dtype == dtype) return value;
  return ctx.emit_value("cast", {value}, attrs_of({{"dtype", std::string(dtype_name(dtype))}}));
}

Expected<Value*> element_at(NodeContext& ctx, Value* v, std::int64_t axis, std::int64_t i) {
  UMA_TRY_ASSIGN(Value * part,
                 ctx.emit_value("strided_slice", {v},
                                attrs_of({{"begin", std::vector<std::int64_t>{i}},
                                          {"end", std::vector<std::int64_t>{i + 1}},
                                          {"axes", std::vector<std::int64_t>{axis}}})));
  return ctx.emit_value("squeeze", {part}, attrs_of({{"axes", std::vector<std::int64_t>{axis}}}));
}

Expected<Value*> stack(NodeContext& ctx, const std::vector<Value*>& values, std::int64_t axis) {
  std::vector<Value*> expanded;
  for (Value* v : values) {
    UMA_TRY_ASSIGN(
        Value * e,
        ctx.emit_value("expand_dims", {v}, attrs_of({{"axes", std::vector<std::int64_t>{axis}}})));
    expanded.push_back(e);
  }
  if (expanded.size() == 1) return expanded[0];
  return ctx.emit_value("concatenate", expanded, attrs_of({{"axis", axis}}));
}

Expected<Value*> reshaped(NodeContext& ctx, Value* value, std::vector<std::int64_t> shape) {
  return ctx.emit_value("reshape", {value},
                        attrs_of({{"newshape", std::move(shape)}, {"allowzero", std::int64_t{1}}}));
}

Status check_constant(std::string_view what, const Shape& shape) {
  double elements = 1;  // in double: the dimensions come from the model and may overflow
  for (std::int64_t d : shape) elements *= static_cast<double>(d);
  if (elements > static_cast<double>(kMaxConstant))
    return make_error("{} would be a constant of {} elements here, more than the {} uma builds",
                      what, to_string(shape), kMaxConstant);
  return Status::success();
}

Expected<std::vector<Value*>> single(Expected<Value*> value) {
  if (!value) return value.error();
  return std::vector<Value*>{*value};
}

}  // namespace uma::onnx_import
