// ONNX TensorProto <-> host Tensor: initializers, Constant nodes, and the tensor files
// (.pb, one serialized TensorProto each) that ONNX's test data uses.
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "uma/graph/tensor.h"
#include "uma/support/error.h"

namespace uma {

// The uma dtype of an ONNX element type (TensorProto::DataType), or nullopt.
std::optional<DType> dtype_from_onnx(int onnx_type);
onnx::TensorProto::DataType dtype_to_onnx(DType dtype);
// An error naming `what` and its unsupported ONNX element type, and listing the supported ones.
Error unsupported_onnx_type(std::string_view what, int onnx_type);

// Converts a TensorProto. Messages read "<what>: ..." (what is e.g. "initializer 'w'").
// Sizes are checked before anything is allocated: the element count must fit, and the data
// (raw bytes, typed values or external bytes) must match it exactly.
//
// External data (data_location = EXTERNAL; keys location, offset, length) is read from
// `model_dir`: the location must be relative and, with symlinks resolved, stay inside that
// folder. An empty `model_dir` refuses external data.
//
// `raw_data`, when given, stands for the proto's raw_data field: bytes the importer left in
// the model's own bytes rather than parse them into the proto (see parse_model.h).
Expected<std::shared_ptr<Tensor>> tensor_from_onnx(
    const onnx::TensorProto& proto, std::string_view what, const std::string& model_dir,
    std::optional<std::string_view> raw_data = std::nullopt);

// A TensorProto holding `tensor` (raw little-endian bytes) named `name`.
onnx::TensorProto tensor_to_onnx(const Tensor& tensor, const std::string& name = "");

// Tensor files: one serialized TensorProto each, as in ONNX's test_data_set_N folders.
Expected<std::shared_ptr<Tensor>> read_onnx_tensor_file(const std::string& path);
Status write_onnx_tensor_file(const std::string& path, const Tensor& tensor,
                              const std::string& name = "");

}  // namespace uma
