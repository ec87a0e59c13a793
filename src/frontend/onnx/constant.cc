// The converter of ONNX's Constant node: its one value attribute becomes a `constant`.
//
// Opset differences: `value` (a tensor) throughout; `sparse_value` from 11 (refused: uma has
// no sparse tensors); `value_float(s)`, `value_int(s)` and `value_string(s)` from 12.
#include "converter.h"

namespace uma::onnx_import {
namespace {

std::shared_ptr<Tensor> make_vector(DType dtype, const std::vector<double>& values, bool scalar) {
  Shape shape;
  if (!scalar) shape.push_back(static_cast<std::int64_t>(values.size()));
  auto tensor = std::make_shared<Tensor>(TensorType{dtype, shape});
  for (std::size_t i = 0; i < values.size(); ++i)
    tensor->set(static_cast<std::int64_t>(i), values[i]);
  return tensor;
}

std::shared_ptr<Tensor> make_ints(const std::vector<std::int64_t>& values, bool scalar) {
  Shape shape;
  if (!scalar) shape.push_back(static_cast<std::int64_t>(values.size()));
  auto tensor = std::make_shared<Tensor>(TensorType{DType::i64, shape});
  std::copy(values.begin(), values.end(), tensor->data<std::int64_t>());
  return tensor;
}

Expected<TensorPtr> constant_value(const NodeContext& ctx, const std::string& attr) {
  if (attr == "value") return ctx.attr_tensor("value");
  if (attr == "value_float") {
    UMA_TRY_ASSIGN(double value, ctx.attr_float(attr, std::nullopt));
    return TensorPtr(make_vector(DType::f32, {value}, true));
  }
  if (attr == "value_floats") {
    UMA_TRY_ASSIGN(auto values, ctx.attr_floats(attr, std::nullopt));
    return TensorPtr(make_vector(DType::f32, values, false));
  }
  if (attr == "value_int") {
    UMA_TRY_ASSIGN(std::int64_t value, ctx.attr_int(attr, std::nullopt));
    return TensorPtr(make_ints({value}, true));
  }
  if (attr == "value_ints") {
    UMA_TRY_ASSIGN(auto values, ctx.attr_ints(attr, std::nullopt));
    return TensorPtr(make_ints(values, false));
  }
  if (attr == "sparse_value")
    return make_error("attribute 'sparse_value': sparse tensors are not supported");
  if (attr == "value_string" || attr == "value_strings")
    return make_error("attribute '{}': string tensors are not supported", attr);
  return make_error("unknown attribute '{}'", attr);
}

Expected<std::vector<Value*>> convert_constant(NodeContext& ctx) {
  const auto& attrs = ctx.proto().attribute();
  if (attrs.size() != 1)
    return make_error(
        "a Constant needs exactly one value attribute (value, value_float, "
        "value_floats, value_int, value_ints), but it has {}",
        attrs.size());
  UMA_TRY_ASSIGN(TensorPtr tensor, constant_value(ctx, attrs.Get(0).name()));
  return std::vector<Value*>{ctx.constant(std::move(tensor))};
}

}  // namespace

void register_constant_converter(ConverterTable& table) {
  table.add("Constant", 1, convert_constant);
}

}  // namespace uma::onnx_import
