// What the commands that take models and tensors share: loading a model from ONNX or
// graph IR text, --input-shape values, and tensor files (.npy, .pb).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/uma/context.h"

namespace uma::tool {

// Imports `path` when it ends in .onnx, else parses it as graph IR text; either way the
// module is verified. `input_shapes` are "name=AxBxC" strings, for ONNX models only.
Expected<std::unique_ptr<Module>> load_model(Context& context, const std::string& path,
                                             const std::vector<std::string>& input_shapes);

// Reads a tensor from a .npy file or a .pb file (a serialized ONNX TensorProto).
Expected<std::shared_ptr<Tensor>> read_tensor_file(const std::string& path);

}  // namespace uma::tool
