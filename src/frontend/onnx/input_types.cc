// Graph input types: element type, and each dimension fixed by the model, named by it
// (symbolic), or unknown — the latter two resolved by the user's --input-shape.
#include "input_types.h"

#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Dimension = onnx::TensorShapeProto::Dimension;

// The shape as the model states it: "Nx3x224x224", '?' for a dimension without value or name.
std::string model_shape(const onnx::TensorShapeProto& shape) {
  std::string out;
  for (const Dimension& dim : shape.dim()) {
    if (!out.empty()) out += 'x';
    if (dim.has_dim_value())
      out += std::to_string(dim.dim_value());
    else if (dim.has_dim_param() && !dim.dim_param().empty())
      out += dim.dim_param();
    else
      out += '?';
  }
  return out.empty() ? "a scalar" : out;
}

// An --input-shape value that would work: the fixed dimensions, 1 for the others.
std::string example_shape(const onnx::TensorShapeProto& shape) {
  std::string out;
  for (const Dimension& dim : shape.dim()) {
    if (!out.empty()) out += 'x';
    out += dim.has_dim_value() && dim.dim_value() >= 0 ? std::to_string(dim.dim_value()) : "1";
  }
  return out;
}

std::string_view type_kind(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kSequenceType:
      return "a sequence";
    case onnx::TypeProto::kMapType:
      return "a map";
    case onnx::TypeProto::kOptionalType:
      return "an optional";
    case onnx::TypeProto::kSparseTensorType:
      return "a sparse tensor";
    default:
      return "of no known kind";
  }
}

}  // namespace

Expected<TensorType> input_type(const onnx::ValueInfoProto& input, const Shape* given) {
  const std::string& name = input.name();
  if (!input.type().has_tensor_type())
    return make_error("input '{}' is {}; only tensor inputs are supported", name,
                      type_kind(input.type()));
  const onnx::TypeProto::Tensor& tensor = input.type().tensor_type();
  std::optional<DType> dtype = dtype_from_onnx(tensor.elem_type());
  if (!dtype) return unsupported_onnx_type(fmt::format("input '{}'", name), tensor.elem_type());
  TensorType type{*dtype, {}};
  if (!tensor.has_shape()) {
    if (given == nullptr)
      return make_error("input '{}' has no shape in the model; give it with --input-shape {}=AxBxC",
                        name, name);
    type.shape = *given;
  } else {
    const onnx::TensorShapeProto& shape = tensor.shape();
    if (given != nullptr && given->size() != static_cast<std::size_t>(shape.dim_size()))
      return make_error("--input-shape {}={} has {} dimension(s), but input '{}' has rank {} ({})",
                        name, to_string(*given), given->size(), name, shape.dim_size(),
                        model_shape(shape));
    for (int i = 0; i < shape.dim_size(); ++i) {
      const Dimension& dim = shape.dim(i);
      if (dim.has_dim_value()) {
        if (dim.dim_value() < 0)
          return make_error("input '{}' has a negative dimension {} (dimension {} of {})", name,
                            dim.dim_value(), i, model_shape(shape));
        if (given != nullptr && (*given)[static_cast<std::size_t>(i)] != dim.dim_value())
          return make_error(
              "--input-shape {}={} contradicts the model: dimension {} of input '{}' "
              "is {} ({})",
              name, to_string(*given), i, name, dim.dim_value(), model_shape(shape));
        type.shape.push_back(dim.dim_value());
      } else if (given != nullptr) {
        type.shape.push_back((*given)[static_cast<std::size_t>(i)]);
      } else {
        std::string what = dim.has_dim_param() && !dim.dim_param().empty()
                               ? fmt::format("symbolic dimension '{}'", dim.dim_param())
                               : std::string("an unknown dimension");
        return make_error(
            "input '{}' has {} (dimension {} of {}); give its size with "
            "--input-shape {}=AxBxC, e.g. --input-shape {}={}",
            name, what, i, model_shape(shape), name, name, example_shape(shape));
      }
    }
  }
  if (auto count = type.checked_num_elements(); !count)
    return count.error().with_context(fmt::format("input '{}'", name));
  return type;
}

}  // namespace uma::onnx_import
